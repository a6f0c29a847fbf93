# SPDX-License-Identifier: MIT OR Apache-2.0
# Checks that every rule of spec/rules.md can be traced: its ID appears in
# docs/semantics.md (the user's contract), in impl/ (its code or the public
# headers' doc comments) and in a test (spec/tests, impl/tests, model_tests or
# property_tests). Usage: cmake -DREPO=<repository root> -P check_rule_trace.cmake
file(READ ${REPO}/spec/rules.md rules)
string(REGEX MATCHALL "\\*\\*R-[A-Z]+-[0-9]+\\*\\*" defined "${rules}")
list(REMOVE_DUPLICATES defined)

function(read_tree out)
    set(text "")
    foreach(pattern IN LISTS ARGN)
        file(GLOB_RECURSE files ${REPO}/${pattern})
        foreach(file IN LISTS files)
            file(READ ${file} content)
            string(APPEND text "${content}\n")
        endforeach()
    endforeach()
    set(${out} "${text}" PARENT_SCOPE)
endfunction()

read_tree(docs_text docs/semantics.md)
read_tree(impl_text impl/include/*.hpp)
read_tree(test_text spec/tests/*.cpp spec/tests/*.hpp impl/tests/*.cpp impl/tests/*.hpp model_tests/*.cpp model_tests/*.hpp
          property_tests/*.cpp property_tests/*.hpp)

set(missing "")
foreach(marked IN LISTS defined)
    string(REPLACE "*" "" id "${marked}")
    # An ID followed by a digit is another rule (R-CAP-1 vs R-CAP-10).
    foreach(place docs impl test)
        string(REGEX MATCH "${id}([^0-9]|$)" found "${${place}_text}")
        if(NOT found)
            list(APPEND missing "${id} (${place})")
        endif()
    endforeach()
endforeach()

list(LENGTH defined count)
if(missing)
    string(REPLACE ";" "\n  " missing "${missing}")
    message(FATAL_ERROR "rules without a trace:\n  ${missing}")
endif()
message(STATUS "all ${count} rules traced to docs/semantics.md, impl/ and a test")
