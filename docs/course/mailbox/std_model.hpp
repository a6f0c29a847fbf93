// SPDX-License-Identifier: MIT OR Apache-2.0
// The Model a program uses: the mailbox's primitives mapped straight onto the
// standard library (docs/course/02-primitives.md). `var` is the variable
// itself, so mailbox<std_model> compiles to the code one would write by hand
// with std::mutex, two std::condition_variable and three plain fields.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace course {

// A plain field shared between threads but touched only under the lock.
template <class U>
class plain_var {
public:
    explicit plain_var(U initial) : value_(initial) {}
    U get() const noexcept { return value_; }
    void set(U value) noexcept { value_ = value; }

private:
    U value_;
};

struct std_model {
    using mutex = std::mutex;
    using unique_lock = std::unique_lock<std::mutex>;
    using condition_variable = std::condition_variable;
    template <class U>
    using var = plain_var<U>;
};

// The same fields as seq_cst atomics, still touched only under the lock: the
// design alternative chapter 6 measures (docs/course/06-measure.md). Correct,
// since the lock already orders every access; the question is what it costs.
template <class U>
class atomic_var {
public:
    explicit atomic_var(U initial) : value_(initial) {}
    // Partner: the store below, made under the same lock by an earlier holder;
    // the lock already orders the two, so seq_cst is the cost being measured.
    U get() const noexcept { return value_.load(std::memory_order_seq_cst); }
    // Partner: the load above, in the lock's next holder.
    void set(U value) noexcept { value_.store(value, std::memory_order_seq_cst); }

private:
    std::atomic<U> value_;
};

// std_model with its `var` (which hides std_model's) made atomic_var: the lock
// and the condition variable stay std_model's, so the two builds differ in the
// fields alone, the one choice chapter 6 measures.
struct std_atomic_model : std_model {
    template <class U>
    using var = atomic_var<U>;
};

} // namespace course
