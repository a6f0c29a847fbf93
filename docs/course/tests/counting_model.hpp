// SPDX-License-Identifier: MIT OR Apache-2.0
// Exercise 2's solution (docs/course/02-primitives.md): a Model that runs the
// mailbox on the standard library and counts what it does with its
// primitives. It shows that a Model is only a bundle of names: any types with
// the right members will do, and the mailbox's code does not change.
#pragma once

#include <mailbox/std_model.hpp>

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

} // namespace course
