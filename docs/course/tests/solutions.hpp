// SPDX-License-Identifier: MIT OR Apache-2.0
// The solution of exercise 1 (docs/course/01-specify.md), run by
// course_spec_tests after the rules' examples. Kept out of spec_tests.cpp, the
// file exercise 1 has you edit: do the exercise before you open this one.
// (Exercise 2's is in counting_model.hpp, so that this file gives nothing of
// it away.)
#pragma once

#include <mailbox/mailbox.hpp>

#include "check.hpp"

namespace course {

// Exercise 1: closed wins over full (MB-2 checks closed first).
template <class Box>
inline void exercise_1_solution() {
    Box box;
    box.try_put(1);
    box.close();
    expect(box.try_put(2) == status::closed, "MB-2", "try_put on a closed, full mailbox answers closed, not full");
}

} // namespace course
