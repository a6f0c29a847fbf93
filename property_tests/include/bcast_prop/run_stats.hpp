// SPDX-License-Identifier: MIT OR Apache-2.0
// What the runner's programs did, summed over runs: each property prints it,
// to show that its generator reaches the cases the property is about.
#pragma once

#include <cstdint>
#include <ostream>

namespace bcast::prop {

struct run_stats {
    std::uint64_t programs = 0;
    std::uint64_t commands = 0;
    std::uint64_t sent = 0;
    std::uint64_t evicted = 0;
    std::uint64_t received = 0;
    std::uint64_t overflowed = 0;
    std::uint64_t shrinks_below_len = 0;
    std::uint64_t closed_recvs = 0;
    std::uint64_t copy_throws = 0;
    std::uint64_t zero_capacity_rejected = 0;
    std::uint64_t async_answered = 0;  // async operations that finished without suspending
    std::uint64_t async_cancelled = 0; // async operations that waited and were cancelled
    std::uint64_t range_items = 0;     // items taken through a receiver's range (R-RECV-6)

    run_stats& operator+=(const run_stats& o) {
        programs += o.programs, commands += o.commands, sent += o.sent, evicted += o.evicted;
        received += o.received, overflowed += o.overflowed, shrinks_below_len += o.shrinks_below_len;
        closed_recvs += o.closed_recvs, copy_throws += o.copy_throws;
        zero_capacity_rejected += o.zero_capacity_rejected;
        async_answered += o.async_answered, async_cancelled += o.async_cancelled;
        range_items += o.range_items;
        return *this;
    }
};

inline std::ostream& operator<<(std::ostream& out, const run_stats& s) {
    return out << "programs=" << s.programs << " commands=" << s.commands << " sent=" << s.sent
               << " evicted=" << s.evicted << " received=" << s.received << " overflowed=" << s.overflowed
               << " shrinks_below_len=" << s.shrinks_below_len << " closed_recvs=" << s.closed_recvs
               << " copy_throws=" << s.copy_throws << " zero_capacity_rejected=" << s.zero_capacity_rejected
               << " async_answered=" << s.async_answered << " async_cancelled=" << s.async_cancelled
               << " range_items=" << s.range_items;
}

} // namespace bcast::prop
