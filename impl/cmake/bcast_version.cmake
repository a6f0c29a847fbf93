# SPDX-License-Identifier: MIT OR Apache-2.0
# impl/include/bcast/version.hpp is committed, not generated: a user who copies
# the headers or add_subdirectory()s the tree gets the macros without a build
# step. This fails the configure when the header and project(VERSION) disagree,
# so a version bump has to change both (and CHANGELOG.md: ctest package.version).
set(bcast_version_header ${PROJECT_SOURCE_DIR}/impl/include/bcast/version.hpp)
file(STRINGS ${bcast_version_header} bcast_version_lines
    REGEX "^#define BCAST_VERSION_(MAJOR|MINOR|PATCH|STRING) ")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${bcast_version_header}) # an edit re-checks
foreach(part MAJOR MINOR PATCH STRING)
    set(bcast_version_${part} "")
    foreach(line IN LISTS bcast_version_lines)
        if(line MATCHES "^#define BCAST_VERSION_${part} +\"?([0-9.]+)\"?$")
            set(bcast_version_${part} ${CMAKE_MATCH_1})
        endif()
    endforeach()
endforeach()
set(bcast_header_version "${bcast_version_MAJOR}.${bcast_version_MINOR}.${bcast_version_PATCH}")
if(NOT bcast_header_version STREQUAL PROJECT_VERSION OR NOT bcast_version_STRING STREQUAL PROJECT_VERSION)
    message(FATAL_ERROR "bcast: impl/include/bcast/version.hpp says ${bcast_header_version} "
        "(BCAST_VERSION_STRING \"${bcast_version_STRING}\") but project(VERSION) in CMakeLists.txt says "
        "${PROJECT_VERSION}: set BCAST_VERSION_MAJOR/MINOR/PATCH and BCAST_VERSION_STRING to the project's "
        "version (and add its section to CHANGELOG.md).")
endif()
foreach(var header lines MAJOR MINOR PATCH STRING)
    unset(bcast_version_${var})
endforeach()
unset(bcast_header_version)
