// SPDX-License-Identifier: MIT OR Apache-2.0
// BCAST_ASSERT: invariant checks, active in debug builds (NDEBUG not defined).
// A checker model may predefine it (model_tests/ maps it to RL_ASSERT so a
// broken invariant becomes a counterexample trace rather than an abort).
#pragma once

#ifndef BCAST_ASSERT
#include <cassert>
#define BCAST_ASSERT(condition) assert(condition)
#endif

#ifdef NDEBUG
#define BCAST_DEBUG_CHECKS 0
#else
#define BCAST_DEBUG_CHECKS 1
#endif
