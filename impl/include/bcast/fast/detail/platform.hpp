// SPDX-License-Identifier: MIT OR Apache-2.0
// What bcast::fast needs from the platform (docs/fast-design.md, section 5):
// sleeping on a 32-bit word until it changes, waking every sleeper, a bounded
// back-off before sleeping, and the asymmetric fence pair of the sender's
// handshake with the receivers.
//
// On Linux the words are futexes (bcast's detail/futex.hpp: C++20
// atomic::wait's mechanism, with the timed wait the standard lacks) and the
// heavy fence is membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED). Elsewhere the
// waits go through a small table of mutex + condition variable buckets keyed
// by the word's address (what libstdc++ does for atomic::wait), and both
// fences are seq_cst thread fences.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>

#include "../../detail/futex.hpp"

#if BCAST_HAVE_FUTEX
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(SYS_membarrier)
#define BCAST_HAVE_MEMBARRIER 1
#endif
#endif
#ifndef BCAST_HAVE_MEMBARRIER
#define BCAST_HAVE_MEMBARRIER 0
#endif

namespace bcast::fast::detail {

// ---- sleeping on a word ----------------------------------------------------

#if BCAST_HAVE_FUTEX
// Linux: the kernel compares the word with `seen` and sleeps in one step
// under its bucket lock, so a change made before the sleep is never missed.
struct std_waits {
    using word = std::atomic<std::uint32_t>;
    using ops = bcast::detail::linux_futex_ops;
    static void wait(word& w, std::uint32_t seen) noexcept { ops::wait(w, seen); }
    // False once the deadline has passed.
    static bool wait_until(word& w, std::uint32_t seen, std::chrono::steady_clock::time_point deadline) noexcept {
        return ops::wait_until(w, seen, deadline);
    }
    static void wake_all(word& w) noexcept { ops::wake_all(w); }
    // The reference's back-off before a wait (bcast/detail/futex.hpp): 3
    // rounds of 2, 4, 8 pauses, then yields, 20 rounds in all.
    static constexpr unsigned back_off_rounds = ops::wait_rounds;
    static void pause(unsigned round) noexcept {
        if (round < ops::pause_rounds) ops::relax(2U << round);
        else ops::yield();
    }
};
#else
// Elsewhere: a waker changes the word, then takes the word's bucket lock to
// notify; a sleeper checks the word under the same lock before it waits, so
// the notification cannot fall between its check and its wait.
struct std_waits {
    using word = std::atomic<std::uint32_t>;
    struct bucket {
        std::mutex mutex;
        std::condition_variable sleepers;
    };
    static constexpr std::size_t bucket_count = 16;
    static bucket& bucket_of(const word& w) noexcept {
        static std::array<bucket, bucket_count> buckets;
        return buckets[std::hash<const word*>{}(&w) % bucket_count];
    }
    static void wait(word& w, std::uint32_t seen) noexcept {
        bucket& b = bucket_of(w);
        std::unique_lock lock(b.mutex);
        if (w.load(std::memory_order_acquire) == seen) b.sleepers.wait(lock); // may return spuriously: callers loop
    }
    static bool wait_until(word& w, std::uint32_t seen, std::chrono::steady_clock::time_point deadline) noexcept {
        bucket& b = bucket_of(w);
        std::unique_lock lock(b.mutex);
        if (w.load(std::memory_order_acquire) == seen) b.sleepers.wait_until(lock, deadline);
        return std::chrono::steady_clock::now() < deadline;
    }
    static void wake_all(word& w) noexcept {
        bucket& b = bucket_of(w);
        const std::lock_guard lock(b.mutex);
        b.sleepers.notify_all();
    }
    static constexpr unsigned back_off_rounds = 8;
    static void pause(unsigned) noexcept { std::this_thread::yield(); }
};
#endif

// ---- the asymmetric fence pair -------------------------------------------------
// A thread about to sleep and one on the common path form a Dekker pair
// (docs/fast-design.md, section 5: a sender waiting for room and a receiver
// that has just advanced; a receiver waiting for a message and a sender that
// has just published): each stores, then loads what the other stores, and at
// least one of them must see the other's store. The common path runs on every
// send and receive and must cost nothing; the sleeper's side runs only before
// sleeping. light() + heavy() give what two seq_cst fences give: heavy() makes
// every running thread of the process pass a full barrier before it returns
// (membarrier's contract), so each light(), a compiler barrier, sits either
// before or after that barrier point.
//
// Without membarrier both sides make an acq_rel read-modify-write that changes
// nothing on one word of the channel (`word`): two such operations are ordered
// in the word's modification order and the later one synchronizes with the
// earlier, which is what the pair needs (and ThreadSanitizer, which does not
// model fences, understands it).

// Registers this process for membarrier's private expedited command, once;
// false when the kernel cannot do it (then the fallback above).
inline bool membarrier_available() noexcept {
#if BCAST_HAVE_MEMBARRIER
    static const bool registered = [] {
        const long commands = ::syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
        if (commands < 0 || (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return false;
        return ::syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
    }();
    return registered;
#else
    return false;
#endif
}

// The read-modify-write both sides of the fallback make (a template over the
// word's type, so that the Relacy model runs this code on its own atomics).
template <class Word>
void fence_by_word(Word& word) noexcept {
    // acq_rel; partner the other side's same operation on the same word.
    word.fetch_add(0, std::memory_order_acq_rel);
}

// The fence policy of the std Primitives: membarrier where the kernel has it.
// The choice is made once, when the channel is constructed, and both sides of
// every pair read the same const member, so they never disagree.
class asymmetric_fences {
public:
    asymmetric_fences() noexcept : asymmetric_(membarrier_available()) {}
    // A receiver's side: a compiler barrier, or the fallback without membarrier.
    void light(std::atomic<std::uint64_t>& word) const noexcept {
        if (asymmetric_) std::atomic_signal_fence(std::memory_order_seq_cst);
        else fence_by_word(word);
    }
    // A sleeping sender's side.
    void heavy(std::atomic<std::uint64_t>& word) const noexcept {
        if (!asymmetric_) {
            fence_by_word(word);
            return;
        }
#if BCAST_HAVE_MEMBARRIER
        // Registered above, so the command cannot fail; if it did, receivers'
        // compiler barriers would pair with nothing: stop rather than lose a wakeup.
        if (::syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) std::abort();
#endif
    }
    bool asymmetric() const noexcept { return asymmetric_; }

private:
    bool asymmetric_;
};

// The fallback as a policy of its own (a locked instruction per receive on
// x86-64): what platforms without membarrier get, and what the tests and the
// benchmark run next to the default.
class symmetric_fences {
public:
    template <class Word>
    void light(Word& word) const noexcept {
        fence_by_word(word);
    }
    template <class Word>
    void heavy(Word& word) const noexcept {
        fence_by_word(word);
    }
    bool asymmetric() const noexcept { return false; }
};

} // namespace bcast::fast::detail
