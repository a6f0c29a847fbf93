// SPDX-License-Identifier: MIT OR Apache-2.0
// ctest package.version compiles this (-fsyntax-only) with EXPECTED_* from
// project(VERSION): version.hpp's macros must say the project's version in
// each form (the consumers, examples/consumer, see them through bcast.hpp).
#include <bcast/version.hpp>

#include <string_view>

static_assert(BCAST_VERSION_MAJOR == EXPECTED_MAJOR, "BCAST_VERSION_MAJOR differs from project(VERSION)");
static_assert(BCAST_VERSION_MINOR == EXPECTED_MINOR, "BCAST_VERSION_MINOR differs from project(VERSION)");
static_assert(BCAST_VERSION_PATCH == EXPECTED_PATCH, "BCAST_VERSION_PATCH differs from project(VERSION)");
static_assert(BCAST_VERSION == EXPECTED_MAJOR * 10000 + EXPECTED_MINOR * 100 + EXPECTED_PATCH, "BCAST_VERSION is not major * 10000 + minor * 100 + patch");
static_assert(std::string_view{BCAST_VERSION_STRING} == EXPECTED_STRING, "BCAST_VERSION_STRING differs from project(VERSION)");
#if !(BCAST_VERSION >= 100) // usable in #if
#error "BCAST_VERSION is not a preprocessor number"
#endif
