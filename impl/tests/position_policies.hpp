// SPDX-License-Identifier: MIT OR Apache-2.0
// The reference channel's two position policies (R-IMPL-2) as the types of the
// implementation-only typed tests: the plain position (bcast::std_primitives)
// and the atomic one (seq_cst), named plain_position and atomic_position in
// GoogleTest's group names.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include <bcast/primitives.hpp>

namespace bcast::impl_tests {

using position_policies = ::testing::Types<std_primitives, std_atomic_seq_cst_primitives>;

struct position_policy_name {
    template <class Primitives>
    static std::string GetName(int) {
        return std::is_same_v<Primitives, std_primitives> ? "plain_position" : "atomic_position";
    }
};

} // namespace bcast::impl_tests
