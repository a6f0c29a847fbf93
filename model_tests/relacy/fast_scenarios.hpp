// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::fast under Relacy (docs/fast-design.md, section 8): the unmodified
// lock-free-receive channel on fast_relacy_primitives, whose atomics Relacy
// explores under every order the C++ memory model allows for them. Each
// scenario checks, besides what it asserts itself: data races on every lock
// field and on a plain position (Relacy), lost wakeups (a sleeper never woken
// is a DEADLOCK), the channel's own invariants inside every critical section
// (BCAST_ASSERT is RL_ASSERT), the harness's between them, the bounded retry
// of a lagging reader (F3), and linearizability of the whole history against
// bcast::spec::model under profile P-FAST (fast_harness.hpp).
//
// Blocking scenarios are templates over the variant flags of harness.hpp
// (CLOSE, UNTIL) and registered with BCAST_RELACY_FASTWAIT in scenarios.def,
// which runs them as the reference's blocking scenarios are run: a search, the
// random scheduler, a +close variant where it has one, and a reachability twin
// that must see the sleeper asleep (threads_sleeping) at the critical moment.
#pragma once

#include "fast_harness.hpp"
#include "harness.hpp" // the variant flags and until<V>()

namespace bcast_rl {

constexpr int recv_ok = 0;
constexpr int overflowed_code = 1 + int(bcast::recv_errc::overflowed);
constexpr int recv_closed_code = 1 + int(bcast::recv_errc::closed);
constexpr int send_closed_code = 1 + int(bcast::send_errc::closed);
constexpr int send_full_code = 1 + int(bcast::send_errc::full);

// ---- no one sleeps -------------------------------------------------------------

// The shape of most scenarios below: thread 0 makes the scenario's
// sender_thread() calls (through sender 0), and thread r (1, 2, ...) reads
// receiver r: reads<N...> lists how many try_recv()s each of them makes.
template <int... N>
struct reads {
    static constexpr int readers = sizeof...(N);
    static constexpr int per_reader[] = {N...};
};
template <class Derived, class Reads, class Primitives = fast_release_primitives, rl::test_result_e Expected = rl::test_result_success>
struct fast_sender_vs_readers : fast_scenario<Derived, Primitives, 1 + Reads::readers, Expected> {
    void thread(unsigned t) {
        if (t == 0) return static_cast<Derived&>(*this).sender_thread();
        for (int k = 0; k < Reads::per_reader[t - 1]; ++k) this->try_recv(int(t), int(t));
    }
};

// A sender and a receiver on one slot: the stamp publishes the message and its
// words; the second send is gated on the receiver's position.
template <class Primitives>
struct fast_one_slot : fast_sender_vs_readers<fast_one_slot<Primitives>, reads<2>, Primitives> {
    static constexpr const char* description = "cap 1: two sends vs two receives on one slot: publish, copy, gate";
    void before() { this->open(1); }
    void sender_thread() {
        this->try_send(0, 0, 1);
        this->try_send(0, 0, 2); // full unless the receiver has moved past 1
    }
};

// The ring wraps: cap 2 on 2 slots, with messages 3 and 4 written into the
// slots of 1 and 2 while the receiver reads them.
struct fast_ring_wrap : fast_sender_vs_readers<fast_ring_wrap, reads<3>> {
    static constexpr const char* description = "cap 2: sends wrap onto slots a receiver reads: stamps tell old from new";
    void before() {
        open(2);
        try_send(before_thread, 0, 1);
        try_send(before_thread, 0, 2);
        try_recv(before_thread, 1); // the receiver at 1; slot 0 is free for message 3
    }
    void sender_thread() {
        try_send(0, 0, 3);
        try_send(0, 0, 4); // into slot 1, still message 2's: full unless the receiver read it
    }
};

// Two receivers at different positions: the slower one gates the sender.
struct fast_two_positions : fast_sender_vs_readers<fast_two_positions, reads<1, 2>> {
    static constexpr const char* description = "cap 2, receivers at 1 and 0: the sender gates on the slower, both read all";
    void before() {
        open(2);
        try_send(before_thread, 0, 1);
        clone_receiver(before_thread, 1, 2);
        try_recv(before_thread, 1); // receiver 1 at position 1, receiver 2 at 0
    }
    void sender_thread() {
        try_send(0, 0, 2);
        try_send(0, 0, 3); // needs receiver 2 to have moved
    }
};

// Two senders race for the last free slot while the receiver frees another.
struct fast_two_senders_last_slot : fast_scenario<fast_two_senders_last_slot, fast_release_primitives, 3> {
    static constexpr const char* description = "cap 2, one slot free: two senders race for it while a receiver frees one";
    void before() { open(2), try_send(before_thread, 0, 1), clone_sender(before_thread, 0, 2); }
    void thread(unsigned t) {
        if (t == 0) try_send(0, 0, 2);
        else if (t == 1) try_send(1, 2, 3);
        else try_recv(2, 1);
    }
    void after() {
        int full = 0;
        for (int i = 0; i < hist.count; ++i) {
            const op& o = hist.ops[std::size_t(i)];
            if (o.kind == op_kind::try_broadcast && o.result.code == send_full_code) ++full;
        }
        RL_ASSERT(full <= 1); // two slots for two sends once the receiver read 1: at most one loses
        drain_all();
        finish();
    }
};

// Overflow: evictions race a read, and the second send overwrites the slot
// of message 1 (cap 1 on 2 slots) while the receiver may still be copying it.
// The copy is validated (the seqlock): never a torn or a newer value.
template <class Primitives>
struct fast_evict_vs_read : fast_sender_vs_readers<fast_evict_vs_read<Primitives>, reads<2>, Primitives> {
    static constexpr const char* description = "cap 1, overflow: two evictions, one overwriting the slot being copied";
    void before() {
        this->open(1);
        this->set_overflow(this->before_thread, 0, true);
        this->try_send(this->before_thread, 0, 1);
    }
    void sender_thread() {
        this->try_send(0, 0, 2); // evicts 1
        this->try_send(0, 0, 3); // evicts 2, overwrites message 1's slot
    }
    void after() {
        this->drain_all();
        std::uint64_t accounted = 0; // received + missed == sent (R-OVF-2)
        for (int i = 0; i < this->hist.count; ++i) {
            const op& o = this->hist.ops[std::size_t(i)];
            if (o.kind != op_kind::try_recv) continue;
            if (o.result.code == recv_ok) ++accounted;
            else if (o.result.code == overflowed_code) accounted += o.result.missed;
        }
        RL_ASSERT(accounted == 3);
        this->finish();
    }
};

// An evicting send is one step for every receiver (docs/fast-design.md,
// section 2): receiver 1 is at the tail, receiver 2 still at message 1, which
// the send evicts. Once receiver 1 has read the new message, receiver 2 must
// see the eviction: reading message 1 after that is not linearizable (the
// first version's order, [S1] after [S4], did it; recorded histories found it
// with three threads, which the two-thread scenarios cannot show). And a
// receiver that saw the eviction must then find the new message, not `empty`.
struct fast_evict_vs_two_reads : fast_sender_vs_readers<fast_evict_vs_two_reads, reads<1, 2>> {
    static constexpr const char* description = "cap 1, overflow: an eviction vs a reader at the tail and one at the evicted";
    void before() {
        open(1);
        set_overflow(before_thread, 0, true);
        clone_receiver(before_thread, 1, 2);
        try_send(before_thread, 0, 1);
        try_recv(before_thread, 1); // receiver 1 at the tail, receiver 2 at message 1
    }
    void sender_thread() { try_send(0, 0, 2); } // evicts 1: receiver 2 still holds it
};

// Overflow on two slots: two evictions race two reads.
struct fast_evict_two_slots : fast_sender_vs_readers<fast_evict_two_slots, reads<2>> {
    static constexpr const char* description = "cap 2, overflow: two evicting sends vs two reads: exact overflowed counts";
    void before() {
        open(2);
        set_overflow(before_thread, 0, true);
        try_send(before_thread, 0, 1);
        try_send(before_thread, 0, 2);
    }
    void sender_thread() { try_send(0, 0, 3), try_send(0, 0, 4); }
};

// A receiver copy racing a send and the original's own receive: the copy
// starts at a position the original had (R-LIFE-1) and the sender's gate
// counts it from then on (F1).
struct fast_copy_vs_send : fast_scenario<fast_copy_vs_send, fast_release_primitives, 3> {
    static constexpr const char* description = "cap 1: a receiver copy races a send and the original's receive";
    void before() { open(1), try_send(before_thread, 0, 1); }
    void thread(unsigned t) {
        if (t == 0) {
            try_send(0, 0, 2);
        } else if (t == 1) {
            clone_receiver(1, 1, 2);
            try_recv(1, 2);
        } else {
            try_recv(2, 1);
        }
    }
};

// A close racing a read: a receiver that finds nothing answers `closed` only
// if every message sent before the close was read (R-CLOSE-5).
struct fast_close_vs_read : fast_sender_vs_readers<fast_close_vs_read, reads<2>> {
    static constexpr const char* description = "a send then a close vs a receive: closed only once drained";
    void before() { open(1); }
    void sender_thread() { try_send(0, 0, 1), close(0, 0); }
};

// set_capacity shrinking under a reader: the dropped oldest is reported once.
struct fast_shrink_vs_read : fast_sender_vs_readers<fast_shrink_vs_read, reads<2>> {
    static constexpr const char* description = "cap 2 -> 1 under a reader: the dropped message is an overflow, once";
    void before() { open(2), try_send(before_thread, 0, 1), try_send(before_thread, 0, 2); }
    void sender_thread() { set_capacity(0, 0, 1); }
};

// set_capacity growing past the slots (a new ring) while a receiver reads the old one.
struct fast_grow_vs_read : fast_sender_vs_readers<fast_grow_vs_read, reads<2>> {
    static constexpr const char* description = "cap 1 -> 3 (a new ring) and a send, vs a receiver on the old ring";
    void before() { open(1), try_send(before_thread, 0, 1); }
    void sender_thread() { set_capacity(0, 0, 3), try_send(0, 0, 2); }
};

// The position question in this design (docs/position-design.md): a sender
// gating on a receiver reads its position while the receiver writes it. With
// a plain integer Relacy must report the DATA RACE (Expected); with an atomic
// of any order the run is clean.
template <class Primitives, rl::test_result_e Expected>
struct fast_position : fast_sender_vs_readers<fast_position<Primitives, Expected>, reads<1>, Primitives, Expected> {
    static constexpr const char* description = "cap 1, full: the sender's gate reads the position the receiver writes";
    void before() { this->open(1), this->try_send(this->before_thread, 0, 1); }
    void sender_thread() { this->try_send(0, 0, 2); } // looks full: scans the receiver's position, which the read writes
};

// ---- sleepers (variants: CLOSE, UNTIL; harness.hpp) ---------------------------------

// A sender asleep on a full ring and the receive that frees its slot: the
// asymmetric handshake (sender_need_, the heavy fence; docs/fast-design.md section 5).
template <class Primitives>
struct fast_blocked_send_vs_recv_t {
    template <int V>
    struct scenario : fast_scenario<scenario<V>, Primitives, 2, expect(V)> {
        static constexpr const char* description = "cap 1: a sender asleep on full, a receive frees its slot (no lost wakeup)";
        static constexpr bool has_close_variant = true;
        void before() {
            this->open(1);
            this->try_send(this->before_thread, 0, 1);
        }
        void thread(unsigned t) {
            if (t == 0) {
                this->send(0, 0, 2);
            } else {
                until<V>(threads_sleeping == 1); // the sender is asleep
                this->recv(1, 1);
                this->recv(1, 1);
                if constexpr ((V & CLOSE) != 0) this->close(1, 1);
            }
        }
    };
};
template <int V>
using fast_blocked_send_vs_recv = fast_blocked_send_vs_recv_t<fast_release_primitives>::scenario<V>;
template <int V>
using fast_blocked_send_vs_recv_symmetric = fast_blocked_send_vs_recv_t<fast_symmetric_primitives>::scenario<V>;

// Gating on the slowest receiver while it moves: two receivers at message 1,
// a sender asleep until both have read it; the faster one's receive alone
// does not free the slot, the slower one's must wake it.
template <int V>
struct fast_gate_on_slowest : fast_scenario<fast_gate_on_slowest<V>, fast_release_primitives, 3, expect(V)> {
    static constexpr const char* description = "cap 1, two receivers: a sleeping sender wakes when the slowest moves";
    static constexpr bool has_close_variant = false; // every call completes
    void before() {
        this->open(1);
        this->try_send(this->before_thread, 0, 1);
        this->clone_receiver(this->before_thread, 1, 2);
    }
    void thread(unsigned t) {
        if (t == 0) {
            this->send(0, 0, 2);
        } else {
            if (t == 1) until<V>(threads_sleeping == 1);
            this->recv(int(t), int(t)); // message 1; the sender wakes when the slower of the two has read it
        }
    }
};

// Timed calls racing their events: a timeout re-checks once (R-SEND-4, R-RECV-5).
struct fast_timed_calls : fast_scenario<fast_timed_calls, fast_release_primitives, 2> {
    static constexpr const char* description = "cap 1: a timed send and a timed receive race each other's events";
    void before() { open(1), try_send(before_thread, 0, 1); }
    void thread(unsigned t) {
        if (t == 0) send_timed(0, 0, 2);
        else recv_timed(1, 1), recv_timed(1, 1);
    }
};

} // namespace bcast_rl
