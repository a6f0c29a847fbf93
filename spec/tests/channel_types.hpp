// SPDX-License-Identifier: MIT OR Apache-2.0
// The implementations every per-rule example runs against: the executable
// spec itself, the real channel with the plain and the atomic position, and
// the second channel family, bcast::fast (docs/fast-design.md). Its profile
// P-FAST (spec/rules.md) is about object lifetimes, copies, allocation and
// concurrency, none of which an example over `int` on one thread observes, so
// every example applies to it unchanged.
#pragma once

#include <gtest/gtest.h>

#include <bcast/spec/channel_adapter.hpp>
#include <bcast/spec/fast_channel_adapter.hpp>
#include <bcast/spec/model.hpp>

namespace bcast::spec_tests {

using spec::handle_id;

// Ids of the two handles every new channel starts with.
inline constexpr handle_id first_sender = spec::model<int>::first_sender;
inline constexpr handle_id first_receiver = spec::model<int>::first_receiver;

// The implementation is instantiated with two Models (R-IMPL-1) differing in
// the position policy (R-IMPL-2): both must meet every rule.
using all_channels = ::testing::Types<spec::model<int>, spec::channel_adapter<int, std_primitives>,
                                      spec::channel_adapter<int, std_atomic_seq_cst_primitives>,
                                      spec::fast_channel_adapter<int, fast::std_primitives>>;

struct channel_name {
    template <class Channel>
    static std::string GetName(int) {
        if constexpr (std::is_same_v<Channel, spec::model<int>>) return "spec_model";
        else if constexpr (std::is_same_v<Channel, spec::channel_adapter<int, std_primitives>>) return "plain_position";
        else if constexpr (std::is_same_v<Channel, spec::fast_channel_adapter<int, fast::std_primitives>>) return "fast";
        else return "atomic_position";
    }
};

// Shorthands for comparing results.
inline recv_error overflowed(std::uint64_t missed) { return {recv_errc::overflowed, missed}; }
inline recv_error recv_failure(recv_errc code) { return {code, 0}; }

template <class Result>
std::optional<int> evicted_by(const Result& sent) {
    return sent.has_value() ? *sent : std::optional<int>{};
}

} // namespace bcast::spec_tests
