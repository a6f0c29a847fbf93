// SPDX-License-Identifier: MIT OR Apache-2.0
// The Relacy scenarios' recorder of channel calls, and their linearizability
// check: the project's one checker, bcast::spec::check_history
// (spec/include/bcast/spec/linearizability.hpp: Wing & Gong with Lowe's
// memoisation against bcast::spec::model, lost wakeups at quiescence).
//
// Every channel operation a scenario performs (in before(), in the threads,
// and in after()) is recorded as a bcast::spec::call, with two ticks of one
// counter taken at its invocation and its response. Relacy runs one fiber at
// a time on one OS thread, so a plain counter gives a total order of those
// events: call A really happened before call B iff A.returned < B.invoked.
// A call that has not returned keeps returned == bcast::spec::pending_tick:
// after a DEADLOCK, those are the calls still blocked. A timed call's deadline
// is a third tick: the moment model time passed it (model_clock.hpp), or one
// after its response when it had not passed by then.
//
// The history is fixed-size (no allocation inside the Relacy search). Many
// schedules produce the same history; verdicts are cached by its hash.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <span>

#include <bcast/spec/history.hpp>
#include <bcast/spec/linearizability.hpp>

namespace bcast_rl {

using op_kind = bcast::spec::call_kind;
using op = bcast::spec::call;
using bcast::spec::encode_recv;
using bcast::spec::encode_send;
using bcast::spec::outcome;

constexpr int max_ops = 48;
constexpr int max_handles = 32;
static_assert(max_handles <= bcast::spec::max_logical_handles);

class history {
public:
    std::array<op, max_ops> ops{};
    int count = 0;
    std::uint64_t tick = 0;

    // When set, every call and return is also written there: a copy that
    // outlives the scenario object, read after Relacy stopped at a DEADLOCK
    // (the generated scenarios classify it from the calls still pending).
    history* mirror = nullptr;

    // The timed calls in flight whose deadline has not passed yet.
    struct awaited {
        int index;
        std::int64_t instant;
    };
    std::array<awaited, 8> awaiting{};
    int awaiting_count = 0;

    int begin(int thread, op_kind kind, int handle, int arg = 0, int out = -1) {
        RL_ASSERT(count < max_ops);
        op& o = ops[std::size_t(count)];
        o = op{};
        o.kind = kind, o.thread = thread, o.handle = handle, o.out = out, o.arg = arg, o.invoked = ++tick;
        if (mirror != nullptr) mirror->ops[std::size_t(count)] = o, mirror->count = count + 1;
        return count++;
    }
    void end(int index, outcome result) {
        op& o = ops[std::size_t(index)];
        o.result = result;
        o.returned = ++tick;
        for (int i = 0; i < awaiting_count; ++i) {
            if (awaiting[std::size_t(i)].index != index) continue;
            o.deadline = o.returned + 1; // not passed by the response: it lies after it
            awaiting[std::size_t(i)] = awaiting[std::size_t(--awaiting_count)];
            break;
        }
        if (mirror != nullptr) mirror->ops[std::size_t(index)] = o;
    }

    // The call at `index` (begun, not ended) waits until model instant `instant`.
    void await_deadline(int index, std::int64_t instant) {
        RL_ASSERT(awaiting_count < int(awaiting.size()));
        awaiting[std::size_t(awaiting_count++)] = {index, instant};
    }
    // Model time has moved to `now` (model_clock.hpp's listener): every awaited
    // deadline now behind gets the tick of this moment, one tick for all.
    void time_passed(std::int64_t now) {
        std::uint64_t moment = 0;
        for (int i = 0; i < awaiting_count;) {
            const awaited a = awaiting[std::size_t(i)];
            if (a.instant > now) {
                ++i;
                continue;
            }
            if (moment == 0) moment = ++tick;
            ops[std::size_t(a.index)].deadline = moment;
            if (mirror != nullptr) mirror->ops[std::size_t(a.index)].deadline = moment;
            awaiting[std::size_t(i)] = awaiting[std::size_t(--awaiting_count)];
        }
    }

    std::span<const op> calls() const { return {ops.data(), std::size_t(count)}; }

    void print(std::FILE* f) const {
        for (const op& o : calls()) std::fprintf(f, "  %s\n", bcast::spec::to_string(o).c_str());
    }

    std::uint64_t hash(std::size_t capacity) const {
        std::uint64_t h = 1469598103934665603ull ^ capacity;
        auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
        for (const op& o : calls()) {
            mix(std::uint64_t(o.kind) | std::uint64_t(o.thread + 2) << 8 | std::uint64_t(o.handle) << 16 |
                std::uint64_t(o.out + 1) << 24 | std::uint64_t(std::uint32_t(o.arg)) << 32);
            mix(o.invoked);
            mix(o.returned);
            mix(o.deadline);
            mix(std::uint64_t(std::uint32_t(o.result.code)) | std::uint64_t(std::uint32_t(o.result.value)) << 32);
            mix(o.result.missed);
        }
        return h | 1; // 0 marks an empty cache slot
    }
};

// A fixed-size set of history hashes (no allocation inside the search), by
// open addressing; full at half its slots, after which it only forgets. Tag
// makes each cache its own set.
template <class Tag, std::size_t Size>
struct history_hash_set {
    static constexpr std::size_t size = Size;
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
// The histories found linearizable in the current run (only those are cached).
using verdict_cache = history_hash_set<struct strict_verdicts, 1 << 16>;

// Whether a finished scenario's history (no call pending) is linearizable;
// prints the checker's report when it is not. The channel started with
// `capacity`, its first sender and receiver being logical handles 0 and 1.
inline bool history_is_linearizable(const history& h, std::size_t capacity) {
    const std::uint64_t key = h.hash(capacity);
    if (verdict_cache::contains(key)) return true;
    const bcast::spec::check_report r = bcast::spec::check_history(h.calls(), capacity, 0, 1);
    const bool ok = r.result == bcast::spec::verdict::linearizable;
    if (ok) verdict_cache::insert(key);
    else
        std::fprintf(stderr, "NOT LINEARIZABLE against bcast::spec::model (capacity %zu):\n%s", capacity,
                     bcast::spec::to_string(r, h.calls()).c_str());
    return ok;
}

} // namespace bcast_rl
