// SPDX-License-Identifier: MIT OR Apache-2.0
// A fifth position design, for the benchmark only: upstream's PR #70 as written.
//
// PR #70 (async-broadcast) advanced the receiver's position with
// `fetch_add(1, Release)`, later `Relaxed`. On x86-64 any fetch_add is a
// `lock xadd`, a locked read-modify-write, whatever its memory order, while the
// library's atomic_position policies use a load and a store (plain `mov`s
// unless seq_cst). This policy reproduces the PR's instruction: its store()
// adds the difference with a relaxed fetch_add. Under the channel lock (the only
// place the channel touches a position) that leaves exactly `value` behind, so
// the channel behaves the same; only the instruction differs.
//
// It plugs into the library's Primitives parameter (bcast::basic_std_primitives), so it
// needs no change to impl/.
#pragma once

#include <bcast/primitives.hpp>

#include <atomic>
#include <cstdint>

namespace bcast_bench {

struct fetch_add_position {
    template <class Primitives>
    class type {
    public:
        type() = default;
        explicit type(std::uint64_t initial) : pos_(initial) {}
        std::uint64_t load() const noexcept { return pos_.load(std::memory_order_relaxed); }
        void store(std::uint64_t value) noexcept {
            pos_.fetch_add(value - pos_.load(std::memory_order_relaxed), std::memory_order_relaxed);
        }

    private:
        typename Primitives::template atomic<std::uint64_t> pos_{0};
    };
};

using fetch_add_primitives = bcast::basic_std_primitives<fetch_add_position>;

static_assert(bcast::channel_primitives<fetch_add_primitives>);

} // namespace bcast_bench
