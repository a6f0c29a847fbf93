// SPDX-License-Identifier: MIT OR Apache-2.0
// The receiving side of the async row, shared by async_rows.cpp (bcast_bench)
// and async_cases.cpp (the instruction counts), so that both measure the same
// receivers. Each of those stays its own translation unit (see async_rows.cpp
// for why); this header only gives them the same code to compile.
//
// n receiver coroutines on a channel, each looping on co_await
// rx.async_recv() and checking that message k is the k-th value sent, resumed
// inline by whoever sent (R-ASYNC-3); closing the channel ends them, and each
// must then have received every message sent.
#pragma once

#include "cases.hpp" // fail()

#include <bcast_support/task.hpp>

#include <bcast/bcast.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace bcast_bench {

// One receiver coroutine: receives until closed; its result is how many it got.
inline bcast_support::task<std::uint64_t> receive_all(bcast::receiver<std::uint64_t> rx) {
    std::uint64_t expected = 0;
    for (;;) {
        auto received = co_await rx.async_recv();
        if (!received) break;
        if (*received != expected) fail("async_recv returned a wrong value");
        ++expected;
    }
    co_return expected;
}

// `count` receiver coroutines on rx's channel: rx and count - 1 copies of it,
// made before anything is sent, so all start at the tail (as upstream's
// clones). Each runs until it waits on the empty channel.
inline std::vector<bcast_support::task<std::uint64_t>> start_receivers(bcast::receiver<std::uint64_t> rx,
                                                                       std::size_t count) {
    std::vector<bcast_support::task<std::uint64_t>> receivers;
    receivers.reserve(count);
    for (std::size_t k = 1; k < count; ++k) receivers.push_back(receive_all(rx));
    receivers.push_back(receive_all(std::move(rx)));
    return receivers;
}

// Closes the channel, which resumes every receiver with `closed`, here, and
// checks that each got all `sent` messages.
inline void close_and_check(const bcast::sender<std::uint64_t>& tx,
                            std::vector<bcast_support::task<std::uint64_t>>& receivers, std::uint64_t sent) {
    tx.close();
    for (auto& receiver : receivers) {
        if (!receiver.done() || receiver.result() != sent) fail("an async receiver missed messages");
    }
}

} // namespace bcast_bench
