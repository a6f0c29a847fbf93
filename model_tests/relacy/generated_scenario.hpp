// SPDX-License-Identifier: MIT OR Apache-2.0
// A generated scenario (model_tests/generator/) run under Relacy on an
// unmodified channel: the setup in before(), thread t's commands in
// thread(t), the teardown and every common check (the family's harness:
// invariants at every scheduling point, linearizability against
// bcast::spec::model; for the reference also every message destroyed once)
// in after().
//
// Every channel family of families.def runs them, each on its own harness (a
// row of generated_families below, one per family): the reference on
// harness.hpp's scenario with plain positions, bcast::fast on fast_harness.hpp's
// fast_scenario with its default positions and profile P-FAST-3. bcast::fast
// has no async calls (P-FAST-5): its scenarios are generated without them
// (generator_config::async).
//
// Relacy's test suites have a compile-time thread count and no parameters,
// so the scenario being run is a global (`generated_current`) and
// generated<N> is instantiated for N = 1, 2, 3. Each command is recorded
// through the harness like a hand-written scenario's, with the message value
// bcast::gen::message_value() gives it, the same value the spec explorer and
// the minimiser use.
#pragma once

#include "families.hpp"
#include "simulate.hpp"

#include "../generator/generator.hpp"
#include "../generator/spec_explorer.hpp"

namespace bcast_rl {

inline const bcast::gen::scenario* generated_current = nullptr;
// Executions in which Relacy ran a thread's function a second time. Relacy
// (Debian's 2.4) can resume a finished fiber: when a thread finishes while
// the others are all blocked and one of them in a timed wait, its
// context-bound scheduler may pick the finished thread, and the fiber's loop
// (context.hpp, fiber_proc_impl) calls thread() again. Such an execution is
// not one of the program's: the runner reports what it found in it as
// inconclusive, never as a verdict on the channel.
inline std::uint64_t generated_rerun_threads = 0;
inline bool generated_last_rerun = false; // in the execution Relacy ran last
// The calls of the execution Relacy ran last, kept outside the scenario
// object: after a DEADLOCK the calls still pending are read from here.
inline history generated_last_history;

template <class Family, int Threads>
struct generated : Family::template harness<generated<Family, Threads>, Threads> {
    using base = typename Family::template harness<generated<Family, Threads>, Threads>;
    static constexpr const char* description = "a generated scenario";

    // The waiter node of a thread's current async command (one at a time).
    std::optional<recv_node> recv_waiter[Threads];
    std::optional<send_node> send_waiter[Threads];

    // Handles alive and not being dropped. invariant() reads the channel
    // state between critical sections; the drop that takes this to zero
    // destroys that state, so it stops invariant() reading it first (no
    // other thread holds a handle then).
    int live_handles = 2;

    const bcast::gen::scenario& plan() const { return *generated_current; }

    void dropping() {
        if (--live_handles != 0) return;
        this->channel = nullptr;
        if constexpr (requires { this->state; }) this->state = nullptr; // the reference harness's other view of it
    }

    void before() {
        generated_last_history = history{};
        generated_last_rerun = false;
        this->hist.mirror = &generated_last_history;
        this->open(std::size_t(plan().capacity));
        const auto& setup = plan().setup;
        for (std::size_t i = 0; i < setup.size(); ++i)
            run(base::before_thread, bcast::gen::setup_context, setup[i], bcast::gen::message_value(-1, int(i)));
        for (int h : bcast::gen::unowned_setup_handles(plan())) {
            dropping();
            if (this->tx[h]) this->drop_sender(base::before_thread, h);
            else if (this->rx[h]) this->drop_receiver(base::before_thread, h);
            else this->drop_inactive(base::before_thread, h);
        }
    }
    bool thread_ran[Threads] = {}; // see generated_rerun_threads

    void thread(unsigned t) {
        if (thread_ran[t]) {
            ++generated_rerun_threads, generated_last_rerun = true;
            return; // do not run its commands twice
        }
        thread_ran[t] = true;
        const auto& steps = plan().threads[t].steps;
        for (std::size_t i = 0; i < steps.size(); ++i)
            run(int(t), int(t), steps[i], bcast::gen::message_value(int(t), int(i)));
    }
    void after() {
        const auto& teardown = plan().teardown;
        for (std::size_t i = 0; i < teardown.size(); ++i)
            run(base::after_thread, bcast::gen::teardown_context, teardown[i],
                bcast::gen::message_value(bcast::gen::teardown_context, int(i)));
        this->finish();
    }

    // One command, recorded. `who` is the history's thread number, `slot`
    // the waiter slot of a thread's async command.
    void run(int who, int slot, const bcast::gen::step& st, int value) {
        using bcast::gen::op;
        const int h = st.handle;
        switch (st.what) {
        case op::try_broadcast: this->try_send(who, h, value); break;
        case op::broadcast: this->send(who, h, value); break;
        case op::broadcast_expired: this->send_timed(who, h, value); break;
        case op::try_recv: this->try_recv(who, h); break;
        case op::recv: this->recv(who, h); break;
        case op::recv_expired: this->recv_timed(who, h); break;
        case op::async_recv:
        case op::async_recv_cancelled:
        case op::async_broadcast:
        case op::async_broadcast_cancelled:
            if constexpr (Family::async) run_async(who, slot, st, value);
            else RL_ASSERT(!"an async command on a family without async calls (the generator leaves them out)");
            break;
        case op::clone_sender: this->clone_sender(who, h, st.out); break;
        case op::new_sender: this->new_sender(who, h, st.out); break;
        case op::clone_receiver: this->clone_receiver(who, h, st.out); break;
        case op::new_receiver: this->new_receiver(who, h, st.out); break;
        case op::deactivate: this->deactivate(who, h, st.out); break;
        case op::activate: this->activate(who, h, st.out); break;
        case op::activate_cloned: this->activate_cloned(who, h, st.out); break;
        case op::clone_inactive: this->clone_inactive(who, h, st.out); break;
        case op::drop_sender: dropping(), this->drop_sender(who, h); break;
        case op::drop_receiver: dropping(), this->drop_receiver(who, h); break;
        case op::drop_inactive: dropping(), this->drop_inactive(who, h); break;
        case op::set_capacity: this->set_capacity(who, h, st.arg); break;
        case op::set_overflow: this->set_overflow(who, h, st.arg != 0); break;
        case op::set_await_active: this->set_await_active(who, h, st.arg != 0); break;
        case op::close: this->close(who, h); break;
        default:
            if (bcast::gen::is_query(st.what)) { // the same names in both vocabularies
                const auto kind = bcast::spec::call_kind_from_name(bcast::prop::name_of(st.what));
                RL_ASSERT(kind.has_value());
                this->query(who, *kind, h);
                break;
            }
            RL_ASSERT(!"a generated scenario holds a command the runner does not know");
        }
        if (bcast::gen::creates(st.what) != bcast::gen::handle_kind::none && !bcast::gen::consumes(st.what))
            ++live_handles;
    }

    // A thread's async command, with its waiter node in the thread's slot.
    void run_async(int who, int slot, const bcast::gen::step& st, int value) {
        using bcast::gen::op;
        const int h = st.handle;
        RL_ASSERT(slot >= 0 && slot < Threads); // normalise() keeps waiting commands in the threads
        if (st.what == op::async_recv || st.what == op::async_recv_cancelled) {
            auto& node = recv_waiter[slot].emplace();
            const bool cancelled = st.what == op::async_recv_cancelled;
            this->async_recv(who, h, node, cancelled && st.arg == 0, cancelled && st.arg != 0);
            base::check_resumed(node);
            recv_waiter[slot].reset();
        } else {
            auto& node = send_waiter[slot].emplace();
            const bool cancelled = st.what == op::async_broadcast_cancelled;
            this->async_send(who, h, node, value, cancelled && st.arg == 0, cancelled && st.arg != 0);
            base::check_resumed(node);
            send_waiter[slot].reset();
        }
    }
};

// One search of `s` with one scheduler: the Relacy result and, on a failure,
// the report of the failing execution and its replay state.
struct generated_run {
    rl::test_result_e result = rl::test_result_success;
    std::uint64_t executions = 0;
    double seconds = 0;
    std::string report;              // Relacy's report (with the execution's history) when it failed
    std::string replay_state;        // params.final_state of the failing iteration
    std::uint64_t reruns = 0;        // executions in which Relacy resumed a finished thread
    bool failure_is_a_rerun = false; // the failing execution was one of those: inconclusive
    history calls;                   // the failing execution's calls (pending ones: returned == pending_tick)
};

template <class Family, int N>
bool simulate_generated(rl::scheduler_type_e sched, rl::test_params& p) {
    switch (sched) {
    case rl::sched_full: return simulate_with<generated<Family, N>, rl::sched_full>(p);
    case rl::sched_bound: return simulate_with<generated<Family, N>, rl::sched_bound>(p);
    default: return simulate_with<generated<Family, N>, rl::sched_random>(p);
    }
}

// One family at run time (--channel=NAME): its row's settings and its search.
struct generated_family {
    const char* name;
    const char* profile;
    bool async;
    unsigned bound, bound_with_a_timed_command;
    long random;
    void (*simulate)(std::size_t threads, rl::scheduler_type_e sched, rl::test_params& p);
};
template <class Family>
constexpr generated_family row_of() {
    return {Family::name, Family::profile, Family::async, Family::bound, Family::bound_with_a_timed_command, Family::random,
            [](std::size_t threads, rl::scheduler_type_e sched, rl::test_params& p) {
                switch (threads) {
                case 1: simulate_generated<Family, 1>(sched, p); break;
                case 2: simulate_generated<Family, 2>(sched, p); break;
                default: simulate_generated<Family, 3>(sched, p); break;
                }
            }};
}
// The families of families.def, the default first.
inline constexpr generated_family generated_families[] = {
#define BCAST_RELACY_FAMILY(NAME, ...) row_of<on_##NAME>(),
#include "families.def"
#undef BCAST_RELACY_FAMILY
};

inline generated_run run_generated(const bcast::gen::scenario& s, rl::scheduler_type_e sched, unsigned bound,
                                   long iterations, const generated_family& family = generated_families[0]) {
    generated_current = &s;
    rl::test_params p;
    p.search_type = sched;
    p.context_bound = bound;
    p.iteration_count = sched == rl::sched_random ? iterations : 1000000000;
    null_buf nb;
    std::ostream null_stream(&nb);
    fixed_buf report_buf;
    std::ostream report(&report_buf);
    p.output_stream = &report;
    p.progress_stream = &null_stream;
    verdict_cache::clear();
    generated_rerun_threads = 0;
    const auto t0 = std::chrono::steady_clock::now();
    family.simulate(s.threads.size(), sched, p);
    generated_run out;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.result = p.test_result;
    out.executions = p.stop_iteration;
    out.reruns = generated_rerun_threads;
    if (out.result != rl::test_result_success) {
        out.failure_is_a_rerun = generated_last_rerun;
        out.report = report_buf.str();
        out.replay_state = p.final_state;
        out.calls = generated_last_history;
        out.calls.mirror = nullptr;
    }
    generated_current = nullptr;
    return out;
}

} // namespace bcast_rl
