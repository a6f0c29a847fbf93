// SPDX-License-Identifier: MIT OR Apache-2.0
// The conformance suite, instantiated per implementation family
// (docs/property-tests.md, docs/conformance.md; the properties are in
// include/bcast_prop/suite.hpp).
#include "bcast_prop/implementations.hpp"
#include "bcast_prop/suite.hpp"

// Conformance kit: one suite per line of the registry (bcast/spec/families.def),
// named by the line's first column (std_primitives.lag, fast.lifetimes, ...).
// The property mutant table (model_tests/mutants/run_mutants.py) builds this
// file once per mutant and runs std_primitives only; it defines
// BCAST_PROPERTIES_STD_PRIMITIVES_ONLY so as not to compile what it never runs.
#ifdef BCAST_PROPERTIES_STD_PRIMITIVES_ONLY
BCAST_CONFORMANCE_SUITE(std_primitives, bcast::spec::std_plain_family);
#else
#define BCAST_FAMILY(name, type) BCAST_CONFORMANCE_SUITE(name, bcast::spec::type);
#include <bcast/spec/families.def>
#undef BCAST_FAMILY
#endif
