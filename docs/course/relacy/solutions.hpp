// SPDX-License-Identifier: MIT OR Apache-2.0
// The solutions of the Relacy exercises of docs/course/03-first-scenario.md
// (exercise 3) and 04-first-mutant.md (exercise 4), and the scenarios so close
// to them that reading them would give the exercises away. They live here, not
// in scenarios.cpp, because scenarios.cpp is the file a student edits: do the
// exercises before you open this one. course_relacy runs them all the same
// (add_solutions(), called from main()), so every solution is checked.
#pragma once

#include "runner.hpp"

namespace course::relacy {

// ---- exercise 3 ----
// MB-3, MB-7: a put waiting on a full mailbox must be woken by a take.
template <int Variant>
struct put_blocked_vs_take : scenario<put_blocked_vs_take<Variant>, 2, Variant> {
    static constexpr const char* description = "a take must wake a put waiting on the full mailbox (MB-3, MB-7)";
    static constexpr bool has_close_variant = true;

    void before() { this->try_put(this->before_thread, 1); } // full before the threads start

    void thread(unsigned index) {
        if (index == 0) {
            const status answer = this->put(0, 2);
            // Woken by the take, the put may still find the mailbox closed
            // when it gets the lock back (MB-2: closed wins).
            RL_ASSERT(answer == status::ok || ((Variant & CLOSE) && answer == status::closed));
            return;
        }
        until<Variant>(threads_waiting == 1);
        RL_ASSERT(this->take(1) == (take_result{status::ok, 1}));
        if (Variant & CLOSE) this->close(1);
    }
};

// Exercise 3's rule, woken by try_take: the put's notify is in take_locked(),
// which take and try_take share, so only this scenario catches a try_take that
// frees the slot without it (the mutant try-take-wakes-no-put).
template <int Variant>
struct put_blocked_vs_try_take : scenario<put_blocked_vs_try_take<Variant>, 2, Variant> {
    static constexpr const char* description = "a try_take must wake a put waiting on the full mailbox (MB-3, MB-7)";
    static constexpr bool has_close_variant = true;

    void before() { this->try_put(this->before_thread, 1); }

    void thread(unsigned index) {
        if (index == 0) {
            const status answer = this->put(0, 2);
            RL_ASSERT(answer == status::ok || ((Variant & CLOSE) && answer == status::closed)); // as in put_blocked_vs_take
            return;
        }
        until<Variant>(threads_waiting == 1);
        RL_ASSERT(this->try_take(1) == (take_result{status::ok, 1})); // full until this take: only thread 1 takes
        if (Variant & CLOSE) this->close(1);
    }
};

// ---- exercise 4 ----
// MB-5, MB-6, MB-7: a take waiting on an empty mailbox must be woken by close.
template <int Variant>
struct take_blocked_vs_close : scenario<take_blocked_vs_close<Variant>, 2, Variant> {
    static constexpr const char* description = "close must wake a take waiting on the empty mailbox (MB-5, MB-7)";
    static constexpr bool has_close_variant = false; // the event is the close

    void thread(unsigned index) {
        if (index == 0) {
            RL_ASSERT(this->take(0).answer == status::closed);
            return;
        }
        until<Variant>(threads_waiting == 1);
        RL_ASSERT(this->close(1));
    }
};

// Exercise 4's mirror. MB-3, MB-6, MB-7: a put waiting on a full mailbox must
// be woken by close; without it close() could skip not_full_ (the mutant
// close-wakes-no-put) and every other scenario would pass.
template <int Variant>
struct put_blocked_vs_close : scenario<put_blocked_vs_close<Variant>, 2, Variant> {
    static constexpr const char* description = "close must wake a put waiting on the full mailbox (MB-3, MB-7)";
    static constexpr bool has_close_variant = false; // the event is the close

    void before() { this->try_put(this->before_thread, 1); } // full: the put must wait

    void thread(unsigned index) {
        if (index == 0) {
            RL_ASSERT(this->put(0, 2) == status::closed); // nothing takes, so only the close can end its wait
            return;
        }
        until<Variant>(threads_waiting == 1);
        RL_ASSERT(this->close(1));
    }
};

// The same, with two puts waiting (three threads, bounded as
// two_takes_blocked_vs_close): close must wake both, so a close() that
// notified not_full_ once (the mutant close-wakes-one-put) leaves one waiting.
template <int Variant>
struct two_puts_blocked_vs_close : scenario<two_puts_blocked_vs_close<Variant>, 3, Variant> {
    static constexpr const char* description = "close must wake both puts waiting on the full mailbox (MB-7)";
    static constexpr bool has_close_variant = false;

    void before() { this->try_put(this->before_thread, 1); }

    void thread(unsigned index) {
        if (index < 2) {
            RL_ASSERT(this->put(int(index), 2) == status::closed);
            return;
        }
        until<Variant>(threads_waiting == 2);
        RL_ASSERT(this->close(2));
    }
};

// Registered from main() in scenarios.cpp, after the worked example.
inline void add_solutions(std::vector<search>& searches) {
    add_blocking<put_blocked_vs_take>(searches, "put_blocked_vs_take", rl::sched_full, 0);
    add_blocking<put_blocked_vs_try_take>(searches, "put_blocked_vs_try_take", rl::sched_full, 0);
    add_blocking<take_blocked_vs_close>(searches, "take_blocked_vs_close", rl::sched_full, 0);
    add_blocking<put_blocked_vs_close>(searches, "put_blocked_vs_close", rl::sched_full, 0);
    add_blocking<two_puts_blocked_vs_close>(searches, "two_puts_blocked_vs_close", rl::sched_bound, 2);
}

} // namespace course::relacy
