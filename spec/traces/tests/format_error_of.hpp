// SPDX-License-Identifier: MIT OR Apache-2.0
// What the trace tests expect of a reading that should fail: the message of
// the format_error it throws, which names the file, line and reason.
#pragma once

#include <string>

#include <bcast/trace/format.hpp>

namespace bcast::trace::tests {

// The message of the format_error that `read()` throws; "(no error)" if it throws none.
template <class Read>
std::string format_error_of(Read&& read) {
    try {
        read();
    } catch (const format_error& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace bcast::trace::tests
