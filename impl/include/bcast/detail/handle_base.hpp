// SPDX-License-Identifier: MIT OR Apache-2.0
// The reference channel's handle base: what its three handle types share
// (state_handle.hpp, the same code for both channel families) over its
// channel_state.
#pragma once

#include "channel_state.hpp"
#include "state_handle.hpp"

namespace bcast::detail {

template <class T, class Primitives>
using handle_base = state_handle<channel_state<T, Primitives>>;

} // namespace bcast::detail
