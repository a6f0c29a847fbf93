// SPDX-License-Identifier: MIT OR Apache-2.0
// See async_cases.hpp. Compiled against impl/include for bcast_counts_plain and
// against the generated direct-std headers for bcast_counts_direct.
#include "async_cases.hpp"

#include "async_receivers.hpp"
#include "cases.hpp"

#include <bcast_support/task.hpp>

#include <memory>
#include <utility>
#include <vector>

namespace bcast_bench {
namespace {

bcast_support::task<> send(const bcast::sender<std::uint64_t>& tx, std::uint64_t first, std::uint64_t count) {
    for (std::uint64_t value = first; value < first + count; ++value) {
        if (!co_await tx.async_broadcast(value)) fail("async_broadcast failed");
    }
}

struct async_inline_workload {
    explicit async_inline_workload(std::size_t receiver_count)
        : ends(bcast::channel<std::uint64_t>(1)), receivers(start_receivers(std::move(ends.second), receiver_count)) {}
    ~async_inline_workload() { close_and_check(ends.first, receivers, sent); }
    void run(std::uint64_t iterations) {
        bcast_support::task<> sender = send(ends.first, sent, iterations); // never suspends: always room
        if (!sender.done()) fail("the sender coroutine suspended");
        sent += iterations;
    }

    std::pair<bcast::sender<std::uint64_t>, bcast::receiver<std::uint64_t>> ends;
    std::vector<bcast_support::task<std::uint64_t>> receivers;
    std::uint64_t sent = 0;
};

} // namespace

std::function<void(std::uint64_t)> make_async_inline_workload(std::size_t receivers) {
    auto workload = std::make_shared<async_inline_workload>(receivers);
    return [workload](std::uint64_t iterations) { workload->run(iterations); };
}

} // namespace bcast_bench
