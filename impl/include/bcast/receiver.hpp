// bcast::receiver: an active receiving handle (async-broadcast's Receiver).
//
// A receiver owns its read position. The receiving methods are non-const: one
// receiver object has one user at a time, and each copy is an independent
// receiver with its own position (R-THREAD-1; docs/position-design.md explains
// why this is the design).
#pragma once

#include <chrono>
#include <cstdint>
#include <utility>

#include "detail/handle_base.hpp"
#include "fwd.hpp"

namespace bcast {

template <class T, class Model>
class receiver : public detail::handle_base<T, Model> {
    using base = detail::handle_base<T, Model>;

public:
    // R-LIFE-1: the copy has the same position and the same pending messages.
    // Copying a moved-from receiver gives another moved-from receiver.
    receiver(const receiver& other)
        : base(other.state_), pos_(other.state_ != nullptr ? other.state_->attach_receiver_copy(other.pos_) : 0) {}
    receiver(receiver&& other) noexcept : base(std::move(other)), pos_(other.pos_.load()) {}
    // R-HANDLE-2: the old channel is released as destruction would; self-assignment is harmless.
    receiver& operator=(const receiver& other) {
        receiver copy(other);
        swap(copy);
        return *this;
    }
    receiver& operator=(receiver&& other) noexcept {
        receiver taken(std::move(other));
        swap(taken);
        return *this;
    }
    // R-LIFE-3: gives up every unread message.
    ~receiver() {
        this->release([this](auto& state) { return state.detach_receiver(pos_, false); });
    }

    void swap(receiver& other) noexcept {
        std::swap(this->state_, other.state_);
        const std::uint64_t mine = pos_.load();
        pos_.store(other.pos_.load());
        other.pos_.store(mine);
    }

    // Never waits (R-RECV-1): overflowed(n) if this receiver lagged, else the
    // next message, else closed (if closed) or empty.
    recv_result<T> try_recv() { return this->state().try_recv(pos_); }

    // Blocks while there is nothing for this receiver and the channel is open
    // (R-RECV-4).
    recv_result<T> recv() { return this->state().recv(pos_, detail::no_deadline{}); }

    // As recv(), giving up with recv_errc::timed_out (R-RECV-5).
    template <class Rep, class Period>
    recv_result<T> recv_for(const std::chrono::duration<Rep, Period>& timeout) {
        return recv_until(std::chrono::steady_clock::now() + timeout);
    }
    template <class Clock, class Duration>
    recv_result<T> recv_until(const std::chrono::time_point<Clock, Duration>& deadline) {
        return this->state().recv(pos_, deadline);
    }

    // A receiver at the tail (R-LIFE-2).
    receiver new_receiver() const {
        auto& state = this->state();
        return receiver(&state, state.attach_receiver_at_tail(false));
    }

    sender<T, Model> new_sender() const {
        auto& state = this->state();
        state.add_sender();
        return detail::handle_access::adopt<sender<T, Model>>(&state);
    }

    // R-LIFE-4: becomes an inactive receiver, giving up every unread message.
    inactive_receiver<T, Model> deactivate() && {
        auto& state = this->state();
        const bool last = state.detach_receiver(pos_, true);
        static_cast<void>(last); // cannot be last: the inactive receiver remains
        return detail::handle_access::adopt<inactive_receiver<T, Model>>(this->take_state());
    }

private:
    friend struct detail::handle_access;
    receiver(typename base::state_type* state, std::uint64_t pos) noexcept : base(state), pos_(pos) {}

    typename Model::position pos_; // next sequence number to read; touched only under the channel lock
};

} // namespace bcast

#include "inactive_receiver.hpp"
#include "sender.hpp"
