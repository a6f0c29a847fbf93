// SPDX-License-Identifier: MIT OR Apache-2.0
// The async row's workload for the instruction counts (async_cases.cpp, its
// own translation unit, linked into bcast_counts_plain and bcast_counts_direct
// so that the zero-cost check covers the async path as well).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace bcast_bench {

// A fresh workload: a channel of capacity 1 with `receivers` receiver
// coroutines waiting in async_recv() (inline resumption). The function returned
// runs a sender coroutine that sends `iterations` messages with
// async_broadcast(); each resumes every receiver once, as async/inline/N:<n>
// in bcast_bench does. The receivers check every value and are closed and
// checked when the workload goes away.
std::function<void(std::uint64_t)> make_async_inline_workload(std::size_t receivers);

} // namespace bcast_bench
