# SPDX-License-Identifier: MIT OR Apache-2.0
# The package tests, label "package": bcast used the ways a user would, each
# building and running examples/consumer (which also checks that the headers'
# BCAST_VERSION_STRING equals the version the package says it is):
#   package.version                    version.hpp's macros, as a compiler sees them, equal
#                                      project(VERSION); CHANGELOG.md has a section for it
#   package.find_package_consumer      cmake --install into a scratch prefix, find_package(bcast) there
#   package.pkg_config_consumer        the same install, a plain compiler line with `pkg-config --cflags --libs bcast`
#   package.tools_consumer             cmake --install of the checker (component bcast_tools) into a scratch
#                                      prefix, a driver built there with find_package(bcast COMPONENTS trace),
#                                      the installed bcast-trace driving it and the installed Python example
#                                      (needs the checker built: spec/traces, and python3)
#   package.add_subdirectory_consumer  add_subdirectory(<this source tree>)
#   package.fetchcontent_consumer      FetchContent from a scratch git repository holding this working
#                                      tree (committed or not; needs git and a git checkout)
#   package.deb                        cpack -G DEB: libbcast-dev_<version>_all.deb, its control fields and
#                                      file list (fixture for the two below; needs dpkg-deb)
#   package.deb_consumer               the .deb unpacked (dpkg-deb -x) into a scratch root, consumed with
#                                      find_package and with pkg-config
#   package.deb_lintian                lintian on the .deb: any tag not explained in run_deb_test.cmake fails
#                                      (needs lintian)
# Each works in its own folder under <build>/package-test, so they run in parallel.
# The scripts: run_package_test.cmake, run_deb_test.cmake, package_test_common.cmake.
set(bcast_package_work ${PROJECT_BINARY_DIR}/package-test)
find_package(Python3 COMPONENTS Interpreter QUIET) # package.tools_consumer runs the Python driver
set(bcast_package_args
    -DBCAST_SOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DBCAST_BINARY_DIR=${PROJECT_BINARY_DIR}
    -DBCAST_VERSION=${PROJECT_VERSION}
    -DCONSUMER_SOURCE_DIR=${PROJECT_SOURCE_DIR}/examples/consumer
    -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DGENERATOR=${CMAKE_GENERATOR}
    -DDOC_DIR=${CMAKE_INSTALL_DOCDIR}
    -DPKGCONFIG_DIR=${BCAST_PKGCONFIG_DIR}
    -DCMAKE_DIR=${BCAST_CMAKE_DIR}
    -DPYTHON=${Python3_EXECUTABLE})
find_package(Git QUIET)
find_program(BCAST_PKG_CONFIG NAMES pkg-config pkgconf)
find_program(BCAST_DPKG_DEB dpkg-deb)
find_program(BCAST_LINTIAN lintian)
list(APPEND bcast_package_args -DGIT_EXECUTABLE=${GIT_EXECUTABLE} -DPKG_CONFIG=${BCAST_PKG_CONFIG}
    -DDPKG_DEB=${BCAST_DPKG_DEB} -DLINTIAN=${BCAST_LINTIAN} -DCPACK=${CMAKE_CPACK_COMMAND})

function(bcast_package_test name script)
    add_test(NAME package.${name}
        COMMAND ${CMAKE_COMMAND} ${bcast_package_args} -DCASE=${name} -DWORK_DIR=${bcast_package_work}/${name}
            -DDEB_DIR=${bcast_package_work}/deb -P ${CMAKE_CURRENT_LIST_DIR}/${script})
    set_tests_properties(package.${name} PROPERTIES LABELS "package" TIMEOUT 300 ${ARGN})
endfunction()

bcast_package_test(version run_package_test.cmake)
bcast_package_test(find_package_consumer run_package_test.cmake)
bcast_package_test(add_subdirectory_consumer run_package_test.cmake)
if(TARGET bcast_trace AND Python3_EXECUTABLE)
    bcast_package_test(tools_consumer run_package_test.cmake)
else()
    message(STATUS "bcast: the checker (spec/traces) or python3 missing; package.tools_consumer skipped")
endif()
if(BCAST_PKG_CONFIG)
    bcast_package_test(pkg_config_consumer run_package_test.cmake)
else()
    message(STATUS "bcast: pkg-config not found; package.pkg_config_consumer skipped (and the .deb's pkg-config check)")
endif()
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
    bcast_package_test(fetchcontent_consumer run_package_test.cmake)
else()
    message(STATUS "bcast: git or a git checkout missing; package.fetchcontent_consumer skipped")
endif()
if(BCAST_DPKG_DEB)
    bcast_package_test(deb run_deb_test.cmake FIXTURES_SETUP bcast_deb)
    bcast_package_test(deb_consumer run_deb_test.cmake FIXTURES_REQUIRED bcast_deb)
    if(BCAST_LINTIAN)
        bcast_package_test(deb_lintian run_deb_test.cmake FIXTURES_REQUIRED bcast_deb)
    else()
        message(STATUS "bcast: lintian not found; package.deb_lintian skipped")
    endif()
else()
    message(STATUS "bcast: dpkg-deb not found; package.deb, package.deb_consumer and package.deb_lintian skipped")
endif()
