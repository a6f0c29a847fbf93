// SPDX-License-Identifier: MIT OR Apache-2.0
// The recorded calls of both Relacy harnesses: one method per channel
// operation, on logical handles (t: the history's thread, h: the handle), for
// the reference's scenarios (harness.hpp) and bcast::fast's (fast_harness.hpp).
// Written once here; what differs between the two is the harness's own:
//   record(t, kind, h, arg, out, call)   the call between two ticks of the
//                                        history (plain ticks in harness.hpp,
//                                        synchronising ones in fast_harness.hpp)
//   record_timed(t, kind, h, arg, call)  a timed call, call(deadline), with a
//                                        deadline of model time (model_clock.hpp)
// and Message, what a value is sent as (an instance-counting msg, or an int).
// The handles (tx, rx, irx: std::optional by number), the history and the
// thread numbers of before() and after() are the same in both: they are here.
// A call that answers nothing (a handle made or dropped, a setting changed) is
// recorded with an empty outcome, which is what the spec replay compares it with.
#pragma once

#include "relacy_primitives.hpp" // first: it maps BCAST_ASSERT before bcast is included
#include "linearizability.hpp"

#include <bcast/spec/queries.hpp>

#include <cstddef>
#include <optional>
#include <utility>

namespace bcast_rl {

template <class Harness, class Message, class Sender, class Receiver, class InactiveReceiver>
struct recorded_calls {
    using tx_t = Sender;
    using rx_t = Receiver;
    using irx_t = InactiveReceiver;
    static constexpr int before_thread = -1; // the history's thread of before()'s calls
    static constexpr int after_thread = 99;  // and of after()'s

    std::optional<tx_t> tx[max_handles];
    std::optional<rx_t> rx[max_handles];
    std::optional<irx_t> irx[max_handles];
    history hist;
    std::size_t capacity0 = 1;      // the capacity the channel was opened with: the checker's start
    bool check_linearizable = true; // off in a scenario whose history the checker must not see

    outcome try_send(int t, int h, int v) {
        return self().record(t, op_kind::try_broadcast, h, v, -1,
                             [&] { return encode_send(tx[h]->try_broadcast(Message(v))); });
    }
    outcome send(int t, int h, int v) {
        return self().record(t, op_kind::broadcast, h, v, -1, [&] { return encode_send(tx[h]->broadcast(Message(v))); });
    }
    outcome send_timed(int t, int h, int v) {
        return self().record_timed(t, op_kind::broadcast_timed, h, v, [&](auto deadline) {
            return encode_send(tx[h]->broadcast_until(Message(v), deadline));
        });
    }
    outcome try_recv(int t, int h) {
        return self().record(t, op_kind::try_recv, h, 0, -1, [&] { return encode_recv(rx[h]->try_recv()); });
    }
    outcome recv(int t, int h) {
        return self().record(t, op_kind::recv, h, 0, -1, [&] { return encode_recv(rx[h]->recv()); });
    }
    outcome recv_timed(int t, int h) {
        return self().record_timed(t, op_kind::recv_timed, h, 0,
                                   [&](auto deadline) { return encode_recv(rx[h]->recv_until(deadline)); });
    }
    void clone_receiver(int t, int h, int out) {
        self().record(t, op_kind::clone_receiver, h, 0, out, [&] { rx[out].emplace(*rx[h]); });
    }
    void new_receiver(int t, int sender_h, int out) {
        self().record(t, op_kind::new_receiver, sender_h, 0, out,
                      [&] { rx[out].emplace(tx[sender_h]->new_receiver()); });
    }
    void clone_sender(int t, int h, int out) {
        self().record(t, op_kind::clone_sender, h, 0, out, [&] { tx[out].emplace(*tx[h]); });
    }
    void new_sender(int t, int receiver_h, int out) {
        self().record(t, op_kind::new_sender, receiver_h, 0, out,
                      [&] { tx[out].emplace(rx[receiver_h]->new_sender()); });
    }
    void activate(int t, int h, int out) {
        self().record(t, op_kind::activate, h, 0, out, [&] {
            rx[out].emplace(std::move(*irx[h]).activate());
            irx[h].reset();
        });
    }
    void clone_inactive(int t, int h, int out) {
        self().record(t, op_kind::clone_inactive, h, 0, out, [&] { irx[out].emplace(*irx[h]); });
    }
    void drop_receiver(int t, int h) {
        self().record(t, op_kind::drop_receiver, h, 0, -1, [&] { rx[h].reset(); });
    }
    void drop_sender(int t, int h) {
        self().record(t, op_kind::drop_sender, h, 0, -1, [&] { tx[h].reset(); });
    }
    void deactivate(int t, int h, int out) {
        self().record(t, op_kind::deactivate, h, 0, out, [&] {
            irx[out].emplace(std::move(*rx[h]).deactivate());
            rx[h].reset();
        });
    }
    void activate_cloned(int t, int h, int out) {
        self().record(t, op_kind::activate_cloned, h, 0, out, [&] { rx[out].emplace(irx[h]->activate_cloned()); });
    }
    void drop_inactive(int t, int h) {
        self().record(t, op_kind::drop_inactive, h, 0, -1, [&] { irx[h].reset(); });
    }
    void set_capacity(int t, int h, int n) {
        self().record(t, op_kind::set_capacity, h, n, -1, [&] { tx[h]->set_capacity(std::size_t(n)); });
    }
    void set_overflow(int t, int h, bool on) {
        self().record(t, op_kind::set_overflow, h, on, -1, [&] { tx[h]->set_overflow(on); });
    }
    void set_await_active(int t, int h, bool on) {
        self().record(t, op_kind::set_await_active, h, on, -1, [&] { tx[h]->set_await_active(on); });
    }
    outcome close(int t, int h) {
        return self().record(t, op_kind::close, h, 0, -1, [&] {
            return outcome{0, tx[h] ? int(tx[h]->close()) : int(rx[h]->close()), 0};
        });
    }

    // A query (R-QUERY-1, R-QUERY-2) on whichever handle h is; the answer is
    // recorded as outcome::value and checked against the spec's.
    outcome query(int t, op_kind kind, int h) {
        return self().record(t, kind, h, 0, -1, [&] {
            const int answer = tx[h]   ? ask(*tx[h], kind)
                               : rx[h] ? ask(*rx[h], kind)
                                       : ask(*irx[h], kind);
            return outcome{0, answer, 0};
        });
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

    // What both harnesses' finish() does: drop every handle (the channel state
    // goes with the last one), then check the history with the harness's
    // checker, Relacy's allocation tracking off while it runs (alloc_guard).
    template <class Check>
    bool drop_all_and_check(Check check_history) {
        for (auto& h : rx) h.reset();
        for (auto& h : irx) h.reset();
        for (auto& h : tx) h.reset();
        if (!check_linearizable) return true;
        alloc_guard guard;
        return check_history(hist, capacity0);
    }

private:
    Harness& self() { return static_cast<Harness&>(*this); }

    template <class Handle>
    static int ask(const Handle& handle, op_kind kind) {
        switch (kind) {
#define BCAST_PLAIN_QUERY(name) \
    case op_kind::name: \
        if constexpr (requires { handle.name(); }) return int(handle.name()); \
        break;
            BCAST_PLAIN_QUERIES
#undef BCAST_PLAIN_QUERY
        default: break;
        }
        RL_ASSERT(!"not a query this handle answers");
        return -1;
    }
};

} // namespace bcast_rl
