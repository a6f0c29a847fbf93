// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_fast_probe: one timed run of the "when the atomic pays" experiment
// (docs/position-design.md), for one design, printed as one JSON object.
// bench/fast_experiment.py runs it, interleaved with the other designs and
// with async-broadcast (bench/peers), and makes the tables and the plot.
//
//   bcast_fast_probe single --design D --receivers N [--calls try|blocking] [--iters K] [--reps R]
//       upstream's single-thread shape; thread CPU ns per iteration (one send + N
//       receives): the median, min and max of R repetitions of K iterations
//   bcast_fast_probe fanout --design D --receivers N --capacity C [--messages M] [--pin]
//       one sender thread, N receiver threads, blocking, no loss: deliveries per
//       second (wall), CPU ns per delivery (all threads), voluntary context
//       switches per message; --pin pins the sender to the first CPU of the
//       process's affinity set and receiver j to the (j + 1)-th, modulo its size
//   D: ref, fast, fast-relaxed, fast-seq_cst, fast-symmetric (fast_cases.hpp);
//      for fanout also bare, the bare multicast ring (bare_ring.hpp): the limit row
#include "fast_cases.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using bcast_bench::calls;

[[noreturn]] void usage() {
    std::fprintf(stderr, "usage: bcast_fast_probe single|fanout --design D --receivers N [--calls try|blocking] "
                         "[--iters K] [--reps R] [--capacity C] [--messages M] [--pin]\n");
    std::exit(2);
}

struct options {
    std::string shape, design = "fast", calls_name = "try";
    std::size_t receivers = 1, capacity = 64;
    std::uint64_t iters = 1'000'000, reps = 5, messages = 1'000'000;
    bool pin = false;
};

options parse(int argc, char** argv) {
    options o;
    if (argc < 2) usage();
    o.shape = argv[1];
    for (int k = 2; k < argc; k += 2) {
        const std::string flag = argv[k];
        if (flag == "--pin") {
            o.pin = true;
            --k; // a flag without a value
            continue;
        }
        if (k + 1 >= argc) usage();
        const std::string value = argv[k + 1];
        if (flag == "--design") o.design = value;
        else if (flag == "--calls") o.calls_name = value;
        else if (flag == "--receivers") o.receivers = std::stoul(value);
        else if (flag == "--capacity") o.capacity = std::stoul(value);
        else if (flag == "--iters") o.iters = std::stoull(value);
        else if (flag == "--reps") o.reps = std::stoull(value);
        else if (flag == "--messages") o.messages = std::stoull(value);
        else usage();
    }
    if ((o.shape != "single" && o.shape != "fanout") || o.receivers == 0 || o.capacity == 0 || o.iters == 0 ||
        o.reps == 0 || o.messages == 0 || (o.calls_name != "try" && o.calls_name != "blocking"))
        usage();
    return o;
}

template <calls Kind, class Make>
void single(const options& o, Make make) {
    bcast_bench::single_case workload(make(1), o.receivers);
    workload.template run<Kind>(o.iters / 10 + 16); // warm: code, ring and receivers in cache
    std::vector<double> ns;
    for (std::uint64_t r = 0; r < o.reps; ++r) {
        const double before = bcast_bench::thread_cpu_ns();
        workload.template run<Kind>(o.iters);
        ns.push_back((bcast_bench::thread_cpu_ns() - before) / static_cast<double>(o.iters));
    }
    std::sort(ns.begin(), ns.end());
    std::printf("{\"shape\":\"single\",\"design\":\"%s\",\"calls\":\"%s\",\"receivers\":%zu,\"iters\":%llu,"
                "\"ns_per_iter_median\":%.2f,\"ns_per_iter_min\":%.2f,\"ns_per_iter_max\":%.2f}\n",
                o.design.c_str(), o.calls_name.c_str(), o.receivers, static_cast<unsigned long long>(o.iters),
                ns[ns.size() / 2], ns.front(), ns.back());
}

// `run` makes the fan-out run and returns its fanout_result.
template <class Run>
void fanout(const options& o, Run run) {
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    const bcast_bench::fanout_result r = run();
    getrusage(RUSAGE_SELF, &after);
    const double vcs = static_cast<double>(after.ru_nvcsw - before.ru_nvcsw) / static_cast<double>(o.messages);
    std::printf("{\"shape\":\"fanout\",\"design\":\"%s\",\"receivers\":%zu,\"capacity\":%zu,\"messages\":%llu,"
                "\"deliveries_per_s\":%.0f,\"wall_s\":%.4f,\"cpu_s\":%.4f,\"cpu_ns_per_delivery\":%.1f,\"vcs\":%.4f,"
                "\"pinned\":%s}\n",
                o.design.c_str(), o.receivers, o.capacity, static_cast<unsigned long long>(o.messages),
                static_cast<double>(r.delivered) / r.wall_seconds, r.wall_seconds, r.cpu_seconds,
                r.cpu_seconds * 1e9 / static_cast<double>(r.delivered), vcs, o.pin ? "true" : "false");
}

} // namespace

int main(int argc, char** argv) {
    bcast_bench::leave_single_thread_mode();
    const options o = parse(argc, argv);
    const bcast_bench::pinning pins(o.pin);
    if (o.design == "bare") { // the bare ring: fan-out only (it is no channel)
        if (o.shape != "fanout") usage();
        fanout(o, [&] { return bcast_bench::run_fanout_bare(o.capacity, o.receivers, o.messages, pins); });
        return 0;
    }
    const bool known = bcast_bench::with_design(o.design, [&](auto make) {
        if (o.shape == "fanout") fanout(o, [&] { return bcast_bench::run_fanout_on(make(o.capacity), o.receivers, o.messages, pins); });
        else if (o.calls_name == "try") single<calls::try_calls>(o, make);
        else single<calls::blocking_calls>(o, make);
    });
    if (!known) usage();
    return 0;
}
