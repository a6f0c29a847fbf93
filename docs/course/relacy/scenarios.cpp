// SPDX-License-Identifier: MIT OR Apache-2.0
// course_relacy: the course's Relacy scenarios for the one-slot mailbox, and
// the list of searches they get. The one file a student edits to add a
// scenario (docs/course/03-first-scenario.md): a struct, then one line in main().
//
// The solutions of chapters 3 and 4's exercises are in solutions.hpp, out of
// sight: do the exercises before you open it.
#include "runner.hpp"
#include "solutions.hpp"

using namespace course;
using namespace course::relacy;

// ---- the worked example of chapter 3 ----
// MB-5, MB-7: a take waiting on an empty mailbox must be woken by a put.
template <int Variant>
struct take_blocked_vs_put : scenario<take_blocked_vs_put<Variant>, 2, Variant> {
    static constexpr const char* description = "a put must wake a take waiting on the empty mailbox (MB-5, MB-7)";
    static constexpr bool has_close_variant = true;

    void thread(unsigned index) {
        if (index == 0) {
            const take_result got = this->take(0);
            RL_ASSERT(got.answer == status::ok && got.value == 7); // the value was put before any close
            return;
        }
        until<Variant>(threads_waiting == 1); // twin: thread 0 is already waiting here
        RL_ASSERT(this->put(1, 7) == status::ok);
        if (Variant & CLOSE) this->close(1);
    }
};

// ---- the same rule, woken by try_put ----
// MB-5, MB-7: a try_put is a put too, and must wake a waiting take. The take's
// notify is in put_locked(), which put and try_put share, so a try_put that
// stored without it (the mutant try-put-wakes-no-take) is caught here and
// nowhere else. Like the worked example, only the variant without close kills
// it (chapter 3, "Why a variant without close").
template <int Variant>
struct take_blocked_vs_try_put : scenario<take_blocked_vs_try_put<Variant>, 2, Variant> {
    static constexpr const char* description = "a try_put must wake a take waiting on the empty mailbox (MB-5, MB-7)";
    static constexpr bool has_close_variant = true;

    void thread(unsigned index) {
        if (index == 0) {
            const take_result got = this->take(0);
            RL_ASSERT(got.answer == status::ok && got.value == 7); // the value was put before any close
            return;
        }
        until<Variant>(threads_waiting == 1);
        RL_ASSERT(this->try_put(1, 7) == status::ok); // nothing else puts: the mailbox is empty here, never full
        if (Variant & CLOSE) this->close(1);
    }
};

// ---- three threads, searched with a bound ----
// MB-6, MB-7: close must wake every waiting take, not one of them.
template <int Variant>
struct two_takes_blocked_vs_close : scenario<two_takes_blocked_vs_close<Variant>, 3, Variant> {
    static constexpr const char* description = "close must wake both takes waiting on the empty mailbox (MB-7)";
    static constexpr bool has_close_variant = false;

    void thread(unsigned index) {
        if (index < 2) {
            RL_ASSERT(this->take(int(index)).answer == status::closed);
            return;
        }
        until<Variant>(threads_waiting == 2);
        RL_ASSERT(this->close(2));
    }
};

// ---- no thread blocks: a race on the fields, if the lock is missing ----
// MB-2, MB-4: a try_take racing a try_put answers empty or the value put;
// the linearizability check in after() says which answers are allowed.
struct try_take_vs_try_put : scenario<try_take_vs_try_put, 2, PLAIN> {
    static constexpr const char* description = "try_take racing try_put: empty or the value, and no data race (MB-2, MB-4)";

    void thread(unsigned index) {
        if (index == 0) this->try_take(0);
        else this->try_put(1, 7);
    }
};

int main(int argc, char** argv) {
    std::vector<search> searches;
    add_blocking<take_blocked_vs_put>(searches, "take_blocked_vs_put", rl::sched_full, 0);
    add_blocking<take_blocked_vs_try_put>(searches, "take_blocked_vs_try_put", rl::sched_full, 0);
    add_search<try_take_vs_try_put>(searches, "try_take_vs_try_put", rl::sched_full, 0);
    add_solutions(searches); // solutions.hpp: put_blocked_vs_take, take_blocked_vs_close, ...
    add_blocking<two_takes_blocked_vs_close>(searches, "two_takes_blocked_vs_close", rl::sched_bound, 2);
    // Your scenarios here: one line each, as above.
    return run_main(argc, argv, searches);
}
