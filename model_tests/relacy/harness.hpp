// Scenario harness: the handles of one channel, recorded operations, the
// instance-counting message type, and the checks every suite runs in after().
#pragma once

#include "relacy_primitives.hpp"
#include "linearizability.hpp"

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

// ---- read-only access to the channel's private state, for invariant() ------
// impl/ has no friend declaration for the checker (it must not know about it).
// The standard's explicit-instantiation rule ([temp.explicit]: access checking
// does not apply to the names in an explicit instantiation) yields pointers to
// the private members. They are read only from invariant(), where Relacy does
// not race-check rl::var loads and does not schedule.
namespace peek {
template <class Tag, typename Tag::type Member>
struct robber {
    friend typename Tag::type get(Tag) { return Member; }
};
using state_t = bcast::detail::channel_state<msg, plain_primitives>;
using handle_t = bcast::detail::handle_base<msg, plain_primitives>;
using ring_t = bcast::detail::slot_ring<msg, plain_primitives>;
#define BCAST_RL_PEEK(TAG, CLASS, MEMBER, TYPE)     \
    struct TAG {                                    \
        using type = TYPE CLASS::*;                 \
        friend type get(TAG);                       \
    };                                              \
    template struct robber<TAG, &CLASS::MEMBER>;
BCAST_RL_PEEK(state_tag, handle_t, state_, state_t*)
BCAST_RL_PEEK(mutex_tag, state_t, mutex_, bcast_rl::mutex)
BCAST_RL_PEEK(ring_tag, state_t, ring_, ring_t)
BCAST_RL_PEEK(head_tag, state_t, head_pos_, bcast_rl::var<std::uint64_t>)
BCAST_RL_PEEK(capacity_tag, state_t, capacity_, bcast_rl::var<std::size_t>)
BCAST_RL_PEEK(receivers_tag, state_t, receiver_count_, bcast_rl::var<std::size_t>)
BCAST_RL_PEEK(closed_tag, state_t, closed_, bcast_rl::var<bool>)
BCAST_RL_PEEK(waiting_senders_tag, state_t, waiting_senders_, bcast_rl::var<std::size_t>)
BCAST_RL_PEEK(waiting_receivers_tag, state_t, waiting_receivers_, bcast_rl::var<std::size_t>)
// The async waiter lists and their "retry me" marks (R-ASYNC-2), and the
// settings a queued sender's answer depends on.
using rx_plain_t = bcast::receiver<msg, plain_primitives>;
using list_t = bcast::detail::waiter_list;
BCAST_RL_PEEK(pos_tag, rx_plain_t, pos_, plain_primitives::position)
BCAST_RL_PEEK(recv_waiters_tag, state_t, recv_waiters_, list_t)
BCAST_RL_PEEK(send_waiters_tag, state_t, send_waiters_, list_t)
BCAST_RL_PEEK(list_head_tag, list_t, head_, bcast::detail::waiter*)
BCAST_RL_PEEK(overflow_tag, state_t, overflow_, bcast_rl::var<bool>)
BCAST_RL_PEEK(await_active_tag, state_t, await_active_, bcast_rl::var<bool>)
BCAST_RL_PEEK(async_marks_tag, state_t, async_marks_, bcast_rl::var<unsigned>)
BCAST_RL_PEEK(completed_waiters_tag, state_t, completed_waiters_, list_t)
#undef BCAST_RL_PEEK
} // namespace peek

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
        self.cv.notify_one();
    }
    void await() {
        bcast_rl::unique_lock lock(m);
        while (!resumed.get()) cv.wait(lock); // a Relacy wait: counted in threads_waiting
    }
};
using recv_node = async_node<peek::state_t::recv_waiter_type>;
using send_node = async_node<peek::state_t::send_waiter_type>;

// ---- the scenario base -----------------------------------------------------
template <class Derived, class Primitives, int Threads, rl::test_result_e Expected = rl::test_result_success>
struct scenario : rl::test_suite<Derived, Threads, Expected> {
    using tx_t = bcast::sender<msg, Primitives>;
    using rx_t = bcast::receiver<msg, Primitives>;
    using irx_t = bcast::inactive_receiver<msg, Primitives>;
    static constexpr int before_thread = -1;
    static constexpr int after_thread = 99;

    std::optional<tx_t> tx[max_handles];
    std::optional<rx_t> rx[max_handles];
    std::optional<irx_t> irx[max_handles];
    history hist;
    std::size_t capacity0 = 1;
    bool check_linearizable = true;
    const peek::state_t* channel = nullptr; // for invariant(); plain_primitives suites only
    bcast::detail::channel_state<msg, Primitives>* state = nullptr; // for the async operations
    std::uint64_t last_head = 0;
    bool seen_closed = false;

    // channel(capacity): sender = logical 0, receiver = logical 1.
    void open(std::size_t capacity) {
        live_messages = 0;
        threads_waiting = 0;
        capacity0 = capacity;
        auto [t, r] = bcast::channel<msg, Primitives>(capacity);
        tx[0].emplace(std::move(t));
        rx[1].emplace(std::move(r));
        if constexpr (std::is_same_v<Primitives, plain_primitives>) channel = (*tx[0]).*get(peek::state_tag{});
        state = &bcast::detail::handle_access::state_of(*tx[0]);
    }

    // ---- recorded operations (t: thread index) ----
    outcome try_send(int t, int h, int v) {
        const int i = hist.begin(t, op_kind::try_send, h, v);
        const outcome o = encode_send(tx[h]->try_broadcast(msg(v)));
        hist.end(i, o);
        return o;
    }
    outcome send(int t, int h, int v) {
        const int i = hist.begin(t, op_kind::send, h, v);
        const outcome o = encode_send(tx[h]->broadcast(msg(v)));
        hist.end(i, o);
        return o;
    }
    outcome send_timed(int t, int h, int v) {
        const int i = hist.begin(t, op_kind::send_timed, h, v);
        const outcome o = encode_send(tx[h]->broadcast_for(msg(v), std::chrono::milliseconds(1)));
        hist.end(i, o);
        return o;
    }
    outcome try_recv(int t, int h) {
        const int i = hist.begin(t, op_kind::try_recv, h);
        const outcome o = encode_recv(rx[h]->try_recv());
        hist.end(i, o);
        return o;
    }
    outcome recv(int t, int h) {
        const int i = hist.begin(t, op_kind::recv, h);
        const outcome o = encode_recv(rx[h]->recv());
        hist.end(i, o);
        return o;
    }
    outcome recv_timed(int t, int h) {
        const int i = hist.begin(t, op_kind::recv_timed, h);
        const outcome o = encode_recv(rx[h]->recv_for(std::chrono::milliseconds(1)));
        hist.end(i, o);
        return o;
    }
    void clone_receiver(int t, int h, int out) {
        const int i = hist.begin(t, op_kind::clone_receiver, h, 0, out);
        rx[out].emplace(*rx[h]);
        hist.end(i, {});
    }
    void new_receiver(int t, int sender_h, int out) {
        const int i = hist.begin(t, op_kind::new_receiver, sender_h, 0, out);
        rx[out].emplace(tx[sender_h]->new_receiver());
        hist.end(i, {});
    }
    void drop_receiver(int t, int h) {
        const int i = hist.begin(t, op_kind::drop_receiver, h);
        rx[h].reset();
        hist.end(i, {});
    }
    void drop_sender(int t, int h) {
        const int i = hist.begin(t, op_kind::drop_sender, h);
        tx[h].reset();
        hist.end(i, {});
    }
    void deactivate(int t, int h, int out) {
        const int i = hist.begin(t, op_kind::deactivate, h, 0, out);
        irx[out].emplace(std::move(*rx[h]).deactivate());
        rx[h].reset();
        hist.end(i, {});
    }
    void activate_cloned(int t, int h, int out) {
        const int i = hist.begin(t, op_kind::activate_cloned, h, 0, out);
        rx[out].emplace(irx[h]->activate_cloned());
        hist.end(i, {});
    }
    void drop_inactive(int t, int h) {
        const int i = hist.begin(t, op_kind::drop_inactive, h);
        irx[h].reset();
        hist.end(i, {});
    }
    void set_capacity(int t, int h, int n) {
        const int i = hist.begin(t, op_kind::set_capacity, h, n);
        tx[h]->set_capacity(std::size_t(n));
        hist.end(i, {});
    }
    void set_overflow(int t, int h, bool on) {
        const int i = hist.begin(t, op_kind::set_overflow, h, on);
        tx[h]->set_overflow(on);
        hist.end(i, {});
    }
    void set_await_active(int t, int h, bool on) {
        const int i = hist.begin(t, op_kind::set_await_active, h, on);
        tx[h]->set_await_active(on);
        hist.end(i, {});
    }
    outcome close(int t, int h) {
        const int i = hist.begin(t, op_kind::close, h);
        const outcome o{0, tx[h] ? int(tx[h]->close()) : int(rx[h]->close()), 0};
        hist.end(i, o);
        return o;
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
    outcome async_recv(int t, int h, recv_node& node) {
        const int i = hist.begin(t, op_kind::recv, h);
        node.pos = &((*rx[h]).*get(peek::pos_tag{}));
        node.suspended = state->start_recv(node);
        if (node.suspended) {
            node.await();
            RL_ASSERT(node.completed.get()); // written under the lock before on_complete resumed us
        }
        RL_ASSERT(node.result.has_value());
        const outcome o = encode_recv(*node.result);
        node.result.reset(); // the message dies here, not with the scenario (live_messages)
        if (o.code == 1 + int(bcast::recv_errc::cancelled)) {
            hist.ops[i].kind = op_kind::recv_timed;
            hist.end(i, {1 + int(bcast::recv_errc::timed_out), o.value, o.missed});
        } else {
            hist.end(i, o);
        }
        return o;
    }
    outcome async_send(int t, int h, send_node& node, int v) {
        const int i = hist.begin(t, op_kind::send, h, v);
        node.message.emplace(v);
        node.suspended = state->start_send(node);
        if (node.suspended) {
            node.await();
            RL_ASSERT(node.completed.get());
        }
        RL_ASSERT(node.result.has_value());
        const outcome o = encode_send(*node.result);
        node.result.reset();
        node.message.reset(); // moved-from after a send, still an object
        if (o.code == 1 + int(bcast::send_errc::cancelled)) {
            hist.ops[i].kind = op_kind::send_timed;
            hist.end(i, {1 + int(bcast::send_errc::timed_out), o.value, o.missed});
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

    // Receives everything left on every receiver (recorded, in after()).
    void drain_all() {
        for (int h = 0; h < max_handles; ++h) {
            while (rx[h]) {
                const outcome o = try_recv(after_thread, h);
                if (o.code != 0 && o.code != 1 + int(bcast::recv_errc::overflowed)) break;
            }
        }
    }

    // Global invariants, checked by Relacy at every scheduling point. The
    // channel's own invariants (the ones check_invariants() asserts inside each
    // critical section) are checked here between critical sections, from every
    // thread's point of view, plus monotonicity across steps.
    void invariant() {
        RL_ASSERT(live_messages >= 0 && live_messages <= 16);
        RL_ASSERT(threads_waiting >= 0 && threads_waiting <= Threads);
        if constexpr (std::is_same_v<Primitives, plain_primitives>) {
            if (channel == nullptr || (channel->*get(peek::mutex_tag{})).held()) return;
            const peek::ring_t& ring = channel->*get(peek::ring_tag{});
            const std::size_t len = ring.size();
            const std::size_t capacity = (channel->*get(peek::capacity_tag{})).get();
            const std::size_t receivers = (channel->*get(peek::receivers_tag{})).get();
            RL_ASSERT(capacity >= 1 && len <= capacity && capacity <= ring.slot_count());
            RL_ASSERT(receivers != 0 || len == 0);     // no active receiver: nothing queued
            RL_ASSERT(live_messages >= int(len));       // every queued message is a live object
            std::size_t previous = 1;                   // pending readers: >= 1, non-decreasing
            for (std::size_t i = 0; i < len; ++i) {
                const std::size_t readers = ring.pending_readers(i);
                RL_ASSERT(previous <= readers && readers <= receivers);
                previous = readers;
            }
            const std::uint64_t head = (channel->*get(peek::head_tag{})).get();
            RL_ASSERT(head >= last_head);               // head position only grows
            last_head = head;
            const bool closed = (channel->*get(peek::closed_tag{})).get();
            RL_ASSERT(closed || !seen_closed);          // closing is permanent
            seen_closed = closed;
            RL_ASSERT((channel->*get(peek::waiting_senders_tag{})).get() +
                          (channel->*get(peek::waiting_receivers_tag{})).get() <=
                      std::size_t(threads_waiting));    // counted waiters really wait
            // Async waiters (R-ASYNC-2): every critical section settles the
            // marked lists and hands its completed waiters out before it
            // unlocks, so with the lock free nothing is marked or left
            // completed, and every queued waiter really has to wait. A waiter
            // queued while its answer is ready is a lost wakeup at once, even
            // when a later event (a close) would rescue it before the search ends.
            RL_ASSERT((channel->*get(peek::async_marks_tag{})).get() == 0);
            RL_ASSERT((channel->*get(peek::completed_waiters_tag{})).*get(peek::list_head_tag{}) == nullptr);
            const std::uint64_t tail = head + len;
            for (const bcast::detail::waiter* w = (channel->*get(peek::recv_waiters_tag{})).*get(peek::list_head_tag{});
                 w != nullptr; w = w->next) {
                const auto& r = static_cast<const peek::state_t::recv_waiter_type&>(*w);
                RL_ASSERT(w->queued && !closed && r.pos->load() == tail); // open, nothing to read, not lagging
            }
            const bool overflow = (channel->*get(peek::overflow_tag{})).get();
            const bool await_active = (channel->*get(peek::await_active_tag{})).get();
            const bool sender_waits = !closed && (receivers == 0 ? await_active : len >= capacity && !overflow);
            for (const bcast::detail::waiter* w = (channel->*get(peek::send_waiters_tag{})).*get(peek::list_head_tag{});
                 w != nullptr; w = w->next) {
                RL_ASSERT(w->queued && sender_waits); // what attempt_send + must_wait would say (R-SEND-3, R-ACT-2)
            }
        }
    }

    // The checks every suite ends with: drop every handle (the channel state
    // is then destroyed), every message object is destroyed exactly once, and
    // the history is linearizable against bcast::spec::model.
    void finish() {
        channel = nullptr; // the state goes away with the last handle
        state = nullptr;
        for (auto& h : rx) h.reset();
        for (auto& h : irx) h.reset();
        for (auto& h : tx) h.reset();
        RL_ASSERT(live_messages == 0);
        if (!check_linearizable) return;
        bool ok;
        {
            alloc_guard guard;
            ok = linearizability_checker::check(hist, capacity0, 0, 1);
            if (!ok) {
                std::fprintf(stderr, "NOT LINEARIZABLE against bcast::spec::model (capacity %zu); history:\n",
                             capacity0);
                hist.print(stderr);
            }
        }
        RL_ASSERT(ok && "history is not linearizable against bcast::spec::model");
    }
    void after() { finish(); }
};

} // namespace bcast_rl
