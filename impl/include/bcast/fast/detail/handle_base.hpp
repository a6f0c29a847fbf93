// SPDX-License-Identifier: MIT OR Apache-2.0
// What bcast::fast's three handle types share: ownership of the channel state
// and the channel-wide settings and queries (R-QUERY-1), all `const` and
// callable from any thread (R-THREAD-1). The same shape as the reference's
// bcast/detail/handle_base.hpp, over fast::detail::channel_state.
#pragma once

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "state.hpp"

namespace bcast::fast::detail {

// A deadline on any clock as a steady_clock deadline (the futex's clock):
// exact for steady_clock, the remaining time added to now for another clock.
template <class Clock, class Duration>
std::chrono::steady_clock::time_point steady_deadline(const std::chrono::time_point<Clock, Duration>& deadline) {
    if constexpr (std::is_same_v<Clock, std::chrono::steady_clock>) {
        return std::chrono::time_point_cast<std::chrono::steady_clock::duration>(deadline);
    } else {
        const auto left = std::chrono::duration_cast<std::chrono::steady_clock::duration>(deadline - Clock::now());
        return std::chrono::steady_clock::now() + left;
    }
}

// Builds handles from an existing state; the handles' private constructors
// trust it, and nothing outside bcast uses it.
struct handle_access {
    template <class Handle, class... Args>
    static Handle adopt(Args&&... args) {
        return Handle(std::forward<Args>(args)...);
    }

    // The channel behind a handle, for tests and diagnostics only.
    template <class Handle>
    static auto& state_of(const Handle& handle) {
        return handle.state();
    }
};

template <class T, class Primitives>
class handle_base {
    friend struct handle_access;

public:
    using state_type = channel_state<T, Primitives>;

    // As the reference's: queries are [[nodiscard]], close() is not (R-CLOSE-1).
    [[nodiscard]] std::size_t capacity() const { return state().capacity(); }
    void set_capacity(std::size_t new_capacity) const { state().set_capacity(new_capacity); }
    [[nodiscard]] bool overflow() const { return state().overflow(); }
    void set_overflow(bool enabled) const { state().set_overflow(enabled); }
    [[nodiscard]] bool await_active() const { return state().await_active(); }
    void set_await_active(bool enabled) const { state().set_await_active(enabled); }
    bool close() const { return state().close(); }
    [[nodiscard]] bool is_closed() const { return state().is_closed(); }
    [[nodiscard]] bool is_empty() const { return state().is_empty(); }
    [[nodiscard]] bool is_full() const { return state().is_full(); }
    [[nodiscard]] std::size_t len() const { return state().len(); }
    [[nodiscard]] std::size_t receiver_count() const { return state().receiver_count(); }
    [[nodiscard]] std::size_t inactive_receiver_count() const { return state().inactive_receiver_count(); }
    [[nodiscard]] std::size_t sender_count() const { return state().sender_count(); }

    // R-HANDLE-3: handles of one channel share one state; a moved-from handle
    // on either side throws (R-HANDLE-1).
    [[nodiscard]] bool same_channel(const handle_base& other) const { return &state() == &other.state(); }

    // False for a moved-from handle (R-HANDLE-1).
    [[nodiscard]] bool valid() const noexcept { return state_ != nullptr; }

protected:
    explicit handle_base(state_type* state) noexcept : state_(state) {}
    handle_base(handle_base&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
    handle_base(const handle_base&) = delete;
    handle_base& operator=(const handle_base&) = delete;
    handle_base& operator=(handle_base&&) = delete;
    ~handle_base() = default;

    // R-HANDLE-1: every use of a moved-from handle is a clear error that changes nothing.
    state_type& state() const {
        if (state_ == nullptr) throw std::logic_error("bcast: use of a moved-from channel handle");
        return *state_;
    }

    // Gives up the state without releasing it (the caller hands it on).
    state_type* take_state() noexcept { return std::exchange(state_, nullptr); }

    // Drops this handle's share; the last handle deletes the state.
    template <class Detach>
    void release(Detach detach) noexcept {
        if (state_ == nullptr) return;
        state_type* state = std::exchange(state_, nullptr);
        if (detach(*state)) delete state; // no other handle exists: no one else can touch it
    }

    state_type* state_;
};

} // namespace bcast::fast::detail
