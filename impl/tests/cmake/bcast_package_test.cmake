# SPDX-License-Identifier: MIT OR Apache-2.0
# The installed package works: install this tree into a scratch prefix, then
# configure, build and run examples/consumer against it with find_package.
add_test(NAME package.find_package_consumer
    COMMAND ${CMAKE_COMMAND}
        -DBCAST_BINARY_DIR=${CMAKE_BINARY_DIR}
        -DCONSUMER_SOURCE_DIR=${CMAKE_SOURCE_DIR}/examples/consumer
        -DWORK_DIR=${CMAKE_BINARY_DIR}/package-test
        -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
        -P ${CMAKE_CURRENT_LIST_DIR}/run_package_test.cmake)
set_tests_properties(package.find_package_consumer PROPERTIES LABELS "package")
