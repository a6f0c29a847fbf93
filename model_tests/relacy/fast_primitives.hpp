// SPDX-License-Identifier: MIT OR Apache-2.0
// fast_relacy_primitives: bcast::fast's Primitives (impl/include/bcast/fast/primitives.hpp)
// mapped onto Relacy, so the unmodified lock-free-receive channel runs under
// Relacy's scheduler with its relaxed-memory atomics: every slot stamp and
// word, every position, flag and wait word is an rl::atomic whose loads may
// return any value the C++ memory model allows for their order, and the lock's
// fields are rl::vars (a DATA RACE where two accesses are not ordered).
//
//  * The wait words are futex_scenarios.hpp's emulated futex (compare and
//    sleep in one step under a bucket lock, as the kernel does); a sleeper that
//    is never woken is a DEADLOCK, a lost wakeup. A timed sleep runs against
//    model time (model_clock.hpp): it ends at a wake, a spurious return (the
//    random scheduler injects them) or its deadline, which Relacy places.
//  * The fence pair (docs/fast-design.md, section 5): the heavy fence is
//    rl::systemwide_fence, Relacy's model of a process-wide barrier
//    (membarrier, FlushProcessWriteBuffers): at that instant every thread's
//    past happens before every thread's future. The light fence is a compiler
//    barrier, which Relacy does not need to see. The fallback pair (a
//    read-modify-write on one word on both sides) is the std code itself,
//    bcast::fast::detail::symmetric_fences, on a Relacy atomic.
//  * The back-off is one round that does nothing: the polling path (unlock,
//    lock, try again) is explored, and a thread never yields its turn there,
//    so a reachability twin sees it asleep as soon as it could be.
//  * `threads_sleeping` counts fibers inside a futex sleep: a reachability
//    twin proves with it that a scenario reaches its critical window.
#pragma once

#include "futex_scenarios.hpp" // futex_word, futex_model_ops
#include "relacy_primitives.hpp"

#include <bcast/fast.hpp>

namespace bcast_rl {

inline int threads_sleeping = 0; // fibers inside a futex sleep of a fast channel (plain: one OS thread)

// The default pair: a process-wide barrier on the sender's side, a compiler
// barrier on the receiver's.
struct model_asymmetric_fences {
    void light(atomic<std::uint64_t>&, loc_t loc = loc_t::current()) const {
        rl::atomic_signal_fence(rl::mo_seq_cst, info(loc));
    }
    void heavy(atomic<std::uint64_t>&, loc_t loc = loc_t::current()) const { rl::systemwide_fence(info(loc)); }
    bool asymmetric() const { return true; }
};

// bcast::fast's own lock (fast/detail/lock.hpp) on the emulated futex, with
// either fence pair; the channel's suites below run on Relacy's mutex, and the
// fast_lock suites (futex_scenarios.hpp's exclusion scenario) check this one.
using model_store_release_mutex = bcast::fast::detail::store_release_mutex<futex_model_ops, model_asymmetric_fences>;
using model_store_release_mutex_symmetric =
    bcast::fast::detail::store_release_mutex<futex_model_ops, bcast::fast::detail::symmetric_fences>;

template <class PositionPolicy = bcast::fast::default_position, class FencePolicy = model_asymmetric_fences>
struct fast_relacy_primitives : relacy_shared_primitives<PositionPolicy> {
    using wait_word = futex_word<std::uint32_t>;
    using fences = FencePolicy;

    static void wait(wait_word& word, std::uint32_t seen, loc_t loc = loc_t::current()) {
        ++threads_sleeping;
        futex_model_ops::wait(word, seen, loc);
        --threads_sleeping;
    }
    // A timed sleep against model time (model_clock.hpp): compare and sleep in
    // one step as futex_model_ops::wait does, until a wake, a spurious return
    // or the deadline (a moment Relacy picks); a word that already moved is an
    // answer at once, after which the waiter reads the clock, as the std wait
    // does (platform.hpp). False once the deadline has passed.
    static bool wait_until(wait_word& word, std::uint32_t seen, const model_clock::time_point& deadline,
                           loc_t loc = loc_t::current()) {
        ++threads_sleeping;
        word.bucket.lock(info(loc));
        const bool passed = word.load(std::memory_order_seq_cst, loc) == seen
                                ? sleep_until(word.queue, word.bucket, deadline, info(loc))
                                : model_clock::observe(deadline);
        word.bucket.unlock(info(loc));
        --threads_sleeping;
        return !passed;
    }
    static void wake_all(wait_word& word, loc_t loc = loc_t::current()) { futex_model_ops::wake_all(word, loc); }
    // A read of the model clock: the deadline may pass here (model_clock.hpp).
    static bool deadline_passed(const model_clock::time_point& deadline) { return model_clock::observe(deadline); }
    static constexpr unsigned back_off_rounds = 1;
    static void pause(unsigned) {}
};

using fast_release_primitives = fast_relacy_primitives<>; // the default position, as fast::std_primitives
using fast_relaxed_primitives = fast_relacy_primitives<bcast::atomic_position<std::memory_order_relaxed>>;
using fast_seq_cst_primitives = fast_relacy_primitives<bcast::atomic_position<std::memory_order_seq_cst>>;
using fast_plain_primitives = fast_relacy_primitives<bcast::plain_position>; // a data race: Relacy must say so
using fast_symmetric_primitives =
    fast_relacy_primitives<bcast::fast::default_position, bcast::fast::detail::symmetric_fences>;

static_assert(bcast::fast::channel_primitives<fast_release_primitives>);
static_assert(bcast::fast::channel_primitives<fast_plain_primitives>);
static_assert(bcast::fast::channel_primitives<fast_symmetric_primitives>);

} // namespace bcast_rl
