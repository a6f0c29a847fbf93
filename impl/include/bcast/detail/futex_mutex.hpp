// SPDX-License-Identifier: MIT OR Apache-2.0
// The channel's lock (docs/design.md, section 4, "Why a lock of its own"): an
// inline uncontended path, bounded back-off, then a futex.
//
// The word `state_` has three values (Drepper, "Futexes Are Tricky", mutex 2):
//   0 unlocked, 1 locked and nobody sleeps, 2 locked and someone may sleep.
// lock():   one CAS 0 -> 1 inline. If that fails: a few rounds of back-off
//           re-trying the CAS (spin_policy), then exchange(2) and sleep while
//           the word is 2. A thread that went through the kernel keeps the
//           word at 2 when it gets the lock, because others may still sleep.
// unlock(): exchange(0); only if the old value was 2 call wake_one. So the
//           uncontended pair is one CAS and one exchange (2 locked
//           instructions, as glibc's) and never enters the kernel.
// No lost wakeup: a sleeper first makes the word 2 and the kernel sleeps
// only while it is still 2; an unlock that follows sees 2 and wakes one.
#pragma once

#include <cstdint>

#include "assert.hpp"
#include "futex.hpp"

namespace bcast::detail {

// What bcast's two futex locks share, this file's and bcast::fast's
// (fast/detail/lock.hpp): the word, the inline CAS 0 -> 1 of lock() and
// try_lock(), and ThreadSanitizer's mutex annotations around them. `Lock`
// (CRTP) gives lock_contended(), called when the inline CAS fails, and
// release(), what unlock() does to the word.
template <class Ops, class Lock>
class futex_lock_base {
public:
    futex_lock_base(const futex_lock_base&) = delete;
    futex_lock_base& operator=(const futex_lock_base&) = delete;

    void lock() noexcept {
#if BCAST_TSAN
        __tsan_mutex_pre_lock(this, 0);
#endif
        std::uint32_t expected = unlocked;
        // Acquire: pairs with the release in the previous holder's release(),
        // so its critical section happens before this one.
        if (!state_.compare_exchange_strong(expected, locked, std::memory_order_acquire, std::memory_order_relaxed)) {
            static_cast<Lock*>(this)->lock_contended();
        }
#if BCAST_TSAN
        __tsan_mutex_post_lock(this, 0, 0);
#endif
    }

    bool try_lock() noexcept {
#if BCAST_TSAN
        __tsan_mutex_pre_lock(this, tsan_try_lock);
#endif
        std::uint32_t expected = unlocked;
        // Acquire: as in lock().
        const bool got = state_.compare_exchange_strong(expected, locked, std::memory_order_acquire,
                                                        std::memory_order_relaxed);
#if BCAST_TSAN
        __tsan_mutex_post_lock(this, got ? tsan_try_lock : tsan_try_lock | tsan_try_lock_failed, 0);
#endif
        return got;
    }

    void unlock() noexcept {
#if BCAST_TSAN
        __tsan_mutex_pre_unlock(this, 0);
#endif
        static_cast<Lock*>(this)->release();
#if BCAST_TSAN
        __tsan_mutex_post_unlock(this, 0);
#endif
    }

protected:
#if BCAST_TSAN
    futex_lock_base() noexcept { __tsan_mutex_create(this, 0); }
    ~futex_lock_base() { __tsan_mutex_destroy(this, 0); }
#else
    futex_lock_base() = default;
    ~futex_lock_base() = default;
#endif

    static constexpr std::uint32_t unlocked = 0;
    static constexpr std::uint32_t locked = 1; // held (futex_mutex: and nobody sleeps on the word)

    typename Ops::template atomic<std::uint32_t> state_{unlocked}; // 0 unlocked, 1 locked, more: the Lock's

private:
    // TSan's flag values (<sanitizer/tsan_interface.h>: __tsan_mutex_try_lock, __tsan_mutex_try_lock_failed).
    static constexpr unsigned tsan_try_lock = 1U << 4;
    static constexpr unsigned tsan_try_lock_failed = 1U << 5;
};

template <class Ops>
class futex_mutex : public futex_lock_base<Ops, futex_mutex<Ops>> {
    using base = futex_lock_base<Ops, futex_mutex<Ops>>;
    friend base; // calls lock_contended() and release()
    using base::locked;
    using base::state_;
    using base::unlocked;

public:
    futex_mutex() = default;

private:
    static constexpr std::uint32_t contended = 2; // held, a thread may sleep on the word

    // unlock(): release: pairs with the acquire in the next lock()'s CAS or exchange.
    void release() noexcept {
        const std::uint32_t previous = state_.exchange(unlocked, std::memory_order_release);
        BCAST_ASSERT(previous != unlocked); // unlock of a lock nobody holds
        // Partner: the wait() in lock_contended(), which sleeps only while the word is 2.
        if (previous == contended) Ops::wake_one(state_);
    }

    [[gnu::noinline]] void lock_contended() noexcept {
        // Back-off first: a critical section of the channel is a few dozen
        // instructions, so the holder usually releases within the pauses, or,
        // when threads outnumber cores, within a yield that lets it run.
        unsigned round = 0;
        do {
            std::uint32_t seen = state_.load(std::memory_order_relaxed);
            if (seen == contended) break; // others already sleep: queue behind them, do not barge
            if (seen == unlocked &&
                // Acquire: as in lock().
                state_.compare_exchange_weak(seen, locked, std::memory_order_acquire, std::memory_order_relaxed)) {
                return;
            }
        } while (spin_policy::back_off<Ops>(round, Ops::lock_rounds));
        // Sleep. exchange(2) both takes an unlocked word (keeping it 2: others
        // may sleep) and announces this sleeper to the holder's unlock().
        // Acquire: as in lock().
        while (state_.exchange(contended, std::memory_order_acquire) != unlocked) {
            Ops::wait(state_, contended); // partner: the wake_one() in unlock()
        }
    }
};

} // namespace bcast::detail
