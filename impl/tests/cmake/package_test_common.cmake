# SPDX-License-Identifier: MIT OR Apache-2.0
# Helpers for run_package_test.cmake and run_deb_test.cmake (script mode).
# Inputs (bcast_package_test.cmake): BCAST_SOURCE_DIR, BCAST_BINARY_DIR,
# BCAST_VERSION, CONSUMER_SOURCE_DIR, CXX_COMPILER, GENERATOR, GIT_EXECUTABLE,
# PKG_CONFIG, DPKG_DEB, LINTIAN, CPACK, DOC_DIR, PKGCONFIG_DIR, CMAKE_DIR, PYTHON, CASE,
# WORK_DIR, DEB_DIR.
cmake_minimum_required(VERSION 3.25)

# run(<command>...): runs it, fails the test with the command line and its output if it fails.
function(run)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT status EQUAL 0)
        list(JOIN ARGN " " line)
        message(FATAL_ERROR "${CASE}: failed (${status}): ${line}\n${out}")
    endif()
endfunction()

# capture(<var> <command>...): runs it and sets <var> to its stripped stdout.
function(capture var)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err
        OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT status EQUAL 0)
        list(JOIN ARGN " " line)
        message(FATAL_ERROR "${CASE}: failed (${status}): ${line}\n${out}${err}")
    endif()
    set(${var} "${out}" PARENT_SCOPE)
endfunction()

# cmake_consumer(<build dir> <configure args>...): configures, builds and runs examples/consumer.
function(cmake_consumer build)
    run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${build} -G ${GENERATOR}
        -DCMAKE_CXX_COMPILER=${CXX_COMPILER} ${ARGN})
    run(${CMAKE_COMMAND} --build ${build})
    capture(said ${build}/consumer)
    message(STATUS "${CASE}: ${said}")
endfunction()

# expect_bcast_dir(<build dir> <dir>): find_package(bcast) in that consumer build used <dir>.
function(expect_bcast_dir build dir)
    file(STRINGS ${build}/CMakeCache.txt found REGEX "^bcast_DIR:")
    if(NOT found STREQUAL "bcast_DIR:PATH=${dir}")
        message(FATAL_ERROR "${CASE}: find_package(bcast) used '${found}', not ${dir}")
    endif()
endfunction()

# pkg_config_consumer(<pkg-config dir> <prefix>): compiles examples/consumer/main.cpp with one
# compiler command line and `pkg-config --cflags --libs bcast`, pkg-config searching only
# <pkg-config dir>; the include directory it gives must be under <prefix>, hold bcast/bcast.hpp,
# and the version it gives must be the headers' (main.cpp checks that).
function(pkg_config_consumer pc_dir prefix)
    if(NOT PKG_CONFIG)
        message(FATAL_ERROR "${CASE}: pkg-config not found")
    endif()
    # LIBDIR, not PATH: the default search path (/usr/share/pkgconfig, ...) is left out.
    set(ENV{PKG_CONFIG_LIBDIR} ${pc_dir})
    unset(ENV{PKG_CONFIG_PATH})
    unset(ENV{PKG_CONFIG_SYSROOT_DIR})
    run(${PKG_CONFIG} --validate bcast)
    capture(version ${PKG_CONFIG} --modversion bcast)
    if(NOT version STREQUAL BCAST_VERSION)
        message(FATAL_ERROR "${CASE}: pkg-config --modversion bcast says '${version}', the project is ${BCAST_VERSION}")
    endif()
    capture(includedir ${PKG_CONFIG} --variable=includedir bcast)
    file(REAL_PATH ${includedir} includedir)
    file(REAL_PATH ${prefix} prefix)
    string(FIND "${includedir}/" "${prefix}/" at)
    if(NOT at EQUAL 0 OR NOT EXISTS ${includedir}/bcast/bcast.hpp)
        message(FATAL_ERROR "${CASE}: bcast.pc's includedir is ${includedir}: not the one under ${prefix} that holds bcast/bcast.hpp")
    endif()
    capture(flags ${PKG_CONFIG} --cflags --libs bcast)
    message(STATUS "${CASE}: pkg-config --cflags --libs bcast: ${flags}")
    separate_arguments(flags UNIX_COMMAND "${flags}")
    file(MAKE_DIRECTORY ${WORK_DIR}/pkg-config)
    run(${CXX_COMPILER} -std=c++20 ${CONSUMER_SOURCE_DIR}/main.cpp ${flags}
        "-DBCAST_CONSUMER_EXPECTED_VERSION=\"${version}\"" -o ${WORK_DIR}/pkg-config/consumer)
    capture(said ${WORK_DIR}/pkg-config/consumer)
    message(STATUS "${CASE}: ${said}")
endfunction()
