// SPDX-License-Identifier: MIT OR Apache-2.0
// A driver of the driver protocol (docs/drivers.md) for bcast's reference
// channel: the whole glue a C++ implementation needs, once it has an adapter
// that meets bcast::spec::timed_broadcast_channel (docs/conformance.md).
//
//   bcast-trace drive --histories 200 -- bcast-example-driver
#include <iostream>

#include <bcast/spec/channel_adapter.hpp>
#include <bcast/trace/driver.hpp>

int main() { return bcast::trace::serve<bcast::spec::channel_adapter<int>>(std::cin, std::cout, "bcast (example driver)"); }
