// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast's own lock and condition variable (impl/include/bcast/detail/futex_mutex.hpp,
// futex_condition_variable.hpp) under Relacy: their protocol, not the channel's.
//
// The channel's suites run the algorithm on Relacy's own mutex and condition
// variable (relacy_primitives.hpp), which are correct by construction. The
// lock the std build really uses is checked here, on its own, through its
// `Ops` parameter:
//  * futex_word<U>: the 32-bit word, relacy_primitives.hpp's atomic (every
//    access a scheduling point, every memory order modelled), plus the
//    kernel's wait queue for that word (an rl::mutex as the futex
//    hash-bucket lock and a wait_queue, model_clock.hpp, as the queue).
//  * futex_model_ops::wait compares the word and sleeps in one step under the
//    bucket lock, as the kernel does; wake_one/wake_all take the bucket lock
//    and notify. Relacy's random scheduler adds spurious returns, which a
//    futex may also have.
//  * The back-off's pauses and yields are rl::yield, so a spin never makes the
//    search infinite; its rounds are 1 + 1 instead of 3 + 7 and 3 + 17 (the
//    same code paths, a search that ends).
// What the suites check: mutual exclusion and the happens-before edge from
// one critical section to the next (a plain rl::var touched under the lock:
// Relacy reports a race if the lock's orders are too weak), and no lost
// wakeup (Relacy reports DEADLOCK when a sleeper is never woken) for the
// mutex's sleepers and for every kind of condition-variable wait.
#pragma once

#include "relacy_primitives.hpp"

#include <bcast/detail/futex_condition_variable.hpp>
#include <bcast/detail/futex_mutex.hpp>

namespace bcast_rl {

// The futex word: relacy_primitives.hpp's atomic, plus the kernel's side of it.
template <class U>
class futex_word : public atomic<U> {
public:
    using atomic<U>::atomic;
    rl::mutex bucket; // the futex hash-bucket lock
    wait_queue queue; // the threads asleep on this word
};

struct futex_model_ops {
    template <class U>
    using atomic = futex_word<U>;
    static constexpr unsigned pause_rounds = 1;
    static constexpr unsigned lock_rounds = 2;
    static constexpr unsigned wait_rounds = 2;

    static void wait(futex_word<std::uint32_t>& word, std::uint32_t expected, loc_t loc = loc_t::current()) {
        word.bucket.lock(info(loc));
        if (word.load(std::memory_order_seq_cst, loc) == expected) word.queue.sleep(word.bucket, false, info(loc));
        word.bucket.unlock(info(loc));
    }
    // A timed sleep may end at any moment: Relacy chooses. bcast's lock then
    // compares its deadline with the real steady_clock (futex_condition_variable.hpp),
    // so its suites keep this model; the channels' timed waits run against
    // model time (model_clock.hpp).
    template <class TimePoint>
    static bool wait_until(futex_word<std::uint32_t>& word, std::uint32_t expected, const TimePoint&,
                           loc_t loc = loc_t::current()) {
        bool in_time = true;
        word.bucket.lock(info(loc));
        if (word.load(std::memory_order_seq_cst, loc) == expected)
            in_time = word.queue.sleep(word.bucket, true, info(loc)) == woke_by::notify;
        word.bucket.unlock(info(loc));
        return in_time;
    }
    static void wake_one(futex_word<std::uint32_t>& word, loc_t loc = loc_t::current()) {
        word.bucket.lock(info(loc));
        word.queue.notify_one(info(loc));
        word.bucket.unlock(info(loc));
    }
    static void wake_all(futex_word<std::uint32_t>& word, loc_t loc = loc_t::current()) {
        word.bucket.lock(info(loc));
        word.queue.notify_all(info(loc));
        word.bucket.unlock(info(loc));
    }
    static void relax(unsigned, loc_t loc = loc_t::current()) { rl::yield(1, info(loc)); }
    static void yield(loc_t loc = loc_t::current()) { rl::yield(1, info(loc)); }
};

using model_mutex = bcast::detail::futex_mutex<futex_model_ops>;
using model_cv = bcast::detail::futex_condition_variable<futex_model_ops>;

// Three threads, two critical sections each, over a plain variable: every
// increment is seen (exclusion) and no access races (the acquire/release
// pairs order consecutive critical sections). With 1 + 1 back-off rounds
// the later arrivals reach the sleeping path. Mutex: bcast's futex lock, or
// bcast::fast's store-release lock (fast_primitives.hpp names both of its).
template <class Mutex = model_mutex>
struct futex_mutex_exclusion : rl::test_suite<futex_mutex_exclusion<Mutex>, 3> {
    static constexpr const char* description = "a lock: 3 threads x 2 critical sections, exclusion and no race";
    Mutex mutex;
    rl::var<int> counter;
    void before() { counter($) = 0; }
    void thread(unsigned) {
        for (int k = 0; k < 2; ++k) {
            mutex.lock();
            counter($) = counter($) + 1;
            mutex.unlock();
        }
    }
    void after() { RL_ASSERT(counter($) == 6); }
};

// A waiter and a notifier (notify_one), the shape of a sender blocked on a
// full channel and the receiver that frees a slot.
template <bool Timed>
struct futex_cv_one_waiter : rl::test_suite<futex_cv_one_waiter<Timed>, 2> {
    static constexpr const char* description =
        Timed ? "futex_condition_variable: a timed waiter and notify_one (timeouts at any moment)"
              : "futex_condition_variable: one waiter and notify_one";
    model_mutex mutex;
    model_cv cv;
    rl::var<bool> ready;
    rl::var<bool> seen;
    void before() {
        ready($) = false;
        seen($) = false;
    }
    void thread(unsigned t) {
        std::unique_lock<model_mutex> lock(mutex);
        if (t == 0) {
            while (!ready($)) {
                if constexpr (Timed) cv.wait_until(lock, std::chrono::steady_clock::time_point{});
                else cv.wait(lock);
            }
            seen($) = true;
        } else {
            ready($) = true;
            cv.notify_one();
        }
    }
    void after() { RL_ASSERT(seen($)); }
};

// Two waiters on one event and notify_all (receivers on an empty channel
// and a send), then two waiters and two notify_one for two events (two
// senders and two freed slots): every waiter must get through.
template <bool All>
struct futex_cv_two_waiters : rl::test_suite<futex_cv_two_waiters<All>, 3> {
    static constexpr const char* description =
        All ? "futex_condition_variable: two waiters, one event, notify_all"
            : "futex_condition_variable: two waiters, two events, notify_one each";
    model_mutex mutex;
    model_cv cv;
    rl::var<int> tokens;
    rl::var<int> served;
    void before() {
        tokens($) = 0;
        served($) = 0;
    }
    void thread(unsigned t) {
        std::unique_lock<model_mutex> lock(mutex);
        if (t < 2) {
            while (tokens($) == 0) cv.wait(lock);
            // notify_all's event stays for every waiter; each notify_one's serves one.
            if constexpr (!All) tokens($) = tokens($) - 1;
            served($) = served($) + 1;
        } else if constexpr (All) {
            tokens($) = 1;
            cv.notify_all();
        } else {
            tokens($) = tokens($) + 1;
            cv.notify_one();
            lock.unlock();
            lock.lock();
            tokens($) = tokens($) + 1;
            cv.notify_one();
        }
    }
    void after() { RL_ASSERT(served($) == 2); }
};

} // namespace bcast_rl
