// SPDX-License-Identifier: MIT OR Apache-2.0
// Scenario harness: the handles of one channel, recorded operations, the
// instance-counting message type, the async waiter stand-in, the variant
// flags a scenario template is instantiated with, and the checks every suite
// runs (invariant() at every scheduling point, finish() in after()).
#pragma once

#include "relacy_primitives.hpp" // first: it maps BCAST_ASSERT before bcast is included
#include "inspector.hpp"
#include "linearizability.hpp"
#include "recorded_calls.hpp"

namespace bcast_rl {

// ---- an instance-counting message ----------------------------------------
// Relacy runs every fiber on one OS thread, so plain globals are exact. Each
// object carries a magic word: destroying a dead or never-built object, or
// copying from one, fails at once.
inline int live_messages = 0;

struct msg {
    static constexpr unsigned alive = 0xA11CE, dead = 0xDEAD;
    int v;
    unsigned magic;
    msg(int value) : v(value), magic(alive) { ++live_messages; }
    msg(const msg& other) : v(other.v), magic(alive) {
        RL_ASSERT(other.magic == alive);
        ++live_messages;
    }
    msg(msg&& other) noexcept : v(other.v), magic(alive) {
        RL_ASSERT(other.magic == alive);
        ++live_messages;
    }
    msg& operator=(const msg& other) {
        RL_ASSERT(magic == alive && other.magic == alive);
        v = other.v;
        return *this;
    }
    msg& operator=(msg&& other) noexcept {
        RL_ASSERT(magic == alive && other.magic == alive);
        v = other.v;
        return *this;
    }
    ~msg() {
        RL_ASSERT(magic == alive); // destroyed exactly once
        magic = dead;
        --live_messages;
    }
    operator int() const { return v; }
};

// ---- async waiters -----------------------------------------------------------
// A suspended async_recv() / async_broadcast() without a coroutine: the
// channel's own waiter node (what the awaitable embeds), whose "coroutine" is
// a Relacy thread blocked on an event. on_complete plays the resumption: it
// sets a flag under a model mutex and notifies a model condition variable, so
// the resume path is a real synchronization Relacy checks. The owner, once
// woken, reads `completed`, which the completing thread wrote under the
// channel lock: a data race unless the completion happens-before the resume
// (R-ASYNC-3). A waiter whose on_complete never comes leaves its owner blocked
// forever, which Relacy reports as DEADLOCK (a lost wakeup).
template <class Waiter>
struct async_node : Waiter {
    using waiter_base = Waiter;
    bcast_rl::mutex m;
    bcast_rl::condition_variable cv;
    bcast_rl::var<bool> resumed;
    int completions = 0;    // on_complete calls: one per queued waiter, none for an answer at once
    bool suspended = false; // start_*() queued it

    async_node() { this->on_complete = &resume; }
    async_node(const async_node&) = delete;
    async_node& operator=(const async_node&) = delete;

    static void resume(bcast::detail::waiter& node) noexcept {
        auto& self = static_cast<async_node&>(static_cast<Waiter&>(node));
        ++self.completions; // plain: Relacy runs every fiber on one OS thread
        bcast_rl::unique_lock lock(self.m);
        self.resumed.set(true);
        self.cv.notify_one(); // the owner, in await(), is the only thread that waits on this node
    }
    void await() {
        bcast_rl::unique_lock lock(m);
        while (!resumed.get()) cv.wait(lock); // a Relacy wait: counted in threads_waiting
    }
};
using plain_state = bcast::detail::channel_state<msg, plain_primitives>;
using recv_node = async_node<plain_state::recv_waiter_type>;
using send_node = async_node<plain_state::send_waiter_type>;

// ---- variants of one scenario template ---------------------------------------
// A scenario template<int V> is instantiated once per variant; V is a set of
// these flags. The registry (registry.hpp) decides which variants run.
constexpr int CLOSE = 1;  // the variant ends with close()
constexpr int UNTIL = 2;  // reachability twin: RL_UNTIL proves the critical window is reached
constexpr int CANCEL = 4; // the variant cancels one operation

// A reachability twin passes only when its RL_UNTIL condition was hit.
constexpr rl::test_result_e expect(int variant) {
    return (variant & UNTIL) ? rl::test_result_until_condition_hit : rl::test_result_success;
}
// Where a scenario's event thread waits for the others to block: in the twin,
// the search stops with success as soon as `hit` holds there.
template <int V>
void until(bool hit) {
    if constexpr ((V & UNTIL) != 0) {
        RL_UNTIL(hit);
    }
}

// ---- the scenario base -----------------------------------------------------
template <class Derived, class Primitives, int Threads, rl::test_result_e Expected = rl::test_result_success>
struct scenario : rl::test_suite<Derived, Threads, Expected>,
                  recorded_calls<scenario<Derived, Primitives, Threads, Expected>, msg, bcast::sender<msg, Primitives>,
                                 bcast::receiver<msg, Primitives>, bcast::inactive_receiver<msg, Primitives>> {
    using calls = typename scenario::recorded_calls;
    using calls::tx, calls::rx, calls::hist, calls::capacity0;
    const plain_state* channel = nullptr;                           // for invariant(); plain_primitives suites only
    bcast::detail::channel_state<msg, Primitives>* state = nullptr; // for the async operations
    std::uint64_t last_head = 0;
    bool seen_closed = false;
    // The async senders queued now, in the order they were queued (R-ASYNC-2:
    // served FIFO). invariant() runs between critical sections and one
    // critical section queues at most one waiter, so the order in which
    // invariant() first sees the nodes is the order they were queued.
    static constexpr int max_queued_sends = 8;
    const bcast::detail::waiter* queued_sends[max_queued_sends] = {};
    int queued_send_count = 0;

    // channel(capacity): sender = logical 0, receiver = logical 1.
    void open(std::size_t capacity) {
        live_messages = 0;
        threads_waiting = 0;
        // Model time starts; when it passes a timed call's deadline, the history hears of it.
        model_clock::start(&hist, [](void* h, std::int64_t now) { static_cast<history*>(h)->time_passed(now); });
        capacity0 = capacity;
        auto [t, r] = bcast::channel<msg, Primitives>(capacity);
        tx[0].emplace(std::move(t));
        rx[1].emplace(std::move(r));
        state = &bcast::detail::handle_access::state_of(*tx[0]);
        if constexpr (std::is_same_v<Primitives, plain_primitives>) channel = state;
    }

    // ---- recorded operations: recorded_calls.hpp, through these two ----
    // Records one operation in the history: the call tick, the call itself,
    // then its answer and the return tick (plain ticks: every call here
    // synchronises through the channel's one mutex).
    template <class Call>
    outcome record(int t, op_kind kind, int h, int arg, int out, Call&& call) {
        const int i = hist.begin(t, kind, h, arg, out);
        outcome answer{};
        if constexpr (std::is_void_v<decltype(call())>) call();
        else answer = call();
        hist.end(i, answer);
        return answer;
    }
    // A timed call waits until a deadline of model time (model_clock.hpp), the
    // next one: the history records the moment it passes, if it passes before
    // the call returns, and the checker places a timed_out answer no earlier.
    template <class Call>
    outcome record_timed(int t, op_kind kind, int h, int arg, Call&& call) {
        const model_clock::time_point deadline = model_clock::next_deadline();
        const int i = hist.begin(t, kind, h, arg);
        hist.await_deadline(i, model_clock::instant(deadline));
        const outcome answer = call(deadline);
        hist.end(i, answer);
        return answer;
    }

    // ---- async operations (plain_primitives only) ----
    // R-ASYNC-1: an async operation answers what the blocking one answers, so
    // it is recorded as `recv` / `send` and checked against the spec like
    // them: its call tick is taken before start_*(), its return tick after the
    // owner was resumed, and the completing thread's critical section, where
    // it takes effect, lies in between.
    // R-ASYNC-4: a `cancelled` answer consumed nothing (a send hands its
    // message back) and is given only to an operation that would wait at that
    // moment: exactly what the spec says of a timed-out recv_for /
    // broadcast_for (R-RECV-5, R-SEND-4). It is recorded as one, so scenarios
    // with cancellation stay linearizability-checked; the caller still gets
    // the real answer.
    outcome async_recv(int t, int h, recv_node& node, bool cancel_at_once = false, bool cancel_first = false) {
        return async_operation(t, h, 0, node, cancel_at_once, cancel_first);
    }
    outcome async_send(int t, int h, send_node& node, int v, bool cancel_at_once = false, bool cancel_first = false) {
        return async_operation(t, h, v, node, cancel_at_once, cancel_first);
    }

    // Both of the above: start, suspend if queued, await the resumption,
    // encode the answer, record a cancel as a timeout. Only the start and the
    // answer's type differ between a receive and a send. cancel_at_once: the
    // owner cancels a queued operation right after queueing it, racing every
    // other thread's completion of it (R-ASYNC-4), then awaits as usual.
    // cancel_first: the owner cancels before the start (a stop requested
    // before the first resumption): the start still answers at once when it
    // can, and `cancelled` instead of queueing when it would wait (R-ASYNC-4).
    template <class Node>
    outcome async_operation(int t, int h, int v, Node& node, bool cancel_at_once = false, bool cancel_first = false) {
        constexpr bool is_recv = std::is_same_v<Node, recv_node>;
        static_assert(is_recv || std::is_same_v<Node, send_node>);
        const int cancelled = is_recv ? 1 + int(bcast::recv_errc::cancelled) : 1 + int(bcast::send_errc::cancelled);
        const int timed_out = is_recv ? 1 + int(bcast::recv_errc::timed_out) : 1 + int(bcast::send_errc::timed_out);
        const int i = hist.begin(t, is_recv ? op_kind::recv : op_kind::broadcast, h, v);
        if (cancel_first) {
            const bool was_queued = cancel(node); // not queued yet: only marks it
            RL_ASSERT(!was_queued);
        }
        if constexpr (is_recv) {
            node.pos = &inspector::position(*rx[h]); // what receiver::async_recv() hands its waiter
            node.suspended = state->start_recv(node);
        } else {
            node.message.emplace(v);
            node.suspended = state->start_send(node);
        }
        if (node.suspended && cancel_at_once) (void)cancel(node);
        if (node.suspended) {
            node.await();
            RL_ASSERT(node.completed.get()); // written under the lock before on_complete resumed us
        }
        RL_ASSERT(node.result.has_value());
        outcome o;
        if constexpr (is_recv) o = encode_recv(*node.result);
        else o = encode_send(*node.result);
        node.result.reset();                          // the message dies here, not with the scenario (live_messages)
        if constexpr (!is_recv) node.message.reset(); // moved-from after a send, still an object
        if (o.code == cancelled) {
            hist.ops[i].kind = is_recv ? op_kind::recv_timed : op_kind::broadcast_timed;
            hist.end(i, {timed_out, o.value, o.missed});
        } else {
            hist.end(i, o);
        }
        return o;
    }
    // R-ASYNC-4 (not a spec operation: its effect shows in the owner's answer).
    template <class Node>
    bool cancel(Node& node) {
        return state->cancel(static_cast<typename Node::waiter_base&>(node));
    }
    // R-ASYNC-3: on_complete ran exactly once for a queued waiter, never for
    // one answered at once; the node is in no list any more.
    template <class Node>
    static void check_resumed(const Node& node) {
        RL_ASSERT(node.completions == (node.suspended ? 1 : 0));
        RL_ASSERT(!node.queued && node.prev == nullptr && node.next == nullptr);
    }

    // Whether invariant() may read the channel now: a plain_primitives
    // channel that still exists, with its lock free (between critical sections).
    bool channel_quiescent() const { return channel != nullptr && !inspector::lock_held(*channel); }

    // Global invariants, checked by Relacy at every scheduling point. The
    // channel's own invariants (the ones check_invariants() asserts inside each
    // critical section) are checked here between critical sections, from every
    // thread's point of view, plus monotonicity across steps.
    void invariant() {
        RL_ASSERT(live_messages >= 0 && live_messages <= 16);
        RL_ASSERT(threads_waiting >= 0 && threads_waiting <= Threads);
        if constexpr (std::is_same_v<Primitives, plain_primitives>) {
            if (!channel_quiescent()) return;
            const auto& ring = inspector::ring(*channel);
            const std::size_t len = ring.size();
            const std::size_t capacity = inspector::capacity(*channel);
            const std::size_t receivers = inspector::active_receivers(*channel);
            RL_ASSERT(capacity >= 1 && len <= capacity && capacity <= ring.slot_count()); // I1 (docs/design.md)
            RL_ASSERT(receivers != 0 || len == 0);                                        // I3: no active receiver, nothing queued
            RL_ASSERT(live_messages >= int(len));                                         // every queued message is a live object
            std::size_t previous = 1;                                                     // I2: pending readers >= 1, non-decreasing
            for (std::size_t i = 0; i < len; ++i) {
                const std::size_t readers = ring.pending_readers(i);
                RL_ASSERT(previous <= readers && readers <= receivers);
                previous = readers;
            }
            const std::uint64_t head = inspector::head_position(*channel);
            RL_ASSERT(head >= last_head); // I5: head position only grows
            last_head = head;
            const bool closed = inspector::closed(*channel);
            RL_ASSERT(closed || !seen_closed); // I5: closing is permanent
            seen_closed = closed;
            RL_ASSERT(inspector::counted_waiting_threads(*channel) <= std::size_t(threads_waiting)); // counted waiters really wait
            // Async waiters (R-ASYNC-2): every critical section settles the
            // marked lists and hands its completed waiters out before it
            // unlocks, so with the lock free nothing is marked or left
            // completed, and every queued waiter really has to wait. A waiter
            // queued while its answer is ready is a lost wakeup at once, even
            // when a later event (a close) would rescue it before the search ends.
            RL_ASSERT(inspector::async_marks(*channel) == 0);
            RL_ASSERT(!inspector::completed_waiters_pending(*channel));
            const std::uint64_t tail = head + len;
            for (const bcast::detail::waiter* w = inspector::first_queued_receive(*channel); w != nullptr; w = w->next) {
                const auto& r = static_cast<const plain_state::recv_waiter_type&>(*w);
                RL_ASSERT(w->queued && !closed && r.pos->load() == tail); // open, nothing to read, not lagging
            }
            const bool overflow = inspector::overflow(*channel);
            const bool await_active = inspector::await_active(*channel);
            const bool sender_waits = !closed && (receivers == 0 ? await_active : len >= capacity && !overflow);
            for (const bcast::detail::waiter* w = inspector::first_queued_send(*channel); w != nullptr; w = w->next) {
                RL_ASSERT(w->queued && sender_waits); // what attempt_send + must_wait would say (R-SEND-3, R-ACT-2)
            }
            check_send_queue_order();
        }
    }

    // R-ASYNC-2: waiting async senders are served in FIFO order, and the
    // settle serves the list front to back, so the list must keep the order
    // in which the senders were queued: the nodes still queued from earlier
    // (in their order), then at most one new node, at the back.
    void check_send_queue_order() {
        const bcast::detail::waiter* now[max_queued_sends] = {};
        int n = 0;
        for (const bcast::detail::waiter* w = inspector::first_queued_send(*channel); w != nullptr; w = w->next) {
            RL_ASSERT(n < max_queued_sends); // the scenarios queue far fewer
            now[n++] = w;
        }
        int kept = 0; // the earlier nodes still queued, in their arrival order
        for (int i = 0; i < queued_send_count; ++i)
            for (int j = 0; j < n; ++j)
                if (now[j] == queued_sends[i]) queued_sends[kept++] = queued_sends[i];
        for (int j = 0; j < kept; ++j)
            RL_ASSERT(now[j] == queued_sends[j] && "async senders out of FIFO order (R-ASYNC-2)");
        RL_ASSERT(n - kept <= 1); // one critical section queues at most one waiter
        if (n > kept) queued_sends[kept++] = now[n - 1];
        queued_send_count = kept;
    }

    // The checks every suite ends with: drop every handle (the channel state
    // is then destroyed), every message object is destroyed exactly once, and
    // the history is linearizable against bcast::spec::model.
    void finish() {
        channel = nullptr; // the state goes away with the last handle
        state = nullptr;
        const bool linearizable = this->drop_all_and_check(history_is_linearizable);
        RL_ASSERT(live_messages == 0);
        RL_ASSERT(linearizable && "history is not linearizable against bcast::spec::model");
    }
    void after() { finish(); }
};

// The shape of the two-waiter scenarios (blocking_scenarios.hpp,
// async_scenarios.hpp): threads 0 and 1 wait (the scenario's waiter(t));
// thread 2 goes on once both wait, makes the scenario's event(), which must
// let both through, and closes in the +close variant.
template <class Derived, int V>
struct two_waiters_vs_event : scenario<Derived, plain_primitives, 3, expect(V)> {
    static constexpr bool has_close_variant = true;
    void thread(unsigned t) {
        auto& self = static_cast<Derived&>(*this);
        if (t < 2) return self.waiter(int(t));
        until<V>(threads_waiting >= 2);
        self.event();
        if (V & CLOSE) this->close(2, 0);
    }
};

} // namespace bcast_rl
