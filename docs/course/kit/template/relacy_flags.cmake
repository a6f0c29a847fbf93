# SPDX-License-Identifier: MIT OR Apache-2.0
# The compiler flags of a Relacy build, one copy for the course
# (docs/course/CMakeLists.txt) and for every structure the starter kit starts
# (docs/course/kit): relacy_flags(RELACY_INCLUDE_DIR FLAGS_VAR INCLUDE_VAR).
#
# -O0 -g: a binary a debugger can step through (a small structure's searches
# take a second or two even so); g++ needs -fno-sized-deallocation (or std
# allocations inside a test abort) and -fno-lifetime-dse (or Relacy's checks of
# freed memory are optimised away). Never -isystem a compiler default folder:
# INCLUDE_VAR is empty where Relacy is in one (/usr/include, Debian's relacy-dev).
function(relacy_flags relacy_include flags_var include_var)
    set(flags -O0 -g -UNDEBUG -Wno-deprecated-declarations)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        list(APPEND flags -fno-sized-deallocation -fno-lifetime-dse)
    endif()
    set(include "")
    if(NOT relacy_include IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
        set(include -isystem ${relacy_include})
    endif()
    set(${flags_var} ${flags} PARENT_SCOPE)
    set(${include_var} ${include} PARENT_SCOPE)
endfunction()
