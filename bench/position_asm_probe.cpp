// SPDX-License-Identifier: MIT OR Apache-2.0
// Compiled to assembly only (position_asm.py, -O2 -S): one out-of-line
// try_recv per position design, so the instructions each design emits for the
// receiver's position can be compared line by line. Not linked into anything.
#include <bcast/bcast.hpp>

#include "rmw_position.hpp"

#include <cstdint>
#include <vector>

template <class Primitives>
[[gnu::noinline]] bool position_probe(bcast::receiver<std::uint64_t, Primitives>& receiver) {
    return receiver.try_recv().has_value();
}

template bool position_probe(bcast::receiver<std::uint64_t, bcast::std_primitives>&);
template bool position_probe(bcast::receiver<std::uint64_t, bcast::std_atomic_relaxed_primitives>&);
template bool position_probe(bcast::receiver<std::uint64_t, bcast::std_atomic_acq_rel_primitives>&);
template bool position_probe(bcast::receiver<std::uint64_t, bcast::std_atomic_seq_cst_primitives>&);
template bool position_probe(bcast::receiver<std::uint64_t, bcast_bench::fetch_add_primitives>&);

// The benchmark's inner loop: every receiver of a vector receives once. Inlined
// into a loop, the atomic designs keep the position's address in a register
// (an extra lea per receive) where the plain one folds it into the store.
template <class Primitives>
[[gnu::noinline]] std::uint64_t position_probe_loop(std::vector<bcast::receiver<std::uint64_t, Primitives>>& receivers) {
    std::uint64_t sum = 0;
    for (auto& receiver : receivers) {
        auto received = receiver.try_recv();
        if (received) sum += *received;
    }
    return sum;
}

template std::uint64_t position_probe_loop(std::vector<bcast::receiver<std::uint64_t, bcast::std_primitives>>&);
template std::uint64_t position_probe_loop(std::vector<bcast::receiver<std::uint64_t, bcast::std_atomic_relaxed_primitives>>&);
template std::uint64_t position_probe_loop(std::vector<bcast::receiver<std::uint64_t, bcast::std_atomic_acq_rel_primitives>>&);
template std::uint64_t position_probe_loop(std::vector<bcast::receiver<std::uint64_t, bcast::std_atomic_seq_cst_primitives>>&);
template std::uint64_t position_probe_loop(std::vector<bcast::receiver<std::uint64_t, bcast_bench::fetch_add_primitives>>&);
