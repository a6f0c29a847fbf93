// SPDX-License-Identifier: MIT OR Apache-2.0
// A driver of the driver protocol (docs/drivers.md) built against an installed
// bcast, find_package(bcast COMPONENTS trace): the package test
// package.tools_consumer runs the installed checker on it,
//   bcast-trace drive --histories 50 -- ./consumer_driver
#include <iostream>

#include <bcast/spec/channel_adapter.hpp>
#include <bcast/trace/driver.hpp>

int main() { return bcast::trace::serve<bcast::spec::channel_adapter<int>>(std::cin, std::cout, "bcast (an installed package)"); }
