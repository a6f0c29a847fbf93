// SPDX-License-Identifier: MIT OR Apache-2.0
// The async row of bcast_bench: what co_await costs next to the try calls
// (docs/async.md, docs/position-design.md).
//
//   async/inline/N:<n>  one sender coroutine and n receiver coroutines on one
//                       thread, capacity 1, inline resumption (R-ASYNC-3). Each
//                       receiver loops on `co_await rx.async_recv()` and waits,
//                       suspended, on the empty channel. One iteration is one
//                       `co_await tx.async_broadcast(v)`: it queues v and, before
//                       it returns, resumes the n receivers inline; each checks
//                       v, waits again and so hands control back. So an
//                       iteration is 1 send + n receives, with 1 + n lock
//                       pairs, like single/try/plain/N:<n>, plus n suspensions
//                       and resumptions.
//   async/try/N:<n>     the same message flow with try_broadcast/try_recv
//                       (single_thread_case), compiled in this translation
//                       unit, so that the async/try ratio compares code built
//                       in the same setting.
//
// Its own translation unit: GCC inlines differently depending on what else a
// translation unit holds (docs/position-design.md, "zero-cost check"), and the
// coroutine code must not change how bcast_bench.cpp's rows are compiled.
// Thread CPU time per iteration, as the single-thread rows.
#include "async_rows.hpp"

#include "async_receivers.hpp"
#include "cases.hpp"

#include <bcast_support/task.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bcast_bench {
namespace {

using channel_ends = std::pair<bcast::sender<std::uint64_t>, bcast::receiver<std::uint64_t>>;

// The sender coroutine: Google Benchmark's timed loop runs inside it. No
// co_await here ever suspends: capacity 1 and the receivers have all read the
// previous message, so there is always room (R-ASYNC-1).
bcast_support::task<std::uint64_t> send_in_loop(const bcast::sender<std::uint64_t>& tx, benchmark::State& state) {
    std::uint64_t value = 0;
    for (auto _ : state) {
        auto sent = co_await tx.async_broadcast(value);
        if (!sent) fail("async_broadcast failed");
        ++value;
    }
    co_return value;
}

void async_inline(benchmark::State& state) {
    const auto receiver_count = static_cast<std::size_t>(state.range(0));
    channel_ends ends = bcast::channel<std::uint64_t>(1);
    std::vector<bcast_support::task<std::uint64_t>> receivers = start_receivers(std::move(ends.second), receiver_count);

    bcast_support::task<std::uint64_t> sender = send_in_loop(ends.first, state); // runs the whole timed loop
    if (!sender.done()) fail("the sender coroutine suspended");
    close_and_check(ends.first, receivers, sender.result());
    state.counters["receivers"] = static_cast<double>(receiver_count);
}

void try_calls(benchmark::State& state) {
    single_thread_case<bcast::std_primitives> workload(static_cast<std::size_t>(state.range(0)));
    workload.run<calls::try_calls>(16); // first touch outside the timing, as in bcast_bench.cpp
    for (auto _ : state) workload.iterate<calls::try_calls>();
    state.counters["receivers"] = static_cast<double>(state.range(0));
}

} // namespace

void register_async_rows(const std::vector<std::int64_t>& receiver_counts,
                         benchmark::internal::Benchmark* (*with_statistics)(benchmark::internal::Benchmark*)) {
    with_statistics(
        benchmark::RegisterBenchmark("async/inline", async_inline)->ArgName("N")->ArgsProduct({receiver_counts}));
    with_statistics(benchmark::RegisterBenchmark("async/try", try_calls)->ArgName("N")->ArgsProduct({receiver_counts}));
}

} // namespace bcast_bench
