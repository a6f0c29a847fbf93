# SPDX-License-Identifier: MIT OR Apache-2.0
# The sanitizer trees, as tests of this tree: each builds the whole project
# again with one compiler and one sanitizer set and runs the tests labelled
# "unit", "stress", "property" or "example" there (unit, stress, property, examples). One ctest run, one
# summary. Relacy suites and the benchmark are not built in these trees.
find_program(BCAST_CLANGXX NAMES clang++-14 clang++)

# ctest label regex of what runs under the sanitizers.
set(BCAST_SANITIZE_LABELS "unit|stress|property|example")

function(bcast_nested_suite name compiler sanitize)
    add_test(NAME ${name}
        COMMAND ${CMAKE_CTEST_COMMAND}
            --build-and-test ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/nested/${name}
            --build-generator ${CMAKE_GENERATOR}
            --build-noclean
            --build-options
                -DCMAKE_CXX_COMPILER=${compiler}
                -DCMAKE_BUILD_TYPE=RelWithDebInfo
                -DBCAST_SANITIZE=${sanitize}
                -DBCAST_BUILD_BENCH=OFF
                -DBCAST_NESTED_SUITES=OFF
                -DBCAST_WERROR=${BCAST_WERROR} # the ci preset's ON reaches the sanitizer trees
            --test-command ${CMAKE_CTEST_COMMAND} -L "${BCAST_SANITIZE_LABELS}" --output-on-failure --timeout 600)
    set_tests_properties(${name} PROPERTIES LABELS "nested" TIMEOUT 1800)
endfunction()

bcast_nested_suite(nested.tsan_gcc ${CMAKE_CXX_COMPILER} thread)
bcast_nested_suite(nested.asan_ubsan_gcc ${CMAKE_CXX_COMPILER} "address,undefined")
if(BCAST_CLANGXX)
    bcast_nested_suite(nested.tsan_clang ${BCAST_CLANGXX} thread)
else()
    message(WARNING "clang++ not found: the clang TSan suite is skipped")
endif()
