# SPDX-License-Identifier: MIT OR Apache-2.0
cmake_minimum_required(VERSION 3.25) # IN_LIST and friends in script mode
# Script mode: see bcast_style.cmake. Inputs: CLANG_FORMAT, SOURCE_DIR, PENDING.
# The files are listed when the test runs, not at configure time, so a new
# file is checked without a reconfigure.
# -DUPDATE=ON rewrites PENDING (its # lines kept) to the files that differ now,
# for whoever decides that a file stays unformatted for a while; the test
# itself never changes the list.
set(bcast_format_dirs bench examples impl model_tests property_tests spec)
set(files)
foreach(dir IN LISTS bcast_format_dirs)
    file(GLOB_RECURSE found RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/${dir}/*.cpp ${SOURCE_DIR}/${dir}/*.hpp ${SOURCE_DIR}/${dir}/*.h)
    list(APPEND files ${found})
endforeach()
list(SORT files)

file(STRINGS ${PENDING} pending REGEX "^[^#]")
set(failed)
foreach(path IN LISTS pending)
    if(NOT EXISTS ${SOURCE_DIR}/${path})
        list(APPEND failed "${path}: listed in format-pending.txt but does not exist")
    endif()
endforeach()

set(checked 0)
set(differing)
foreach(path IN LISTS files)
    execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${path}
        WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE diagnostics)
    if(NOT status EQUAL 0)
        list(APPEND differing ${path})
    endif()
    if(UPDATE)
        continue()
    endif()
    if(path IN_LIST pending)
        if(status EQUAL 0)
            list(APPEND failed "${path}: now formatted, take it off format-pending.txt")
        endif()
    else()
        math(EXPR checked "${checked} + 1")
        if(NOT status EQUAL 0)
            string(REGEX MATCHALL "code should be clang-formatted" lines "${diagnostics}")
            list(LENGTH lines count)
            list(APPEND failed "${path}: ${count} places differ (${CLANG_FORMAT} -i ${path})")
            message("${diagnostics}")
        endif()
    endif()
endforeach()

if(UPDATE)
    file(STRINGS ${PENDING} header REGEX "^#")
    list(JOIN header "\n" text)
    list(JOIN differing "\n" list_text)
    file(WRITE ${PENDING} "${text}\n${list_text}\n")
    list(LENGTH differing count)
    message(STATUS "format-pending.txt: ${count} files")
    return()
endif()

list(LENGTH pending pending_count)
if(failed)
    list(JOIN failed "\n  " report)
    message(FATAL_ERROR "style.clang_format:\n  ${report}")
endif()
message(STATUS "style.clang_format: ${checked} files formatted; ${pending_count} pending (format-pending.txt)")
