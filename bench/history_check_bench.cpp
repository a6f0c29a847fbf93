// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_history_bench: what the history checker costs (docs/traces.md,
// "Histories"). Google Benchmark rows:
//
//   history_check/memo/widen:W            bcast::spec::check_history on recorded histories of
//                                         4 threads x 50 calls: Wing & Gong with Lowe's memoisation
//   history_check/no_memo/widen:W         the same histories, memoisation off (the plain search)
//   history_check/real_time_only/widen:W  memoisation on, program order off (check_options::
//                                         program_order): what keeping each thread's order saves
//
// W widens every completed call's interval by W ticks on each side, as a coarse
// or uncertain clock would. A recorded run overlaps few calls (a call takes far
// less time than the gaps between calls), so the search rarely branches;
// widened, each call may be ordered with its W neighbours either way, which is
// where memoisation has states to share, and a thread's own consecutive calls
// overlap too, which only program order keeps in line. Widening keeps a
// linearizable history linearizable (it only removes real-time constraints,
// and every thread still made its calls in the same order), so every row
// checks the same verdicts' worth of work.
// Each search stops at 200,000 states (gave_up counts those): a recorded set
// now and then holds a history that takes millions without memoisation, and
// it would decide the row alone.
//
// items_per_second is histories checked per second. The counters say what the
// search did per history (states explored) and how many searches hit the state
// limit (gave up: no verdict) in each mode. The histories are recorded once,
// before the rows run, on bcast's own channel by the recorder of
// spec/traces/include/bcast/trace/record.hpp (seed 1, real threads: the set
// differs a little from run to run, so compare the two rows of one run).
//
//   bcast_history_bench [--histories N] [Google Benchmark flags]   (N: 100 by default)
//   bcast_history_bench --histories N --each W [--max-states S]
//
// --each W checks each history once, widened by W, in program order and by real
// time alone, with the limit S (the checker's default if not given), and prints
// the slowest search of each mode, how many gave up, and the process's peak
// resident memory: the numbers of docs/traces.md, "Limits".
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <bcast/spec/channel_adapter.hpp>
#include <bcast/spec/linearizability.hpp>
#include <bcast/trace/history.hpp>
#include <bcast/trace/record.hpp>

namespace {

using bcast::trace::history;

std::vector<history>& recorded() {
    static std::vector<history> histories;
    return histories;
}

void record(std::uint64_t count) {
    bcast::trace::record_options options;
    options.min_threads = options.max_threads = 4;
    options.calls = 50;
    bcast::trace::record_stats stats;
    for (std::uint64_t id = 0; recorded().size() < count && id < 20 * count; ++id)
        if (auto h = bcast::trace::record_one<bcast::spec::channel_adapter<int>>(options, id, stats)) recorded().push_back(std::move(*h));
    std::size_t calls = 0;
    for (const history& h : recorded()) calls += h.calls.size();
    std::cerr << "bcast_history_bench: " << recorded().size() << " histories of 4 threads x 50 calls recorded ("
              << calls << " calls, " << stats.stalled << " with a stalled call)\n";
}

// The recorded histories with every completed call's interval widened by `ticks` on each side.
std::vector<history> widened(std::uint64_t ticks) {
    std::vector<history> out = recorded();
    for (history& h : out)
        for (bcast::spec::call& c : h.calls) {
            if (c.is_pending()) continue;
            c.invoked = c.invoked > ticks ? c.invoked - ticks : 0;
            c.returned += ticks;
        }
    return out;
}

void check_all(benchmark::State& state, bool memoise, bool program_order = true) {
    bcast::spec::check_options options;
    options.memoise = memoise;
    options.program_order = program_order;
    // A search that would need more gives up (counted in gave_up): one such
    // history would otherwise take minutes and decide the row alone.
    options.max_states = 200'000;
    const std::vector<history> histories = widened(std::uint64_t(state.range(0)));
    std::uint64_t checked = 0, states = 0, gave_up = 0;
    for (auto _ : state) {
        for (const history& h : histories) {
            const bcast::spec::check_report report = bcast::spec::check_history(h.calls, h.capacity, 0, 1, options);
            benchmark::DoNotOptimize(report.result);
            ++checked;
            states += report.states_explored;
            gave_up += report.gave_up ? 1 : 0;
        }
    }
    state.SetItemsProcessed(std::int64_t(checked));
    state.counters["states_per_history"] = checked == 0 ? 0.0 : double(states) / double(checked);
    state.counters["gave_up"] = double(gave_up);
}

void history_check_memo(benchmark::State& state) { check_all(state, true); }
void history_check_no_memo(benchmark::State& state) { check_all(state, false); }
void history_check_real_time_only(benchmark::State& state) { check_all(state, true, false); }

} // namespace

BENCHMARK(history_check_memo)->Name("history_check/memo")->ArgName("widen")->Arg(0)->Arg(2)->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK(history_check_no_memo)->Name("history_check/no_memo")->ArgName("widen")->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(history_check_real_time_only)
    ->Name("history_check/real_time_only")
    ->ArgName("widen")
    ->Arg(2)
    ->Arg(10)
    ->Unit(benchmark::kMillisecond);

// --each: one search per history and mode, the slowest of each mode reported.
int check_each(std::uint64_t widen, std::size_t max_states) {
    const std::vector<history> histories = widened(widen);
    for (const bool program_order : {true, false}) {
        bcast::spec::check_options options;
        options.max_states = max_states;
        options.program_order = program_order;
        std::size_t gave_up = 0, most_states = 0;
        double slowest = 0;
        for (const history& h : histories) {
            const auto start = std::chrono::steady_clock::now();
            const bcast::spec::check_report report = bcast::spec::check_history(h.calls, h.capacity, 0, 1, options);
            slowest = std::max(slowest, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            most_states = std::max(most_states, report.states_explored);
            gave_up += report.gave_up ? 1 : 0;
        }
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        std::cout << (program_order ? "program order:   " : "real time alone: ") << histories.size()
                  << " histories widened by " << widen << ", limit " << options.max_states << " states: slowest "
                  << slowest << " s, most states " << most_states << ", gave up " << gave_up
                  << ", peak resident memory so far " << usage.ru_maxrss / 1024 << " MB\n";
    }
    return 0;
}

int main(int argc, char** argv) {
    std::uint64_t count = 100;
    std::optional<std::uint64_t> each;
    std::size_t max_states = bcast::spec::check_options{}.max_states;
    std::vector<char*> rest{argv[0]};
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--histories") == 0 && i + 1 < argc) count = std::strtoull(argv[++i], nullptr, 10);
        else if (std::strcmp(argv[i], "--each") == 0 && i + 1 < argc) each = std::strtoull(argv[++i], nullptr, 10);
        else if (std::strcmp(argv[i], "--max-states") == 0 && i + 1 < argc) max_states = std::strtoull(argv[++i], nullptr, 10);
        else rest.push_back(argv[i]);
    }
    if (count == 0) {
        std::cerr << "bcast_history_bench: --histories must be at least 1\n";
        return 2;
    }
    record(count);
    if (each) return check_each(*each, max_states);
    int rest_count = int(rest.size());
    benchmark::Initialize(&rest_count, rest.data());
    if (benchmark::ReportUnrecognizedArguments(rest_count, rest.data())) return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
