# Recast/Detour/DetourCrowd (the nav module) as imported targets terrane::Recast,
# terrane::Detour and terrane::DetourCrowd. Debian's librecast-dev (1.5.1) ships neither a CMake
# config nor a pkg-config file: headers in <include>/recastnavigation, shared libraries
# libRecast, libDetour, libDetourCrowd. Included by the top CMakeLists.txt and, for consumers of
# the static library, by terrane-config.cmake (installed next to it).
if(NOT TARGET terrane::Recast)
  find_path(TERRANE_RECAST_INCLUDE_DIR Recast.h PATH_SUFFIXES recastnavigation)
  find_library(TERRANE_RECAST_LIBRARY Recast)
  find_library(TERRANE_DETOUR_LIBRARY Detour)
  find_library(TERRANE_DETOUR_CROWD_LIBRARY DetourCrowd)
  if(TERRANE_RECAST_INCLUDE_DIR AND TERRANE_RECAST_LIBRARY AND TERRANE_DETOUR_LIBRARY
     AND TERRANE_DETOUR_CROWD_LIBRARY)
    # No include directory: terrane includes <recastnavigation/X.h> (the headers include each
    # other by quoted names, found next to themselves), so the imported targets add no flags.
    foreach(_name Recast Detour DetourCrowd)
      add_library(terrane::${_name} UNKNOWN IMPORTED)
    endforeach()
    set_target_properties(terrane::Recast PROPERTIES IMPORTED_LOCATION "${TERRANE_RECAST_LIBRARY}")
    set_target_properties(terrane::Detour PROPERTIES IMPORTED_LOCATION "${TERRANE_DETOUR_LIBRARY}")
    set_target_properties(terrane::DetourCrowd PROPERTIES
      IMPORTED_LOCATION "${TERRANE_DETOUR_CROWD_LIBRARY}" INTERFACE_LINK_LIBRARIES terrane::Detour)
    set(TERRANE_RECAST_FOUND TRUE)
  else()
    set(TERRANE_RECAST_FOUND FALSE)
  endif()
endif()
