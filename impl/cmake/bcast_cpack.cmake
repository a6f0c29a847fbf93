# SPDX-License-Identifier: MIT OR Apache-2.0
# CPack: `cpack -G DEB` in a configured build tree writes
# libbcast-dev_<version>_all.deb (ctest package.deb checks it, package.deb_lintian
# runs lintian on it). Included from the install block of CMakeLists.txt, after
# the install rules. Two things are Debian's way rather than `cmake --install`'s:
# the docs go to /usr/share/doc/libbcast-dev as `copyright` (machine-readable
# format, both licences) and `changelog.gz` (gzip -9n), and the LICENSE-* files
# are not shipped separately (lintian: extra-license-file). So the .deb is made
# of the components bcast_development (headers, CMake package, .pc) and
# bcast_debian (below, EXCLUDE_FROM_ALL: `cmake --install` skips it), and leaves
# out bcast_documentation (share/doc/bcast).
set(BCAST_DEB_MAINTAINER "The bcast developers <bcast@invalid>" CACHE STRING
    "Maintainer field of the .deb (cpack -G DEB): set it to whoever publishes the package")

set(bcast_deb_name libbcast-dev)
set(bcast_deb_docdir ${CMAKE_INSTALL_DATAROOTDIR}/doc/${bcast_deb_name})
set(bcast_deb_dir ${CMAKE_CURRENT_BINARY_DIR}/debian)

# debian/copyright (https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/):
# the MIT text from LICENSE-MIT; Apache-2.0 by reference to Debian's copy,
# as Debian policy 12.5 asks for licences in /usr/share/common-licenses.
file(STRINGS ${PROJECT_SOURCE_DIR}/LICENSE-MIT bcast_mit_lines)
set(bcast_mit_text "")
set(bcast_copyright_holder "")
foreach(line IN LISTS bcast_mit_lines)
    if(line MATCHES "^Copyright \\(c\\) (.+)$")
        set(bcast_copyright_holder ${CMAKE_MATCH_1})
        continue()
    endif()
    if(line STREQUAL "MIT License")
        continue()
    endif()
    if(line STREQUAL "")
        string(APPEND bcast_mit_text " .\n")
    else()
        string(APPEND bcast_mit_text " ${line}\n")
    endif()
endforeach()
string(REGEX REPLACE "^( \\.\n)+" "" bcast_mit_text "${bcast_mit_text}")
string(REGEX REPLACE "( \\.\n)+$" "" bcast_mit_text "${bcast_mit_text}")
if(bcast_copyright_holder STREQUAL "")
    message(FATAL_ERROR "bcast: no 'Copyright (c) ...' line in LICENSE-MIT for debian/copyright")
endif()
file(CONFIGURE OUTPUT ${bcast_deb_dir}/copyright @ONLY CONTENT [[
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: @PROJECT_NAME@

Files: *
Copyright: @bcast_copyright_holder@
License: MIT or Apache-2.0
Comment: Dual-licensed: a user may choose either licence (SPDX: @BCAST_LICENSE@).

License: MIT
@bcast_mit_text@
License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License");
 you may not use this file except in compliance with the License.
 You may obtain a copy of the License at
 .
 https://www.apache.org/licenses/LICENSE-2.0
 .
 Unless required by applicable law or agreed to in writing, software
 distributed under the License is distributed on an "AS IS" BASIS,
 WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 See the License for the specific language governing permissions and
 limitations under the License.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0
 can be found in "/usr/share/common-licenses/Apache-2.0".
]])

# changelog.gz is made when the component is installed, so it follows
# CHANGELOG.md without a reconfigure; -n: no name or time stamp in the header
# (reproducible; lintian: package-contains-timestamped-gzip).
find_program(BCAST_GZIP gzip)
if(BCAST_GZIP)
    install(CODE "execute_process(COMMAND \"${BCAST_GZIP}\" -9nc \"${PROJECT_SOURCE_DIR}/CHANGELOG.md\"
                      OUTPUT_FILE \"${bcast_deb_dir}/changelog.gz\" RESULT_VARIABLE status)
                  if(NOT status EQUAL 0)
                      message(FATAL_ERROR \"bcast: gzip of CHANGELOG.md failed: \${status}\")
                  endif()"
        COMPONENT bcast_debian EXCLUDE_FROM_ALL)
    install(FILES ${bcast_deb_dir}/changelog.gz DESTINATION ${bcast_deb_docdir} COMPONENT bcast_debian EXCLUDE_FROM_ALL)
else()
    message(STATUS "bcast: gzip not found; the .deb has no changelog.gz")
endif()
install(FILES ${bcast_deb_dir}/copyright README.md DESTINATION ${bcast_deb_docdir}
    COMPONENT bcast_debian EXCLUDE_FROM_ALL)

set(CPACK_PACKAGE_NAME ${PROJECT_NAME})
set(CPACK_PACKAGE_VENDOR "The bcast developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "header-only C++20 broadcast channel (async-broadcast semantics)")
set(CPACK_PACKAGE_DESCRIPTION "bcast is a bounded broadcast channel for C++20 with the semantics of the
Rust crate async-broadcast: every message goes to every active receiver, in
order. When the channel is full the sender waits, or in overflow mode the
oldest message is evicted and each receiver that missed it is told how many
it lost. Blocking, timed and coroutine (co_await) calls; one mutex, no
allocation per message.

This package contains the headers, the CMake package (find_package(bcast))
and the pkg-config file (bcast.pc). Using it needs a C++20 compiler.")
# The licence: both texts in one file for the generators that show one
# (CPACK_RESOURCE_FILE_LICENSE); the SPDX expression where a field takes one.
file(READ ${PROJECT_SOURCE_DIR}/LICENSE-MIT bcast_license_mit)
file(READ ${PROJECT_SOURCE_DIR}/LICENSE-APACHE bcast_license_apache)
file(CONFIGURE OUTPUT ${bcast_deb_dir}/LICENSE.txt @ONLY CONTENT [[
bcast is licensed under the MIT licence or the Apache License, Version 2.0,
at your option (SPDX: @BCAST_LICENSE@). Both texts follow.

@bcast_license_mit@

@bcast_license_apache@]])
set(CPACK_RESOURCE_FILE_LICENSE ${bcast_deb_dir}/LICENSE.txt)
set(CPACK_RPM_PACKAGE_LICENSE ${BCAST_LICENSE})
set(CPACK_GENERATOR DEB)

set(CPACK_DEBIAN_PACKAGE_NAME ${bcast_deb_name})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${BCAST_DEB_MAINTAINER})
# Nothing at run time: no binaries. A consumer's C++20 compiler and its
# standard library are that consumer's build dependencies.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)

# Read by cpack once per generator: the DEB takes the two components above;
# other generators (cpack -G TGZ) take what `cmake --install` installs.
set(CPACK_PROJECT_CONFIG_FILE ${bcast_deb_dir}/cpack_project_config.cmake)
file(CONFIGURE OUTPUT ${CPACK_PROJECT_CONFIG_FILE} @ONLY CONTENT [[
# Generated by impl/cmake/bcast_cpack.cmake.
if(CPACK_GENERATOR STREQUAL "DEB")
    set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
    set(CPACK_INSTALL_CMAKE_PROJECTS
        "@PROJECT_BINARY_DIR@;@PROJECT_NAME@;bcast_development;/"
        "@PROJECT_BINARY_DIR@;@PROJECT_NAME@;bcast_debian;/")
endif()
]])
include(CPack)
