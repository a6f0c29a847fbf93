// SPDX-License-Identifier: MIT OR Apache-2.0
// The scenario base of the bcast::fast suites (fast_scenarios.hpp): the same
// shape as harness.hpp's (handles by logical number, every operation recorded
// through one helper, the checks every suite runs at the end), for the
// lock-free-receive channel run on fast_relacy_primitives.
//
// Two things differ from the reference's harness, both because a receive
// here takes no lock:
//  * The recorder's ticks. A call's invocation and response ticks are
//    acq_rel increments of one Relacy atomic, so a call that returned before
//    another was invoked also happens before it. Linearizability is then
//    checked against the order a program can observe (happens-before), not
//    against the order in which Relacy happened to interleave two calls that
//    no program could order: in the C++ memory model a lock-free load may read
//    a value older than the interleaving's latest, and that is not a
//    violation unless something ordered the two calls. The reference's
//    harness can use a plain counter: there every call synchronizes through
//    the one mutex.
//  * Profile P-FAST-3 (spec/rules.md). A history the spec model rejects is
//    accepted only if it becomes linearizable when some evicting sends are
//    read as sends that evicted nothing, each of them handing back a message
//    that a receive overlapping it returned (bcast/spec/profile_check.hpp, the
//    one place that allows it; the recorded histories use it too). Such
//    histories are counted and printed ("P-FAST-3: ..."), never accepted silently.
// Messages are ints (trivially copyable, P-FAST-1): there are no instances to
// count, so a wrong or torn value shows as a history the model cannot explain.
#pragma once

#include "fast_primitives.hpp" // first: relacy_primitives.hpp maps BCAST_ASSERT before bcast is included
#include "inspector.hpp"
#include "linearizability.hpp"
#include "recorded_calls.hpp"

#include <bcast/fast.hpp>
#include <bcast/spec/profile_check.hpp>

namespace bcast_rl {

// Histories accepted only under P-FAST-3 in the current run (main.cpp prints it).
inline long fast_profile_relaxations = 0;

// The histories accepted under P-FAST-3 in the current run, by hash
// (verdict_cache holds the strict ones).
using relaxed_verdict_cache = history_hash_set<struct relaxed_verdicts, 1 << 14>;

// Whether the finished history is linearizable, allowing profile P-FAST-3.
inline bool fast_history_is_linearizable(const history& h, std::size_t capacity) {
    const std::uint64_t key = h.hash(capacity);
    if (verdict_cache::contains(key)) return true;
    if (relaxed_verdict_cache::contains(key)) {
        ++fast_profile_relaxations;
        return true;
    }
    // The one place P-FAST-3 is allowed (bcast/spec/profile_check.hpp).
    const bcast::spec::profile_verdict v = bcast::spec::check_history_under(bcast::spec::fast_profile, h.calls(), capacity, 0, 1);
    if (v.report.result == bcast::spec::verdict::linearizable) {
        verdict_cache::insert(key);
        return true;
    }
    if (v.accepted()) {
        relaxed_verdict_cache::insert(key);
        ++fast_profile_relaxations;
        return true;
    }
    const bcast::spec::check_report& r = v.report;
    std::fprintf(stderr, "NOT LINEARIZABLE against bcast::spec::model (capacity %zu), nor under P-FAST-3:\n%s", capacity,
                 bcast::spec::to_string(r, h.calls()).c_str());
    return false;
}

template <class Derived, class Primitives, int Threads, rl::test_result_e Expected = rl::test_result_success>
struct fast_scenario : rl::test_suite<Derived, Threads, Expected>,
                       recorded_calls<fast_scenario<Derived, Primitives, Threads, Expected>, int, bcast::fast::sender<int, Primitives>,
                                      bcast::fast::receiver<int, Primitives>, bcast::fast::inactive_receiver<int, Primitives>> {
    using calls = typename fast_scenario::recorded_calls;
    using calls::tx, calls::rx, calls::hist, calls::capacity0;
    using state_t = bcast::fast::detail::channel_state<int, Primitives>;

    atomic<std::uint64_t> clock{0};   // the recorder's ticks (see the top of the file)
    const state_t* channel = nullptr; // for invariant()
    std::uint64_t last_tail = 0, last_evict_head = 0;
    bool seen_closed = false;

    // channel(capacity): sender = logical 0, receiver = logical 1.
    void open(std::size_t capacity) {
        threads_sleeping = 0;
        model_clock::start(); // no listener: see send_timed()
        capacity0 = capacity;
        auto [t, r] = bcast::fast::channel<int, Primitives>(capacity);
        tx[0].emplace(std::move(t));
        rx[1].emplace(std::move(r));
        channel = &bcast::fast::detail::handle_access::state_of(*tx[0]);
    }

    // ---- recorded operations: recorded_calls.hpp, through these two ----
    std::uint64_t tick() { return clock.fetch_add(1, std::memory_order_acq_rel) + 1; } // acq_rel: see the top
    template <class Call>
    outcome record(int t, op_kind kind, int h, int arg, int out, Call&& call) {
        const int i = hist.begin(t, kind, h, arg, out);
        hist.ops[std::size_t(i)].invoked = tick();
        outcome answer{};
        if constexpr (std::is_void_v<decltype(call())>) call();
        else answer = call();
        hist.end(i, answer);
        hist.ops[std::size_t(i)].returned = tick();
        return answer;
    }
    // A timed call waits until a deadline of model time (model_clock.hpp), and
    // may answer timed_out only once it has passed (R-SEND-4, R-RECV-5),
    // asserted here. Unlike harness.hpp's, these histories carry no deadline
    // tick: a tick here is a synchronizing increment (the top of the file),
    // and one taken inside a wait, where the deadline passes, would order the
    // waiter after every call returned before it, an edge the program does
    // not have, which could hide a weak-memory bug in the re-check.
    template <class Call>
    outcome record_timed(int t, op_kind kind, int h, int arg, Call&& call) {
        const int timed_out = 1 + (bcast::spec::is_send(kind) ? int(bcast::send_errc::timed_out) : int(bcast::recv_errc::timed_out));
        const model_clock::time_point deadline = model_clock::next_deadline();
        const outcome answer = record(t, kind, h, arg, -1, [&] { return call(deadline); });
        RL_ASSERT((answer.code != timed_out || model_clock::has_passed(deadline)) &&
                  "a timed call gave up before its deadline (R-SEND-4, R-RECV-5)");
        return answer;
    }

    // Invariants between critical sections, from the lock holder's fields
    // (the positions are atomics a receiver writes without the lock: F1 is
    // asserted inside each critical section by the channel itself).
    void invariant() {
        RL_ASSERT(threads_sleeping >= 0 && threads_sleeping <= Threads);
        if (channel == nullptr || inspector::lock_held(*channel)) return;
        const std::uint64_t tail = inspector::fast_tail(*channel);
        const std::uint64_t evict_head = inspector::fast_evict_head(*channel);
        const std::size_t capacity = inspector::capacity(*channel);
        RL_ASSERT(capacity >= 1 && capacity < inspector::fast_slot_count(*channel)); // F2
        RL_ASSERT(evict_head <= tail && inspector::fast_cached_min(*channel) <= tail);
        RL_ASSERT(tail >= last_tail && evict_head >= last_evict_head); // F5
        last_tail = tail, last_evict_head = evict_head;
        const bool closed = inspector::fast_closed(*channel);
        RL_ASSERT(closed || !seen_closed); // R-CLOSE-4
        seen_closed = closed;
    }

    // Drop every handle (the state goes with the last), then the history
    // against the spec model, allowing P-FAST-3.
    void finish() {
        channel = nullptr;
        const bool linearizable = this->drop_all_and_check(fast_history_is_linearizable);
        RL_ASSERT(linearizable && "history is not linearizable against bcast::spec::model under profile P-FAST");
    }
    // What most scenarios end with: every receiver reads what is left (so each
    // message is accounted for in the history), then finish(). A scenario
    // with checks of its own defines after() and calls both itself.
    void after() {
        this->drain_all();
        finish();
    }
};

} // namespace bcast_rl
