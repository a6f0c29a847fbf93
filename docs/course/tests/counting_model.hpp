// SPDX-License-Identifier: MIT OR Apache-2.0
// Exercise 2's solution (docs/course/02-primitives.md): a Model that runs the
// mailbox on the standard library and counts what it does with its
// primitives. It shows that a Model is only a bundle of names: any types with
// the right members will do, and the mailbox's code does not change.
#pragma once

#include <mailbox/mailbox.hpp>
#include <mailbox/std_model.hpp>

#include "check.hpp"

#include <condition_variable>
#include <mutex>

namespace course {

struct primitive_counts {
    int locks = 0, waits = 0, notify_ones = 0, notify_alls = 0;
};
// One thread at a time in the checks that use it, so plain ints will do.
inline primitive_counts counted;

class counting_mutex {
public:
    void lock() {
        ++counted.locks;
        m_.lock();
    }
    void unlock() { m_.unlock(); }

private:
    std::mutex m_;
};

// condition_variable_any: it waits with any lock, here a lock of counting_mutex.
class counting_condition_variable {
public:
    void wait(std::unique_lock<counting_mutex>& lock) {
        ++counted.waits;
        cv_.wait(lock);
    }
    void notify_one() {
        ++counted.notify_ones;
        cv_.notify_one();
    }
    void notify_all() {
        ++counted.notify_alls;
        cv_.notify_all();
    }

private:
    std::condition_variable_any cv_;
};

struct counting_model {
    using mutex = counting_mutex;
    using unique_lock = std::unique_lock<counting_mutex>;
    using condition_variable = counting_condition_variable;
    template <class U>
    using var = plain_var<U>;
};

// The exercise's answers, as checks: what each call does with the primitives,
// counted. `course_spec_tests --exercise-2` runs them, and only then, so that
// chapter 1's run of course_spec_tests does not print them before the exercise.
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
