// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::fast::channel<T>(capacity): creates a lock-free-receive channel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "detail/handle_base.hpp"
#include "inactive_receiver.hpp"
#include "receiver.hpp"
#include "sender.hpp"

namespace bcast::fast {

/// Creates a bcast::fast channel: bcast::channel's contract (R-CAP-1) under
/// the profile P-FAST of spec/rules.md (docs/fast-design.md).
///
/// @exception std::invalid_argument if `capacity` is 0; std::bad_alloc.
/// @complexity O(capacity): the slots (a power of two at least `capacity`).
/// @tparam T A bcast::fast::message_type: trivially copyable (P-FAST-1).
/// @tparam Primitives A bcast::fast::channel_primitives; std_primitives by default.
/// @param capacity The most messages queued at once; at least 1.
/// @return The sender and the receiver (at position 0).
template <message_type T, channel_primitives Primitives = std_primitives>
[[nodiscard("the only handles of the new channel")]] auto channel(std::size_t capacity) {
    using state_type = detail::channel_state<T, Primitives>;
    auto state = std::make_unique<state_type>(capacity);
    auto* cell = state->attach_at_tail(false); // position 0: nothing was sent yet
    auto* shared = state.release();
    return std::pair<sender<T, Primitives>, receiver<T, Primitives>>{
        detail::handle_access::adopt<sender<T, Primitives>>(shared),
        detail::handle_access::adopt<receiver<T, Primitives>>(shared, cell)};
}

} // namespace bcast::fast
