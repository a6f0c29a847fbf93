// SPDX-License-Identifier: MIT OR Apache-2.0
// Message types of the property tests, and how the runner makes and reads
// each: messages are numbered by the runner, so each type carries that int.
//
// `int`: plain payload; the model always runs with it. `instrumented_message`
// (bcast_support/instrumented_message.hpp, shared with the impl tests): counts
// its live instances (lifetimes property), counts uses and destructions of dead
// instances, and throws from its copy constructor while
// `instrumented_message::armed` is set (exception-safety property).
#pragma once

#include <bcast_support/instrumented_message.hpp>

namespace bcast::prop {

using bcast_support::copy_error;
using bcast_support::instrumented_message;

template <class Msg>
struct message_traits;

template <>
struct message_traits<int> {
    static constexpr bool counted = false;
    static constexpr bool can_throw = false;
    static int make(int value) { return value; }
    static int value(const int& message) { return message; }
};

template <>
struct message_traits<instrumented_message> {
    static constexpr bool counted = true;
    static constexpr bool can_throw = true;
    static instrumented_message make(int value) { return instrumented_message(value); }
    static int value(const instrumented_message& message) { return message.read(); }
};

} // namespace bcast::prop
