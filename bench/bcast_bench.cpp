// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_bench: the timed half of the position experiment (docs/position-design.md).
//
// Rows (names are what run_experiment.py parses):
//   single/<calls>/<position>/N:<n>   upstream's single-thread shape; ns per iteration
//                                     (<position>: plain, relaxed, acq_rel, seq_cst, rmw)
//                                     (one broadcast + n receives) in thread CPU time
//   fanout/cap:<c>/N:<n>              one sender thread, n receiver threads, blocking, no loss;
//                                     counters deliveries_per_s, cpu_s, wall_s
//   fanout_bare/cap:<c>/N:<n>         the same threads over the bare multicast ring
//                                     (bare_ring.hpp, docs/fast-design.md section 10): the
//                                     limit row, in the same run so that drift hits both
//   floor/<operation>                 the cost units the slopes are expressed in
//   async/inline/N:<n>, async/try/N:<n>  one sender coroutine and n receiver coroutines on
//                                     one thread, inline resumption, vs the same flow with
//                                     try calls; ns per iteration (async_rows.cpp)
//
// Run with --benchmark_repetitions=R --benchmark_enable_random_interleaving=true so
// that the designs are interleaved repetition by repetition (drift on the shared VM
// then hits them all alike), and read the median/min/max aggregates.
// Extra flag (removed before Google Benchmark sees the rest): --messages=M for the
// fan-out rows (default 1,000,000).
#include "async_rows.hpp"
#include "cases.hpp"
#include "fast_cases.hpp" // run_fanout_bare: fast_probe's bare row, so both time the same loop
#include "rmw_position.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>

namespace {

using bcast_bench::calls;

std::uint64_t fanout_messages = 1'000'000;

const std::vector<std::int64_t> single_receiver_counts{1, 2, 4, 8, 16};
const std::vector<std::int64_t> fanout_receiver_counts{1, 2, 4, 8};
const std::vector<std::int64_t> fanout_capacities{64, 1024};

double minimum(const std::vector<double>& values) { return *std::min_element(values.begin(), values.end()); }
double maximum(const std::vector<double>& values) { return *std::max_element(values.begin(), values.end()); }

// Medians and ranges, not means: the VM's noise is one-sided (outside load
// only ever slows a repetition down).
benchmark::internal::Benchmark* with_range_statistics(benchmark::internal::Benchmark* bench) {
    return bench->ComputeStatistics("min", minimum)->ComputeStatistics("max", maximum);
}

template <class Primitives, calls Kind>
void single_thread(benchmark::State& state) {
    bcast_bench::single_thread_case<Primitives> workload(static_cast<std::size_t>(state.range(0)));
    workload.template run<Kind>(16); // first touch of the ring and the receivers outside the timing
    for (auto _ : state) workload.template iterate<Kind>();
    state.counters["receivers"] = static_cast<double>(state.range(0));
}

template <class Primitives>
void register_single(const char* position_name) {
    for (calls kind : {calls::try_calls, calls::blocking_calls}) {
        const std::string name = "single/" + std::string(bcast_bench::calls_name(kind)) + "/" + position_name;
        auto* bench = kind == calls::try_calls
                          ? benchmark::RegisterBenchmark(name.c_str(), single_thread<Primitives, calls::try_calls>)
                          : benchmark::RegisterBenchmark(name.c_str(), single_thread<Primitives, calls::blocking_calls>);
        // Thread CPU time (the default clock of a single-threaded benchmark) is
        // what we compare: on the shared VM it moves far less than wall time.
        with_range_statistics(bench->ArgName("N")->ArgsProduct({single_receiver_counts}));
    }
}

// One fan-out row: `run(capacity, receivers, messages)` once, its counters reported.
template <class Run>
void timed_fanout(benchmark::State& state, Run run) {
    const auto capacity = static_cast<std::size_t>(state.range(0));
    const auto receivers = static_cast<std::size_t>(state.range(1));
    bcast_bench::fanout_result result{};
    for (auto _ : state) result = run(capacity, receivers, fanout_messages);
    state.counters["deliveries_per_s"] = static_cast<double>(result.delivered) / result.wall_seconds;
    state.counters["cpu_s"] = result.cpu_seconds;
    state.counters["wall_s"] = result.wall_seconds;
    state.counters["messages"] = static_cast<double>(fanout_messages);
}

void fanout(benchmark::State& state) {
    timed_fanout(state, [](std::size_t capacity, std::size_t receivers, std::uint64_t messages) {
        return bcast_bench::run_fanout(receivers, capacity, messages);
    });
}

// What one sender and N receivers cost with no channel around them: bcast's
// fan-out read as a fraction of it (run_experiment.py's bcast/bare) says how
// much the channel's semantics and its lock cost, not how fast the VM is.
void fanout_bare(benchmark::State& state) {
    timed_fanout(state, [](std::size_t capacity, std::size_t receivers, std::uint64_t messages) {
        return bcast_bench::run_fanout_bare(capacity, receivers, messages);
    });
}

// An uncontended std::mutex lock + unlock: what every channel call pays at
// least once. Measured after leave_single_thread_mode(), so with its atomics.
void floor_mutex_pair(benchmark::State& state) {
    std::mutex mutex;
    for (auto _ : state) {
        mutex.lock();
        mutex.unlock();
    }
}

// A seq_cst store: an xchg on x86-64, the cost the seq_cst position adds per store.
void floor_seq_cst_store(benchmark::State& state) {
    std::atomic<std::uint64_t> cell{0};
    std::uint64_t value = 0;
    for (auto _ : state) cell.store(++value, std::memory_order_seq_cst);
    benchmark::DoNotOptimize(cell.load(std::memory_order_relaxed));
}

// A relaxed store (a plain mov): the loop's own floor, for reference.
void floor_relaxed_store(benchmark::State& state) {
    std::atomic<std::uint64_t> cell{0};
    std::uint64_t value = 0;
    for (auto _ : state) cell.store(++value, std::memory_order_relaxed);
    benchmark::DoNotOptimize(cell.load(std::memory_order_relaxed));
}

// One iteration is a whole run of M messages; wall time is the clock that
// matters with several threads, and process CPU time shows what it cost. The
// bare rows share this, or bcast/bare would compare two different clocks.
void register_fanout(const char* name, void (*function)(benchmark::State&)) {
    with_range_statistics(benchmark::RegisterBenchmark(name, function)
                              ->ArgNames({"cap", "N"})
                              ->ArgsProduct({fanout_capacities, fanout_receiver_counts})
                              ->Iterations(1)
                              ->UseRealTime()
                              ->MeasureProcessCPUTime()
                              ->Unit(benchmark::kMillisecond));
}

void register_all() {
    register_single<bcast::std_primitives>("plain");
    register_single<bcast::std_atomic_relaxed_primitives>("relaxed");
    register_single<bcast::std_atomic_acq_rel_primitives>("acq_rel");
    register_single<bcast::std_atomic_seq_cst_primitives>("seq_cst");
    register_single<bcast_bench::fetch_add_primitives>("rmw"); // upstream PR #70's fetch_add

    bcast_bench::register_async_rows(single_receiver_counts, with_range_statistics);

    with_range_statistics(benchmark::RegisterBenchmark("floor/mutex_pair", floor_mutex_pair));
    with_range_statistics(benchmark::RegisterBenchmark("floor/seq_cst_store", floor_seq_cst_store));
    with_range_statistics(benchmark::RegisterBenchmark("floor/relaxed_store", floor_relaxed_store));

    register_fanout("fanout", fanout);
    register_fanout("fanout_bare", fanout_bare);
}

// Takes --messages=M out of argv (Google Benchmark rejects flags it does not know).
void take_own_flags(int& argc, char** argv) {
    int kept = 1;
    for (int k = 1; k < argc; ++k) {
        constexpr const char* messages_flag = "--messages=";
        if (std::strncmp(argv[k], messages_flag, std::strlen(messages_flag)) == 0) {
            fanout_messages = std::strtoull(argv[k] + std::strlen(messages_flag), nullptr, 10);
            if (fanout_messages == 0) bcast_bench::fail("--messages must be positive");
        } else {
            argv[kept++] = argv[k];
        }
    }
    argc = kept;
}

} // namespace

int main(int argc, char** argv) {
    bcast_bench::leave_single_thread_mode();
    take_own_flags(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::AddCustomContext("fanout_messages", std::to_string(fanout_messages));
    register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
