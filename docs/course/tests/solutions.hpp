// SPDX-License-Identifier: MIT OR Apache-2.0
// The solutions of exercises 1 (docs/course/01-specify.md) and 2
// (02-primitives.md), run by course_spec_tests after the rules' examples. Kept
// out of spec_tests.cpp, the file exercise 1 has you edit: do the exercises
// before you open this one.
#pragma once

#include <mailbox/mailbox.hpp>

#include "check.hpp"
#include "counting_model.hpp"

namespace course {

// Exercise 1: closed wins over full (MB-2 checks closed first).
template <class Box>
inline void exercise_1_solution() {
    Box box;
    box.try_put(1);
    box.close();
    expect(box.try_put(2) == status::closed, "MB-2", "try_put on a closed, full mailbox answers closed, not full");
}

// Exercise 2: what each call does with the primitives, counted (counting_model.hpp).
inline void counting_examples() {
    mailbox<counting_model> box;
    counted = {};
    box.try_put(1);
    expect(counted.locks == 1 && counted.notify_ones == 1 && counted.waits == 0, "MB-7",
           "try_put on an empty mailbox: one lock, one notify_one (for a waiting take), no wait");
    counted = {};
    box.try_put(2);
    expect(counted.locks == 1 && counted.notify_ones == 0, "MB-2", "try_put on a full mailbox: one lock, no notify");
    counted = {};
    box.close();
    expect(counted.locks == 1 && counted.notify_alls == 2 && counted.notify_ones == 0, "MB-7",
           "close: one lock, notify_all on both condition variables");
}

} // namespace course
