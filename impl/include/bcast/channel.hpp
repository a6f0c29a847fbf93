// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::channel<T>(capacity): creates a channel, async-broadcast's broadcast().
#pragma once

#include <cstddef>
#include <utility>

#include "detail/channel_state.hpp"
#include "inactive_receiver.hpp"
#include "receiver.hpp"
#include "sender.hpp"

namespace bcast {

/// Creates a channel: async-broadcast's `broadcast(cap)`.
///
/// @contract Returns one sender and one active receiver at position 0 over a
/// new open channel that holds at most `capacity` messages, with overflow off
/// (R-OVF-3) and await_active on (R-ACT-2) (R-CAP-1). The channel lives until
/// its last handle of any kind is destroyed.
/// @exception std::invalid_argument if `capacity` is 0 (R-CAP-1; upstream
/// panics). std::bad_alloc if the slots cannot be allocated.
/// @complexity O(capacity): all slots are allocated here, once, so that sending
/// and receiving never allocate (R-IMPL-3).
/// @blocking Never.
/// @threadsafety Reentrant; the returned handles may be moved to other threads.
///
/// @tparam T     The message type, a bcast::message_type: a cv-unqualified
///               object type, nothrow move constructible and nothrow
///               destructible (R-MSG-4, a compile-time check); copy
///               constructible if you receive it (R-RECV-3). Its copy
///               constructor and destructor may run while the channel's mutex
///               is held, so they must not use this same channel (a message
///               owning the channel's last sender deadlocks when a departing
///               receiver frees it; docs/design.md, "Lock discipline").
/// @tparam Primitives The primitive set, a bcast::channel_primitives (R-IMPL-1):
///               std_primitives by default, or one of the atomic-position
///               models (R-IMPL-2).
/// @param capacity The most messages the channel queues at once; at least 1.
///        Changeable later with set_capacity() (R-CAP-2).
/// @return The sender and the receiver, in that order:
///         `std::pair<sender<T, Primitives>, receiver<T, Primitives>>`.
// Both parameters are constrained in the template head, as are the handle
// class templates (fwd.hpp), so a wrong message type or primitive set is one
// error at the call site that names the failed concept and the failed part
// (impl/tests/compile_fail). The return type is deduced, not spelled, on
// purpose: clang 14 substitutes explicit template arguments into a declared
// return type before it checks the constraints, so `sender<T, Primitives>`
// there would fail first and its error would not say why (measured:
// "constraints not satisfied for class template 'sender'", nothing more).
template <message_type T, channel_primitives Primitives = std_primitives>
[[nodiscard("the only handles of the new channel")]] auto channel(std::size_t capacity) {
    auto* state = new detail::channel_state<T, Primitives>(capacity);
    return std::pair<sender<T, Primitives>, receiver<T, Primitives>>{
        detail::handle_access::adopt<sender<T, Primitives>>(state),
        detail::handle_access::adopt<receiver<T, Primitives>>(state, std::uint64_t{0})};
}

} // namespace bcast
