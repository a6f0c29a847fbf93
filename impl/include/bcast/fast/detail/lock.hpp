// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::fast's lock (docs/fast-design.md, section 5, "The send's lock"):
// bcast's futex lock (bcast/detail/futex_mutex.hpp) with an unlock that is a
// plain store.
//
// Why not bcast's futex lock as it is: its unlock is an exchange, which tells
// it whether anyone sleeps on the word. That is a locked instruction, and on
// x86-64 it waits until the critical section's stores have left the store
// buffer. A send's critical section writes the slot that receivers on other
// cores are reading, so every send would wait for that cache line to come
// back. The ablation `spin-lock` priced that release (docs/fast-design.md,
// section 10); this lock keeps bcast's lock's sleeping and drops the exchange.
//
// The word `state_`: 0 unlocked, 1 locked. `sleepers_`: the threads that have
// announced a sleep and not yet got the lock.
// lock():   one CAS 0 -> 1 inline [L1]. If that fails: bcast's back-off
//           re-trying the CAS, then the sleeper's side of an asymmetric Dekker
//           pair (fast/detail/platform.hpp): sleepers_ + 1 [L3], the heavy
//           fence [L4], then the CAS, or a futex sleep while the word is 1 [L5],
//           until the CAS takes it; then sleepers_ - 1.
// unlock(): store 0 [L2], the light fence [L6], and only if sleepers_ is not
//           0 wake one [L7]. So the uncontended pair is one CAS and one store:
//           one locked instruction, where bcast's futex lock has two.
// No lost wakeup: either the unlock's [L7] sees the count (the fence pair
// orders [L3] before it, or [L2] before the sleeper's [L5]) and wakes one, or
// the sleeper's CAS or the kernel's comparison in [L5] sees the 0 and it does
// not sleep. A woken sleeper that loses the CAS to a thread that came later
// sleeps again, still counted, and that thread's unlock wakes it.
// Where there is no membarrier, the fence pair is a read-modify-write on both
// sides (`fence_word_`): correct, and as costly as bcast's futex lock.
#pragma once

#include <cstdint>

#include "../../detail/assert.hpp"
#include "../../detail/futex.hpp"
#include "../../detail/futex_mutex.hpp" // futex_lock_base

namespace bcast::fast::detail {

template <class Ops, class Fences>
class store_release_mutex : public bcast::detail::futex_lock_base<Ops, store_release_mutex<Ops, Fences>> {
    // lock() and try_lock() are the base's: the inline CAS 0 -> 1 [L1], acquire;
    // partner [L2] of the previous holder: its critical section happens before this one.
    using base = bcast::detail::futex_lock_base<Ops, store_release_mutex<Ops, Fences>>;
    friend base; // calls lock_contended() and release()
    using base::locked;
    using base::state_;
    using base::unlocked;

public:
    store_release_mutex() = default;

private:
    // unlock().
    void release() noexcept {
        BCAST_ASSERT(state_.load(std::memory_order_relaxed) == locked); // unlock of a lock nobody holds
        // [L2] release; partner the next holder's CAS ([L1] or [L5]).
        state_.store(unlocked, std::memory_order_release);
        fences_.light(fence_word_); // [L6]; partner a sleeper's [L4]
        // [L7] relaxed; ordered after [L2] by the fence pair [L6]/[L4].
        if (sleepers_.load(std::memory_order_relaxed) != 0) Ops::wake_one(state_);
    }

    [[gnu::noinline]] void lock_contended() noexcept {
        // Back-off first, as bcast's futex lock: a send's critical section is a
        // few dozen instructions, so the holder usually releases within it.
        unsigned round = 0;
        do {
            std::uint32_t expected = unlocked;
            // Acquire: as [L1].
            if (state_.load(std::memory_order_relaxed) == unlocked &&
                state_.compare_exchange_weak(expected, locked, std::memory_order_acquire, std::memory_order_relaxed)) {
                return;
            }
        } while (bcast::detail::spin_policy::back_off<Ops>(round, Ops::lock_rounds));
        // [L3] relaxed; ordered before [L5] by the heavy fence [L4].
        sleepers_.fetch_add(1, std::memory_order_relaxed);
        fences_.heavy(fence_word_); // [L4]; partner every unlock's [L6]
        for (;;) {
            std::uint32_t expected = unlocked;
            // [L5] acquire: as [L1]; then the kernel sleeps only while the word is still 1.
            if (state_.compare_exchange_strong(expected, locked, std::memory_order_acquire, std::memory_order_relaxed))
                break;
            Ops::wait(state_, locked); // partner [L7]
        }
        sleepers_.fetch_sub(1, std::memory_order_relaxed); // a count for [L7]; a stale one only wakes in vain
    }

    typename Ops::template atomic<std::uint32_t> sleepers_{0}; // threads between [L3] and the lock
    // The fence pair's word where there is no membarrier (platform.hpp).
    typename Ops::template atomic<std::uint64_t> fence_word_{0};
    [[no_unique_address]] const Fences fences_{};
};

} // namespace bcast::fast::detail
