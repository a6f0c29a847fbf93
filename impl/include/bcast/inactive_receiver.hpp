// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::inactive_receiver: keeps the channel open without receiving
// (async-broadcast's InactiveReceiver, R-ACT-1). Every method is const.
#pragma once

#include <cstdint>
#include <utility>

#include "detail/channel_state.hpp"
#include "detail/state_handle.hpp"
#include "fwd.hpp"

namespace bcast {

/// A receiver that receives nothing: async-broadcast's `InactiveReceiver`.
///
/// It keeps the channel open while no active receiver exists (R-CLOSE-3) but
/// no message is ever queued for it (R-ACT-1), so it never holds senders back.
/// With no active receiver, try_broadcast() fails with `inactive` and
/// broadcast() waits for one while await_active is on (R-ACT-2). Make one
/// with receiver::deactivate(); turn it back into a receiver with activate()
/// or activate_cloned(), which start at the tail (R-LIFE-5).
///
/// Every member other than destruction, assignment, swap(), valid() and
/// copying throws std::logic_error on a moved-from handle and changes nothing
/// (R-HANDLE-1). Copying makes one more inactive receiver (R-HANDLE-2); copy,
/// move, assignment, swap() and destruction are detail::counted_handle's, the
/// same for every handle.
///
/// @threadsafety Every member except assignment and activate() is `const` and
/// may be called on one object from many threads at once (R-THREAD-1).
///
/// It has no receiving members at all (R-ACT-1): `ia.recv()` does not
/// compile. activate() and activate_cloned() are `[[nodiscard]]`: the
/// receiver they return is the point of calling them.
///
/// @tparam T     The message type, a bcast::message_type (R-MSG-4).
/// @tparam Primitives The primitive set, a bcast::channel_primitives (R-IMPL-1).
template <message_type T, channel_primitives Primitives>
class inactive_receiver
    : public detail::counted_handle<detail::channel_state<T, Primitives>, detail::inactive_receiver_seat> {
    using base = detail::counted_handle<detail::channel_state<T, Primitives>, detail::inactive_receiver_seat>;

public:
    /// Turns this inactive receiver into an active receiver at the tail
    /// (R-LIFE-5): it receives only messages sent from now on.
    ///
    /// @contract The inactive count drops by one and the active count grows by
    /// one in one step, so the channel never looks receiver-less in between.
    /// If it is the only active receiver, senders waiting for one are woken
    /// (R-LIFE-6). On a closed channel it is counted but receives `closed`
    /// (R-CLOSE-4). `*this` becomes empty. Use std::move(ia).activate().
    /// @complexity O(1). @blocking Never.
    /// @threadsafety Needs exclusive use of `*this`.
    /// @return The active receiver.
    [[nodiscard("a dropped handle is destroyed at once")]] receiver<T, Primitives> activate() && {
        auto& state = this->state();
        const std::uint64_t pos = state.attach_receiver_at_tail(true);
        return detail::handle_access::adopt<receiver<T, Primitives>>(this->take_state(), pos);
    }

    /// A new active receiver at the tail; this inactive receiver stays
    /// (R-LIFE-5).
    ///
    /// @contract As activate(), except that the inactive count is unchanged.
    /// @complexity O(1). @blocking Never.
    /// @threadsafety `const`: callable from any thread.
    /// @return The active receiver.
    [[nodiscard("a dropped handle is destroyed at once")]] receiver<T, Primitives> activate_cloned() const {
        auto& state = this->state();
        const std::uint64_t pos = state.attach_receiver_at_tail(false);
        return detail::handle_access::adopt<receiver<T, Primitives>>(&state, pos);
    }

private:
    friend struct detail::handle_access;
    explicit inactive_receiver(typename base::state_type* state) noexcept : base(state) {}
};

} // namespace bcast

#include "receiver.hpp"
#include "sender.hpp"
