// SPDX-License-Identifier: MIT OR Apache-2.0
// The awaitables returned by receiver::async_recv() and
// sender::async_broadcast() (R-ASYNC-1..5; docs/async.md).
//
// An operation is its own waiter node, so it lives in the awaiting
// coroutine's frame and queueing it allocates nothing (R-ASYNC-2):
//
//   await_suspend: [register a stop callback] -> channel.start_*: check and
//                  queue in one critical section -> suspend (or go on at once)
//   completion:    another thread's critical section answers the waiter under
//                  the lock -> after its unlock, on_complete -> scheduler
//                  (or inline) resumes the coroutine -> await_resume
//   cancellation:  stop callback -> channel.cancel: unlink with `cancelled`
//                  -> resumed like a completion
//
// After start_*() has queued the waiter, another thread may resume the
// coroutine and destroy this object at any moment, so await_suspend touches
// nothing of `this` after that call.
#pragma once

#include <coroutine>
#include <exception>
#include <optional>
#include <stop_token>
#include <type_traits>
#include <utility>

#include "../async.hpp"
#include "assert.hpp"
#include "channel_state.hpp"
#include "waiter.hpp"

namespace bcast::detail {

// How a completed operation resumes its coroutine: inline or through a scheduler.
struct resumer {
    void (*resume)(void* scheduler, std::coroutine_handle<> caller) noexcept;
    void* scheduler;

    static resumer inline_resume() noexcept {
        return {[](void*, std::coroutine_handle<> caller) noexcept { caller.resume(); }, nullptr};
    }
    template <bcast::scheduler S>
    static resumer through(S& scheduler) noexcept {
        return {[](void* erased, std::coroutine_handle<> caller) noexcept { static_cast<S*>(erased)->schedule(caller); },
                &scheduler};
    }
};

template <class T, class Primitives, class Waiter>
class async_operation : private Waiter {
public:
    using state_type = channel_state<T, Primitives>;

    async_operation(const async_operation&) = delete;
    async_operation& operator=(const async_operation&) = delete;

    // Always tries inside await_suspend, under the lock, so that the check and
    // the queueing are one critical section.
    bool await_ready() const noexcept { return false; }

    // Returns false (do not suspend) when the answer was there at once.
    bool await_suspend(std::coroutine_handle<> caller) {
        caller_ = caller;
        this->on_complete = &resume_caller;
        // May run cancel() at once; the channel then answers `cancelled` instead
        // of queueing (R-ASYNC-4).
        if (token_.stop_possible()) on_stop_.emplace(token_, canceller{this});
        started_ = true;
        try {
            return start(*state_, waiter()); // true: queued, and `this` may already be gone
        } catch (...) {
            started_ = false; // a throwing message copy: nothing queued, nothing changed
            throw;
        }
    }

    auto await_resume() {
        finished_ = true;
        on_stop_.reset(); // waits for a cancel() still running on another thread
        if constexpr (std::is_same_v<Waiter, recv_waiter<T, Primitives>>) {
            if (this->failure) std::rethrow_exception(this->failure); // the message copy threw (R-MSG-3)
        }
        BCAST_ASSERT(this->result.has_value());
        return std::move(*this->result);
    }

    ~async_operation() {
        if (started_ && !finished_) { // the coroutine was destroyed while suspended here
            on_stop_.reset();
            const bool unlinked = state_->forget(waiter());
            BCAST_ASSERT(unlinked && "a completed async operation was destroyed before it was resumed");
            static_cast<void>(unlinked);
        }
    }

protected:
    async_operation(state_type& state, std::stop_token token, resumer how) noexcept
        : state_(&state), token_(std::move(token)), how_(how) {}

    Waiter& waiter() noexcept { return *this; }

private:
    struct canceller {
        async_operation* operation;
        void operator()() const noexcept { operation->state_->cancel(operation->waiter()); }
    };

    static bool start(state_type& state, recv_waiter<T, Primitives>& node) { return state.start_recv(node); }
    static bool start(state_type& state, send_waiter<T, Primitives>& node) { return state.start_send(node); }

    // The waiter's on_complete: runs after the completing thread unlocked.
    static void resume_caller(detail::waiter& node) noexcept {
        auto& self = static_cast<async_operation&>(static_cast<Waiter&>(node));
        self.how_.resume(self.how_.scheduler, self.caller_); // `self` may be destroyed from here on
    }

    state_type* state_;
    std::stop_token token_;
    resumer how_;
    std::coroutine_handle<> caller_;
    std::optional<std::stop_callback<canceller>> on_stop_; // engaged from await_suspend to await_resume
    bool started_ = false;  // await_suspend called start_*()
    bool finished_ = false; // await_resume ran
};

// co_await receiver.async_recv(): recv_result<T>.
template <class T, class Primitives>
class [[nodiscard]] recv_operation : public async_operation<T, Primitives, recv_waiter<T, Primitives>> {
public:
    recv_operation(channel_state<T, Primitives>& state, typename Primitives::position& pos, std::stop_token token,
                   resumer how) noexcept
        : async_operation<T, Primitives, recv_waiter<T, Primitives>>(state, std::move(token), how) {
        this->waiter().pos = &pos;
    }
};

// co_await sender.async_broadcast(message): send_result<T>.
template <class T, class Primitives>
class [[nodiscard]] send_operation : public async_operation<T, Primitives, send_waiter<T, Primitives>> {
public:
    send_operation(channel_state<T, Primitives>& state, T message, std::stop_token token, resumer how) noexcept
        : async_operation<T, Primitives, send_waiter<T, Primitives>>(state, std::move(token), how) {
        this->waiter().message.emplace(std::move(message));
    }
};

} // namespace bcast::detail
