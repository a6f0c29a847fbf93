// SPDX-License-Identifier: MIT OR Apache-2.0
// The implementations every per-rule example runs against: the executable
// spec itself and the registered families (bcast/spec/families.hpp): the
// real channel with the plain and the atomic position, and the second
// channel family, bcast::fast (docs/fast-design.md). Its profile
// P-FAST (spec/rules.md) is about object lifetimes, copies, allocation and
// concurrency, none of which an example over `int` on one thread observes, so
// every example applies to it unchanged.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include <bcast/spec/families.hpp>
#include <bcast/spec/model.hpp>

namespace bcast::spec_tests {

using spec::handle_id;

// Ids of the two handles every new channel starts with.
inline constexpr handle_id first_sender = spec::model<int>::first_sender;
inline constexpr handle_id first_receiver = spec::model<int>::first_receiver;

// The spec model itself, then every family of the registry
// (bcast/spec/families.hpp): each must meet every rule.
template <class List>
struct channels_of;
template <class... Families>
struct channels_of<spec::family_list<Families...>> {
    using type = ::testing::Types<spec::model<int>, typename Families::template channel<int>...>;
};
using all_channels = channels_of<spec::registered_families>::type;

struct channel_name {
    template <class Channel>
    static std::string GetName(int) {
        std::string name = "spec_model";
        spec::registered_families::for_each([&name]<class Family>() {
            if (std::is_same_v<Channel, typename Family::template channel<int>>) name = Family::name;
        });
        return name;
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
