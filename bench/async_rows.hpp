// SPDX-License-Identifier: MIT OR Apache-2.0
// The async row of bcast_bench (async_rows.cpp, its own translation unit).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace bcast_bench {

// Registers async/inline/N:<n> and async/try/N:<n> for each receiver count,
// each passed through `with_statistics` (bcast_bench's min/max aggregates).
void register_async_rows(const std::vector<std::int64_t>& receiver_counts,
                         benchmark::internal::Benchmark* (*with_statistics)(benchmark::internal::Benchmark*));

} // namespace bcast_bench
