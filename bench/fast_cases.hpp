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
#include "cases.hpp" // single_case, fail(), process_cpu_seconds(), fanout_result, leave_single_thread_mode()

#include <barrier>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <sys/resource.h>
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace bcast_bench {

// Pins threads to CPUs: the k-th thread to the k-th CPU of the affinity set
// the process started with (taskset's), modulo its size. Does nothing when
// made with `enabled` false, or off Linux.
class pinning {
public:
    explicit pinning(bool enabled) {
#if defined(__linux__)
        cpu_set_t allowed;
        CPU_ZERO(&allowed);
        if (enabled && sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
            for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
                if (CPU_ISSET(cpu, &allowed)) cpus_.push_back(cpu);
            }
        }
#else
        (void)enabled;
#endif
    }
    // Called by the thread itself.
    void pin(std::size_t k) const {
#if defined(__linux__)
        if (cpus_.empty()) return;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpus_[k % cpus_.size()], &one);
        if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0) fail("pthread_setaffinity_np failed");
#else
        (void)k;
#endif
    }

private:
    std::vector<int> cpus_;
};

// The fan-out of cases.hpp over any channel with bcast's handle API.
template <class Sender, class Receiver>
fanout_result run_fanout_on(std::pair<Sender, Receiver> ends, std::size_t receiver_count, std::uint64_t messages,
                            const pinning& pins = pinning(false)) {
    Sender sender = std::move(ends.first);
    std::vector<Receiver> receivers;
    receivers.reserve(receiver_count);
    for (std::size_t k = 1; k < receiver_count; ++k) receivers.push_back(ends.second);
    receivers.push_back(std::move(ends.second));

    std::barrier start(static_cast<std::ptrdiff_t>(receiver_count + 2));
    std::vector<std::uint64_t> received(receiver_count, 0);
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < receiver_count; ++k) {
        threads.emplace_back([&, k, receiver = std::move(receivers[k])]() mutable {
            pins.pin(k + 1);
            start.arrive_and_wait();
            std::uint64_t expected = 0;
            for (;;) {
                auto message = receiver.recv();
                if (!message) {
                    if (message.error().code != bcast::recv_errc::closed) fail("fan-out receiver: unexpected error");
                    break;
                }
                if (*message != expected) fail("fan-out receiver: message out of order or lost");
                ++expected;
            }
            received[k] = expected;
        });
    }
    threads.emplace_back([&, sender = std::move(sender)]() mutable {
        pins.pin(0);
        start.arrive_and_wait();
        for (std::uint64_t value = 0; value < messages; ++value) {
            if (!sender.broadcast(value)) fail("fan-out sender: broadcast failed");
        }
        auto closing = std::move(sender); // the last sender going away closes the channel
    });

    return timed_fanout(start, threads, received, messages);
}

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
