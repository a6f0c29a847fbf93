// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_fanout_probe: what one fan-out run pays for its wakeups (docs/design.md,
// section 4, "Why a lock of its own").
//
// The same run as bcast_bench's fanout rows (bench/cases.hpp: one sender thread,
// N receiver threads, blocking, lossless), with either lock policy, and the
// costs per message that decide it when threads outnumber cores:
//   vcs, ivcs     voluntary / involuntary context switches (getrusage)
//   cv_sleeps     condition-variable waits that reached the kernel (futex lock only)
//   cv_wakes      notify calls that made a wake system call (futex lock only)
//   mutex_sleeps  lock() calls that slept in the kernel (futex lock only)
//   mutex_wakes   unlock() calls that made a wake system call (futex lock only)
//   yields        back-off rounds that yielded the core (futex lock only)
// The counters wrap the real Ops (linux_futex_ops) with relaxed increments;
// the std lock's system calls are counted from outside, with
//   perf stat -e syscalls:sys_enter_futex,syscalls:sys_enter_sched_yield,context-switches
// as docs/design.md does for async-broadcast in the same run.
//
// usage: bcast_fanout_probe [--lock futex|std] [--receivers N] [--capacity C] [--messages M]
// Prints one JSON object.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <sys/resource.h>

#include <bcast/bcast.hpp>

#include "cases.hpp"

namespace {

#if BCAST_HAVE_FUTEX
using real_ops = bcast::detail::linux_futex_ops;

struct counters {
    std::atomic<unsigned long> sleeps{0}, wakes{0}, yields{0};
};
counters cv_counts, mutex_counts;

// The real Ops, counted. One type per word kind, so the lock's and the
// condition variable's system calls are told apart.
template <counters& Counts>
struct counted_ops : real_ops {
    static void wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept {
        Counts.sleeps.fetch_add(1, std::memory_order_relaxed);
        real_ops::wait(word, expected);
    }
    static bool wait_until(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                           std::chrono::steady_clock::time_point deadline) noexcept {
        Counts.sleeps.fetch_add(1, std::memory_order_relaxed);
        return real_ops::wait_until(word, expected, deadline);
    }
    static void wake_one(std::atomic<std::uint32_t>& word) noexcept {
        Counts.wakes.fetch_add(1, std::memory_order_relaxed);
        real_ops::wake_one(word);
    }
    static void wake_all(std::atomic<std::uint32_t>& word) noexcept {
        Counts.wakes.fetch_add(1, std::memory_order_relaxed);
        real_ops::wake_all(word);
    }
    static void yield() noexcept {
        Counts.yields.fetch_add(1, std::memory_order_relaxed);
        real_ops::yield();
    }
};

struct counted_futex_lock {
    using mutex = bcast::detail::futex_mutex<counted_ops<mutex_counts>>;
    using condition_variable = bcast::detail::futex_condition_variable<counted_ops<cv_counts>, mutex>;
};
using futex_primitives = bcast::basic_std_primitives<bcast::plain_position, counted_futex_lock>;
#endif

using std_lock_primitives = bcast::basic_std_primitives<bcast::plain_position, bcast::std_lock>;

[[noreturn]] void die(const std::string& what) { bcast_bench::fail(what.c_str()); }

unsigned long parse(const char* text, const char* flag) {
    char* end = nullptr;
    const unsigned long value = std::strtoul(text, &end, 10);
    if (end == text || *end != '\0' || value == 0) die(std::string(flag) + " needs a positive integer");
    return value;
}

} // namespace

int main(int argc, char** argv) {
    std::string lock = BCAST_HAVE_FUTEX ? "futex" : "std";
    unsigned long receivers = 2, capacity = 64, messages = 1'000'000;
    for (int k = 1; k < argc; ++k) {
        const std::string arg = argv[k];
        if (k + 1 >= argc) die("usage: bcast_fanout_probe [--lock futex|std] [--receivers N] [--capacity C] [--messages M]");
        const char* value = argv[++k];
        if (arg == "--lock") lock = value;
        else if (arg == "--receivers") receivers = parse(value, "--receivers");
        else if (arg == "--capacity") capacity = parse(value, "--capacity");
        else if (arg == "--messages") messages = parse(value, "--messages");
        else die("unknown option " + arg);
    }
    bcast_bench::leave_single_thread_mode();
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    bcast_bench::fanout_result result{};
    if (lock == "std") {
        result = bcast_bench::run_fanout<std_lock_primitives>(receivers, capacity, messages);
#if BCAST_HAVE_FUTEX
    } else if (lock == "futex") {
        result = bcast_bench::run_fanout<futex_primitives>(receivers, capacity, messages);
#endif
    } else {
        die("--lock must be " + std::string(BCAST_HAVE_FUTEX ? "futex or std" : "std (no futex here)"));
    }
    getrusage(RUSAGE_SELF, &after);
    const double m = static_cast<double>(messages);
    std::printf("{\"lock\":\"%s\",\"receivers\":%lu,\"capacity\":%lu,\"messages\":%lu,\"wall_s\":%.4f,\"cpu_s\":%.4f,"
                "\"deliveries_per_s\":%.0f,\"cpu_ns_per_delivery\":%.1f,\"vcs\":%.4f,\"ivcs\":%.4f",
                lock.c_str(), receivers, capacity, messages, result.wall_seconds, result.cpu_seconds,
                static_cast<double>(result.delivered) / result.wall_seconds,
                result.cpu_seconds * 1e9 / static_cast<double>(result.delivered),
                static_cast<double>(after.ru_nvcsw - before.ru_nvcsw) / m,
                static_cast<double>(after.ru_nivcsw - before.ru_nivcsw) / m);
#if BCAST_HAVE_FUTEX
    if (lock == "futex") {
        std::printf(",\"cv_sleeps\":%.4f,\"cv_wakes\":%.4f,\"mutex_sleeps\":%.4f,\"mutex_wakes\":%.4f,\"yields\":%.4f",
                    static_cast<double>(cv_counts.sleeps) / m, static_cast<double>(cv_counts.wakes) / m,
                    static_cast<double>(mutex_counts.sleeps) / m, static_cast<double>(mutex_counts.wakes) / m,
                    static_cast<double>(cv_counts.yields + mutex_counts.yields) / m);
    }
#endif
    std::printf("}\n");
    return 0;
}
