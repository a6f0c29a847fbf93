# SPDX-License-Identifier: MIT OR Apache-2.0
# The nested trees, as tests of this tree: each builds the project again with
# one compiler, one standard library and one sanitizer set, and runs the tests
# labelled "unit", "stress", "property" or "example" there. One ctest run, one
# summary. Relacy suites and the benchmark are not built in these trees.
#
#   nested.tsan_gcc        g++, libstdc++, ThreadSanitizer
#   nested.asan_ubsan_gcc  g++, libstdc++, AddressSanitizer + UBSan
#   nested.tsan_clang      clang++-14, libstdc++, ThreadSanitizer: the clang 14 build
#                          of the unit, stress, property and example tests (this tree
#                          is the plain g++ one, so no plain clang tree is added)
#   nested.libcxx_clang    clang++-19, libc++ 19 (Debian: clang-19 libc++-19-dev
#                          libc++abi-19-dev), Debug, no sanitizer: libc++'s debug
#                          hardening mode checks container accesses and library
#                          preconditions instead. Debug, because this tree checks the
#                          standard library (the others check optimised code) and -O0
#                          builds in a quarter of the time. Not libc++ 14: it has no
#                          <stop_token>, which bcast's async API takes; libc++ 17 to
#                          19 have it behind -fexperimental-library. GoogleTest is
#                          built from its sources there; the RapidCheck property tests
#                          are skipped (Debian ships RapidCheck built against libstdc++
#                          only) unless -DBCAST_RAPIDCHECK_SOURCE_DIR=<its sources> on
#                          this tree has RapidCheck built there (2000 programs a
#                          property). The tree must be libc++ (BCAST_EXPECT_STDLIB,
#                          the test stdlib.expected).
find_program(BCAST_CLANGXX NAMES clang++-14 clang++)
find_program(BCAST_LIBCXX_CXX NAMES clang++-19)

# ctest label regex of what runs in the nested trees.
set(BCAST_SANITIZE_LABELS "unit|stress|property|example")

# The sanitizer trees build at -O1 with line tables only (-g1): what the
# sanitizers' own documentation recommends, and it halves their build, which is
# most of the suite's time (spec/tests/conformance_tests.cpp on 2 cores, g++ 12:
# ASan+UBSan 63 s at -O2 -g, 35 s at -O1 -g1; TSan 27 s and 13 s). Reports still
# name file:line. This tree's own tests run the -O2 build (RelWithDebInfo).
set(BCAST_NESTED_SANITIZER_FLAGS "-O1 -g1 -DNDEBUG")

# Each tree runs its tests in parallel too: without -j the last tree to finish
# would leave the other core idle.
cmake_host_system_information(RESULT bcast_nested_test_jobs QUERY NUMBER_OF_LOGICAL_CORES)

# bcast_nested_suite(<name> <compiler> <sanitize> <ctest label regex> [<cmake option>...])
# The extra options come last, so one of them overrides a default above (the last -D wins).
function(bcast_nested_suite name compiler sanitize labels)
    set(optimisation "")
    if(sanitize)
        set(flags "${BCAST_NESTED_SANITIZER_FLAGS}")
        if(compiler STREQUAL CMAKE_CXX_COMPILER AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
            # g++ 12 at -O1 reports -Wmaybe-uninitialized falsely inside std::optional
            # and Asio's use_future (its headers, inlined into examples/asio_adapter.cpp):
            # printed, not an error, here; an error in this tree (-O2), where it is exact.
            string(APPEND flags " -Wno-error=maybe-uninitialized")
        endif()
        set(optimisation "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=${flags}")
    endif()
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
                -DBCAST_WERROR=${BCAST_WERROR} # the ci preset's ON reaches the nested trees
                # Only what the labels run is built: no Relacy, mutants, fuzzer,
                # course, docs, style or install rules (this tree runs those).
                -DBCAST_BUILD_MODEL_TESTS=OFF -DBCAST_BUILD_FUZZ=OFF -DBCAST_BUILD_COURSE=OFF
                -DBCAST_BUILD_DOCS=OFF -DBCAST_BUILD_STYLE_CHECKS=OFF -DBCAST_INSTALL=OFF
                ${optimisation}
                ${ARGN}
            --test-command ${CMAKE_CTEST_COMMAND} -L "${labels}" --output-on-failure --timeout 600
                -j ${bcast_nested_test_jobs})
    # COST: ctest starts the most expensive tests first (a fresh clone has no
    # timing history), so the short ones fill the cores at the end.
    set_tests_properties(${name} PROPERTIES LABELS "nested" TIMEOUT 1800 COST 1000)
endfunction()

# TSan cannot report a race on one thread: the TSan trees leave out the
# single-threaded tests (BCAST_SINGLE_THREADED_TESTS: spec/tests, the property
# binaries); the ASan+UBSan and libc++ trees run them.
bcast_nested_suite(nested.tsan_gcc ${CMAKE_CXX_COMPILER} thread "${BCAST_SANITIZE_LABELS}"
    -DBCAST_SINGLE_THREADED_TESTS=OFF)
bcast_nested_suite(nested.asan_ubsan_gcc ${CMAKE_CXX_COMPILER} "address,undefined" "${BCAST_SANITIZE_LABELS}")
if(BCAST_CLANGXX)
    # clang's TSan instruments atomics and fences its own way, which matters
    # where threads really run: the stress tests and the recorded histories
    # (label "stress"). The unit and example tests run under TSan in the g++
    # tree; here they would cost a second build of each (about 400 s of the
    # suite). clang 14 still compiles all of spec/traces, which this tree builds.
    bcast_nested_suite(nested.tsan_clang ${BCAST_CLANGXX} thread "stress"
        -DBCAST_BUILD_TESTS=OFF -DBCAST_BUILD_EXAMPLES=OFF -DBCAST_SINGLE_THREADED_TESTS=OFF)
else()
    message(WARNING "clang++ not found: the clang TSan suite is skipped")
endif()
if(BCAST_LIBCXX_CXX)
    # CMAKE_CXX_FLAGS reaches the link line too (-lc++, -lc++experimental).
    bcast_nested_suite(nested.libcxx_clang ${BCAST_LIBCXX_CXX} "" "${BCAST_SANITIZE_LABELS}" -DCMAKE_BUILD_TYPE=Debug
        "-DCMAKE_CXX_FLAGS=-stdlib=libc++ -fexperimental-library -D_LIBCPP_HARDENING_MODE=_LIBCPP_HARDENING_MODE_DEBUG"
        -DBCAST_EXPECT_STDLIB=libc++
        # Always passed, so an earlier run's value does not stay in the tree's cache.
        "-DBCAST_RAPIDCHECK_SOURCE_DIR=${BCAST_RAPIDCHECK_SOURCE_DIR}" -DBCAST_PROPERTY_SEQUENCES=2000)
else()
    message(WARNING "clang++-19 not found (Debian: clang-19 libc++-19-dev libc++abi-19-dev): the libc++ suite is skipped")
endif()
