// SPDX-License-Identifier: MIT OR Apache-2.0
// The property profiles: for each named property, how often each command of
// the command language (commands.hpp) appears in its programs, and the commands
// every program starts with. One place for them: the RapidCheck generators
// (suite.hpp) and the portable trace generator (spec/traces, docs/traces.md)
// both draw from these, and need nothing else from each other.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "commands.hpp"

namespace bcast::prop::suite {

// How often each command appears, and commands every program starts with
// (part of the property's setting: never shrunk away).
struct profile {
    std::vector<std::pair<unsigned, op>> weights;
    std::vector<command> prefix;
};

// Every command; the ones that end things (close, drops, create) rarer.
inline profile conformance_profile() {
    return {{{6, op::try_broadcast}, {6, op::try_recv}, {2, op::broadcast}, {2, op::broadcast_expired}, {2, op::recv}, {2, op::recv_expired}, {1, op::recv_throwing}, {3, op::clone_receiver}, {2, op::new_receiver}, {1, op::new_sender}, {1, op::clone_sender}, {1, op::drop_sender}, {1, op::drop_receiver}, {1, op::drop_inactive}, {2, op::deactivate}, {1, op::activate}, {1, op::activate_cloned}, {1, op::clone_inactive}, {3, op::set_capacity}, {3, op::set_overflow}, {2, op::set_await_active}, {1, op::close}, {1, op::create}, {1, op::len}, {1, op::is_empty}, {1, op::is_full}, {1, op::capacity}, {1, op::receiver_count}, {1, op::inactive_receiver_count}, {1, op::sender_count}, {1, op::is_closed}, {1, op::overflow}, {1, op::await_active}, {2, op::async_recv}, {2, op::async_broadcast}, {1, op::async_recv_cancelled}, {1, op::async_broadcast_cancelled}, {1, op::unread}, {1, op::missed}, {1, op::same_channel}, {2, op::try_messages}, {2, op::messages}},
            {}};
}

// Overflow on from the start: many sends into small channels, receivers that
// start at different places, shrinks; async sends get the evicted message too.
inline profile overflow_profile() {
    return {{{10, op::try_broadcast}, {2, op::broadcast}, {6, op::try_recv}, {2, op::recv}, {3, op::clone_receiver}, {2, op::new_receiver}, {1, op::drop_receiver}, {1, op::deactivate}, {1, op::activate_cloned}, {2, op::set_capacity}, {1, op::set_overflow}, {1, op::len}, {2, op::async_broadcast}, {2, op::async_recv}, {1, op::try_messages}},
            {command{op::set_overflow, 0, 1}}};
}

// Lagging receivers: evictions and shrinks (including below len) mixed; the
// lag report reaches async receives too (R-ASYNC-1), is announced by missed()
// (R-QUERY-2) and is an item of the ranges (R-RECV-6).
inline profile lag_profile() {
    return {{{8, op::try_broadcast}, {4, op::set_capacity}, {6, op::try_recv}, {1, op::recv_expired}, {1, op::recv}, {3, op::clone_receiver}, {1, op::new_receiver}, {1, op::drop_receiver}, {2, op::set_overflow}, {1, op::deactivate}, {1, op::activate}, {2, op::async_recv}, {1, op::missed}, {1, op::unread}, {2, op::try_messages}, {1, op::messages}},
            {command{op::set_overflow, 0, 1}}};
}

// Closing from every side: close(), last sender gone, last receiver gone;
// sends, receives (async ones, and ranges that end at close, too) and new
// handles afterwards.
inline profile close_profile() {
    return {{{6, op::try_broadcast}, {1, op::broadcast}, {1, op::broadcast_expired}, {6, op::try_recv}, {2, op::recv}, {1, op::recv_expired}, {2, op::close}, {2, op::drop_sender}, {1, op::clone_sender}, {1, op::new_sender}, {1, op::drop_receiver}, {1, op::drop_inactive}, {1, op::deactivate}, {1, op::activate}, {1, op::activate_cloned}, {2, op::new_receiver}, {2, op::clone_receiver}, {1, op::is_closed}, {1, op::set_capacity}, {1, op::set_overflow}, {1, op::set_await_active}, {2, op::async_recv}, {1, op::async_broadcast}, {1, op::async_recv_cancelled}, {1, op::async_broadcast_cancelled}, {2, op::messages}, {1, op::try_messages}},
            {}};
}

// Lifetimes: everything that creates, moves, evicts, drops messages or the
// handles that pin them, with an instance-counted message type; cancelled async
// sends hand their message back (R-ASYNC-4).
inline profile lifetimes_profile() {
    return {{{8, op::try_broadcast}, {1, op::broadcast}, {1, op::broadcast_expired}, {5, op::try_recv}, {1, op::recv}, {1, op::recv_expired}, {3, op::clone_receiver}, {2, op::new_receiver}, {2, op::drop_receiver}, {2, op::deactivate}, {1, op::activate}, {1, op::activate_cloned}, {1, op::drop_inactive}, {1, op::drop_sender}, {1, op::clone_sender}, {3, op::set_capacity}, {3, op::set_overflow}, {1, op::close}, {1, op::create}, {1, op::async_recv}, {1, op::async_broadcast}, {1, op::async_recv_cancelled}, {2, op::async_broadcast_cancelled}, {1, op::try_messages}, {1, op::messages}},
            {}};
}

// Exception safety: receives whose copy throws, with several receivers so
// that copies (not moves) are made.
inline profile exception_profile() {
    return {{{8, op::recv_throwing}, {2, op::try_recv}, {4, op::clone_receiver}, {1, op::new_receiver}, {8, op::try_broadcast}, {2, op::set_overflow}, {1, op::set_capacity}, {1, op::drop_receiver}, {1, op::deactivate}},
            {}};
}

// The profiles by name, for tools that take a profile on the command line.
struct named_profile {
    std::string_view name;
    profile (*make)();
};

inline constexpr named_profile named_profiles[] = {
    {"conformance", conformance_profile},
    {"overflow", overflow_profile},
    {"lag", lag_profile},
    {"close", close_profile},
    {"lifetimes", lifetimes_profile},
    {"exception", exception_profile},
};

} // namespace bcast::prop::suite
