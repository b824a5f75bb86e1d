# Driver of the package tests (cmake -P; see CMakeLists.txt here for the two modes).
# Inputs (-D): MODE (install | subdirectory), SOURCE_DIR, CONSUMER_DIR, WORK_DIR, PROBE,
# GENERATOR, CXX_COMPILER, LAUNCHER (may be empty), SANITIZE_FLAGS (may be empty);
# install mode also BUILD_DIR, CONFIG, LIBDIR, LIBRARY_TYPE, PKG_CONFIG, VERSION.
cmake_minimum_required(VERSION 3.25)

function(run_checked what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(JOIN " " cmd ${ARGN})
    message(FATAL_ERROR "${what} failed (${rc}):\n  ${cmd}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# The line "terrane-consumer <hash>" printed by a consumer binary.
function(consumer_hash out_var what)
  run_checked("${what}" ${ARGN})
  if(NOT run_output MATCHES "terrane-consumer ([0-9a-f]+)")
    message(FATAL_ERROR "${what} printed no hash:\n${run_output}")
  endif()
  set(${out_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

function(expect_hash what actual)
  if(NOT actual STREQUAL expected_hash)
    message(FATAL_ERROR "${what}: hash ${actual}, the in-tree library gives ${expected_hash}")
  endif()
  message(STATUS "${what}: ${actual} (as in-tree)")
endfunction()

set(common_configure_args -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
if(LAUNCHER)
  list(APPEND common_configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
if(SANITIZE_FLAGS)
  list(APPEND common_configure_args "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_FLAGS}" "-DCMAKE_SHARED_LINKER_FLAGS=${SANITIZE_FLAGS}")
endif()

# Where the CPU has FMA, the consumers are compiled with -mfma: GCC then contracts the inline
# floating-point code of terrane's headers unless -ffp-contract=off comes with the package, and
# the consumer's own check (main.cpp) fails. The library itself is not rebuilt with it.
set(consumer_flags "")
cmake_host_system_information(RESULT platform QUERY OS_PLATFORM)
if(platform MATCHES "^(x86_64|AMD64|amd64)$" AND EXISTS /proc/cpuinfo)
  file(STRINGS /proc/cpuinfo cpu_flags REGEX "^flags" LIMIT_COUNT 1)
  if(cpu_flags MATCHES " fma( |$)")
    set(consumer_flags -mfma)
  endif()
endif()
message(STATUS "consumer flags: ${consumer_flags}")

consumer_hash(expected_hash "the in-tree probe" ${PROBE})
message(STATUS "in-tree library: ${expected_hash}")

if(MODE STREQUAL "install")
  set(prefix ${WORK_DIR}/prefix)
  file(REMOVE_RECURSE ${prefix})
  unset(ENV{DESTDIR})  # the scratch prefix, nowhere else
  run_checked("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
    --config ${CONFIG})
  foreach(f IN ITEMS include/terrane/core.hpp include/terrane/graph.hpp
      ${LIBDIR}/cmake/terrane/terrane-config.cmake
      ${LIBDIR}/cmake/terrane/terrane-config-version.cmake
      ${LIBDIR}/cmake/terrane/terrane-targets.cmake ${LIBDIR}/pkgconfig/terrane.pc)
    if(NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "cmake --install did not install ${f}")
    endif()
  endforeach()
  if(LIBRARY_TYPE STREQUAL "SHARED_LIBRARY")
    set(library ${prefix}/${LIBDIR}/libterrane.so)
  else()
    set(library ${prefix}/${LIBDIR}/libterrane.a)
  endif()
  if(NOT EXISTS ${library})
    message(FATAL_ERROR "cmake --install did not install ${library}")
  endif()

  # 1. CMake: find_package(terrane) from the prefix, with the build type of this tree.
  set(build ${WORK_DIR}/cmake-consumer)
  file(REMOVE_RECURSE ${build})
  run_checked("configuring the find_package consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR}
    -B ${build} ${common_configure_args} -DCMAKE_BUILD_TYPE=${CONFIG}
    -DTERRANE_CONSUMER_MODE=package -DCMAKE_PREFIX_PATH=${prefix}
    -Dterrane_DIR=${prefix}/${LIBDIR}/cmake/terrane
    -DTERRANE_CONSUMER_EXPECT_TYPE=${LIBRARY_TYPE}
    "-DTERRANE_CONSUMER_CXX_FLAGS=${consumer_flags}")
  run_checked("building the find_package consumer" ${CMAKE_COMMAND} --build ${build})
  consumer_hash(hash "find_package consumer" ${build}/terrane_consumer)
  expect_hash("find_package(terrane) consumer" "${hash}")

  # 2. pkg-config: one compiler line with the flags terrane.pc gives for static linking.
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  run_checked("pkg-config --modversion terrane" ${PKG_CONFIG} --modversion terrane)
  string(STRIP "${run_output}" pc_version)
  if(NOT pc_version STREQUAL VERSION)
    message(FATAL_ERROR "terrane.pc says version ${pc_version}, the project is ${VERSION}")
  endif()
  run_checked("pkg-config --cflags --libs --static terrane"
    ${PKG_CONFIG} --cflags --libs --static terrane)
  string(STRIP "${run_output}" pc_flags)
  message(STATUS "pkg-config --cflags --libs --static terrane: ${pc_flags}")
  if(NOT pc_flags MATCHES "-ffp-contract=off")
    message(FATAL_ERROR "terrane.pc does not pass -ffp-contract=off")
  endif()
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  separate_arguments(sanitize UNIX_COMMAND "${SANITIZE_FLAGS}")
  set(pc_build ${WORK_DIR}/pkg-config-consumer)
  file(REMOVE_RECURSE ${pc_build})
  file(MAKE_DIRECTORY ${pc_build})
  run_checked("compiling the pkg-config consumer" ${LAUNCHER} ${CXX_COMPILER} -std=c++20 -O2
    ${consumer_flags} ${sanitize} ${CONSUMER_DIR}/main.cpp ${pc_flags}
    -o ${pc_build}/terrane_consumer)
  # A shared libterrane.so is found at run time through the library path (no rpath here).
  set(ENV{LD_LIBRARY_PATH} "${prefix}/${LIBDIR}:$ENV{LD_LIBRARY_PATH}")
  consumer_hash(hash "pkg-config consumer" ${pc_build}/terrane_consumer)
  expect_hash("pkg-config consumer" "${hash}")

  # 3. The C API: with the static C++ library, libterrane.so (terrane.h's functions only) and
  # terrane-c.pc are installed beside it; examples/hello_terrane.c builds from them as C99 and
  # runs.
  if(NOT LIBRARY_TYPE STREQUAL "SHARED_LIBRARY")
    foreach(f IN ITEMS include/terrane/terrane.h ${LIBDIR}/libterrane.so
        ${LIBDIR}/pkgconfig/terrane-c.pc)
      if(NOT EXISTS ${prefix}/${f})
        message(FATAL_ERROR "cmake --install did not install ${f}")
      endif()
    endforeach()
    find_program(c_compiler NAMES cc gcc REQUIRED)
    run_checked("pkg-config --cflags --libs terrane-c" ${PKG_CONFIG} --cflags --libs terrane-c)
    string(STRIP "${run_output}" c_flags)
    separate_arguments(c_flags UNIX_COMMAND "${c_flags}")
    run_checked("compiling examples/hello_terrane.c against the installed C library"
      ${c_compiler} -std=c99 -Wall -Werror ${sanitize} ${SOURCE_DIR}/examples/hello_terrane.c
      ${c_flags} -o ${pc_build}/hello_terrane)
    run_checked("running hello_terrane" ${pc_build}/hello_terrane)
    if(NOT run_output MATCHES "view complete after")
      message(FATAL_ERROR "hello_terrane printed:\n${run_output}")
    endif()
    message(STATUS "C API from the prefix (terrane-c.pc): ${run_output}")
  endif()
elseif(MODE STREQUAL "subdirectory")
  # Configured afresh each time (the cache would hide a changed default); with ccache the
  # library's objects come back from the cache.
  set(build ${WORK_DIR}/build)
  file(REMOVE_RECURSE ${build})
  run_checked("configuring the add_subdirectory consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR}
    -B ${build} ${common_configure_args} -DTERRANE_CONSUMER_MODE=subdirectory
    -DTERRANE_SOURCE_DIR=${SOURCE_DIR} -DBUILD_SHARED_LIBS=ON -DCMAKE_BUILD_TYPE=
    -DTERRANE_CONSUMER_EXPECT_TYPE=SHARED_LIBRARY
    "-DTERRANE_CONSUMER_CXX_FLAGS=${consumer_flags}")
  run_checked("building the add_subdirectory consumer" ${CMAKE_COMMAND} --build ${build})
  consumer_hash(hash "add_subdirectory consumer" ${build}/terrane_consumer)
  expect_hash("add_subdirectory(terrane) consumer (shared library)" "${hash}")
else()
  message(FATAL_ERROR "MODE must be install or subdirectory")
endif()
