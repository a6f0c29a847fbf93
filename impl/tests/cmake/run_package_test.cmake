# SPDX-License-Identifier: MIT OR Apache-2.0
# Script mode: see bcast_package_test.cmake. CASE says which test this is.
include(${CMAKE_CURRENT_LIST_DIR}/package_test_common.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

if(CASE STREQUAL "version")
    # What a compiler sees through the umbrella header, against project(VERSION).
    string(REPLACE "." ";" parts ${BCAST_VERSION})
    list(GET parts 0 major)
    list(GET parts 1 minor)
    list(GET parts 2 patch)
    run(${CXX_COMPILER} -std=c++20 -fsyntax-only -I${BCAST_SOURCE_DIR}/impl/include
        -DEXPECTED_MAJOR=${major} -DEXPECTED_MINOR=${minor} -DEXPECTED_PATCH=${patch}
        "-DEXPECTED_STRING=\"${BCAST_VERSION}\"" ${CMAKE_CURRENT_LIST_DIR}/version_check.cpp)
    # A version is released with its changelog section: "## [0.1.0] - <date or Unreleased>".
    file(STRINGS ${BCAST_SOURCE_DIR}/CHANGELOG.md section REGEX "^## \\[${BCAST_VERSION}\\]")
    if(NOT section)
        message(FATAL_ERROR "version: CHANGELOG.md has no '## [${BCAST_VERSION}]' section")
    endif()
    message(STATUS "version: ${BCAST_VERSION}: version.hpp, project(VERSION) and CHANGELOG.md agree")

elseif(CASE STREQUAL "find_package_consumer")
    run(${CMAKE_COMMAND} --install ${BCAST_BINARY_DIR} --prefix ${WORK_DIR}/prefix)
    # The docs and both licence texts come with the package.
    foreach(file LICENSE-MIT LICENSE-APACHE README.md CHANGELOG.md)
        if(NOT EXISTS ${WORK_DIR}/prefix/${DOC_DIR}/${file})
            message(FATAL_ERROR "find_package_consumer: ${file} not installed in ${DOC_DIR}")
        endif()
    endforeach()
    cmake_consumer(${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
    expect_bcast_dir(${WORK_DIR}/build ${WORK_DIR}/prefix/${CMAKE_DIR})

elseif(CASE STREQUAL "tools_consumer")
    # The checker as a user installs it (component bcast_tools): the binary, the driver
    # libraries, the docs; a driver built on the installed headers with find_package(bcast
    # COMPONENTS trace); the installed checker driving it and the installed Python example,
    # and finding the example's seeded lost wakeup.
    run(${CMAKE_COMMAND} --install ${BCAST_BINARY_DIR} --prefix ${WORK_DIR}/prefix --component bcast_tools)
    run(${CMAKE_COMMAND} --install ${BCAST_BINARY_DIR} --prefix ${WORK_DIR}/prefix --component bcast_development)
    set(python_dir ${WORK_DIR}/prefix/share/bcast/drivers/python)
    foreach(file bin/bcast-trace include/bcast/trace/driver.hpp include/bcast/spec/channel_adapter.hpp
                 share/bcast/drivers/python/bcast_driver.py share/bcast/drivers/python/example_channel.py
                 ${DOC_DIR}/drivers.md)
        if(NOT EXISTS ${WORK_DIR}/prefix/${file})
            message(FATAL_ERROR "tools_consumer: ${file} not installed")
        endif()
    endforeach()
    cmake_consumer(${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
        -DBCAST_CONSUMER_TRACE=ON)
    file(READ ${WORK_DIR}/build/checker.txt checker)
    if(NOT checker STREQUAL "${WORK_DIR}/prefix/bin/bcast-trace")
        message(FATAL_ERROR "tools_consumer: bcast_TRACE_EXECUTABLE is '${checker}'")
    endif()
    run(${checker} drive --histories 50 --seed 1 -- ${WORK_DIR}/build/consumer_driver)
    run(${checker} drive --histories 50 --seed 1 -- ${PYTHON} ${python_dir}/example_channel.py)
    execute_process(COMMAND ${checker} drive --histories 300 --seed 3 --contention --
                            ${PYTHON} ${python_dir}/example_channel.py --lost-wakeup
        RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT status EQUAL 1 OR NOT out MATCHES "lost_wakeup R-WAKE-1")
        message(FATAL_ERROR "tools_consumer: the installed checker did not find the seeded lost wakeup (${status}):\n${out}")
    endif()
    message(STATUS "tools_consumer: the installed checker passes both drivers and finds the seeded lost wakeup")

elseif(CASE STREQUAL "pkg_config_consumer")
    run(${CMAKE_COMMAND} --install ${BCAST_BINARY_DIR} --prefix ${WORK_DIR}/prefix)
    pkg_config_consumer(${WORK_DIR}/prefix/${PKGCONFIG_DIR} ${WORK_DIR}/prefix)

elseif(CASE STREQUAL "add_subdirectory_consumer")
    cmake_consumer(${WORK_DIR}/build -DBCAST_CONSUMER_MODE=add_subdirectory
        -DBCAST_SOURCE_DIR=${BCAST_SOURCE_DIR} -DBCAST_CONSUMER_EXPECTED_VERSION=${BCAST_VERSION})

elseif(CASE STREQUAL "fetchcontent_consumer")
    # A scratch repository whose one commit is this working tree as it is now
    # (tracked files and new ones, .gitignore respected; uncommitted changes
    # included), so the test checks the tree under test and not its HEAD. The
    # source repository is only read.
    set(repo ${WORK_DIR}/repo)
    set(git ${GIT_EXECUTABLE} --git-dir=${repo}/.git --work-tree=${BCAST_SOURCE_DIR}
        -c user.name=bcast-package-test -c user.email=bcast-package-test@invalid -c commit.gpgsign=false)
    run(${GIT_EXECUTABLE} init -q ${repo})
    run(${git} add -A)
    run(${git} commit -q -m "bcast working tree")
    capture(commit ${git} rev-parse HEAD)
    cmake_consumer(${WORK_DIR}/build -DBCAST_CONSUMER_MODE=fetchcontent
        -DBCAST_GIT_REPOSITORY=file://${repo} -DBCAST_GIT_TAG=${commit}
        -DBCAST_CONSUMER_EXPECTED_VERSION=${BCAST_VERSION})

else()
    message(FATAL_ERROR "run_package_test.cmake: unknown CASE '${CASE}'")
endif()
