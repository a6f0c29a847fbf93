# SPDX-License-Identifier: MIT OR Apache-2.0
# Test helpers shared by every test folder.
#
# bcast_stdlib: the C++ standard library this tree compiles against,
#   "libstdc++" or "libc++" (a compile check of the tree's own flags, so
#   -stdlib=libc++ in CMAKE_CXX_FLAGS is seen). -DBCAST_EXPECT_STDLIB=libc++
#   (the libcxx preset and the nested libc++ tree) makes any other result a
#   configure error, and adds the test stdlib.expected, so such a tree cannot
#   fall back to libstdc++ unnoticed.
# bcast_sanitized: whether this tree is a sanitizer tree (BCAST_SANITIZE set).
# bcast_have_gtest: whether GoogleTest was found; bcast_gtest() needs it, so
#   each folder that calls it is skipped (with a status line) without it.
#   With libc++, GoogleTest is built from its sources (Debian's libgtest-dev
#   ships them in /usr/src/googletest; BCAST_GTEST_SOURCE_DIR), because its
#   prebuilt libraries are built against libstdc++ and do not link here.
#   For the same reason RapidCheck (Debian ships only a libstdc++ build of it)
#   is not looked for with libc++: the property tests are skipped, with a line,
#   unless BCAST_RAPIDCHECK_SOURCE_DIR names its sources to build here.
# bcast_test_options: the warning set (-Werror with BCAST_WERROR) and the
#   debug invariant checks, for every test, example and tool binary.
# bcast_gtest(NAME <target> SOURCES ... [LIBS ...] [LABELS ...])
#   A GoogleTest executable whose tests are registered one by one, with the
#   channel's debug invariant checks on (NDEBUG removed).
include(CheckCXXSourceCompiles)
# The two checks' cached answers hold for one compiler and one set of flags.
if(NOT "${CMAKE_CXX_COMPILER} ${CMAKE_CXX_FLAGS}" STREQUAL "${BCAST_STDLIB_CHECKED_FOR}")
    unset(BCAST_STDLIB_IS_LIBCXX CACHE)
    unset(BCAST_STDLIB_HAS_STOP_TOKEN CACHE)
    set(BCAST_STDLIB_CHECKED_FOR "${CMAKE_CXX_COMPILER} ${CMAKE_CXX_FLAGS}" CACHE INTERNAL "")
endif()
set(CMAKE_REQUIRED_QUIET ON)
check_cxx_source_compiles([[
#include <version>
#ifndef _LIBCPP_VERSION
#error not libc++
#endif
int main() { return 0; }]] BCAST_STDLIB_IS_LIBCXX)
if(BCAST_STDLIB_IS_LIBCXX)
    set(bcast_stdlib "libc++")
else()
    set(bcast_stdlib "libstdc++")
endif()
set(BCAST_EXPECT_STDLIB "" CACHE STRING "If set ('libc++' or 'libstdc++'), configuring fails unless the tree uses this standard library")
if(BCAST_EXPECT_STDLIB AND NOT BCAST_EXPECT_STDLIB STREQUAL bcast_stdlib)
    message(FATAL_ERROR "bcast: BCAST_EXPECT_STDLIB is ${BCAST_EXPECT_STDLIB}, but ${CMAKE_CXX_COMPILER} with "
        "CMAKE_CXX_FLAGS='${CMAKE_CXX_FLAGS}' compiles against ${bcast_stdlib}")
endif()

# bcast's async API takes std::stop_token. libc++ has it from version 17, and
# before version 20 only with -fexperimental-library; libc++ 14 to 16 lack it.
set(CMAKE_CXX_STANDARD 20) # for the check only (try_compile honours it)
check_cxx_source_compiles([[
#include <stop_token>
int main() { std::stop_source s; std::stop_callback cb(s.get_token(), [] {}); return s.request_stop() ? 0 : 1; }]]
    BCAST_STDLIB_HAS_STOP_TOKEN)
unset(CMAKE_CXX_STANDARD)
unset(CMAKE_REQUIRED_QUIET)
if(NOT BCAST_STDLIB_HAS_STOP_TOKEN)
    message(FATAL_ERROR "bcast: ${bcast_stdlib} here has no usable <stop_token> (std::stop_source, "
        "std::stop_callback), which bcast's async API needs. libc++ 17 to 19 need -fexperimental-library "
        "in CMAKE_CXX_FLAGS; libc++ 14 to 16 do not have it (see the libcxx preset). Or the compiler "
        "rejects CMAKE_CXX_FLAGS: CMakeFiles/CMakeError.log has the check's output.")
endif()

if(bcast_stdlib STREQUAL "libc++")
    set(BCAST_GTEST_SOURCE_DIR /usr/src/googletest CACHE PATH "GoogleTest's sources, built in a libc++ tree")
    if(EXISTS ${BCAST_GTEST_SOURCE_DIR}/CMakeLists.txt)
        set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
        # SYSTEM: our -Wall -Wextra -Wpedantic -Werror do not apply to GoogleTest's headers.
        add_subdirectory(${BCAST_GTEST_SOURCE_DIR} ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL SYSTEM)
        foreach(lib gtest gtest_main gmock gmock_main)
            if(TARGET ${lib} AND NOT TARGET GTest::${lib})
                add_library(GTest::${lib} ALIAS ${lib})
            endif()
        endforeach()
        set(bcast_have_gtest ON)
        include(GoogleTest)
        message(STATUS "bcast: libc++ (${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}): GoogleTest built from ${BCAST_GTEST_SOURCE_DIR}")
    else()
        set(bcast_have_gtest OFF)
        message(STATUS "bcast: libc++ needs GoogleTest's sources (BCAST_GTEST_SOURCE_DIR=${BCAST_GTEST_SOURCE_DIR}; Debian: libgtest-dev)")
    endif()
    # Debian's RapidCheck is a libstdc++ build; with its sources (the ones Debian
    # builds from: `apt-get source rapidcheck`) it is built here instead.
    set(BCAST_RAPIDCHECK_SOURCE_DIR "" CACHE PATH "RapidCheck's sources, built in a libc++ tree; empty: property tests skipped there")
    if(BCAST_RAPIDCHECK_SOURCE_DIR)
        if(NOT EXISTS ${BCAST_RAPIDCHECK_SOURCE_DIR}/CMakeLists.txt)
            message(FATAL_ERROR "bcast: BCAST_RAPIDCHECK_SOURCE_DIR=${BCAST_RAPIDCHECK_SOURCE_DIR} has no CMakeLists.txt")
        endif()
        add_subdirectory(${BCAST_RAPIDCHECK_SOURCE_DIR} ${CMAKE_BINARY_DIR}/rapidcheck EXCLUDE_FROM_ALL SYSTEM)
        target_include_directories(rapidcheck SYSTEM INTERFACE ${BCAST_RAPIDCHECK_SOURCE_DIR}/extras/gtest/include)
        # find_package(rapidcheck) in property_tests/ then finds this tree's target.
        file(WRITE ${CMAKE_BINARY_DIR}/rapidcheck-from-source/rapidcheckConfig.cmake
            "# The target rapidcheck is built in this tree from BCAST_RAPIDCHECK_SOURCE_DIR.\n")
        set(rapidcheck_DIR ${CMAKE_BINARY_DIR}/rapidcheck-from-source CACHE PATH "" FORCE)
        message(STATUS "bcast: libc++: RapidCheck built from ${BCAST_RAPIDCHECK_SOURCE_DIR}")
    else()
        # find_package(rapidcheck) in property_tests/ and model_tests/mutants/ then finds nothing.
        set(CMAKE_DISABLE_FIND_PACKAGE_rapidcheck ON)
        message(STATUS "bcast: libc++: Debian's RapidCheck is a static library built against libstdc++ and "
            "does not link here; the property tests are skipped (BCAST_RAPIDCHECK_SOURCE_DIR builds it from source)")
    endif()
else()
    find_package(GTest QUIET)
    if(GTest_FOUND)
        set(bcast_have_gtest ON)
        include(GoogleTest)
    else()
        set(bcast_have_gtest OFF)
    endif()
endif()

if(BCAST_SANITIZE)
    set(bcast_sanitized ON)
    string(TOUPPER "${CMAKE_BUILD_TYPE}" bcast_build_type)
    add_compile_options(-fsanitize=${BCAST_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    # Line tables at least, so reports name file:line; a build type's own -g
    # level is kept (the nested trees build with -O1 -g1: bcast_nested_suites.cmake).
    if(NOT "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${bcast_build_type}}" MATCHES "(^| )-g")
        add_compile_options(-g1)
    endif()
    add_link_options(-fsanitize=${BCAST_SANITIZE})
else()
    set(bcast_sanitized OFF)
endif()

# Debug invariant checks and asserts in every test binary, whatever the build type.
add_library(bcast_test_options INTERFACE)
target_compile_options(bcast_test_options INTERFACE -UNDEBUG -Wall -Wextra -Wpedantic $<$<BOOL:${BCAST_WERROR}>:-Werror>)

function(bcast_gtest)
    cmake_parse_arguments(arg "" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
    add_executable(${arg_NAME} ${arg_SOURCES})
    target_link_libraries(${arg_NAME} PRIVATE bcast::bcast bcast_test_options GTest::gtest_main ${arg_LIBS})
    gtest_discover_tests(${arg_NAME}
        TEST_PREFIX "${arg_NAME}."
        DISCOVERY_TIMEOUT 60
        PROPERTIES LABELS ${arg_LABELS}) # one label: a list does not survive discovery
endfunction()

# The tree's standard library, checked again at run time by a binary that
# includes all of bcast: it prints the library and its version and fails
# unless it is BCAST_EXPECT_STDLIB.
if(BCAST_EXPECT_STDLIB AND BCAST_BUILD_TESTS)
    add_executable(bcast_stdlib_check ${CMAKE_CURRENT_LIST_DIR}/../stdlib_check.cpp)
    target_link_libraries(bcast_stdlib_check PRIVATE bcast::bcast bcast_test_options)
    add_test(NAME stdlib.expected COMMAND bcast_stdlib_check ${BCAST_EXPECT_STDLIB})
    set_tests_properties(stdlib.expected PROPERTIES LABELS "unit" TIMEOUT 30)
endif()
