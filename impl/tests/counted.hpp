// SPDX-License-Identifier: MIT OR Apache-2.0
// The impl tests' names for the instrumented message type they share with the
// property tests (bcast_support/instrumented_message.hpp): `counted` where a
// test reads the instance counts, `throwing_copy` where it arms the copy to
// throw. One type: the counts and the arming are the same statics.
#pragma once

#include <bcast_support/instrumented_message.hpp>

namespace bcast::impl_tests {

using counted = bcast_support::instrumented_message;
using throwing_copy = bcast_support::instrumented_message;

} // namespace bcast::impl_tests
