// SPDX-License-Identifier: MIT OR Apache-2.0
// Forward declarations of bcast::fast's handle types, constrained in the
// template head as the reference's are (bcast/fwd.hpp says why).
#pragma once

#include "primitives.hpp"

namespace bcast::fast {

template <message_type T, channel_primitives Primitives = std_primitives>
class sender;
template <message_type T, channel_primitives Primitives = std_primitives>
class receiver;
template <message_type T, channel_primitives Primitives = std_primitives>
class inactive_receiver;

} // namespace bcast::fast
