// SPDX-License-Identifier: MIT OR Apache-2.0
// Forward declarations of the public handle types.
//
// The handles are constrained here, in the template head, and every
// redeclaration repeats the same constraints (the language requires it). A
// wrong message type (R-MSG-4) or primitive set (R-IMPL-1) is then rejected
// where the handle type is first named, in one error that names the concept
// and the part of it that failed (impl/tests/compile_fail). Measured against
// a static_assert in each class body (g++ 12 / clang 14): for
// `bcast::channel<bad>(1)`, where bad's move may throw, 1 error in 20 / 13
// lines here against 4 errors in 52 / 76 lines, since the instantiation goes
// on into the channel's internals after the static_assert; and a declaration
// `void f(bcast::receiver<bad>&)` is 1 error in 15 / 10 lines here, while the
// static_assert stays silent until the class is instantiated. The names also
// stay usable in SFINAE and in requires-expressions.
#pragma once

#include "primitives.hpp"

namespace bcast {

template <message_type T, channel_primitives Primitives = std_primitives>
class sender;
template <message_type T, channel_primitives Primitives = std_primitives>
class receiver;
template <message_type T, channel_primitives Primitives = std_primitives>
class inactive_receiver;

} // namespace bcast
