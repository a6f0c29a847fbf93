// SPDX-License-Identifier: MIT OR Apache-2.0
// The worked example of docs/conformance.md: an outside implementation
// (fanout::bus, behind fanout::adapter) checked against bcast::spec::model by
// the whole property suite. This is the one line:
#include "bcast_prop/suite.hpp"
#include "fanout_adapter.hpp"

BCAST_CONFORMANCE_SUITE(fanout_bus, fanout::family);
