// bcast::sender: the sending handle (async-broadcast's Sender).
//
// Every method is const and may be called on one sender object from many
// threads at once (R-THREAD-1).
#pragma once

#include <chrono>
#include <utility>

#include "detail/handle_base.hpp"
#include "fwd.hpp"

namespace bcast {

template <class T, class Model>
class sender : public detail::handle_base<T, Model> {
    using base = detail::handle_base<T, Model>;

public:
    // A copy is one more sender (R-CLOSE-2 counts them). Copying a moved-from
    // sender gives another moved-from sender.
    sender(const sender& other) : base(other.state_) {
        if (this->state_ != nullptr) this->state_->add_sender();
    }
    sender(sender&& other) noexcept = default;
    // R-HANDLE-2: the old channel is released as destruction would; self-assignment is harmless.
    sender& operator=(const sender& other) {
        sender copy(other);
        swap(copy);
        return *this;
    }
    sender& operator=(sender&& other) noexcept {
        sender taken(std::move(other));
        swap(taken);
        return *this;
    }
    ~sender() {
        this->release([](auto& state) { return state.release_sender(); });
    }

    void swap(sender& other) noexcept { std::swap(this->state_, other.state_); }

    // Never waits (R-SEND-1). Success holds the evicted message in overflow
    // mode (R-OVF-1); an error hands `message` back (R-SEND-5).
    send_result<T> try_broadcast(T message) const { return this->state().try_broadcast(std::move(message)); }

    // Blocks while the channel is full (overflow off) or has only inactive
    // receivers with await_active on (R-SEND-3).
    send_result<T> broadcast(T message) const {
        return this->state().broadcast(std::move(message), detail::no_deadline{});
    }

    // As broadcast(), giving up with send_errc::timed_out (R-SEND-4).
    template <class Rep, class Period>
    send_result<T> broadcast_for(T message, const std::chrono::duration<Rep, Period>& timeout) const {
        return broadcast_until(std::move(message), std::chrono::steady_clock::now() + timeout);
    }
    template <class Clock, class Duration>
    send_result<T> broadcast_until(T message, const std::chrono::time_point<Clock, Duration>& deadline) const {
        return this->state().broadcast(std::move(message), deadline);
    }

    // A receiver at the tail: it sees only later messages (R-LIFE-2).
    receiver<T, Model> new_receiver() const {
        auto& state = this->state();
        const std::uint64_t pos = state.attach_receiver_at_tail(false);
        return detail::handle_access::adopt<receiver<T, Model>>(&state, pos);
    }

private:
    friend struct detail::handle_access;
    explicit sender(typename base::state_type* state) noexcept : base(state) {}
};

} // namespace bcast

#include "inactive_receiver.hpp"
#include "receiver.hpp"
