# SPDX-License-Identifier: MIT OR Apache-2.0
# Script mode: one compile-fail test (impl/tests/compile_fail/CMakeLists.txt).
#
#   cmake -DCXX=<compiler> -DCXX_ID=<GNU|Clang> "-DFLAGS=<flags, space-separated>" -DINCLUDE=<dir>
#         -DSNIPPET=<file.cpp> -DMODE=<fail|compile> -P run_compile_fail.cmake
#
# MODE=compile: the snippet must compile (the harness's positive control).
# MODE=fail: the snippet is compiled twice, with only BCAST_COMPILE_FAIL_CONTROL
# telling the two apart. With it, the snippet must compile: so the one thing
# that breaks the real compile is the code under that macro, not a typo or a
# missing include. Without it, the compile must fail AND its diagnostics must
# match every `// expect: REGEX` line of the snippet (and every
# `// expect-<CXX_ID>: REGEX` line for this compiler), so a failure for another
# reason does not pass. `// flags: ...` lines add compiler flags to both.
# A regex is CMake's dialect, matched against the whole output; the compilers'
# quote characters depend on the locale (g++'s are multi-byte in UTF-8), so
# the regexes avoid them.
foreach(var CXX CXX_ID INCLUDE SNIPPET MODE)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "run_compile_fail.cmake: -D${var}=... is missing")
    endif()
endforeach()

file(STRINGS ${SNIPPET} directives REGEX "^// (expect|expect-[A-Za-z]+|flags): ")
set(expects "")
set(extra_flags "")
foreach(line IN LISTS directives)
    if(line MATCHES "^// flags: (.*)$")
        separate_arguments(more UNIX_COMMAND "${CMAKE_MATCH_1}")
        list(APPEND extra_flags ${more})
    elseif(line MATCHES "^// expect: (.*)$")
        list(APPEND expects "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^// expect-([A-Za-z]+): (.*)$")
        if(CMAKE_MATCH_1 STREQUAL CXX_ID)
            list(APPEND expects "${CMAKE_MATCH_2}")
        endif()
    endif()
endforeach()
if(MODE STREQUAL "fail" AND NOT expects)
    message(FATAL_ERROR "${SNIPPET}: a compile-fail snippet needs at least one `// expect: REGEX` line")
endif()

# -fsyntax-only: both compilers still instantiate every template the snippet
# uses, so constraint failures and [[nodiscard]] warnings are all reported.
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
set(command ${CXX} ${flags} ${extra_flags} -fsyntax-only -I${INCLUDE})

function(compile out_rc out_text)
    execute_process(COMMAND ${command} ${ARGN} ${SNIPPET}
        RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE text)
    set(${out_rc} ${rc} PARENT_SCOPE)
    set(${out_text} "${text}" PARENT_SCOPE)
endfunction()

list(JOIN command " " shown)
if(MODE STREQUAL "compile")
    compile(rc text)
    if(NOT rc EQUAL 0)
        message("${text}")
        message(FATAL_ERROR "${SNIPPET} must compile and does not (its diagnostics above):\n  ${shown} ${SNIPPET}")
    endif()
    message("compiles, as it must: ${SNIPPET}")
    return()
endif()

compile(rc text -DBCAST_COMPILE_FAIL_CONTROL)
if(NOT rc EQUAL 0)
    message("${text}")
    message(FATAL_ERROR "${SNIPPET} with -DBCAST_COMPILE_FAIL_CONTROL must compile and does not (its diagnostics "
        "above), so the snippet is broken apart from the code it tests:\n  ${shown} -DBCAST_COMPILE_FAIL_CONTROL ${SNIPPET}")
endif()
compile(rc text)
if(rc EQUAL 0)
    message("${text}")
    message(FATAL_ERROR "${SNIPPET} must not compile, and it does:\n  ${shown} ${SNIPPET}")
endif()
string(LENGTH "${text}" length)
string(REGEX MATCHALL "error:" errors "${text}")
list(LENGTH errors error_count)
foreach(expect IN LISTS expects)
    if(NOT text MATCHES "${expect}")
        message("${text}")
        message(FATAL_ERROR "${SNIPPET} fails to compile, but its diagnostics (above) do not match `${expect}`, "
            "so it may fail for another reason:\n  ${shown} ${SNIPPET}")
    endif()
endforeach()
list(JOIN expects "`, `" shown_expects)
message("${text}")
message("does not compile, as it must, with `${shown_expects}` in its diagnostics (above; ${error_count} "
    "\"error:\" lines): ${SNIPPET}")
