// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_support::task<T>: the smallest coroutine type that can drive bcast's
// async API in the examples and tests. It is not a runtime and not part of
// bcast: no scheduler, no continuation, no cancellation of its own.
//
// A task starts running at once (eager) on the calling thread and runs until
// its first suspension; it is then resumed by whatever completes the awaited
// operation (see docs/async.md). The task object owns the coroutine frame:
// destroying it destroys the frame, so destroy a task only when it is done(),
// or while it is suspended in a bcast operation that nothing can complete
// concurrently (R-ASYNC-5 then unlinks the pending operation).
//
// A g++ 12 bug to steer clear of in any coroutine: a temporary created in one
// arm of ?: inside a co_await expression is destroyed twice, as in
// `co_await rx.async_recv(c ? source.get_token() : std::stop_token())` (a stop
// state released twice). Compute such a value into a named local first.
#pragma once

#include <atomic>
#include <coroutine>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

namespace bcast_support {

namespace detail {

// What the promise keeps for the caller: the value (none for void) or the exception.
template <class T>
struct task_result {
    std::optional<T> value;
    template <class U>
    void return_value(U&& result) {
        value.emplace(std::forward<U>(result));
    }
    T& get() { return *value; }
};
template <>
struct task_result<void> {
    void return_void() noexcept {}
    void get() noexcept {}
};

} // namespace detail

template <class T = void>
class [[nodiscard]] task {
public:
    struct promise_type : detail::task_result<T> {
        std::exception_ptr failure;
        std::atomic<bool> finished{false}; // set once the frame is suspended at its end

        task get_return_object() noexcept { return task(std::coroutine_handle<promise_type>::from_promise(*this)); }
        std::suspend_never initial_suspend() noexcept { return {}; } // eager
        auto final_suspend() noexcept {
            struct mark_finished {
                bool await_ready() const noexcept { return false; }
                // Set after the coroutine is suspended, so a thread that sees
                // `finished` may destroy the frame. Release: pairs with the
                // acquire loads in done() and wait(), publishing the result.
                // The notify may run after a waiter saw `finished` and destroyed
                // the frame. libstdc++ keys the waits on an atomic<bool> by its
                // address in a table of its own and never reads the atomic in
                // notify_all (bits/atomic_wait.h), so that is safe here; the
                // standard's wording gap is what P2616 addresses.
                void await_suspend(std::coroutine_handle<promise_type> self) const noexcept {
                    self.promise().finished.store(true, std::memory_order_release);
                    self.promise().finished.notify_all(); // partner: finished.wait() in wait()
                }
                void await_resume() const noexcept {}
            };
            return mark_finished{};
        }
        void unhandled_exception() noexcept { failure = std::current_exception(); }
    };

    task(task&& other) noexcept : frame_(std::exchange(other.frame_, {})) {}
    task& operator=(task&& other) noexcept {
        task taken(std::move(other));
        std::swap(frame_, taken.frame_);
        return *this;
    }
    ~task() {
        if (frame_) frame_.destroy();
    }

    // Whether the coroutine has run to its end (acquire: see final_suspend).
    bool done() const noexcept { return frame_.promise().finished.load(std::memory_order_acquire); }

    // Blocks the calling thread until the coroutine has run to its end.
    void wait() const noexcept {
        while (!frame_.promise().finished.load(std::memory_order_acquire)) {
            frame_.promise().finished.wait(false, std::memory_order_acquire);
        }
    }

    // The coroutine's result; rethrows what escaped it. Only once done().
    decltype(auto) result() {
        if (frame_.promise().failure) std::rethrow_exception(frame_.promise().failure);
        return frame_.promise().get();
    }

private:
    explicit task(std::coroutine_handle<promise_type> frame) noexcept : frame_(frame) {}
    std::coroutine_handle<promise_type> frame_;
};

} // namespace bcast_support
