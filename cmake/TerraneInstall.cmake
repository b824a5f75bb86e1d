# Install rules and the exported package (included from the top CMakeLists.txt when
# TERRANE_INSTALL is on):
#   <prefix>/lib/libterrane.a (or .so)            the library
#   <prefix>/lib/libterrane.so                     the C API (terrane.h) with a static library
#   <prefix>/include/terrane/*.hpp                 the public headers
#   <prefix>/lib/cmake/terrane/                    find_package(terrane) -> terrane::terrane
#   <prefix>/lib/pkgconfig/terrane.pc              pkg-config, correct for static linking
#   <prefix>/lib/pkgconfig/terrane-c.pc            pkg-config for the C API (libterrane.so)
#   <prefix>/bin/terrane                           the CLI, when it is built
# The layout follows GNUInstallDirs; the files are relocatable (cmake --install --prefix works).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TERRANE_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/terrane)

install(TARGETS terrane EXPORT terrane-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The C API's shared library (src/capi): libterrane.so beside the static libterrane.a.
get_target_property(_terrane_c_type terrane_c TYPE)
if(_terrane_c_type STREQUAL "SHARED_LIBRARY")
  install(TARGETS terrane_c EXPORT terrane-targets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  # With both in one directory, -lterrane would pick the shared C library: terrane.pc names the
  # static archive itself.
  set(TERRANE_PC_LIBS "-l:libterrane.a")
else()
  set(TERRANE_PC_LIBS "-lterrane")
endif()
# include/terrane is the public API by definition (internal headers live next to their .cpp in
# src/), so the whole directory is installed and a new module's header needs no extra step.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/terrane
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")

install(EXPORT terrane-targets
  NAMESPACE terrane::
  FILE terrane-targets.cmake
  DESTINATION ${TERRANE_CMAKE_INSTALL_DIR})
get_target_property(TERRANE_LIBRARY_TYPE terrane TYPE)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/terrane-config.cmake.in
  ${PROJECT_BINARY_DIR}/terrane-config.cmake
  INSTALL_DESTINATION ${TERRANE_CMAKE_INSTALL_DIR}
  NO_SET_AND_CHECK_MACRO NO_CHECK_REQUIRED_COMPONENTS_MACRO)
# 0.x: minor versions may break the API, so a request for 0.1 accepts 0.1.* only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/terrane-config-version.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/terrane-config.cmake
  ${PROJECT_BINARY_DIR}/terrane-config-version.cmake ${CMAKE_CURRENT_LIST_DIR}/TerraneRecast.cmake
  DESTINATION ${TERRANE_CMAKE_INSTALL_DIR})

# terrane.pc: the prefix is found from the file's own place (${pcfiledir}), so the file stays
# right wherever the tree is installed.
set(_terrane_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH TERRANE_PC_PREFIX_FROM_PCFILEDIR /_p/${_terrane_pc_dir} /_p)
string(REGEX REPLACE "/$" "" TERRANE_PC_PREFIX_FROM_PCFILEDIR "${TERRANE_PC_PREFIX_FROM_PCFILEDIR}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/terrane.pc.in ${PROJECT_BINARY_DIR}/terrane.pc @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/terrane-c.pc.in ${PROJECT_BINARY_DIR}/terrane-c.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/terrane.pc ${PROJECT_BINARY_DIR}/terrane-c.pc
  DESTINATION ${_terrane_pc_dir})

if(TARGET terrane_cli)
  install(TARGETS terrane_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  if(BUILD_SHARED_LIBS)
    file(RELATIVE_PATH _terrane_bin_to_lib /_p/${CMAKE_INSTALL_BINDIR} /_p/${CMAKE_INSTALL_LIBDIR})
    set_target_properties(terrane_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${_terrane_bin_to_lib}")
  endif()
endif()
