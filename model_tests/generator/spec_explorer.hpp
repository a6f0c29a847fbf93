// SPDX-License-Identifier: MIT OR Apache-2.0
// What the spec allows a scenario to do: every interleaving of its threads'
// commands, each command one atomic step of bcast::spec::model.
//
// A blocking command (broadcast, recv, their async forms) can take its step
// only where the model says it would not block; a timed or cancelled one can
// always take it (it times out, or is cancelled, where the model would block).
// explore() answers whether some interleaving reaches a state where a thread
// has commands left and every such thread waits: a deadlock the spec itself
// has. The Relacy runner does not run such a scenario (a legitimate deadlock
// would end Relacy's search at its first one, so nothing past it would be
// explored); the generator counts them and draws another.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <bcast/spec/model.hpp>

#include "scenario.hpp"

namespace bcast::gen {

struct spec_world {
    bcast::spec::model<int> model;
    std::array<std::size_t, max_logical_handles> ids{};
    explicit spec_world(std::size_t capacity) : model(capacity) {
        ids.fill(~std::size_t{0});
        ids[0] = bcast::spec::model<int>::first_sender;
        ids[1] = bcast::spec::model<int>::first_receiver;
    }
};

// Whether `st` would wait now (only blocking commands ever do).
inline bool would_wait(const spec_world& w, const step& st) {
    switch (st.what) {
    case op::broadcast:
    case op::async_broadcast: return w.model.broadcast_would_block();
    case op::recv:
    case op::async_recv: return w.model.recv_would_block(w.ids[st.handle]);
    default: return false;
    }
}

// Takes `st` as one atomic step (the caller checked would_wait()).
inline void take_step(spec_world& w, const step& st, int value) {
    auto& m = w.model;
    const std::size_t h = st.handle >= 0 ? w.ids[std::size_t(st.handle)] : 0;
    auto bind = [&](std::size_t id) { w.ids[std::size_t(st.out)] = id; };
    switch (st.what) {
    case op::try_broadcast:
    case op::broadcast:
    case op::async_broadcast: (void)m.try_broadcast(h, value); break;
    case op::broadcast_expired:
    case op::async_broadcast_cancelled: (void)m.broadcast_expired(h, value); break;
    case op::try_recv:
    case op::recv:
    case op::async_recv: (void)m.try_recv(h); break;
    case op::recv_expired:
    case op::async_recv_cancelled: (void)m.recv_expired(h); break;
    case op::clone_sender: bind(m.clone_sender(h)); break;
    case op::new_sender: bind(m.new_sender(h)); break;
    case op::clone_receiver: bind(m.clone_receiver(h)); break;
    case op::new_receiver: bind(m.new_receiver(h)); break;
    case op::deactivate: bind(m.deactivate(h)); break;
    case op::activate: bind(m.activate(h)); break;
    case op::activate_cloned: bind(m.activate_cloned(h)); break;
    case op::clone_inactive: bind(m.clone_inactive(h)); break;
    case op::drop_sender: m.drop_sender(h); break;
    case op::drop_receiver: m.drop_receiver(h); break;
    case op::drop_inactive: m.drop_inactive(h); break;
    case op::set_capacity: m.set_capacity(h, std::size_t(st.arg)); break;
    case op::set_overflow: m.set_overflow(h, st.arg != 0); break;
    case op::set_await_active: m.set_await_active(h, st.arg != 0); break;
    case op::close: (void)m.close(h); break;
    case op::len:
    case op::is_empty:
    case op::is_full:
    case op::capacity:
    case op::receiver_count:
    case op::inactive_receiver_count:
    case op::sender_count:
    case op::is_closed:
    case op::overflow:
    case op::await_active:
    case op::unread:
    case op::missed: break; // a query changes nothing
    default: throw std::logic_error("bcast::gen: the spec explorer has no step for this command");
    }
}

// The spec world right after the setup (and its drops of unowned handles).
inline spec_world after_setup(const scenario& s) {
    spec_world w(std::size_t(s.capacity));
    for (std::size_t i = 0; i < s.setup.size(); ++i) take_step(w, s.setup[i], message_value(setup_context, int(i)));
    for (int h : unowned_setup_handles(s)) {
        const bool sender = w.model.is_sender(w.ids[h]);
        take_step(w, step{sender ? op::drop_sender : w.model.is_receiver(w.ids[h]) ? op::drop_receiver
                                                                                   : op::drop_inactive,
                          h, 0, -1},
                  0);
    }
    return w;
}

struct exploration {
    bool spec_may_deadlock = false;
    std::uint64_t interleavings = 0; // complete ones explored
};

namespace detail {
inline void explore_from(const scenario& s, const spec_world& w, std::array<int, max_threads> pc, exploration& out) {
    if (out.spec_may_deadlock) return;
    bool any_left = false, any_moved = false;
    for (std::size_t t = 0; t < s.threads.size(); ++t) {
        const auto& steps = s.threads[t].steps;
        if (pc[t] == int(steps.size())) continue;
        any_left = true;
        const step& st = steps[std::size_t(pc[t])];
        if (would_wait(w, st)) continue;
        any_moved = true;
        spec_world next = w;
        take_step(next, st, message_value(int(t), pc[t]));
        auto npc = pc;
        ++npc[t];
        explore_from(s, next, npc, out);
    }
    if (!any_left) ++out.interleavings;
    else if (!any_moved) out.spec_may_deadlock = true;
}
} // namespace detail

inline exploration explore(const scenario& s) {
    exploration out;
    detail::explore_from(s, after_setup(s), {}, out);
    return out;
}

} // namespace bcast::gen
