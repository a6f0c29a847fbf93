// SPDX-License-Identifier: MIT OR Apache-2.0
// The history recorder (docs/traces.md, "Histories"): runs a seeded random
// program of 2-4 real threads against any implementation of the conformance
// concept that also has timed calls (spec::timed_broadcast_channel) and writes
// down what happened, as a bcast::trace::history for the one checker
// (bcast/spec/linearizability.hpp).
//
// How a run is recorded:
//  * One clock: an atomic counter, ticked just before a call (its `invoked`)
//    and just after (its `returned`), so that call A returned before call B
//    was invoked exactly when A.returned < B.invoked. Each tick also stores
//    the wall time of the latest tick.
//  * Each thread owns the handles it was given or made; no handle is used by
//    two threads. Handle numbers are claimed from one counter (2..63; the
//    first sender is 0, the first receiver 1) and never reused.
//  * The setup (thread -1) runs before the threads start: it hands out copies
//    of the first handles and may fill the ring or deactivate the receivers,
//    so that some threads start with a call that must wait ("contention").
//  * A blocking `broadcast` / `recv` runs as the timed call with the bound
//    `stall`. If it ran out its bound and no tick moved in the last half of
//    it, nothing woke it: it is a STALL, recorded as pending (still blocked
//    when the run ended) whatever its deadline's re-check answered, and its
//    thread stops. A call that timed out while other threads were busy is
//    recorded as the timed call that timed out, which the checker accepts
//    wherever it would block: sound, and it proves nothing.
//  * Unless it may have been woken in time and run late: a call whose thread
//    was woken but then kept off the CPUs past its bound (a loaded machine, a
//    virtual CPU the host did not run) looks exactly like a stall by the
//    clock. So on Linux a watcher (wait_watch) looks at every waiting
//    thread's state in /proc about every half millisecond (S: asleep in the
//    kernel; anything else: running, or woken and waiting for a core). Every
//    wake-up happens inside some other call, before that call's return tick;
//    so a thread seen asleep at two looks in a row, the second after the last
//    tick, was not woken by anything that happened: a stall. Otherwise
//    the wait is EXCUSED: recorded as what it answered, and its thread stops
//    (sound; at worst a lost wakeup goes unseen in that run).
//  * What the watcher could still miss is left to the caller: a lost wakeup
//    counts only once it is reproduced (history_check.hpp, confirm_lost_wakeup).
//  * The run ends when every thread has finished or stalled. It is VALID only
//    if no tick moved after any stall (nothing happened that could have woken a
//    stalled call after it gave up): an invalid run is discarded and counted.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fstream>
#include <mutex>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <bcast/spec/conformance.hpp>
#include <bcast/spec/conformance_profile.hpp>
#include <bcast/spec/history.hpp>
#include <bcast/spec/linearizability.hpp>
#include <bcast/spec/queries.hpp>

#include "history.hpp"
#include "invoke.hpp"

namespace bcast::trace {

struct record_options {
    std::uint64_t seed = 1;
    int min_threads = 2;
    int max_threads = 4;
    int calls = 30;                      // per thread, at most
    std::chrono::milliseconds stall{20}; // the bound of a blocking call
    bool contention_only = false;        // every run has the contention shape (else one in two)
    std::string implementation = "bcast";
};

struct record_stats {
    std::uint64_t recorded = 0;  // valid histories
    std::uint64_t discarded = 0; // not quiescent at a stall
    std::uint64_t stalled = 0;   // valid histories with a pending call
};

namespace detail::rec {

using spec::call;
using spec::call_kind;

inline std::uint64_t splitmix(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

struct rng {
    std::uint64_t state;
    std::uint64_t below(std::uint64_t n) { return splitmix(state) % n; }
    bool one_in(std::uint64_t n) { return below(n) == 0; }
};

class run_clock {
public:
    std::uint64_t tick() {
        const std::uint64_t t = tick_.fetch_add(1, std::memory_order_seq_cst) + 1; // the order of calls: every tick is one total order
        const std::int64_t now = elapsed_ns();
        if (t < tick_ns_.size()) tick_ns_[t].store(now, std::memory_order_relaxed); // read after the run's joins
        std::int64_t seen = last_ns_.load(std::memory_order_relaxed);               // only a wall time, ordered by nothing else
        while (seen < now && !last_ns_.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {}
        return t;
    }
    std::uint64_t now() const { return tick_.load(std::memory_order_seq_cst); } // pairs with tick()'s fetch_add
    std::int64_t quiet_ns() const { return elapsed_ns() - last_ns_.load(std::memory_order_relaxed); }
    // The time since the run began, on the clock every tick reads.
    std::int64_t elapsed_ns() const {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
    }
    // A deadline (elapsed_ns) as a history's tick (spec::call::deadline): the
    // first tick whose time was read at or after it, or `last` + 1. Each
    // tick's time is read after the tick, so every tick before it happened
    // before the deadline: a call that returned then comes before a timed_out
    // answer, soundly. 0 where the ticks ran past what is kept.
    std::uint64_t deadline_tick(std::int64_t deadline_ns, std::uint64_t last) const {
        if (last >= tick_ns_.size()) return 0;
        for (std::uint64_t t = 1; t <= last; ++t)
            if (tick_ns_[t].load(std::memory_order_relaxed) >= deadline_ns) return t; // after the joins: ordered by them
        return last + 1;
    }

private:
    std::atomic<std::uint64_t> tick_{0};
    std::array<std::atomic<std::int64_t>, 2 * spec::max_history_calls + 8> tick_ns_{}; // each tick's time
    std::atomic<std::int64_t> last_ns_{0};
    const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The waker of a contention run waits until every waiter is asleep in the
// kernel (Linux: the thread's state in /proc is S), so that its first call
// meets waiters that really wait. Elsewhere it knows only that they invoked.
inline long this_thread_tid() {
#if defined(__linux__)
    return long(::syscall(SYS_gettid));
#else
    return 0;
#endif
}
inline bool is_asleep(long tid) {
#if defined(__linux__)
    try {
        std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
        std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        const std::size_t close = text.rfind(')'); // the name, in parentheses, may hold anything
        return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'S';
    } catch (const std::exception&) {
        return false; // the thread has just ended (reading its stat fails): it waits no more
    }
#else
    return tid == 0;
#endif
}

// Watches the threads that wait in a blocking call (the header's "Unless it
// may have been woken in time"): one thread per recorded run, which looks at
// each waiting thread's state every half millisecond, up to just before the
// wait's deadline (at the deadline the kernel itself wakes the thread), and
// keeps the current run of looks that saw it asleep: how long it is and when
// its last look was. A look that sees the thread awake ends the run. A wake-up
// makes a thread runnable at once (R in /proc) until it runs, and a thread
// that was woken and went back to sleep found nothing to take; so a thread
// seen asleep after the last thing that could wake it, and not seen awake
// since, was not woken. (Only that run counts: a channel's back-off before it
// sleeps, pauses and yields, may take much of the bound on a loaded machine.)
// Where threads cannot be looked at (not Linux) it sees nothing, and no wait
// is excused.
class wait_watch {
public:
    explicit wait_watch(std::chrono::milliseconds bound) : bound_(bound) {
#if defined(__linux__)
        looker_ = std::thread([this] { look(); });
#endif
    }
    wait_watch(const wait_watch&) = delete;
    wait_watch& operator=(const wait_watch&) = delete;
    ~wait_watch() {
        {
            const std::lock_guard lock(mutex_);
            stop_ = true;
        }
        if (looker_.joinable()) looker_.join();
    }

    // What was seen of one wait: the last run of looks that found it asleep.
    struct seen {
        int asleep_looks = 0;                              // how many looks in a row, up to the last one
        std::chrono::steady_clock::time_point asleep_last; // the last of them
        // Asleep at two looks in a row or more, the last after `last_tick`
        // (and never seen awake since).
        bool asleep_since(std::chrono::steady_clock::time_point last_tick) const {
            return asleep_looks >= 2 && asleep_last > last_tick;
        }
    };
    // A thread begins waiting (its slot is its lane's, one wait at a time).
    void begin(std::size_t slot, long tid, std::chrono::steady_clock::time_point began) {
        const std::lock_guard lock(mutex_);
        waits_[slot] = {tid, began, {}, true};
    }
    // It stopped waiting: what was seen.
    seen end(std::size_t slot) {
        const std::lock_guard lock(mutex_);
        waits_[slot].active = false;
        return waits_[slot].counts;
    }
    static constexpr bool can_look() {
#if defined(__linux__)
        return true;
#else
        return false;
#endif
    }

private:
    struct wait {
        long tid = 0;
        std::chrono::steady_clock::time_point began{};
        seen counts{};
        bool active = false;
    };
    void look() {
        std::unique_lock lock(mutex_);
        while (!stop_) {
            for (wait& w : waits_) {
                const auto now = std::chrono::steady_clock::now();
                if (!w.active || now > w.began + bound_ - bound_ / 16) continue;
                if (!is_asleep(w.tid)) {
                    w.counts.asleep_looks = 0;
                } else {
                    ++w.counts.asleep_looks;
                    w.counts.asleep_last = now;
                }
            }
            lock.unlock();
            std::this_thread::sleep_for(std::chrono::microseconds(500)); // the looking interval, not an ordering
            lock.lock();
        }
    }

    const std::chrono::milliseconds bound_;
    std::mutex mutex_;            // guards waits_ and stop_
    std::array<wait, 9> waits_{}; // one per lane: up to 8 threads and the setup
    bool stop_ = false;
    std::thread looker_;
};

// Between two looks of the waker at the waiters: a pause, not a spin, so
// that on a loaded machine (or under TSan) the waker does not take the core
// the waiters need to get to sleep. Only its polling interval; what the
// waker waits for is the waiters' state, read each time.
inline void poll_pause() { std::this_thread::sleep_for(std::chrono::microseconds(50)); }

enum class kind { sender,
                  receiver,
                  inactive };

struct owned {
    int logical;
    spec::handle_id id;
    kind k;
};

// What one thread did.
struct lane {
    int thread = 0;
    std::size_t slot = 0; // its place in the wait_watch
    long tid = 0;         // the OS thread running it (this_thread_tid), set when it starts
    std::vector<owned> handles;
    std::vector<call> calls;
    std::vector<std::int64_t> timeouts;
    std::vector<std::int64_t> deadlines_ns; // per call: a timed call's deadline (run_clock::elapsed_ns), else 0
    bool stalled = false;
    std::uint64_t stall_tick = 0;
    std::string error;
};

// Handle numbers, claimed by any thread; none after 63.
class numbers {
public:
    std::optional<int> claim() {
        int n = next_.load(std::memory_order_relaxed); // a counter: no data is published through it
        while (n < spec::max_logical_handles && !next_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) {}
        if (n >= spec::max_logical_handles) return std::nullopt;
        return n;
    }
    bool left() const { return next_.load(std::memory_order_relaxed) < spec::max_logical_handles; }

private:
    std::atomic<int> next_{2};
};

// The queries a recorded program draws from: every plain query of the
// operation table that recorders make, in the table's order.
constexpr bool drawn_query(const spec::operation& op) { return spec::is_plain_query(op.kind) && op.recorded; }
inline constexpr auto query_count = static_cast<std::size_t>(std::ranges::count_if(spec::operations, drawn_query));
inline constexpr std::array<call_kind, query_count> queries = [] {
    std::array<call_kind, query_count> plain{};
    std::size_t i = 0;
    for (const spec::operation& op : spec::operations)
        if (drawn_query(op)) plain[i++] = op.kind;
    return plain;
}();

template <class Impl>
class runner {
public:
    runner(Impl& impl, run_clock& clock, numbers& handle_numbers, std::chrono::milliseconds stall, wait_watch& watch)
        : impl_(impl), clock_(clock), numbers_(handle_numbers), stall_(stall), watch_(watch) {}

    // Runs one call of `kind` on lane.handles[which]; false when the thread
    // must stop (a stall, or a wait that its thread's lack of a core excused).
    // `announce`, if given, is counted down once the call is invoked.
    bool perform(lane& l, call_kind k, std::size_t which, int arg, std::int64_t timeout_us = 0,
                 std::atomic<int>* announce = nullptr) {
        const owned h = l.handles[which];
        call c;
        c.kind = k;
        c.thread = l.thread;
        c.handle = h.logical;
        c.arg = arg;
        std::optional<int> made;
        if (spec::detail::lin::creates_handle(k)) {
            made = numbers_.claim();
            if (!made) return true; // no number left: the call is not made
            c.out = *made;
        }
        const auto id = h.id;
        const bool waits = k == call_kind::broadcast || k == call_kind::recv; // bounded by the stall bound, watched
        const auto wait = waits ? std::chrono::duration_cast<std::chrono::nanoseconds>(stall_)
                                : std::chrono::nanoseconds(std::chrono::microseconds(timeout_us));
        wait_end ended = wait_end::in_time;
        const auto began = std::chrono::steady_clock::now();
        const std::int64_t began_ns = clock_.elapsed_ns(); // before the invocation: no later than the channel's own deadline
        c.invoked = clock_.tick();
        if (announce != nullptr) announce->fetch_sub(1, std::memory_order_release); // pairs with the waker's acquire load
        if (waits) watch_.begin(l.slot, l.tid, began);
        const invoked_call answer = invoke(impl_, k, id, arg, wait);
        if (waits) {
            ended = how_it_ended(began, watch_.end(l.slot));
            if (ended == wait_end::stall) return record_stall(l, c), false;
            if (timed_out(k, answer.result)) as_timed(c, timeout_us);
        }
        c.result = answer.result;
        if (answer.made) keep(l, *made, *answer.made, kind_made(k));
        if (spec::consumes_handle(k)) forget(l, h.logical);
        c.returned = clock_.tick();
        l.calls.push_back(c);
        l.timeouts.push_back(timeout_us);
        l.deadlines_ns.push_back(spec::is_timed(c.kind) ? began_ns + timeout_us * 1000 : 0);
        return ended != wait_end::excused;
    }

private:
    enum class wait_end { in_time,
                          stall,
                          excused };
    // How a blocking call's wait ended. A call that ran out its bound while
    // the clock was quiet for the last half of it is a STALL, whatever it
    // answered: nothing woke it, and what it answered it found on the re-check
    // its own deadline made (a channel that forgets to wake a receiver on
    // close still answers `closed` at the deadline); it is recorded pending
    // and its thread stops. EXCUSED instead if it may have been woken in time
    // and run late: the watcher did not see its thread asleep at two looks in
    // a row, the second after the last tick (the last thing that could have
    // woken it). Its
    // answer is recorded as it came, and its thread stops too (its next waits
    // would be as doubtful, and each would cost a whole bound).
    wait_end how_it_ended(std::chrono::steady_clock::time_point began, wait_watch::seen seen) const {
        if (std::chrono::steady_clock::now() - began < stall_) return wait_end::in_time;
        const auto bound_ns = std::int64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(stall_).count());
        const std::int64_t quiet_ns = clock_.quiet_ns();
        if (quiet_ns < bound_ns / 2) return wait_end::in_time;
        // Read after quiet_ns, so this is at or after the last tick's time.
        const auto last_tick = std::chrono::steady_clock::now() - std::chrono::nanoseconds(quiet_ns);
        if (wait_watch::can_look() && !seen.asleep_since(last_tick)) return wait_end::excused;
        return wait_end::stall;
    }
    void record_stall(lane& l, call& c) {
        l.stalled = true;
        l.stall_tick = clock_.now();
        c.returned = spec::pending_tick;
        l.calls.push_back(c);
        l.timeouts.push_back(0);
        l.deadlines_ns.push_back(0);
    }
    // A blocking call that timed out while others were busy: the timed call
    // that timed out (sound: the checker places it wherever it would block).
    void as_timed(call& c, std::int64_t& timeout_us) const {
        c.kind = c.kind == call_kind::broadcast ? call_kind::broadcast_timed : call_kind::recv_timed;
        timeout_us = std::chrono::duration_cast<std::chrono::microseconds>(stall_).count();
    }
    static void keep(lane& l, int logical, spec::handle_id id, kind k) { l.handles.push_back({logical, id, k}); }
    static kind kind_made(call_kind k) {
        switch (spec::operation_of(k).creates) {
        case spec::handle_kind::sender: return kind::sender;
        case spec::handle_kind::inactive: return kind::inactive;
        default: return kind::receiver;
        }
    }
    static void forget(lane& l, int logical) {
        std::erase_if(l.handles, [logical](const owned& o) { return o.logical == logical; });
    }

    Impl& impl_;
    run_clock& clock_;
    numbers& numbers_;
    std::chrono::milliseconds stall_;
    wait_watch& watch_;
};

// One weighted choice of the next call of a thread.
struct choice {
    call_kind k;
    std::size_t which;
    int weight;
};

// The calls that must wake every waiter (R-CLOSE-6, R-LIFE-3, R-CAP-4,
// R-OVF-4, R-ACT-3, R-LIFE-6): the waker of a contention run draws them four
// times as often, as the Relacy generator's contention shape does.
inline bool wakes_every_waiter(call_kind k) {
    switch (k) {
    case call_kind::close:
    case call_kind::drop_sender:
    case call_kind::drop_receiver:
    case call_kind::deactivate:
    case call_kind::set_capacity:
    case call_kind::set_overflow:
    case call_kind::set_await_active:
    case call_kind::activate:
    case call_kind::new_receiver: return true;
    default: return false;
    }
}

inline std::vector<choice> choices(const lane& l, bool can_make, bool waker) {
    std::vector<choice> out;
    auto add = [&out, waker](call_kind k, std::size_t which, int weight) {
        out.push_back({k, which, waker && wakes_every_waiter(k) ? 4 * weight : weight});
    };
    for (std::size_t i = 0; i < l.handles.size(); ++i) {
        switch (l.handles[i].k) {
        case kind::sender:
            add(call_kind::try_broadcast, i, 6);
            add(call_kind::broadcast, i, 6);
            add(call_kind::broadcast_timed, i, 2);
            if (can_make) add(call_kind::clone_sender, i, 1), add(call_kind::new_receiver, i, 2);
            add(call_kind::drop_sender, i, 1);
            break;
        case kind::receiver:
            add(call_kind::try_recv, i, 6);
            add(call_kind::recv, i, 6);
            add(call_kind::recv_timed, i, 2);
            if (can_make) add(call_kind::clone_receiver, i, 2), add(call_kind::new_sender, i, 1), add(call_kind::deactivate, i, 2);
            add(call_kind::drop_receiver, i, 1);
            break;
        case kind::inactive:
            if (can_make) add(call_kind::activate, i, 3), add(call_kind::activate_cloned, i, 1), add(call_kind::clone_inactive, i, 1);
            add(call_kind::drop_inactive, i, 1);
            break;
        }
        add(call_kind::set_capacity, i, 1);
        add(call_kind::set_overflow, i, 1);
        add(call_kind::set_await_active, i, 1);
        if (i == 0) add(call_kind::close, i, 1); // one close per thread's draw, not per handle: a closed channel teaches little
        add(call_kind::len, i, 2);               // a query, drawn below
    }
    return out;
}

// One of `options` (not empty), drawn by weight.
inline const choice& weighted_pick(const std::vector<choice>& options, rng& r) {
    int total = 0;
    for (const choice& c : options) total += c.weight;
    int pick = int(r.below(std::uint64_t(total)));
    for (const choice& c : options) {
        if (pick < c.weight) return c;
        pick -= c.weight;
    }
    return options.front();
}

// A drawn call's argument and timeout: the next message of its thread for a
// send, a bound of 0..2 ms for a timed call, a capacity of 1..4, a flag.
struct drawn_argument {
    int arg = 0;
    std::int64_t timeout_us = 0;
};
inline drawn_argument draw_argument(call_kind k, rng& r, int& message) {
    drawn_argument a;
    if (spec::is_send(k)) a.arg = message++;
    if (spec::is_timed(k)) a.timeout_us = std::int64_t(r.below(3) * r.below(1000));
    if (k == call_kind::set_capacity) a.arg = 1 + int(r.below(4));
    if (k == call_kind::set_overflow) a.arg = int(r.below(2));
    if (k == call_kind::set_await_active) a.arg = r.one_in(3) ? 1 : 0;
    return a;
}

inline void run_lane(lane& l, rng r, int calls, auto& run, bool waker) {
    int message = l.thread * 1000;
    for (int n = 0; n < calls && !l.handles.empty(); ++n) {
        const std::vector<choice> options = choices(l, true, waker);
        const choice& chosen = weighted_pick(options, r);
        call_kind k = chosen.k;
        if (k == call_kind::len) {
            k = queries[r.below(std::size(queries))];
            if ((k == call_kind::unread || k == call_kind::missed) && l.handles[chosen.which].k != kind::receiver) k = call_kind::len;
        }
        const drawn_argument a = draw_argument(k, r, message);
        if (!run.perform(l, k, chosen.which, a.arg, a.timeout_us)) return;
    }
}

} // namespace detail::rec

// Records history `id` of the program drawn from options.seed on a fresh Impl.
// nullopt: the run was not quiescent at a stall (discarded, counted). Throws
// std::runtime_error when the implementation threw.
template <class Impl>
    requires spec::timed_broadcast_channel<Impl, int>
        std::optional<history> record_one(const record_options& options, std::uint64_t id, record_stats& stats) {
        using namespace detail::rec;
        rng r{options.seed * 0x100000001b3ull ^ (id + 1) * 0x9e3779b97f4a7c15ull};
        const int threads = options.min_threads + int(r.below(std::uint64_t(options.max_threads - options.min_threads + 1)));
        history h;
        h.id = id;
        h.capacity = 1 + r.below(3);
        h.threads = threads;
        h.implementation = options.implementation;
        h.seed = options.seed;
        h.stall_ms = std::uint64_t(options.stall.count());
        h.calls_per_thread = std::uint64_t(options.calls);
        h.contention = options.contention_only;
        h.profile = std::string(spec::profile_of<Impl>().name);

        Impl impl(h.capacity);
        run_clock clock;
        numbers handle_numbers;
        wait_watch watch(options.stall);
        runner<Impl> run(impl, clock, handle_numbers, options.stall, watch);
        std::vector<lane> lanes(std::size_t(threads) + 1);
        lane& setup = lanes.back();
        setup.thread = -1;
        setup.slot = std::size_t(threads);
        setup.tid = this_thread_tid();
        setup.handles = {{0, spec::model<int>::first_sender, kind::sender}, {1, spec::model<int>::first_receiver, kind::receiver}};

        // The setup makes every thread's handles, then hands them out: thread 0
        // gets the first two (or what became of them), the others copies. In a
        // contention run (one in two) threads 0..n-2 start with a call that must
        // wait and the last thread, once they have invoked it, goes on with calls
        // that may end the wait; the setup makes the wait real.
        const bool contention = r.one_in(2) || options.contention_only;
        const int shape = int(r.below(3));                  // 0: receivers wait on an empty ring; 1: senders on a full one; 2: senders for an active receiver
        std::array<int, spec::max_logical_handles> owner{}; // which thread each handle number goes to
        auto made_for = [&](int t, call_kind k, std::size_t from) {
            const std::size_t before = setup.handles.size();
            run.perform(setup, k, from, 0);
            if (setup.handles.size() > before) owner[std::size_t(setup.handles.back().logical)] = t;
        };
        if (r.one_in(3) && !(contention && shape == 1)) run.perform(setup, call_kind::set_overflow, 0, 1);
        for (int t = 0; t < threads; ++t) lanes[std::size_t(t)].thread = t, lanes[std::size_t(t)].slot = std::size_t(t);
        for (int t = 1; t < threads; ++t) {
            // A waiter holds only the kind that waits. The waker also gets thread
            // 0's other handles below, so that it may hold the last of a kind.
            const bool waiter = contention && t + 1 < threads;
            const bool draw = r.one_in(2);
            const bool wants_sender = contention ? (waiter ? shape != 0 : shape != 0 && draw) : !r.one_in(4);
            const bool wants_receiver = contention ? (waiter ? shape == 0 : shape == 0 && draw) : (!wants_sender || !r.one_in(4));
            if (wants_sender) made_for(t, call_kind::clone_sender, 0);
            if (wants_receiver) made_for(t, call_kind::clone_receiver, 1);
        }
        if (contention && shape == 1 && r.one_in(2)) {
            // The waker also holds an inactive receiver and await_active is off:
            // then the last active receiver leaving does not close the channel,
            // and must still wake every sender (R-LIFE-3's wake, R-ACT-2).
            run.perform(setup, call_kind::set_await_active, 0, 0);
            made_for(threads - 1, call_kind::clone_receiver, 1);
            made_for(threads - 1, call_kind::deactivate, setup.handles.size() - 1);
        }
        if (contention && shape == 1)
            for (std::size_t m = 0; m < h.capacity; ++m) run.perform(setup, call_kind::try_broadcast, 0, 900 + int(m));
        if (contention && shape == 2) {
            // Every receiver goes inactive; each inactive one stays with its thread.
            for (std::size_t i = 0; i < setup.handles.size();) {
                if (setup.handles[i].k != kind::receiver) {
                    ++i;
                    continue;
                }
                const int t = owner[std::size_t(setup.handles[i].logical)];
                made_for(t, call_kind::deactivate, i); // removes handles[i], appends the inactive one
            }
        }
        for (const owned& o : setup.handles) lanes[std::size_t(owner[std::size_t(o.logical)])].handles.push_back(o);
        setup.handles.clear();
        if (contention && threads > 1) {
            // Thread 0 is a waiter too: it keeps the kind that waits, the waker gets the rest.
            const kind waits = shape == 0 ? kind::receiver : kind::sender;
            std::vector<owned>& first = lanes[0].handles;
            for (const owned& o : first)
                if (o.k != waits) lanes[std::size_t(threads - 1)].handles.push_back(o);
            std::erase_if(first, [waits](const owned& o) { return o.k != waits; });
        }
        std::atomic<int> first_calls_due{contention ? threads - 1 : 0};
        std::vector<std::atomic<long>> waiter_tids(static_cast<std::size_t>(threads)); // 0: not a waiter, or not known yet
        std::vector<std::thread> workers;
        workers.reserve(std::size_t(threads));
        for (int t = 0; t < threads; ++t) {
            workers.emplace_back([&, t] {
                lane& l = lanes[std::size_t(t)];
                l.tid = this_thread_tid();
                try {
                    rng mine{options.seed ^ (id << 8) ^ std::uint64_t(t + 1) * 0x9e3779b97f4a7c15ull};
                    if (contention && t + 1 == threads) {
                        // The waker: its first call comes once every waiter has invoked its first (bounded: 50 ms).
                        const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
                        while (first_calls_due.load(std::memory_order_acquire) > 0 && std::chrono::steady_clock::now() < give_up)
                            poll_pause(); // pairs with the waiters' release fetch_sub
                        for (std::size_t w = 0; w + 1 < waiter_tids.size(); ++w) {
                            // A tid only steers this wait; no data is read through it (relaxed).
                            for (long tid = waiter_tids[w].load(std::memory_order_relaxed);
                                 tid != 0 && !is_asleep(tid) && std::chrono::steady_clock::now() < give_up;
                                 tid = waiter_tids[w].load(std::memory_order_relaxed))
                                poll_pause();
                        }
                    } else if (contention && l.handles.empty()) {
                        first_calls_due.fetch_sub(1, std::memory_order_release); // nothing to wait on; pairs with the waker's load
                    } else if (contention) {
                        waiter_tids[std::size_t(t)].store(this_thread_tid(), std::memory_order_relaxed); // ordered by the announce's release
                        const bool sends = l.handles[0].k == kind::sender;
                        const bool go_on = run.perform(l, sends ? call_kind::broadcast : call_kind::recv, 0, sends ? 1000 * t + 999 : 0, 0, &first_calls_due);
                        waiter_tids[std::size_t(t)].store(0, std::memory_order_relaxed); // its wait is over: the waker need not wait for it
                        if (!go_on) return;
                    }
                    // The waker's program is short (1-3 calls): a long one would
                    // rescue a waiter whose wake-up was lost (a later close
                    // wakes it, and its answer only comes late, which no history
                    // can tell from slow).
                    const bool waker = contention && t + 1 == threads;
                    run_lane(l, mine, waker ? std::min(options.calls, 1 + int(mine.below(3))) : options.calls, run, waker);
                } catch (const std::exception& e) {
                    l.error = e.what();
                }
            });
        }
        for (std::thread& w : workers) w.join();

        const std::uint64_t end = clock.now();
        bool any_stall = false;
        for (const lane& l : lanes) {
            if (!l.error.empty()) throw std::runtime_error("thread " + std::to_string(l.thread) + ": " + l.error);
            if (l.stalled && l.stall_tick != end) {
                ++stats.discarded;
                return std::nullopt;
            }
            any_stall = any_stall || l.stalled;
        }
        // The calls in the order of their invocation (the setup's first).
        std::vector<std::pair<call, std::int64_t>> all;
        for (const lane& l : lanes)
            for (std::size_t i = 0; i < l.calls.size(); ++i) {
                all.push_back({l.calls[i], l.timeouts[i]});
                // A deadline already passed at the invocation (another thread's tick
                // read its time first) constrains nothing: its invocation, then.
                if (l.deadlines_ns[i] != 0)
                    all.back().first.deadline = std::max(clock.deadline_tick(l.deadlines_ns[i], end), all.back().first.invoked);
            }
        std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first.invoked < b.first.invoked; });
        for (auto& [c, timeout] : all) {
            h.calls.push_back(c);
            h.timeout_us.push_back(timeout);
            h.call_lines.push_back(0);
        }
        ++stats.recorded;
        if (any_stall) ++stats.stalled;
        return h;
    }

} // namespace bcast::trace
