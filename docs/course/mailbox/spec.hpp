// SPDX-License-Identifier: MIT OR Apache-2.0
// The executable model of the one-slot mailbox: rules MB-1..MB-7 of
// docs/course/01-specify.md as a plain, single-threaded class. No lock, no
// condition variable: it says when a call would wait (put_would_wait,
// take_would_wait) and refuses to make one that would, since a single thread
// would wait forever. Every later chapter judges the real mailbox against it.
#pragma once

#include "status.hpp"

#include <optional>
#include <stdexcept>

namespace course {

class mailbox_spec {
public:
    // MB-1: a new mailbox is empty and open (the members' initial values).

    // MB-2: stores into an empty, open mailbox; `full` or `closed` change nothing.
    status try_put(int value) {
        if (closed_) return status::closed;
        if (slot_) return status::full;
        slot_ = value;
        return status::ok;
    }
    // MB-3: put waits exactly while this holds, then answers as try_put.
    bool put_would_wait() const { return !closed_ && slot_.has_value(); }
    // MB-3 where it need not wait. One thread that waits would wait forever,
    // so the model refuses: a test asks put_would_wait() first.
    status put(int value) {
        if (put_would_wait()) throw std::logic_error("mailbox_spec::put would wait forever (MB-3)");
        return try_put(value);
    }

    // MB-4: a stored value is taken even after close; `empty` only while open.
    take_result try_take() {
        if (slot_) {
            const int value = *slot_;
            slot_.reset();
            return {status::ok, value};
        }
        return {closed_ ? status::closed : status::empty, 0};
    }
    // MB-5: take waits exactly while this holds, then answers as try_take.
    bool take_would_wait() const { return !closed_ && !slot_.has_value(); }
    // MB-5 where it need not wait (see put).
    take_result take() {
        if (take_would_wait()) throw std::logic_error("mailbox_spec::take would wait forever (MB-5)");
        return try_take();
    }

    // MB-6: answers whether this call closed it; closing is permanent.
    bool close() {
        const bool was_open = !closed_;
        closed_ = true;
        return was_open;
    }

    // MB-7 (no lost wakeup) is about waiting threads; a single-threaded model
    // states it through the two predicates above: a waiting call must return
    // as soon as its predicate turns false.

private:
    std::optional<int> slot_; // MB-1: empty
    bool closed_ = false;     // MB-1: open
};

} // namespace course
