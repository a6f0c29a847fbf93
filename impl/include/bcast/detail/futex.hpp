// SPDX-License-Identifier: MIT OR Apache-2.0
// The operating-system half of bcast's own lock (futex_mutex.hpp) and condition
// variable (futex_condition_variable.hpp): sleeping on a 32-bit word, waking
// sleepers, and the bounded back-off both use before they sleep.
//
// Why the channel has a lock of its own (docs/design.md, section 4, "Why a
// lock of its own"): with glibc's mutex and condition variable, a contended
// lock goes straight to the kernel, and with threads outnumbering cores the
// fan-out benchmark paid about 1.6 futex calls and 0.4 voluntary context
// switches per message, against async-broadcast's 0.24 (whose parking_lot
// lock spins, then yields, then sleeps). The algorithm here is the same as
// parking_lot's and Rust std's: a word that says "unlocked / locked / locked
// with sleepers", a few rounds of back-off on the word, then the kernel.
//
// `Ops` is what the lock and the condition variable are templated over, as
// the channel is templated over its Primitives: `linux_futex_ops` below is the
// real thing; model_tests/relacy/futex_model.hpp maps the same names onto
// Relacy so the lock's own protocol is model-checked (every atomic access a
// scheduling point, the back-off a Relacy yield, the futex an emulation).
// What an Ops provides:
//   atomic<U>                     std::atomic's interface, for the 32-bit words
//   wait(word, expected)          sleep while word == expected; may return spuriously
//   wait_until(word, expected, t) the same with a steady_clock deadline; false once it passed
//   wake_one(word), wake_all(word)
//   relax(rounds)                 a CPU pause, `rounds` times (the lock holder is running)
//   yield()                       give the core away (the lock holder may not be running)
//   pause_rounds, lock_rounds, wait_rounds   the back-off's shape (spin_policy below)
#pragma once

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>

#if defined(__linux__)
#include <ctime>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#define BCAST_HAVE_FUTEX 1
#else
#define BCAST_HAVE_FUTEX 0
#endif

// ThreadSanitizer sees the lock's atomics, so it already orders what the lock
// orders; the annotations (TSan's mutex interface) make it treat the word as a
// mutex: lock-order (deadlock) reports, mutex names in race reports, and the
// lock's own atomics left out of the race analysis.
#if defined(__SANITIZE_THREAD__)
#define BCAST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BCAST_TSAN 1
#endif
#endif
#ifndef BCAST_TSAN
#define BCAST_TSAN 0
#endif

#if BCAST_TSAN
extern "C" {
void __tsan_mutex_create(void* addr, unsigned flags);
void __tsan_mutex_destroy(void* addr, unsigned flags);
void __tsan_mutex_pre_lock(void* addr, unsigned flags);
void __tsan_mutex_post_lock(void* addr, unsigned flags, int recursion);
int __tsan_mutex_pre_unlock(void* addr, unsigned flags);
void __tsan_mutex_post_unlock(void* addr, unsigned flags);
void __tsan_mutex_pre_signal(void* addr, unsigned flags);
void __tsan_mutex_post_signal(void* addr, unsigned flags);
void __tsan_mutex_pre_divert(void* addr, unsigned flags);
void __tsan_mutex_post_divert(void* addr, unsigned flags);
}
#endif

namespace bcast::detail {

// The back-off both the lock and the condition variable take before they
// sleep: a few rounds of CPU pauses (cheap when the other thread is running on
// the other core and about to finish), then yields (when threads outnumber
// cores the thread we wait for may be waiting for this core), then the kernel.
// parking_lot's SpinWait has the lock's shape (3 + 7 rounds). The rounds are
// bounded, so the back-off never replaces the sleep, and a model checker's
// search through it stays finite.
struct spin_policy {
    // One round of back-off; returns false when `rounds` are spent and the
    // caller should sleep. Rounds below Ops::pause_rounds pause 2, 4, 8...
    // times, the later ones yield.
    template <class Ops>
    static bool back_off(unsigned& round, unsigned rounds) noexcept {
        if (round >= rounds) return false;
        if (round < Ops::pause_rounds) Ops::relax(2U << round);
        else Ops::yield();
        ++round;
        return true;
    }
};

#if BCAST_HAVE_FUTEX
// The Linux futex: the words are private to the process (FUTEX_PRIVATE_FLAG:
// no cross-process hashing).
struct linux_futex_ops {
    template <class U>
    using atomic = std::atomic<U>;
    // The lock: parking_lot's SpinWait, 3 rounds of pauses then 7 yields. A
    // holder is a critical section (a few dozen instructions) from unlocking.
    static constexpr unsigned pause_rounds = 3;
    static constexpr unsigned lock_rounds = 10;
    // A condition-variable wait: 3 rounds of pauses then 17 yields. Its event
    // is another thread's whole operation away (a receive that frees a slot,
    // a send), and sleeping costs a context switch and a wake system call.
    // Measured in the fan-out (docs/design.md, section 4): at capacity 64 and
    // N = 2, 17 yields ran 2.3x faster than 7, on less CPU per delivery.
    static constexpr unsigned wait_rounds = 20;
    static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) &&
                      std::atomic<std::uint32_t>::is_always_lock_free,
                  "the futex word is a plain 32-bit integer");

    static std::uint32_t* address(std::atomic<std::uint32_t>& word) noexcept {
        return reinterpret_cast<std::uint32_t*>(&word);
    }

    static void wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept {
        // The kernel compares *word with expected and sleeps in one step under
        // its hash-bucket lock; EAGAIN (changed), EINTR and spurious returns
        // are all "maybe woken": every caller re-checks its word.
        ::syscall(SYS_futex, address(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
    }

    static bool wait_until(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                           std::chrono::steady_clock::time_point deadline) noexcept {
        // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time, which is
        // steady_clock's clock on Linux: no drift from converting to a timeout.
        const auto since_epoch = deadline.time_since_epoch();
        if (since_epoch.count() < 0) return false;
        const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
        timespec at{};
        at.tv_sec = static_cast<time_t>(seconds.count());
        at.tv_nsec = static_cast<long>(std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch - seconds).count());
        ::syscall(SYS_futex, address(word), FUTEX_WAIT_BITSET_PRIVATE, expected, &at, nullptr, FUTEX_BITSET_MATCH_ANY);
        // The clock, not errno, says whether the deadline passed: errno is a
        // macro that model checkers redefine (relacy_primitives.hpp).
        return std::chrono::steady_clock::now() < deadline;
    }

    static void wake_one(std::atomic<std::uint32_t>& word) noexcept {
        ::syscall(SYS_futex, address(word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    }
    static void wake_all(std::atomic<std::uint32_t>& word) noexcept {
        ::syscall(SYS_futex, address(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
    }

    static void relax(unsigned rounds) noexcept {
        for (unsigned k = 0; k < rounds; ++k) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            asm volatile("yield");
#endif
        }
    }
    static void yield() noexcept { ::sched_yield(); }
};
#endif

} // namespace bcast::detail
