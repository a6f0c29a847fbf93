// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::fast::inactive_receiver: keeps the channel open without receiving
// (R-ACT-1), as bcast::inactive_receiver. Every method is const.
#pragma once

#include <utility>

#include "detail/handle_base.hpp"
#include "fwd.hpp"

namespace bcast::fast {

/// A receiver that receives nothing: bcast::inactive_receiver's API on a
/// bcast::fast channel. It has no position, so senders never wait for it.
/// @threadsafety Every member except assignment and activate() is `const` (R-THREAD-1).
/// @tparam T The message type (P-FAST-1). @tparam Primitives A bcast::fast::channel_primitives.
template <message_type T, channel_primitives Primitives>
class inactive_receiver : public bcast::detail::counted_handle<detail::channel_state<T, Primitives>, bcast::detail::inactive_receiver_seat> {
    using base = bcast::detail::counted_handle<detail::channel_state<T, Primitives>, bcast::detail::inactive_receiver_seat>;

public:
    /// Turns into an active receiver at the tail (R-LIFE-5, R-LIFE-6); `*this` becomes empty.
    /// @return The receiver.
    [[nodiscard("a dropped handle is destroyed at once")]] receiver<T, Primitives> activate() && {
        auto& state = this->state();
        auto* cell = state.attach_at_tail(true);
        return detail::handle_access::adopt<receiver<T, Primitives>>(this->take_state(), cell);
    }
    /// A new active receiver at the tail; this one stays (R-LIFE-5). @return The receiver.
    [[nodiscard("a dropped handle is destroyed at once")]] receiver<T, Primitives> activate_cloned() const {
        auto& state = this->state();
        return detail::handle_access::adopt<receiver<T, Primitives>>(&state, state.attach_at_tail(false));
    }

private:
    friend struct detail::handle_access;
    explicit inactive_receiver(typename base::state_type* state) noexcept : base(state) {}
};

} // namespace bcast::fast

#include "receiver.hpp"
#include "sender.hpp"
