// SPDX-License-Identifier: MIT OR Apache-2.0
// The conformance suite, instantiated per implementation family
// (docs/property-tests.md, docs/conformance.md; the properties are in
// include/bcast_prop/suite.hpp).
#include "bcast_prop/implementations.hpp"
#include "bcast_prop/suite.hpp"

// Conformance kit: one line per implementation checked against bcast::spec::model.
BCAST_CONFORMANCE_SUITE(std_primitives, bcast::prop::std_plain_family);
BCAST_CONFORMANCE_SUITE(std_atomic_seq_cst_primitives, bcast::prop::std_atomic_seq_cst_family);
