// SPDX-License-Identifier: MIT OR Apache-2.0
// The course's toy: a one-slot mailbox for one int, with blocking and
// non-blocking put and take, and close. Its rules are MB-1..MB-7
// (docs/course/01-specify.md); its executable model is spec.hpp.
//
// It is written once against a Model, the bundle of primitives it
// synchronises with (docs/course/02-primitives.md): std_model.hpp for
// programs, relacy/relacy_model.hpp for the model checker. Nothing here knows
// which one it runs on, and nothing here is #ifdef'd for checking.
#pragma once

#include "status.hpp"

#include <concepts>

namespace course {

// The minimum a Model provides: one lock, a scoped lock over it that a wait
// can release, a condition variable, and a plain shared variable. Nothing
// else: the mailbox needs no atomics, because every field is touched only
// under the lock.
template <class M>
concept mailbox_model = requires(typename M::mutex& m, typename M::unique_lock& lock,
                                 typename M::condition_variable& cv, typename M::template var<int>& v) {
    {typename M::unique_lock(m)};
    {cv.wait(lock)};
    {cv.notify_one()};
    {cv.notify_all()};
    { v.get() } -> std::same_as<int>;
    {v.set(0)};
};

template <mailbox_model Model>
class mailbox {
public:
    // MB-2
    status try_put(int value) {
        typename Model::unique_lock lock(mutex_);
        return put_locked(value);
    }

    // MB-3: waits while open and full. A loop, not an if: a wakeup may be
    // spurious, or another put may have filled the slot again first.
    status put(int value) {
        typename Model::unique_lock lock(mutex_);
        while (full_.get() && !closed_.get()) not_full_.wait(lock);
        return put_locked(value);
    }

    // MB-4
    take_result try_take() {
        typename Model::unique_lock lock(mutex_);
        return take_locked();
    }

    // MB-5: waits while open and empty; a loop for the same reasons as put.
    take_result take() {
        typename Model::unique_lock lock(mutex_);
        while (!full_.get() && !closed_.get()) not_empty_.wait(lock);
        return take_locked();
    }

    // MB-6
    bool close() {
        typename Model::unique_lock lock(mutex_);
        if (closed_.get()) return false;
        closed_.set(true);
        not_full_.notify_all();  // MB-7: partner: the wait in put(); every waiting put now answers closed
        not_empty_.notify_all(); // MB-7: partner: the wait in take(); every waiting take can now answer
        return true;
    }

private:
    // The put and the take, with the lock held: every field below is read and
    // written only under mutex_, which is why plain `var`s suffice.
    status put_locked(int value) {
        if (closed_.get()) return status::closed;
        if (full_.get()) return status::full;
        value_.set(value);
        full_.set(true);
        not_empty_.notify_one(); // MB-7: partner: the wait in take(); one value is for one take
        return status::ok;
    }

    take_result take_locked() {
        if (!full_.get()) return {closed_.get() ? status::closed : status::empty, 0};
        full_.set(false);
        not_full_.notify_one(); // MB-7: partner: the wait in put(); one free slot is for one put
        return {status::ok, value_.get()};
    }

    typename Model::mutex mutex_;
    typename Model::condition_variable not_full_;  // where put() waits
    typename Model::condition_variable not_empty_; // where take() waits
    typename Model::template var<bool> full_{false};
    typename Model::template var<bool> closed_{false};
    typename Model::template var<int> value_{0};
};

} // namespace course
