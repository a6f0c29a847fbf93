// SPDX-License-Identifier: MIT OR Apache-2.0
// The workloads of the "when the atomic pays" experiment (docs/position-design.md):
// the reference channel and bcast::fast through the very same loops, so
// that a difference is the channels', not the harness's.
//
// * single_case (cases.hpp): async-broadcast's benches/broadcast_bench.rs.
//   One thread, capacity 1, one sender and N receivers; an iteration broadcasts
//   a std::uint64_t and every receiver receives it. Nothing ever waits.
// * run_fanout: one sender thread and N receiver threads, blocking calls, no
//   loss; every receiver checks that it got 0..M-1 in order.
// * run_fanout_bare: the same over the bare multicast ring (bare_ring.hpp), the
//   fan-out's limit row (design "bare"): no close, so the count is known.
// Both pin thread k (the sender 0, receiver j at j + 1) to the k-th CPU of the
// process's affinity set, modulo its size, when asked (--pin; the scaling run).
//
// A design is a name and a function that makes a channel of std::uint64_t
// (and "bare", fan-out only: the bare ring, which is no channel):
//   ref            bcast::channel (one mutex; plain position)
//   fast           bcast::fast::channel (release position stores, membarrier)
//   fast-relaxed   ... relaxed position stores
//   fast-seq_cst   ... seq_cst position stores (an xchg per receive)
//   fast-symmetric ... without membarrier: a read-modify-write per receive
#pragma once

#include <bcast/bcast.hpp>
#include <bcast/fast.hpp>

#include "bare_ring.hpp"
#include "cases.hpp" // single_case, run_fanout_on, pinning, fail(), fanout_result, leave_single_thread_mode()

#include <barrier>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <sys/resource.h>

namespace bcast_bench {

// The same fan-out over the bare ring: the same threads, barrier, clocks and
// checks; no handles, no close (each receiver reads `messages` and stops).
inline fanout_result run_fanout_bare(std::size_t capacity, std::size_t receiver_count, std::uint64_t messages,
                                     const pinning& pins = pinning(false)) {
    bare::ring ring(capacity, receiver_count);
    std::barrier start(static_cast<std::ptrdiff_t>(receiver_count + 2));
    std::vector<std::uint64_t> received(receiver_count, 0);
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < receiver_count; ++k) {
        threads.emplace_back([&, k] {
            pins.pin(k + 1);
            auto reader = ring.reader_at(k);
            start.arrive_and_wait();
            std::uint64_t expected = 0;
            for (; expected < messages; ++expected) {
                if (reader.next() != expected) fail("fan-out receiver (bare): message out of order or lost");
            }
            received[k] = expected;
        });
    }
    threads.emplace_back([&] {
        pins.pin(0);
        start.arrive_and_wait();
        for (std::uint64_t value = 0; value < messages; ++value) ring.publish(value);
    });

    return timed_fanout(start, threads, received, messages);
}

// The designs, by name: calls `use(channel_maker)` with a callable that makes
// a channel of the given capacity. Returns false for an unknown name.
template <class Use>
bool with_design(std::string_view design, Use&& use) {
    using value = std::uint64_t;
    if (design == "ref") {
        use([](std::size_t capacity) { return bcast::channel<value>(capacity); });
    } else if (design == "fast") {
        use([](std::size_t capacity) { return bcast::fast::channel<value>(capacity); });
    } else if (design == "fast-relaxed") {
        use([](std::size_t capacity) { return bcast::fast::channel<value, bcast::fast::std_relaxed_position_primitives>(capacity); });
    } else if (design == "fast-seq_cst") {
        use([](std::size_t capacity) { return bcast::fast::channel<value, bcast::fast::std_seq_cst_position_primitives>(capacity); });
    } else if (design == "fast-symmetric") {
        use([](std::size_t capacity) { return bcast::fast::channel<value, bcast::fast::std_symmetric_fence_primitives>(capacity); });
    } else {
        return false;
    }
    return true;
}

inline constexpr std::string_view design_names[] = {"ref", "fast", "fast-relaxed", "fast-seq_cst", "fast-symmetric"};

// CPU time of the calling thread, in nanoseconds.
inline double thread_cpu_ns() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

} // namespace bcast_bench
