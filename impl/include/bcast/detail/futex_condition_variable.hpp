// SPDX-License-Identifier: MIT OR Apache-2.0
// The channel's condition variable, for futex_mutex (docs/design.md, section 4,
// "Why a lock of its own").
//
// One 32-bit word, `sequence_`, counts notifications (Rust std's futex
// condition variable has the same shape). wait() reads it while still holding
// the lock, unlocks, backs off a few rounds watching it, then sleeps while it
// still has the value read; every notify increments it, then wakes.
//
// No lost wakeup: a notifier that changes the state under the lock after the
// waiter checked its predicate runs after the waiter's unlock, so its
// increment comes after the waiter's read in the word's modification order:
// the back-off sees the word change, or the kernel (which compares and sleeps
// in one step) refuses to sleep, or the sleeper is queued and the wake finds
// it. Spurious returns are allowed, as for std::condition_variable: every
// caller in channel_state.hpp loops and re-checks (design.md fact 2).
#pragma once

#include <chrono>
#include <condition_variable> // std::cv_status
#include <cstdint>
#include <mutex>
#include <type_traits>

#include "deadline.hpp"
#include "futex.hpp"
#include "futex_mutex.hpp"

namespace bcast::detail {

template <class Ops, class Mutex = futex_mutex<Ops>>
class futex_condition_variable {
public:
    using lock_type = std::unique_lock<Mutex>;

    futex_condition_variable() = default;
    futex_condition_variable(const futex_condition_variable&) = delete;
    futex_condition_variable& operator=(const futex_condition_variable&) = delete;

    // The word carries no data, only "something changed"; the data is
    // ordered by the mutex. Seq_cst, with the load of sleepers_:
    // a Dekker handshake with wait_for_change() (its sleepers_ increment, then the
    // kernel's read of the word): either this notifier sees the sleeper and
    // wakes it, or the sleeper's kernel read sees this increment and does not
    // sleep. A waiter still backing off costs the notifier no system call.
    void notify_one() noexcept {
        sequence_.fetch_add(1, std::memory_order_seq_cst);
        if (sleepers_.load(std::memory_order_seq_cst) != 0) Ops::wake_one(sequence_); // partner: wait_for_change()
    }
    void notify_all() noexcept {
        sequence_.fetch_add(1, std::memory_order_seq_cst);
        if (sleepers_.load(std::memory_order_seq_cst) != 0) Ops::wake_all(sequence_); // partner: wait_for_change()
    }

    void wait(lock_type& lock) noexcept {
        wait_for_change(lock, [this](std::uint32_t seen) {
            Ops::wait(sequence_, seen);
            return true; // an untimed wait is always in time
        });
    }

    std::cv_status wait_until(lock_type& lock, std::chrono::steady_clock::time_point deadline) noexcept {
        const bool in_time =
            wait_for_change(lock, [&](std::uint32_t seen) { return Ops::wait_until(sequence_, seen, deadline); });
        // As std::condition_variable: timeout means the deadline passed; the
        // channel re-checks its state once more either way (design.md fact 3).
        if (!in_time || std::chrono::steady_clock::now() >= deadline) return std::cv_status::timeout;
        return std::cv_status::no_timeout;
    }

    // Any other clock or duration (broadcast_until / recv_until accept any
    // clock): the kernel sleeps on steady_clock, so the deadline is converted
    // once per wait and the timeout judged on the caller's clock, as
    // std::condition_variable does. A deadline beyond steady_clock's range is
    // an untimed wait (deadline.hpp's rule).
    template <class Clock, class Duration>
    std::cv_status wait_until(lock_type& lock, const std::chrono::time_point<Clock, Duration>& deadline) noexcept {
        using steady = std::chrono::steady_clock;
        if constexpr (std::is_same_v<Clock, steady>) {
            return wait_until(lock, std::chrono::ceil<steady::duration>(deadline));
        } else {
            if (const auto steady_deadline = deadline_after(deadline - Clock::now())) wait_until(lock, *steady_deadline);
            else wait(lock);
            return Clock::now() >= deadline ? std::cv_status::timeout : std::cv_status::no_timeout;
        }
    }

private:
    // The bounded back-off before sleeping: with threads outnumbering cores,
    // the notifier is often one yield away, and a yield costs far less than a
    // sleep and its wake.
    bool changed_while_backing_off(std::uint32_t seen) noexcept {
        unsigned round = 0;
        while (spin_policy::back_off<Ops>(round, Ops::wait_rounds)) {
            if (sequence_.load(std::memory_order_relaxed) != seen) return true;
        }
        return false;
    }

    // One wait, untimed or timed: `kernel_wait(seen)` sleeps while the word
    // still holds `seen` and says whether it returned in time.
    template <class KernelWait>
    bool wait_for_change(lock_type& lock, KernelWait kernel_wait) noexcept {
        // Read under the lock: a notify that can matter comes after it (above).
        const std::uint32_t seen = sequence_.load(std::memory_order_relaxed);
        lock.unlock();
        bool in_time = true;
        if (!changed_while_backing_off(seen)) {
            // Seq_cst increment, then the kernel compares the word: the other
            // half of the handshake in notify_*(). The decrement after the
            // return can be relaxed: a stale non-zero count only costs a
            // notifier a needless system call. (Letting the notifier claim
            // sleepers instead, so a woken thread that has not run yet is not
            // woken again, made fewer system calls but a slower channel here:
            // design.md, section 4.)
            sleepers_.fetch_add(1, std::memory_order_seq_cst);
            in_time = kernel_wait(seen); // partner: the wake in notify_*()
            sleepers_.fetch_sub(1, std::memory_order_relaxed);
        }
        lock.lock();
        return in_time;
    }

    // Notifications so far, modulo 2^32 (a waiter that sleeps through exactly
    // 2^32 notifications would miss one: it would first have to be
    // descheduled for billions of notifications between two instructions).
    typename Ops::template atomic<std::uint32_t> sequence_{0};
    // Invariant: the threads between the increment and the decrement in
    // wait_for_change(), so at least those asleep in the kernel on
    // sequence_. notify_*() makes the system call only when it is not 0.
    typename Ops::template atomic<std::uint32_t> sleepers_{0};
};

} // namespace bcast::detail
