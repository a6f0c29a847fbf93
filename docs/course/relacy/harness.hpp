// SPDX-License-Identifier: MIT OR Apache-2.0
// The scenario base of the course's Relacy scenarios
// (docs/course/03-first-scenario.md explains every line a scenario uses):
//   * the mailbox under test, on relacy_model;
//   * the five calls, each recorded with the thread that made it, its answer
//     and two ticks (when it was called, when it returned);
//   * after the last thread: the recorded history must be linearizable
//     against the executable model (spec.hpp);
//   * the variant flags CLOSE and UNTIL, and until<V>(), the reachability twin.
#pragma once

#include "relacy_model.hpp" // first: it includes Relacy and undoes its macros

#include <mailbox/mailbox.hpp>
#include <mailbox/spec.hpp>

namespace course::relacy {

// ---- variants: one scenario template, instantiated once per variant ----
constexpr int PLAIN = 0; // the scenario as written: nothing after the event
constexpr int CLOSE = 1; // ... then close(): a later wakeup can hide a lost one, so it is a variant, never the only run
constexpr int UNTIL = 2; // the reachability twin: passes only if RL_UNTIL's condition was met

// What Relacy must report for a variant: success, or for a twin "until condition hit".
constexpr rl::test_result_e expected(int variant) {
    return (variant & UNTIL) ? rl::test_result_until_condition_hit : rl::test_result_success;
}
// Put where the event thread waits for the others to block: in the twin the
// search stops, successfully, at the first execution where `hit` holds there.
template <int Variant>
void until(bool hit) {
    if constexpr ((Variant & UNTIL) != 0) RL_UNTIL(hit);
}

// ---- the recorded history ----
enum class kind { try_put,
                  put,
                  try_take,
                  take,
                  close };

struct call {
    kind what = kind::try_put;
    int thread = 0;
    int value = 0;          // the value put
    int called = 0;         // tick when it was called
    int returned = 1 << 30; // tick when it returned (never, until it has)
    take_result answer{};   // a put's status; close: {ok, 1 if this call closed it}
};

// Threads, before() and after() share one history. Relacy runs every thread
// as a fiber of one OS thread, so plain members are exact (and untraced: they
// are the test's bookkeeping, not the mailbox's).
class history {
public:
    static constexpr int max_calls = 8;

    int begin(kind what, int thread, int value) {
        RL_ASSERT(count_ < max_calls);
        calls_[count_] = call{what, thread, value, ++tick_};
        return count_++;
    }
    void end(int i, take_result answer) {
        calls_[i].answer = answer;
        calls_[i].returned = ++tick_;
    }

    // Linearizable: some order of the calls that keeps every call after each
    // call that returned before it was called gives, run on the executable
    // model one by one, the same answers, and runs no blocking call where the
    // model says it would wait (Wing & Gong's search: try each call that may
    // come next, backtrack on a wrong answer).
    bool linearizable() const {
        bool done[max_calls] = {};
        return search(mailbox_spec{}, done, 0);
    }

private:
    bool search(const mailbox_spec& state, bool* done, int placed) const {
        if (placed == count_) return true;
        for (int i = 0; i < count_; ++i) {
            if (done[i] || !may_come_next(i, done)) continue;
            mailbox_spec next = state;
            if (!replay(calls_[i], next)) continue;
            done[i] = true;
            if (search(next, done, placed + 1)) return true;
            done[i] = false;
        }
        return false;
    }
    // No call still to place returned before call i was called.
    bool may_come_next(int i, const bool* done) const {
        for (int j = 0; j < count_; ++j)
            if (!done[j] && j != i && calls_[j].returned < calls_[i].called) return false;
        return true;
    }
    // Runs c on the model; false if the model answers differently or would wait.
    static bool replay(const call& c, mailbox_spec& spec) {
        switch (c.what) {
        case kind::try_put: return c.answer == take_result{spec.try_put(c.value), 0};
        case kind::put: return !spec.put_would_wait() && c.answer == take_result{spec.try_put(c.value), 0};
        case kind::try_take: return c.answer == spec.try_take();
        case kind::take: return !spec.take_would_wait() && c.answer == spec.try_take();
        case kind::close: return c.answer == take_result{status::ok, spec.close() ? 1 : 0};
        }
        return false;
    }

    call calls_[max_calls];
    int count_ = 0;
    int tick_ = 0;
};

// ---- the scenario base ----
// Derived: the scenario itself; Threads: how many threads Relacy runs
// (thread(0) .. thread(Threads - 1)); Variant: PLAIN, CLOSE or UNTIL.
template <class Derived, int Threads, int Variant>
struct scenario : rl::test_suite<Derived, Threads, expected(Variant)> {
    static constexpr int before_thread = -1; // the thread index recorded for calls in before()
    static constexpr int after_thread = 99;  // ... and in after()

    mailbox<relacy_model> box;
    history calls;

    scenario() { threads_waiting = 0; } // a new execution: nobody waits yet

    // The mailbox's calls, recorded. `t` is the calling thread's index.
    status try_put(int t, int value) {
        return record(kind::try_put, t, value, [&] { return box.try_put(value); });
    }
    status put(int t, int value) {
        return record(kind::put, t, value, [&] { return box.put(value); });
    }
    take_result try_take(int t) {
        return record(kind::try_take, t, 0, [&] { return box.try_take(); });
    }
    take_result take(int t) {
        return record(kind::take, t, 0, [&] { return box.take(); });
    }
    bool close(int t) {
        return record(kind::close, t, 0, [&] { return box.close(); });
    }

    // Every scenario ends here (a scenario with an after() of its own calls it).
    void after() { RL_ASSERT(calls.linearizable() && "the answers are not linearizable against mailbox_spec"); }

private:
    template <class Call>
    auto record(kind what, int t, int value, Call&& make_call) {
        const int i = calls.begin(what, t, value);
        const auto answer = make_call();
        if constexpr (std::is_same_v<decltype(answer), const status>) calls.end(i, {answer, 0});
        else if constexpr (std::is_same_v<decltype(answer), const bool>) calls.end(i, {status::ok, answer ? 1 : 0});
        else calls.end(i, answer);
        return answer;
    }
};

} // namespace course::relacy
