// SPDX-License-Identifier: MIT OR Apache-2.0
// The answers of the course's one-slot mailbox, shared by the implementation
// (mailbox.hpp) and its executable model (spec.hpp), so that the two can be
// compared answer by answer (docs/course/01-specify.md).
#pragma once

namespace course {

// What a call answers. `full` and `empty` come only from the try_ calls: a
// blocking call waits instead (MB-3, MB-5).
enum class status { ok,
                    full,
                    empty,
                    closed };

// What a take answers: `value` is meaningful only with status::ok (MB-4).
struct take_result {
    status answer = status::empty;
    int value = 0;
    friend bool operator==(const take_result&, const take_result&) = default;
};

inline const char* name(status s) {
    switch (s) {
    case status::ok: return "ok";
    case status::full: return "full";
    case status::empty: return "empty";
    case status::closed: return "closed";
    }
    return "?";
}

} // namespace course
