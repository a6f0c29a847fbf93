// SPDX-License-Identifier: MIT OR Apache-2.0
// Queue-shape scenarios: what a receiver sees of the queue while another
// thread changes it without anyone blocking: eviction in overflow mode, a
// shrinking capacity, a receiver copied or created during a send. Each runs
// once per search listed with BCAST_RELACY_SEARCH in scenarios.def.
#pragma once

#include "harness.hpp"

namespace bcast_rl {

// Overflow mode: a sender evicting while two receivers read. Each
// receiver's values plus its overflowed counts add up exactly to what was
// sent since it started, and its values strictly increase.
struct overflow_two_receivers : scenario<overflow_two_receivers, plain_primitives, 3> {
    static constexpr const char* description =
        "eviction vs two readers: values + overflowed counts add up, values increase";
    void before() {
        open(1);
        set_overflow(-1, 0, true);
        new_receiver(-1, 0, 2);
    }
    void thread(unsigned t) {
        if (t == 0) {
            for (int v = 1; v <= 3; ++v) try_send(0, 0, v);
        } else {
            try_recv(int(t), int(t));
            try_recv(int(t), int(t));
        }
    }
    void after() {
        drain_all();
        for (int h = 1; h <= 2; ++h) {
            std::uint64_t accounted = 0;
            int last = 0;
            for (int i = 0; i < hist.count; ++i) {
                const op& o = hist.ops[i];
                if (o.kind != op_kind::try_recv || o.handle != h) continue;
                if (o.result.code == 0) {
                    RL_ASSERT(o.result.value > last); // strictly increasing
                    last = o.result.value;
                    ++accounted;
                } else if (o.result.code == 1 + int(bcast::recv_errc::overflowed)) {
                    accounted += o.result.missed;
                }
            }
            RL_ASSERT(accounted == 3); // everything sent since it started
        }
        finish();
    }
};

// set_capacity shrinking while a receiver reads (and len() queried): the
// dropped oldest message shows up as overflowed, never twice or torn.
struct shrink_vs_recv : scenario<shrink_vs_recv, plain_primitives, 2> {
    static constexpr const char* description = "shrinking drops the oldest under a reader: reported as overflow once";
    void before() { open(2), try_send(-1, 0, 1), try_send(-1, 0, 2); }
    void thread(unsigned t) {
        if (t == 0) {
            set_capacity(0, 0, 1);
        } else {
            static_cast<void>(tx[0]->len());
            try_recv(1, 1);
            try_recv(1, 1);
        }
    }
};

// Receiver copy racing a send: the copy sees exactly what the original
// still had (same position, same pending messages).
struct receiver_copy_vs_send : scenario<receiver_copy_vs_send, plain_primitives, 2> {
    static constexpr const char* description = "a copy starts where the original is and owes the same messages";
    void before() { open(2), try_send(-1, 0, 100); }
    void thread(unsigned t) {
        if (t == 0) try_send(0, 0, 101);
        else clone_receiver(1, 1, 2), try_recv(1, 2), try_recv(1, 2);
    }
    void after() { drain_all(), finish(); }
};

// new_receiver() racing a send: the new receiver starts at the tail,
// either before or after the message, never in the middle.
struct new_receiver_vs_send : scenario<new_receiver_vs_send, plain_primitives, 2> {
    static constexpr const char* description = "new_receiver starts exactly at the tail";
    void before() { open(2), try_send(-1, 0, 100); }
    void thread(unsigned t) {
        if (t == 0) try_send(0, 0, 101);
        else new_receiver(1, 0, 2), try_recv(1, 2);
    }
    void after() { drain_all(), finish(); }
};

} // namespace bcast_rl
