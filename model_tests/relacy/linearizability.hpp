// SPDX-License-Identifier: MIT OR Apache-2.0
// Linearizability check of one observed execution against bcast::spec::model.
//
// Method (Wing & Gong / Lowe's brute force, fine at these sizes):
//  * Every channel operation a scenario performs (in before(), in the threads,
//    and in after()) is recorded as an `op`: which thread, what it did, on which
//    logical handle, its argument, what it returned, and two ticks of one global
//    counter taken at its call and at its return. Relacy runs one fiber at a
//    time on one OS thread, so a plain counter gives a total order of call and
//    return events: op A "really happened before" op B iff A.ret < B.call.
//  * We then search for a sequential order of all ops that (1) respects that
//    real-time order and (2) when replayed on the executable spec
//    (bcast::spec::model<int>) produces exactly the observed results. Depth-first:
//    at each step any not-yet-placed op whose call precedes the earliest return
//    among the unplaced ops may go next (otherwise some op would be ordered
//    before one that really finished earlier); it is applied to a copy of the
//    spec, and kept if the spec's answer equals the observed one.
//  * Blocking operations (broadcast, recv) linearize at a point where the spec
//    says they would NOT block (broadcast_would_block()/recv_would_block(id) is
//    false) and then return what the non-blocking attempt returns there. A timed
//    operation that timed out linearizes at a point where it WOULD block and
//    changes nothing; one that completed is treated like the blocking op.
//  * Handles are named by small "logical" numbers chosen by the scenario; an op
//    that creates a handle (clone, new_receiver, deactivate, activate_cloned)
//    binds its logical number to whatever id the spec returns at replay time.
//  * Verdicts are cached by a hash of the history (many schedules produce the
//    same history), in a fixed table that never allocates.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include <bcast/spec/model.hpp>

namespace bcast_rl {

enum class op_kind : std::uint8_t {
    try_send,
    send,
    send_timed,
    try_recv,
    recv,
    recv_timed,
    clone_receiver,
    new_receiver,
    drop_receiver,
    drop_sender,
    deactivate,
    activate_cloned,
    drop_inactive,
    set_capacity,
    set_overflow,
    set_await_active,
    close,
    clone_sender,
    new_sender,
    activate,
    clone_inactive,
};

inline const char* name(op_kind k) {
    static const char* const names[] = {"try_send", "send", "send_timed", "try_recv", "recv", "recv_timed",
                                        "clone_receiver", "new_receiver", "drop_receiver", "drop_sender",
                                        "deactivate", "activate_cloned", "drop_inactive",
                                        "set_capacity", "set_overflow", "set_await_active", "close",
                                        "clone_sender", "new_sender", "activate", "clone_inactive"};
    return names[static_cast<int>(k)];
}

// An observed or replayed result. code: 0 = success, otherwise 1 + the errc.
// value: the received message, the evicted message (-1: none), the message
// handed back by a failed send, or close()'s bool. missed: overflowed count.
struct outcome {
    int code = 0;
    int value = -1;
    std::uint64_t missed = 0;
    friend bool operator==(const outcome&, const outcome&) = default;
};

template <class V>
outcome encode_send(const bcast::send_result<V>& r) {
    if (r.has_value()) return {0, r->has_value() ? int(**r) : -1, 0};
    return {1 + int(r.error().code), int(r.error().message), 0};
}
template <class V>
outcome encode_recv(const bcast::recv_result<V>& r) {
    if (r.has_value()) return {0, int(*r), 0};
    return {1 + int(r.error().code), -1, r.error().missed};
}

struct op {
    op_kind kind{};
    int thread = 0; // -1: before(), 99: after()
    int handle = 0; // logical handle the op is called on
    int out = -1;   // logical handle it creates
    int arg = 0;    // message / capacity / flag
    std::uint32_t call = 0, ret = 0;
    outcome result{};
};

constexpr int max_ops = 48;
constexpr int max_handles = 32;

class history {
public:
    std::array<op, max_ops> ops{};
    int count = 0;
    std::uint32_t tick = 0;

    // When set, every call and return is also written there: a copy that
    // outlives the scenario object, read after Relacy stopped at a DEADLOCK
    // (the generated scenarios classify it from the calls still pending).
    history* mirror = nullptr;

    int begin(int thread, op_kind kind, int handle, int arg = 0, int out = -1) {
        RL_ASSERT(count < max_ops);
        op& o = ops[count];
        o = op{kind, thread, handle, out, arg, ++tick, 0, {}};
        if (mirror != nullptr) mirror->ops[count] = o, mirror->count = count + 1;
        return count++;
    }
    void end(int index, outcome result) {
        ops[index].result = result;
        ops[index].ret = ++tick;
        if (mirror != nullptr) mirror->ops[index] = ops[index];
    }

    void print(std::FILE* f) const {
        for (int i = 0; i < count; ++i) {
            const op& o = ops[i];
            std::fprintf(f, "  [%2u,%2u] thread %2d %-16s h=%d arg=%d out=%d -> code=%d value=%d missed=%llu\n", o.call,
                         o.ret, o.thread, name(o.kind), o.handle, o.arg, o.out, o.result.code, o.result.value,
                         (unsigned long long)o.result.missed);
        }
    }

    std::uint64_t hash(std::size_t capacity) const {
        std::uint64_t h = 1469598103934665603ull ^ capacity;
        auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
        for (int i = 0; i < count; ++i) {
            const op& o = ops[i];
            mix(std::uint64_t(o.kind) | std::uint64_t(o.thread + 2) << 8 | std::uint64_t(o.handle) << 16 |
                std::uint64_t(o.out + 1) << 24 | std::uint64_t(std::uint32_t(o.arg)) << 32);
            mix(std::uint64_t(o.call) | std::uint64_t(o.ret) << 32);
            mix(std::uint64_t(std::uint32_t(o.result.code)) | std::uint64_t(std::uint32_t(o.result.value)) << 32);
            mix(o.result.missed);
        }
        return h | 1; // 0 marks an empty cache slot
    }
};

// Fixed-size verdict cache (only successes are cached).
struct verdict_cache {
    static constexpr std::size_t size = 1 << 16;
    static inline std::array<std::uint64_t, size> slots{};
    static inline std::size_t used = 0;
    static void clear() { slots.fill(0), used = 0; }
    static bool contains(std::uint64_t h) {
        for (std::size_t i = h % size, n = 0; n < 16; ++n, i = (i + 1) % size) {
            if (slots[i] == h) return true;
            if (slots[i] == 0) return false;
        }
        return false;
    }
    static void insert(std::uint64_t h) {
        if (used * 2 > size) return;
        for (std::size_t i = h % size, n = 0; n < 16; ++n, i = (i + 1) % size) {
            if (slots[i] == 0) {
                slots[i] = h, ++used;
                return;
            }
        }
    }
};

class linearizability_checker {
public:
    using spec_t = bcast::spec::model<int>;

    // initial_handles: logical -> spec id for the two handles channel() makes.
    static bool check(const history& h, std::size_t capacity, int first_sender_handle, int first_receiver_handle) {
        const std::uint64_t key = h.hash(capacity);
        if (verdict_cache::contains(key)) return true;
        state s{spec_t(capacity), {}};
        s.ids.fill(~std::size_t{0});
        s.ids[first_sender_handle] = spec_t::first_sender;
        s.ids[first_receiver_handle] = spec_t::first_receiver;
        const bool ok = search(h, s, 0);
        if (ok) verdict_cache::insert(key);
        return ok;
    }

private:
    struct state {
        spec_t spec;
        std::array<std::size_t, max_handles> ids;
    };

    static bool search(const history& h, const state& s, std::uint64_t placed) {
        if (placed == (std::uint64_t{1} << h.count) - 1) return true;
        std::uint32_t min_ret = ~0u;
        for (int i = 0; i < h.count; ++i)
            if (!(placed >> i & 1) && h.ops[i].ret < min_ret) min_ret = h.ops[i].ret;
        for (int i = 0; i < h.count; ++i) {
            if (placed >> i & 1 || h.ops[i].call > min_ret) continue;
            state next = s;
            if (!apply(h.ops[i], next)) continue;
            if (search(h, next, placed | std::uint64_t{1} << i)) return true;
        }
        return false;
    }

    // Replays one op on the spec; false when the spec's answer differs from the
    // observed one (or the op cannot take effect at this point).
    static bool apply(const op& o, state& s) {
        try {
            auto id = [&](int logical) { return s.ids.at(logical); };
            spec_t& m = s.spec;
            const int timed_out_send = 1 + int(bcast::send_errc::timed_out);
            const int timed_out_recv = 1 + int(bcast::recv_errc::timed_out);
            switch (o.kind) {
            case op_kind::try_send: return encode_send(m.try_broadcast(id(o.handle), o.arg)) == o.result;
            case op_kind::send:
            case op_kind::send_timed:
                if (o.kind == op_kind::send_timed && o.result.code == timed_out_send)
                    return m.broadcast_would_block() && o.result.value == o.arg;
                if (m.broadcast_would_block()) return false;
                return encode_send(m.try_broadcast(id(o.handle), o.arg)) == o.result;
            case op_kind::try_recv: return encode_recv(m.try_recv(id(o.handle))) == o.result;
            case op_kind::recv:
            case op_kind::recv_timed:
                if (o.kind == op_kind::recv_timed && o.result.code == timed_out_recv)
                    return m.recv_would_block(id(o.handle)) && o.result.missed == 0;
                if (m.recv_would_block(id(o.handle))) return false;
                return encode_recv(m.try_recv(id(o.handle))) == o.result;
            case op_kind::clone_receiver: s.ids.at(o.out) = m.clone_receiver(id(o.handle)); return true;
            case op_kind::new_receiver: s.ids.at(o.out) = m.new_receiver(id(o.handle)); return true;
            case op_kind::drop_receiver: m.drop_receiver(id(o.handle)); return true;
            case op_kind::drop_sender: m.drop_sender(id(o.handle)); return true;
            case op_kind::deactivate: s.ids.at(o.out) = m.deactivate(id(o.handle)); return true;
            case op_kind::activate_cloned: s.ids.at(o.out) = m.activate_cloned(id(o.handle)); return true;
            case op_kind::drop_inactive: m.drop_inactive(id(o.handle)); return true;
            case op_kind::set_capacity: m.set_capacity(id(o.handle), std::size_t(o.arg)); return true;
            case op_kind::set_overflow: m.set_overflow(id(o.handle), o.arg != 0); return true;
            case op_kind::set_await_active: m.set_await_active(id(o.handle), o.arg != 0); return true;
            case op_kind::close: return int(m.close(id(o.handle))) == o.result.value;
            case op_kind::clone_sender: s.ids.at(o.out) = m.clone_sender(id(o.handle)); return true;
            case op_kind::new_sender: s.ids.at(o.out) = m.new_sender(id(o.handle)); return true;
            case op_kind::activate: s.ids.at(o.out) = m.activate(id(o.handle)); return true;
            case op_kind::clone_inactive: s.ids.at(o.out) = m.clone_inactive(id(o.handle)); return true;
            }
        } catch (const std::exception&) {
            return false;
        }
        return false;
    }
};

} // namespace bcast_rl
