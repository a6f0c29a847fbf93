# SPDX-License-Identifier: MIT OR Apache-2.0
# Script mode (ctest style.spdx, see bcast_style.cmake): every tracked source
# file carries the project's licence line within its first two lines (after a
# #! line), so a file copied out of the tree still says under what terms.
# Prose and data (Markdown, SVG, JSON and JSON Lines, the fuzz corpus, lock files, the licence
# texts themselves) are covered by the LICENSE files and are not checked.
set(expected "SPDX-License-Identifier: MIT OR Apache-2.0")
execute_process(COMMAND ${GIT_EXECUTABLE} ls-files WORKING_DIRECTORY ${SOURCE_DIR}
    OUTPUT_VARIABLE tracked OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "git ls-files failed in ${SOURCE_DIR}")
endif()
string(REPLACE "\n" ";" tracked "${tracked}")
set(missing "")
set(checked 0)
foreach(file IN LISTS tracked)
    get_filename_component(name ${file} NAME)
    if(file MATCHES "\\.(md|svg|json|jsonl|lock)$" OR file MATCHES "^LICENSE" OR file MATCHES "/corpus/"
       OR (file MATCHES "\\.txt$" AND NOT name STREQUAL "CMakeLists.txt"))
        continue()
    endif()
    math(EXPR checked "${checked} + 1")
    file(STRINGS ${SOURCE_DIR}/${file} head LIMIT_COUNT 2)
    string(FIND "${head}" "${expected}" at)
    if(at EQUAL -1)
        list(APPEND missing ${file})
    endif()
endforeach()
if(missing)
    list(JOIN missing "\n  " missing)
    message(FATAL_ERROR "style.spdx: no '${expected}' in the first two lines of:\n  ${missing}\n"
        "Add '// ${expected}' (C++, Rust) or '# ${expected}' (CMake, Python, shell) as line 1 (line 2 after #!).")
endif()
message("style.spdx: ${checked} source files carry the licence line")
