// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast_history_bench: what the history checker costs (docs/traces.md,
// "Histories"). Google Benchmark rows:
//
//   history_check/memo/widen:W     bcast::spec::check_history on recorded histories of
//                                  4 threads x 50 calls: Wing & Gong with Lowe's memoisation
//   history_check/no_memo/widen:W  the same histories, memoisation off (the plain search)
//
// W widens every completed call's interval by W ticks on each side. A recorded
// run overlaps few calls (a call takes far less time than the gaps between
// calls), so the search rarely branches; widened, each call may be ordered
// with its W neighbours either way, which is where memoisation has states to
// share. Widening keeps a linearizable history linearizable (it only removes
// real-time constraints), so every row checks the same verdicts' worth of work.
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
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
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

void check_all(benchmark::State& state, bool memoise) {
    bcast::spec::check_options options;
    options.memoise = memoise;
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

} // namespace

BENCHMARK(history_check_memo)->Name("history_check/memo")->ArgName("widen")->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(history_check_no_memo)->Name("history_check/no_memo")->ArgName("widen")->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    std::uint64_t count = 100;
    std::vector<char*> rest{argv[0]};
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--histories") == 0 && i + 1 < argc) count = std::strtoull(argv[++i], nullptr, 10);
        else rest.push_back(argv[i]);
    }
    if (count == 0) {
        std::cerr << "bcast_history_bench: --histories must be at least 1\n";
        return 2;
    }
    record(count);
    int rest_count = int(rest.size());
    benchmark::Initialize(&rest_count, rest.data());
    if (benchmark::ReportUnrecognizedArguments(rest_count, rest.data())) return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
