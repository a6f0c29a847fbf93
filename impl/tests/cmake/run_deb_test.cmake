# SPDX-License-Identifier: MIT OR Apache-2.0
# Script mode: the .deb tests (see bcast_package_test.cmake). CASE is deb (build
# it with cpack into DEB_DIR and check it), deb_consumer or deb_lintian (use the
# one package.deb built: ctest fixture bcast_deb).
include(${CMAKE_CURRENT_LIST_DIR}/package_test_common.cmake)
set(deb_file ${DEB_DIR}/libbcast-dev_${BCAST_VERSION}_all.deb)

# The lintian tags (lintian 2.116, Debian 12, every level with --pedantic) the
# package is allowed to have, each with the reason. Any other tag fails
# package.deb_lintian; a listed tag that lintian stops reporting is shown, so
# it can be taken off. Format: "tag|reason" (no semicolons: it is a CMake list).
set(lintian_explained
    "bogus-mail-host|the project publishes no contact address, so the default Maintainer is a placeholder at the reserved .invalid domain: whoever publishes the package sets -DBCAST_DEB_MAINTAINER='Name <address>' and the tag goes"
    "syntax-error-in-debian-changelog|bcast is not built from a Debian source package: changelog.gz is its own CHANGELOG.md (Keep a Changelog), which lintian reads as a Debian changelog because the version has no Debian revision"
)

if(CASE STREQUAL "deb")
    file(REMOVE_RECURSE ${DEB_DIR})
    run(${CPACK} -G DEB --config ${BCAST_BINARY_DIR}/CPackConfig.cmake -B ${DEB_DIR})
    file(GLOB debs ${DEB_DIR}/*.deb)
    if(NOT debs STREQUAL deb_file)
        message(FATAL_ERROR "deb: cpack made '${debs}', expected ${deb_file}")
    endif()
    capture(info ${DPKG_DEB} -I ${deb_file})
    message(STATUS "deb: dpkg-deb -I ${deb_file}\n${info}")
    foreach(pair "Package=libbcast-dev" "Architecture=all" "Version=${BCAST_VERSION}" "Section=libdevel"
                 "Priority=optional" "Depends=" "Pre-Depends=" "Recommends=")
        string(REGEX MATCH "^([^=]+)=(.*)$" _ "${pair}")
        set(field ${CMAKE_MATCH_1})
        set(want "${CMAKE_MATCH_2}")
        capture(got ${DPKG_DEB} -f ${deb_file} ${field})
        if(NOT got STREQUAL want)
            message(FATAL_ERROR "deb: field ${field} is '${got}', expected '${want}'")
        endif()
    endforeach()
    foreach(field Maintainer Description)
        capture(got ${DPKG_DEB} -f ${deb_file} ${field})
        if(got STREQUAL "")
            message(FATAL_ERROR "deb: no ${field} field")
        endif()
    endforeach()
    capture(listing ${DPKG_DEB} -c ${deb_file})
    set(files "")
    string(REPLACE "\n" ";" lines "${listing}")
    foreach(line IN LISTS lines)
        if(NOT line MATCHES "^[-d]rw[-x]r-[-x]r-[-x] root/root ")
            message(FATAL_ERROR "deb: not a root-owned 0644/0755 plain file or folder: ${line}")
        endif()
        string(REGEX REPLACE "^.* \\./" "/" path "${line}")
        list(APPEND files ${path})
    endforeach()
    foreach(path /usr/include/bcast/bcast.hpp /usr/include/bcast/version.hpp /usr/include/bcast/detail/
                 /usr/share/cmake/bcast/bcastConfig.cmake /usr/share/cmake/bcast/bcastConfigVersion.cmake
                 /usr/share/cmake/bcast/bcastTargets.cmake /usr/share/pkgconfig/bcast.pc
                 /usr/share/doc/libbcast-dev/copyright /usr/share/doc/libbcast-dev/changelog.gz
                 /usr/share/doc/libbcast-dev/README.md)
        if(NOT path IN_LIST files)
            message(FATAL_ERROR "deb: ${path} is not in the package:\n${listing}")
        endif()
    endforeach()
    foreach(path IN LISTS files)
        if(NOT path MATCHES "^/(usr/?)?$" AND NOT path MATCHES "^/usr/(include|share)/"
           OR path MATCHES "^/usr/share/doc/bcast/" OR path MATCHES "LICENSE")
            message(FATAL_ERROR "deb: ${path} should not be in the package (only /usr/include and "
                "/usr/share; docs in /usr/share/doc/libbcast-dev; the licences in its copyright file)")
        endif()
    endforeach()
    # The docs' content, unpacked.
    run(${DPKG_DEB} -x ${deb_file} ${DEB_DIR}/root)
    set(doc ${DEB_DIR}/root/usr/share/doc/libbcast-dev)
    file(READ ${doc}/copyright copyright)
    foreach(want "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
                 "License: MIT or Apache-2.0" "License: MIT\n Permission is hereby granted"
                 "License: Apache-2.0\n" "/usr/share/common-licenses/Apache-2.0")
        string(FIND "${copyright}" "${want}" at)
        if(at EQUAL -1)
            message(FATAL_ERROR "deb: copyright has no '${want}':\n${copyright}")
        endif()
    endforeach()
    find_program(GZIP gzip REQUIRED)
    capture(changelog ${GZIP} -dc ${doc}/changelog.gz)
    file(READ ${BCAST_SOURCE_DIR}/CHANGELOG.md want)
    string(STRIP "${want}" want)
    if(NOT changelog STREQUAL want)
        message(FATAL_ERROR "deb: changelog.gz is not CHANGELOG.md")
    endif()
    message(STATUS "deb: ${deb_file}: fields, file list and docs as expected")

elseif(CASE STREQUAL "deb_consumer")
    file(REMOVE_RECURSE ${WORK_DIR})
    file(MAKE_DIRECTORY ${WORK_DIR})
    run(${DPKG_DEB} -x ${deb_file} ${WORK_DIR}/root)
    cmake_consumer(${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${WORK_DIR}/root/usr -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
    expect_bcast_dir(${WORK_DIR}/build ${WORK_DIR}/root/usr/share/cmake/bcast)
    if(PKG_CONFIG)
        pkg_config_consumer(${WORK_DIR}/root/usr/share/pkgconfig ${WORK_DIR}/root/usr)
    else()
        message(STATUS "deb_consumer: pkg-config not found; only find_package checked")
    endif()

elseif(CASE STREQUAL "deb_lintian")
    # --allow-root: CI runs as root; lintian only reads the .deb. --fail-on none:
    # the tags are judged below, so a non-zero exit is a lintian run-time error.
    execute_process(COMMAND ${LINTIAN} --allow-root --fail-on none --display-info --display-experimental
            --pedantic --tag-display-limit 0 --show-overrides ${deb_file}
        RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
    message(STATUS "deb_lintian: ${LINTIAN} ${deb_file} (exit ${status}):\n${out}${err}")
    if(NOT status EQUAL 0)
        message(FATAL_ERROR "deb_lintian: lintian failed to run (exit ${status})")
    endif()
    set(known "")
    foreach(entry IN LISTS lintian_explained)
        string(REGEX REPLACE "\\|.*$" "" tag "${entry}")
        list(APPEND known ${tag})
    endforeach()
    string(REGEX MATCHALL "(^|\n)[EWIPXO]: libbcast-dev[^:]*: [a-z0-9.+-]+" found "${out}")
    set(unexplained "")
    set(seen "")
    foreach(line IN LISTS found)
        string(REGEX REPLACE "^.*: " "" tag "${line}")
        list(APPEND seen ${tag})
        list(FIND known ${tag} index)
        if(index EQUAL -1)
            list(APPEND unexplained ${tag})
        else()
            list(GET lintian_explained ${index} entry)
            string(REGEX REPLACE "^[^|]*\\|" "" reason "${entry}")
            message(STATUS "deb_lintian: ${tag}: explained: ${reason}")
        endif()
    endforeach()
    foreach(tag IN LISTS known)
        if(NOT tag IN_LIST seen)
            message(STATUS "deb_lintian: ${tag} is explained but not reported any more: take it off the list")
        endif()
    endforeach()
    if(unexplained)
        list(REMOVE_DUPLICATES unexplained)
        list(JOIN unexplained ", " unexplained)
        message(FATAL_ERROR "deb_lintian: tags not explained in run_deb_test.cmake: ${unexplained}")
    endif()
    list(LENGTH found count)
    message(STATUS "deb_lintian: ${count} tags, all explained")

else()
    message(FATAL_ERROR "run_deb_test.cmake: unknown CASE '${CASE}'")
endif()
