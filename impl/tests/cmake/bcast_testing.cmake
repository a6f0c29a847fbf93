# SPDX-License-Identifier: MIT OR Apache-2.0
# Test helpers shared by every test folder.
#
# bcast_sanitized: whether this tree is a sanitizer tree (BCAST_SANITIZE set).
# bcast_have_gtest: whether GoogleTest was found; bcast_gtest() needs it, so
#   each folder that calls it is skipped (with a status line) without it.
# bcast_test_options: the warning set (-Werror with BCAST_WERROR) and the
#   debug invariant checks, for every test, example and tool binary.
# bcast_gtest(NAME <target> SOURCES ... [LIBS ...] [LABELS ...])
#   A GoogleTest executable whose tests are registered one by one, with the
#   channel's debug invariant checks on (NDEBUG removed).
find_package(GTest QUIET)
if(GTest_FOUND)
    set(bcast_have_gtest ON)
    include(GoogleTest)
else()
    set(bcast_have_gtest OFF)
endif()

if(BCAST_SANITIZE)
    set(bcast_sanitized ON)
    add_compile_options(-fsanitize=${BCAST_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all -g)
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
