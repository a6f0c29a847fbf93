// SPDX-License-Identifier: MIT OR Apache-2.0
// Chapter 2's claim as a check (docs/course/02-primitives.md): mailbox<std_model>
// compiles to the same instructions as the mailbox one would write by hand
// with std::mutex, two std::condition_variable and three plain fields.
// compare_asm.py compiles this file to assembly and compares each
// template_* function with its hand_* twin; it is never linked or run.
#include <mailbox/mailbox.hpp>
#include <mailbox/std_model.hpp>

#include <condition_variable>
#include <mutex>

namespace hand {

using course::status;
using course::take_result;

// mailbox.hpp without the Model: the same code, the same field order.
class mailbox {
public:
    status try_put(int value) {
        std::unique_lock<std::mutex> lock(mutex_);
        return put_locked(value);
    }
    take_result try_take() {
        std::unique_lock<std::mutex> lock(mutex_);
        return take_locked();
    }
    bool close() {
        std::unique_lock<std::mutex> lock(mutex_);
        if (closed_) return false;
        closed_ = true;
        not_full_.notify_all();  // partner: a put's wait
        not_empty_.notify_all(); // partner: a take's wait
        return true;
    }

private:
    status put_locked(int value) {
        if (closed_) return status::closed;
        if (full_) return status::full;
        value_ = value;
        full_ = true;
        not_empty_.notify_one(); // partner: a take's wait
        return status::ok;
    }
    take_result take_locked() {
        if (!full_) return {closed_ ? status::closed : status::empty, 0};
        full_ = false;
        not_full_.notify_one(); // partner: a put's wait
        return {status::ok, value_};
    }

    std::mutex mutex_;
    std::condition_variable not_full_;
    std::condition_variable not_empty_;
    bool full_ = false;
    bool closed_ = false;
    int value_ = 0;
};

} // namespace hand

// compare_asm.py --model NAME compares another Model's build instead (exercise 6).
#ifndef COURSE_MODEL
#define COURSE_MODEL std_model
#endif
using templated = course::mailbox<course::COURSE_MODEL>;
static_assert(sizeof(templated) == sizeof(hand::mailbox), "the Model adds no field and no padding");

course::status template_try_put(templated& box, int value) { return box.try_put(value); }
course::status hand_try_put(hand::mailbox& box, int value) { return box.try_put(value); }
course::take_result template_try_take(templated& box) { return box.try_take(); }
course::take_result hand_try_take(hand::mailbox& box) { return box.try_take(); }
bool template_close(templated& box) { return box.close(); }
bool hand_close(hand::mailbox& box) { return box.close(); }
