// SPDX-License-Identifier: MIT OR Apache-2.0
// What every example uses to check itself: it prints a transcript line by line
// and, at the end, compares the transcript with the text it promises (kept in
// the example's source, so the source shows the output a reader should expect).
// Threads never print: they record what they saw, and main prints after the
// joins, so the transcript is the same on every run and every scheduler.
#pragma once

#include <bcast/bcast.hpp>

#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>

namespace examples {

class transcript {
public:
    template <class... Parts>
    void line(const Parts&... parts) {
        std::ostringstream text;
        (text << ... << parts);
        std::printf("%s\n", text.str().c_str());
        printed_ += text.str() + '\n';
    }

    // 0 if everything printed so far is exactly `expected`, else 1 with both
    // texts on stderr: the exit status is what ctest checks.
    int finish(std::string_view expected) const {
        if (printed_ == expected) return 0;
        std::fprintf(stderr, "--- expected ---\n%.*s--- printed ---\n%s", static_cast<int>(expected.size()),
                     expected.data(), printed_.c_str());
        return 1;
    }

private:
    std::string printed_;
};

// One receive outcome in words: the message, or upstream's wording of the
// error (R-ERR-2), which includes the missed count for overflowed.
template <class T>
std::string describe(const bcast::recv_result<T>& received) {
    std::ostringstream text;
    if (received) {
        text << *received;
    } else {
        text << received.error();
    }
    return text.str();
}

// One send outcome in words: "sent", "sent, evicted <oldest>" (R-OVF-1), or the
// error and the message handed back (R-SEND-5).
template <class T>
std::string describe(const bcast::send_result<T>& sent) {
    std::ostringstream text;
    if (sent && !sent->has_value()) {
        text << "sent";
    } else if (sent) {
        text << "sent, evicted " << **sent;
    } else {
        text << sent.error() << ", message " << sent.error().message << " handed back";
    }
    return text.str();
}

} // namespace examples
