# SPDX-License-Identifier: MIT OR Apache-2.0
# traces.FAMILY_agrees_with_the_model: generate, replay on the registered
# family CHANNEL (bcast/spec/families.def), check strictly.
file(MAKE_DIRECTORY ${WORK})
foreach(step
        "generate;--seed;2026;--count;2000;--target;bcast;-o;${WORK}/traces.jsonl"
        "replay;${WORK}/traces.jsonl;--channel;${CHANNEL};-o;${WORK}/results.jsonl"
        "check;--strict;${WORK}/traces.jsonl;${WORK}/results.jsonl")
    execute_process(COMMAND ${TOOL} ${step} RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
        message(FATAL_ERROR "bcast-trace ${step} failed (${status})")
    endif()
endforeach()
