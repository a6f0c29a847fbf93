// SPDX-License-Identifier: MIT OR Apache-2.0
// The conformance suite, instantiated per implementation family
// (docs/property-tests.md, docs/conformance.md; the properties are in
// include/bcast_prop/suite.hpp).
#include "bcast_prop/implementations.hpp"
#include "bcast_prop/suite.hpp"

// Conformance kit: one line per implementation checked against bcast::spec::model.
BCAST_CONFORMANCE_SUITE(std_primitives, bcast::prop::std_plain_family);
// The property mutant table (model_tests/mutants/run_mutants.py) builds this
// file once per mutant and runs std_primitives only; it defines
// BCAST_PROPERTIES_STD_PRIMITIVES_ONLY so as not to compile what it never runs.
#ifndef BCAST_PROPERTIES_STD_PRIMITIVES_ONLY
BCAST_CONFORMANCE_SUITE(std_atomic_seq_cst_primitives, bcast::prop::std_atomic_seq_cst_family);
// The second channel family (docs/fast-design.md), under its profile P-FAST.
BCAST_CONFORMANCE_SUITE(fast, bcast::prop::fast_family);
#endif
// One line above per family of the registry (bcast/spec/families.hpp): a family added there fails here until it has its line.
static_assert(bcast::prop::registered_families::size == 3, "a BCAST_CONFORMANCE_SUITE line per registered family");
