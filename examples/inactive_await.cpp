// SPDX-License-Identifier: MIT OR Apache-2.0
// Inactive receivers and await_active: a service that publishes only while
// someone listens. An inactive receiver keeps the channel open without
// receiving anything (R-ACT-1); with await_active on (the default) broadcast()
// waits until an active receiver appears (R-ACT-2); turning await_active off
// makes waiting senders give up with `inactive` (R-ACT-3).
//
// Each step starts a publisher thread whose broadcast() may or may not have
// started waiting when main acts; the outcome is the same either way, which
// is the point: no wakeup can be missed (R-WAKE-1), so no sleep is needed.
#include <bcast/bcast.hpp>

#include <string>
#include <thread>
#include <utility>

#include "transcript.hpp"

namespace {

// broadcast() on a thread of its own, with its own sender (R-THREAD-1).
class publisher {
public:
    publisher(bcast::sender<std::string> tx, std::string message)
        : thread_([this](bcast::sender<std::string> s, std::string m) { outcome_ = examples::describe(s.broadcast(std::move(m))); },
                  std::move(tx), std::move(message)) {}

    // Waits for broadcast() to return and says what it returned.
    std::string outcome() {
        thread_.join();
        return outcome_;
    }

private:
    std::string outcome_;
    std::thread thread_; // last: starts after outcome_ exists
};

template <class Handle>
std::string counts(const Handle& handle) {
    return "active " + std::to_string(handle.receiver_count()) + ", inactive " +
           std::to_string(handle.inactive_receiver_count()) + ", " + (handle.is_closed() ? "closed" : "open");
}

} // namespace

int main() {
    examples::transcript out;
    auto [tx, rx] = bcast::channel<std::string>(4);

    // No subscriber yet: turn the first receiver into an inactive one, which
    // keeps the channel open (R-LIFE-4, R-CLOSE-3).
    auto standby = std::move(rx).deactivate();
    out.line("standby: ", counts(tx));
    out.line("try_broadcast: ", examples::describe(tx.try_broadcast("nobody hears this"))); // R-ACT-1, R-SEND-5

    { // broadcast() waits for a subscriber; activating one lets it through (R-LIFE-6).
        publisher first(tx, "first");
        auto subscriber = standby.activate_cloned(); // at the tail (R-LIFE-5)
        out.line("broadcast(first): ", first.outcome());
        out.line("subscriber reads: ", examples::describe(subscriber.recv()));
    } // the subscriber is destroyed: back to no active receiver, still open

    { // Turning await_active off ends the wait with `inactive`, message handed back (R-ACT-3).
        publisher second(tx, "second");
        tx.set_await_active(false);
        out.line("broadcast(second) after set_await_active(false): ", second.outcome());
        tx.set_await_active(true);
    }

    { // Any way of getting an active receiver wakes the sender, new_receiver()
      // included (a divergence: upstream wakes it only in activate_cloned).
        publisher third(tx, "third");
        auto subscriber = tx.new_receiver();
        out.line("broadcast(third): ", third.outcome());
        out.line("new receiver reads: ", examples::describe(subscriber.recv()));
    }

    auto last = std::move(standby).activate(); // consumes the inactive receiver
    out.line("after activate(): ", counts(tx));

    return out.finish(
        "standby: active 0, inactive 1, open\n"
        "try_broadcast: sending into the void (no active receivers), message nobody hears this handed back\n"
        "broadcast(first): sent\n"
        "subscriber reads: first\n"
        "broadcast(second) after set_await_active(false): sending into the void (no active receivers), message second handed back\n"
        "broadcast(third): sent\n"
        "new receiver reads: third\n"
        "after activate(): active 1, inactive 0, open\n");
}
