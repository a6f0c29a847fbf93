// SPDX-License-Identifier: MIT OR Apache-2.0
// The bare multicast ring (docs/fast-design.md, section 10): the limit row of
// the fan-out. One producer, N consumers, a fixed power-of-two ring of
// std::uint64_t; each consumer's sequence on a cache line of its own; the
// producer gates on the slowest consumer and caches the minimum, as the LMAX
// Disruptor does; waiting is bcast::fast's (impl/include/bcast/fast/detail/
// platform.hpp and state.hpp): a bounded back-off, then an asymmetric Dekker
// handshake (membarrier) and a futex sleep. Written here, not included from
// impl/, so that nothing of bcast is in it.
//
// What it does not have: close (consumers know how many messages come),
// overflow, lag reports, inactive receivers, receivers joining or leaving,
// capacity changes, a message type other than std::uint64_t, more than one
// producer, a lock. A consumer takes one message per call and publishes its
// sequence after each, as a bcast::fast receive does.
//
// The slots are plain integers: a consumer reads slot s only after its acquire
// of the cursor saw s published, and the producer writes slot s again only
// after its acquire of every consumer's sequence saw each past s, so every
// access is ordered by happens-before and ThreadSanitizer checks exactly that.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>

#if defined(__linux__)
#include <climits>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#define BCAST_BARE_FUTEX 1
#else
#include <thread>
#define BCAST_BARE_FUTEX 0
#endif

namespace bcast_bench::bare {

// A cache line (bcast::fast's cache_line_bytes; hardware_destructive_interference_size
// is not stable across compiler flags, which g++ warns about).
inline constexpr std::size_t line = 64;

// ---- waiting: bcast::fast's strategy, written again --------------------------

// The back-off before sleeping: bcast::fast's (its Primitives::back_off_rounds
// and pause(), which are bcast/detail/futex.hpp's condition-variable wait):
// 20 rounds, the first 3 pausing 2, 4, 8 times, the rest yielding.
inline constexpr unsigned back_off_rounds = 20;
inline constexpr unsigned pause_rounds = 3;

inline void pause(unsigned round) noexcept {
    if (round < pause_rounds) {
        for (unsigned k = 0; k < (2U << round); ++k) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            asm volatile("yield");
#endif
        }
    } else {
#if BCAST_BARE_FUTEX
        ::sched_yield();
#else
        std::this_thread::yield();
#endif
    }
}

using word = std::atomic<std::uint32_t>;

// Sleeps while `w` holds `seen` (may return spuriously: callers loop).
inline void sleep_on(word& w, std::uint32_t seen) noexcept {
#if BCAST_BARE_FUTEX
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&w), FUTEX_WAIT_PRIVATE, seen, nullptr, nullptr, 0);
#else
    w.wait(seen, std::memory_order_acquire);
#endif
}

// Changes `w` and wakes every sleeper on it.
inline void wake_all(word& w) noexcept {
    // Release; partner the sleeper's acquire load of `seen` (consume_slow,
    // wait_for_room): a sleeper whose `seen` includes this increment sees what
    // the waker did before it in its re-check.
    w.fetch_add(1, std::memory_order_release);
#if BCAST_BARE_FUTEX
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&w), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
#else
    w.notify_all();
#endif
}

// The asymmetric fence pair of a Dekker handshake between a thread about to
// sleep (heavy: membarrier, every running thread of the process passes a full
// barrier) and one on the common path (light: a compiler barrier). Without
// membarrier, or when asked (fences::symmetric), both sides make an acq_rel
// read-modify-write that changes nothing on one word, as bcast::fast's fallback.
// Written again here, not included from bcast/fast/detail/platform.hpp: the
// bare ring is the limit row only while it includes nothing of bcast.
enum class fences { automatic,
                    symmetric };

inline bool membarrier_available() noexcept {
#if BCAST_BARE_FUTEX && defined(SYS_membarrier)
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

// ---- the ring ----------------------------------------------------------------

class ring {
    struct alignas(line) consumer_cell {
        // Written only by its consumer ([B9]); read by the producer ([B12]).
        std::atomic<std::uint64_t> sequence{0};
    };

    struct aligned_delete {
        void operator()(std::uint64_t* p) const noexcept { ::operator delete (p, std::align_val_t{line}); }
    };

public:
    // `capacity` rounded up to a power of two is the ring's size: the most
    // messages the producer may be ahead of the slowest consumer.
    ring(std::size_t capacity, std::size_t consumers, fences kind = fences::automatic)
        : mask_(std::bit_ceil(std::max<std::size_t>(capacity, 1)) - 1),
          consumer_count_(consumers),
          asymmetric_(kind == fences::automatic && membarrier_available()),
          slots_(static_cast<std::uint64_t*>(::operator new ((mask_ + 1) * sizeof(std::uint64_t), std::align_val_t{line}))),
          consumers_(std::make_unique<consumer_cell[]>(consumers)) {
        if (consumers == 0) throw std::invalid_argument("bare ring: at least one consumer");
        std::fill(slots_.get(), slots_.get() + mask_ + 1, 0);
    }

    ring(const ring&) = delete;
    ring& operator=(const ring&) = delete;
    ~ring() = default;

    std::size_t size() const noexcept { return mask_ + 1; }
    bool asymmetric() const noexcept { return asymmetric_; }

    // ---- the producer (one thread) -------------------------------------------

    // Publishes the next message, waiting while the ring is full.
    void publish(std::uint64_t value) noexcept {
        const std::uint64_t seq = producer_.next;
        // Gate on the slowest consumer without scanning: the cached minimum is
        // at most every consumer's sequence (sequences only grow).
        if (seq - producer_.cached_min >= size()) wait_for_room(seq);
        slots_[seq & mask_] = value; // the one copy: a plain store
        producer_.next = seq + 1;
        // [B1] release; partner every consumer's [B5]: the slot's store above
        // happens before a consumer's read of it.
        cursor_.store(seq + 1, std::memory_order_release);
        light_fence(); // [B2]; partner a sleeping consumer's [B7]
        // [B3] relaxed; ordered after [B1] by the fence pair [B2]/[B7]: either
        // the sleeper's re-check [B8] sees [B1], or this load sees its [B6].
        if (consumers_sleeping_.load(std::memory_order_relaxed) != 0) wake_all(recv_wake_);
    }

    // ---- a consumer (one thread per index) -------------------------------------

    class reader {
    public:
        // The next message, waiting while there is none.
        std::uint64_t next() noexcept {
            if (seq_ == available_) available_ = ring_->wait_for_message(seq_);
            const std::uint64_t value = ring_->slots_[seq_ & ring_->mask_];
            ring_->advance(*cell_, seq_, seq_ + 1);
            ++seq_;
            return value;
        }

    private:
        friend class ring;
        reader(ring& r, std::size_t index) : ring_(&r), cell_(&r.consumers_[index]) {}
        ring* ring_;
        consumer_cell* cell_;
        std::uint64_t seq_ = 0;       // the next message this consumer reads
        std::uint64_t available_ = 0; // the cursor as it last saw it: messages below it are published
    };

    // Consumer `index`'s handle; one thread uses it.
    reader reader_at(std::size_t index) { return reader(*this, index); }

private:
    void light_fence() noexcept {
        if (asymmetric_) std::atomic_signal_fence(std::memory_order_seq_cst);
        else fence_word_.fetch_add(0, std::memory_order_acq_rel); // acq_rel; partner the other side's same operation
    }

    void heavy_fence() noexcept {
        if (!asymmetric_) {
            fence_word_.fetch_add(0, std::memory_order_acq_rel); // acq_rel; partner the other side's same operation
            return;
        }
#if BCAST_BARE_FUTEX && defined(SYS_membarrier)
        // Registered in the constructor; if it failed, the light fences would
        // pair with nothing: stop rather than lose a wakeup.
        if (::syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) std::abort();
#endif
    }

    // The cursor once it is past `seq`: back off, then the handshake and a sleep.
    std::uint64_t wait_for_message(std::uint64_t seq) noexcept {
        unsigned round = 0;
        for (;;) {
            // [B5] acquire; partner [B1]: the slots below the value are written.
            const std::uint64_t cursor = cursor_.load(std::memory_order_acquire);
            if (cursor > seq) return cursor;
            if (round < back_off_rounds) {
                pause(round++);
                continue;
            }
            // Acquire; partner wake_all's release: a `seen` that includes a
            // wake sees its publish in [B8].
            const std::uint32_t seen = recv_wake_.load(std::memory_order_acquire);
            // [B6] relaxed (a count several consumers change); ordered before
            // [B8] by the heavy fence.
            consumers_sleeping_.fetch_add(1, std::memory_order_relaxed);
            heavy_fence(); // [B7]; partner the producer's [B2]
            // [B8] acquire; partner [B1].
            const std::uint64_t again = cursor_.load(std::memory_order_acquire);
            if (again <= seq) sleep_on(recv_wake_, seen);
            consumers_sleeping_.fetch_sub(1, std::memory_order_relaxed); // a count only, ordered by nothing
            if (again > seq) return again;
        }
    }

    // A consumer moves from `from` to `to` and wakes the producer if it waits
    // for exactly this move.
    void advance(consumer_cell& cell, std::uint64_t from, std::uint64_t to) noexcept {
        // [B9] release; partner [B12]: this consumer's read of the slot happens
        // before the producer writes the slot again.
        cell.sequence.store(to, std::memory_order_release);
        light_fence(); // [B10]; partner the producer's [B14]
        // [B11] relaxed; ordered after [B9] by the fence pair [B10]/[B14].
        const std::uint64_t need = producer_need_.load(std::memory_order_relaxed);
        if (need != 0 && from < need && need <= to) wake_all(send_wake_);
    }

    // The slowest consumer's sequence, from a scan; refreshes the cache.
    std::uint64_t refreshed_min() noexcept {
        std::uint64_t lowest = producer_.next;
        for (std::size_t k = 0; k < consumer_count_; ++k) {
            // [B12] acquire; partner each consumer's [B9].
            lowest = std::min(lowest, consumers_[k].sequence.load(std::memory_order_acquire));
        }
        producer_.cached_min = lowest;
        return lowest;
    }

    // Waits until every consumer is past seq - size(), so that slot seq is free.
    void wait_for_room(std::uint64_t seq) noexcept {
        unsigned round = 0;
        while (seq - refreshed_min() >= size()) {
            if (round < back_off_rounds) {
                pause(round++);
                continue;
            }
            // Acquire; partner wake_all's release ([B11]'s wake).
            const std::uint32_t seen = send_wake_.load(std::memory_order_acquire);
            // [B13] relaxed; ordered before [B15] by the heavy fence. The
            // position every consumer must reach for slot seq to be free.
            producer_need_.store(seq - size() + 1, std::memory_order_relaxed);
            heavy_fence(); // [B14]; partner every consumer's [B10]
            // [B15]: either this scan sees a consumer's [B9], or its [B11] sees [B13].
            if (seq - refreshed_min() >= size()) sleep_on(send_wake_, seen);
            // Relaxed: a stale need only causes a spurious wakeup.
            producer_need_.store(0, std::memory_order_relaxed);
        }
    }

    const std::size_t mask_;
    const std::size_t consumer_count_;
    const bool asymmetric_;
    std::unique_ptr<std::uint64_t[], aligned_delete> slots_;
    std::unique_ptr<consumer_cell[]> consumers_;

    // The producer's own: no other thread reads them.
    struct alignas(line) producer_state {
        std::uint64_t next = 0;       // the next sequence to publish
        std::uint64_t cached_min = 0; // <= every consumer's sequence
    } producer_;

    // Written by the producer on every publish, read by consumers whose cached
    // cursor is used up.
    alignas(line) std::atomic<std::uint64_t> cursor_{0};
    // Read by every consumer's advance, written when the producer sleeps.
    alignas(line) std::atomic<std::uint64_t> producer_need_{0};
    // Read by every publish, written by consumers going to sleep and waking.
    alignas(line) std::atomic<std::uint32_t> consumers_sleeping_{0};
    alignas(line) word recv_wake_{0}; // consumers sleep on it; the producer wakes
    alignas(line) word send_wake_{0}; // the producer sleeps on it; consumers wake
    // The fence pairs' word without membarrier: every publish and advance writes it then.
    alignas(line) std::atomic<std::uint64_t> fence_word_{0};
};

} // namespace bcast_bench::bare
