// SPDX-License-Identifier: MIT OR Apache-2.0
// The benchmark's workloads, shared by the timed binary (bcast_bench, Google
// Benchmark) and the instruction-count binary (bcast_counts, callgrind), so
// both measure exactly the same loop.
//
// * single_case (single_thread_case on the reference channel):
//   async-broadcast's benches/broadcast_bench.rs. One thread, capacity 1, one
//   sender and N receivers; one iteration broadcasts a std::uint64_t and every
//   receiver receives it. Nothing ever waits: the previous iteration drained
//   the channel.
// * run_fanout_on (run_fanout on the reference channel): one sender thread and
//   N receiver threads, blocking calls, no loss; every receiver checks that it
//   got 0..M-1 in order. Threads pinned to CPUs when asked (pinning).
#pragma once

#include <bcast/bcast.hpp>

#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <sys/resource.h>
#include <thread>
#include <utility>
#include <vector>
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace bcast_bench {

// A wrong value means the channel is broken, and a timing of a broken channel
// is worthless: stop at once rather than report it.
[[noreturn]] inline void fail(const char* what) {
    std::fprintf(stderr, "bcast bench: %s\n", what);
    std::abort();
}

// Which calls an iteration makes: try_broadcast/try_recv, or the blocking
// broadcast/recv (which never wait here, so they time the blocking path's
// fast path).
enum class calls { try_calls,
                   blocking_calls };

inline constexpr std::string_view calls_name(calls kind) {
    return kind == calls::try_calls ? "try" : "blocking";
}

// Upstream's shape over any channel with bcast's handle API. The extra
// receivers are copies of the first, made while the queue is empty, as
// upstream clones r1: all sit at the tail.
template <class Sender, class Receiver>
class single_case {
public:
    single_case(std::pair<Sender, Receiver> ends, std::size_t receiver_count) : sender_(std::move(ends.first)) {
        receivers_.reserve(receiver_count);
        receivers_.push_back(std::move(ends.second));
        for (std::size_t k = 1; k < receiver_count; ++k) receivers_.push_back(receivers_.front());
    }

    // One broadcast and N receives; the value check is part of upstream's loop
    // and keeps the compiler from dropping the receives.
    template <calls Kind>
    void iterate() {
        if constexpr (Kind == calls::try_calls) {
            if (!sender_.try_broadcast(next_value_)) fail("try_broadcast failed");
            for (auto& receiver : receivers_) {
                auto received = receiver.try_recv();
                if (!received || *received != next_value_) fail("try_recv returned a wrong result");
            }
        } else {
            if (!sender_.broadcast(next_value_)) fail("broadcast failed");
            for (auto& receiver : receivers_) {
                auto received = receiver.recv();
                if (!received || *received != next_value_) fail("recv returned a wrong result");
            }
        }
        ++next_value_;
    }

    template <calls Kind>
    void run(std::uint64_t iterations) {
        for (std::uint64_t k = 0; k < iterations; ++k) iterate<Kind>();
    }

private:
    Sender sender_;
    std::vector<Receiver> receivers_;
    std::uint64_t next_value_ = 0;
};

template <class Sender, class Receiver>
single_case(std::pair<Sender, Receiver>, std::size_t) -> single_case<Sender, Receiver>;

// The reference channel's single_case, capacity 1, on the given Primitives.
template <class Primitives>
class single_thread_case
    : public single_case<bcast::sender<std::uint64_t, Primitives>, bcast::receiver<std::uint64_t, Primitives>> {
public:
    explicit single_thread_case(std::size_t receiver_count)
        : single_thread_case::single_case(bcast::channel<std::uint64_t, Primitives>(1), receiver_count) {}
};

// User + system CPU seconds of the whole process (all threads).
inline double process_cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto seconds = [](timeval t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct fanout_result {
    double wall_seconds;
    double cpu_seconds;
    std::uint64_t delivered; // messages received, summed over receivers
};

// The timed part of every fan-out: the clocks start just before this last
// arrival at `start` releases the threads, stop when all are joined, and every
// receiver must have counted every message.
inline fanout_result timed_fanout(std::barrier<>& start, std::vector<std::thread>& threads,
                                  const std::vector<std::uint64_t>& received, std::uint64_t messages) {
    const double cpu_before = process_cpu_seconds();
    const auto wall_before = std::chrono::steady_clock::now();
    start.arrive_and_wait();
    for (auto& thread : threads) thread.join();
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall_before;
    const double cpu = process_cpu_seconds() - cpu_before;

    std::uint64_t delivered = 0;
    for (std::uint64_t count : received) delivered += count;
    if (delivered != messages * received.size()) fail("fan-out: a receiver missed messages");
    return {wall.count(), cpu, delivered};
}

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

// One sender thread broadcasts 0..messages-1 with the blocking call (it waits
// while the channel is full: nothing is lost), then drops the only sender,
// which closes the channel; each receiver thread drains it in order. Timed from
// the moment every thread is started and waiting to the last join, so thread
// creation is not counted. Any channel with bcast's handle API; `ends` is a
// new channel's (sender, receiver).
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

// The reference channel's fan-out, on the given Primitives.
template <class Primitives = bcast::std_primitives>
fanout_result run_fanout(std::size_t receiver_count, std::size_t capacity, std::uint64_t messages) {
    return run_fanout_on(bcast::channel<std::uint64_t, Primitives>(capacity), receiver_count, messages);
}

// glibc 2.36 skips the atomic instructions of pthread_mutex_lock/unlock while
// the process has never had a second thread, which would flatter every
// lock-based figure (4 ns instead of 15 ns per pair). Every binary calls this
// before measuring anything.
inline void leave_single_thread_mode() {
    std::thread([] {}).join();
}

} // namespace bcast_bench
