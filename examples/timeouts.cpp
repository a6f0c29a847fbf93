// SPDX-License-Identifier: MIT OR Apache-2.0
// Timeouts: broadcast_for/_until and recv_for/_until are bcast's extension to
// upstream (R-SEND-4, R-RECV-5). They give up with `timed_out` only if, when
// the time is up, they would still have to wait: the outcome is re-checked
// once after the deadline, so a message or a free slot that arrives just in
// time is never lost, and a deadline already in the past still succeeds when
// no waiting is needed. A send that times out hands the message back (R-SEND-5).
//
// The timed-out cases use short timeouts on a channel nobody else touches, so
// they cannot succeed; the successful ones use a long timeout that a working
// channel never reaches. No outcome depends on the machine's speed.
//
// At the end: the codes as std::error_code (R-ERR-3), result::value_or
// (R-ERR-4) and same_channel (R-HANDLE-3).
#include <bcast/bcast.hpp>

#include <chrono>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "transcript.hpp"

using namespace std::chrono_literals;

namespace {

using clock_type = std::chrono::steady_clock;

// Whether a call waited for at least `timeout` before returning.
template <class Call>
std::string waited_at_least(std::chrono::milliseconds timeout, Call call, std::string& outcome) {
    const auto start = clock_type::now();
    outcome = call();
    return clock_type::now() - start >= timeout ? "yes" : "NO";
}

} // namespace

int main() {
    examples::transcript out;
    auto [tx, rx] = bcast::channel<int>(1);
    std::string outcome;

    // Nothing to receive: recv_for waits the whole timeout, then gives up.
    const auto waited = waited_at_least(20ms, [&rx = rx] { return examples::describe(rx.recv_for(20ms)); }, outcome);
    out.line("recv_for(20ms), nothing sent: ", outcome, " (waited 20 ms: ", waited, ")");

    // Full channel: broadcast_for gives up and hands the message back.
    if (!tx.broadcast(1)) return 1; // fills the only slot
    const auto waited_full =
        waited_at_least(20ms, [&tx = tx] { return examples::describe(tx.broadcast_for(2, 20ms)); }, outcome);
    out.line("broadcast_for(2, 20ms), channel full: ", outcome, " (waited 20 ms: ", waited_full, ")");

    // A deadline in the past times out only calls that would have to wait.
    const auto past = clock_type::now() - 1s;
    out.line("recv_until(past), 1 queued: ", examples::describe(rx.recv_until(past)));
    out.line("broadcast_until(3, past), room: ", examples::describe(tx.broadcast_until(3, past)));
    out.line("broadcast_until(4, past), full: ", examples::describe(tx.broadcast_until(4, past)));

    // A timed wait that is answered in time returns the answer, not timed_out:
    // the consumer thread waits up to 30 s, the sender needs far less.
    std::string consumer_saw;
    std::thread consumer([&consumer_saw](bcast::receiver<int> r) {
        consumer_saw = examples::describe(r.recv_for(30s)); // 3, already queued
        consumer_saw += ", " + examples::describe(r.recv_for(30s)); // 5, sent by main below
    }, rx); // a copy: it still has 3 to read
    out.line("main reads: ", examples::describe(rx.recv_for(30s)));
    out.line("broadcast_for(5, 30s) once both have read 3: ", examples::describe(tx.broadcast_for(5, 30s)));
    consumer.join();
    out.line("consumer thread, recv_for(30s) twice: ", consumer_saw);

    // After close, a timed call answers at once with closed, not timed_out:
    // `timed_out` means "still open, nothing yet", `closed` means "never again".
    tx.close();
    out.line("after close, main recv_for(30s): ", examples::describe(rx.recv_for(30s))); // still had 5
    out.line("after close, main recv_for(30s) again: ", examples::describe(rx.recv_for(30s)));
    out.line("after close, broadcast_for(6, 30s): ", examples::describe(tx.broadcast_for(6, 30s)));

    // The error codes are std::error_codes too (R-ERR-3), so code that already
    // handles std::error_code takes them as they are; result has
    // std::expected's members (R-ERR-4), here a default without a branch; and
    // any two handles can say whether they share a channel (R-HANDLE-3).
    const std::error_code closed_code = rx.recv_for(30s).error().code;
    out.line("as a std::error_code: ", closed_code.category().name(), ": ", closed_code.message());
    out.line("try_recv().value_or(-1) after close: ", rx.try_recv().value_or(-1));
    out.line("tx.same_channel(rx): ", tx.same_channel(rx) ? "yes" : "no");

    return out.finish(
        "recv_for(20ms), nothing sent: receiving timed out (waited 20 ms: yes)\n"
        "broadcast_for(2, 20ms), channel full: sending timed out, message 2 handed back (waited 20 ms: yes)\n"
        "recv_until(past), 1 queued: 1\n"
        "broadcast_until(3, past), room: sent\n"
        "broadcast_until(4, past), full: sending timed out, message 4 handed back\n"
        "main reads: 3\n"
        "broadcast_for(5, 30s) once both have read 3: sent\n"
        "consumer thread, recv_for(30s) twice: 3, 5\n"
        "after close, main recv_for(30s): 5\n"
        "after close, main recv_for(30s) again: receiving from an empty and closed channel\n"
        "after close, broadcast_for(6, 30s): sending into a closed channel, message 6 handed back\n"
        "as a std::error_code: bcast.recv: receiving from an empty and closed channel\n"
        "try_recv().value_or(-1) after close: -1\n"
        "tx.same_channel(rx): yes\n");
}
