// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast's version, for the preprocessor and for code.
//
//   #if BCAST_VERSION >= 100   // 0.1.0 or later
//
// BCAST_VERSION is major * 10000 + minor * 100 + patch (as fmt's FMT_VERSION).
// Header-only users have no build step, so this file is committed, not
// generated; the configure (impl/cmake/bcast_version.cmake) fails when it and
// project(VERSION) in CMakeLists.txt disagree, and ctest package.version
// checks what a compiler sees.
#pragma once

/// bcast's major version: 0 until the API is declared stable.
#define BCAST_VERSION_MAJOR 0
/// bcast's minor version.
#define BCAST_VERSION_MINOR 1
/// bcast's patch version.
#define BCAST_VERSION_PATCH 0
/// The version as one number, major * 10000 + minor * 100 + patch: 0.1.0 is 100.
#define BCAST_VERSION (BCAST_VERSION_MAJOR * 10000 + BCAST_VERSION_MINOR * 100 + BCAST_VERSION_PATCH)
/// The version as a string literal, "major.minor.patch".
#define BCAST_VERSION_STRING "0.1.0"
