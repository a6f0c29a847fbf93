// SPDX-License-Identifier: MIT OR Apache-2.0
// The position question (docs/position-question-relacy.md): one receiver
// object used by two threads, for each position policy (plain, relaxed
// atomic, seq_cst atomic). The scenarios take the Primitives as a template
// parameter; scenarios.def lists one search per policy, with a note where the
// description differs from the plain policy's.
#pragma once

#include "harness.hpp"

namespace bcast_rl {

// One receiver object used by two threads WITHOUT external
// synchronization (both call try_recv on it): every position access is
// under the channel lock, so no race for either policy; the two threads
// split the messages (linearizable as two calls on one receiver id).
template <class Primitives>
struct shared_receiver_unsync : scenario<shared_receiver_unsync<Primitives>, Primitives, 2> {
    static constexpr const char* description =
        "one receiver, two threads, no external sync: race-free (positions only under the lock)";
    void before() { this->open(2), this->try_send(-1, 0, 1), this->try_send(-1, 0, 2); }
    void thread(unsigned t) { this->try_recv(int(t), 1); }
    void after() { this->drain_all(), this->finish(); }
};

// The same with external synchronization (a mutex around each use).
template <class Primitives>
struct shared_receiver_locked : scenario<shared_receiver_locked<Primitives>, Primitives, 2> {
    static constexpr const char* description = "one receiver, two threads, external mutex: race-free";
    bcast_rl::mutex external;
    void before() { this->open(2), this->try_send(-1, 0, 1), this->try_send(-1, 0, 2); }
    void thread(unsigned t) {
        external.lock();
        this->try_recv(int(t), 1);
        external.unlock();
    }
    void after() { this->drain_all(), this->finish(); }
};

// One receiver object used by two threads: one receives on it, the other
// COPIES it (copying takes a const&, so it is a legal concurrent use) and
// reads through the copy. The copy reads the original's position under the
// channel lock, so for every policy it sees exactly what the original still
// had at the copy's linearization point.
template <class Primitives>
struct copy_while_receiving : scenario<copy_while_receiving<Primitives>, Primitives, 2> {
    static constexpr const char* description =
        "copying a receiver while another thread receives on it: race-free, copy linearizable";
    void before() { this->open(2), this->try_send(-1, 0, 1), this->try_send(-1, 0, 2); }
    void thread(unsigned t) {
        if (t == 0) {
            this->try_recv(0, 1);
        } else {
            this->clone_receiver(1, 1, 2);
            this->try_recv(1, 2);
        }
    }
    void after() { this->drain_all(), this->finish(); }
};

// One thread MOVES the receiver (the move constructor copies the position
// without the channel lock) while another receives on it. Relacy's verdict
// is the expected result: a data race on the position for plain_position.
// For the atomic policies the position race disappears, but the move is
// still unsynchronized with the receive; see after().
inline long move_anomalies = 0; // iterations where the moved-to receiver re-read a taken message
template <class Primitives, rl::test_result_e Expected>
struct move_while_receiving : scenario<move_while_receiving<Primitives, Expected>, Primitives, 2, Expected> {
    static constexpr const char* description =
        "moving a receiver while another thread receives on it: EXPECTED data race on the position";
    int got[2] = {-1, -1};
    void before() {
        this->open(2), this->try_send(-1, 0, 1), this->try_send(-1, 0, 2);
        this->check_linearizable = false; // the handle itself is raced: not a channel operation
    }
    void thread(unsigned t) {
        if (t == 0) {
            this->rx[2].emplace(std::move(*this->rx[1]));
            auto r = this->rx[2]->try_recv();
            got[0] = r.has_value() ? int(*r) : -1 - int(r.error().code);
        } else {
            try {
                auto r = this->rx[1]->try_recv();
                got[1] = r.has_value() ? int(*r) : -1 - int(r.error().code);
            } catch (const std::logic_error&) {
                got[1] = -100; // saw the moved-from handle
            }
        }
    }
    void after() {
        if (got[1] >= 0 && got[0] == got[1]) ++move_anomalies; // same message twice through one receiver
        if (got[1] >= 0 && got[0] == -1 - int(bcast::recv_errc::overflowed)) ++move_anomalies;
        this->finish();
    }
};

} // namespace bcast_rl
