# SPDX-License-Identifier: MIT OR Apache-2.0
# ctest smoke test of bcast_bench (label bench-smoke): a tiny run must exit 0
# and print one row of every kind. Timings are not checked: on a shared VM they
# prove nothing, and the experiment itself reports them.
#   cmake -DBENCH=<path to bcast_bench> -P smoke_test.cmake
execute_process(
    COMMAND ${BENCH} --messages=2000 --benchmark_min_time=0.001 --benchmark_repetitions=1
            "--benchmark_filter=N:[14](/|$)|floor"
    RESULT_VARIABLE exit_code
    OUTPUT_VARIABLE output
    ERROR_VARIABLE errors
    TIMEOUT 50)
if(NOT exit_code EQUAL 0)
    message(FATAL_ERROR "bcast_bench exited with '${exit_code}'\n${output}\n${errors}")
endif()

foreach(row
        "single/try/plain/N:1" "single/try/relaxed/N:4" "single/blocking/acq_rel/N:1" "single/blocking/seq_cst/N:4" "single/try/rmw/N:1"
        "fanout/cap:64/N:1" "fanout/cap:1024/N:4"
        "floor/mutex_pair" "floor/seq_cst_store"
        "async/inline/N:1" "async/inline/N:4" "async/try/N:4")
    string(FIND "${output}" "${row}" found)
    if(found EQUAL -1)
        message(FATAL_ERROR "bcast_bench printed no '${row}' row\n${output}")
    endif()
endforeach()
message(STATUS "bcast_bench smoke run printed every expected row")
