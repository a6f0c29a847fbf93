// SPDX-License-Identifier: MIT OR Apache-2.0
// The "ghost" checks: the named properties (docs/property-tests.md, "The
// named properties") stated on the implementation's own answers, independent
// of the spec model, so that they would catch a bug the model shares:
//   overflow  - an evicted message is the oldest queued one;
//   lag       - a receiver behind the head gets overflowed(n) with n exact,
//               once, before anything newer; each receiver gets every message
//               sent since it started, in order, except those it was told it
//               missed (received + missed == sent since it started);
//   close     - once closed, nothing reopens: sends fail with `closed` and
//               hand the message back; a receiver drains exactly its pending
//               messages, then gets `closed` forever.
// (The lifetimes and exception-safety statements need the model's queue
// length and untouched state, so the runner checks them itself.)
//
// The queue is a FIFO of accepted messages, so its content is the last len()
// accepted ones: that, the sequence number of each accepted message and each
// receiver's next expected number is all the state these checks keep.
//
// The runner reports every event; each check returns what is wrong, or an
// empty string, and the runner turns a problem into a failure with its trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <bcast/errors.hpp>
#include <bcast/spec/model.hpp>

#include "outcome.hpp"

namespace bcast::prop {

class ghost_checks {
public:
    // A new channel, whose one receiver starts before the first message.
    void open(spec::handle_id first_receiver) {
        receivers_.clear();
        receivers_[first_receiver] = receiver_state{0, false};
        sent_total_ = 0;
        seq_of_.clear();
        closed_seen_ = false;
    }

    // A receiver made by new_receiver or an activation: it starts at the tail.
    void receiver_added(spec::handle_id id) { receivers_[id] = receiver_state{sent_total_, false}; }

    // A copy of a receiver: the same position.
    void receiver_copied(spec::handle_id from, spec::handle_id copy) {
        if (auto found = receivers_.find(from); found != receivers_.end()) receivers_[copy] = found->second;
    }

    // Dropped or deactivated.
    void receiver_gone(spec::handle_id id) { receivers_.erase(id); }

    // The queries after a command said whether the channel is closed.
    [[nodiscard]] std::string closed_queried(bool closed) {
        if (closed_seen_ && !closed) return "close: the channel reopened";
        closed_seen_ = closed_seen_ || closed;
        return {};
    }

    [[nodiscard]] std::string close_returned(bool result) const {
        if (closed_seen_ && result) return "close: close() returned true on a closed channel";
        return {};
    }

    // A send of message `value` answered `got`; the queue held len_before messages before it.
    [[nodiscard]] std::string sent(int value, const send_outcome& got, std::size_t len_before) {
        if (!got.ok) {
            if (got.returned != value) return "close/send: a failed send did not hand back the same message";
            if (closed_seen_ && got.code != send_errc::closed) return "close: a send after close did not fail with closed";
            return {};
        }
        if (closed_seen_) return "close: a send succeeded after the channel was closed";
        if (got.evicted) {
            const std::uint64_t oldest = sent_total_ - len_before;
            if (seq_of(*got.evicted) != static_cast<std::int64_t>(oldest)) {
                return "overflow: the evicted message " + std::to_string(*got.evicted) + " is not the oldest queued one";
            }
        }
        if (seq_of_.size() <= static_cast<std::size_t>(value)) seq_of_.resize(static_cast<std::size_t>(value) + 1, -1);
        seq_of_[static_cast<std::size_t>(value)] = static_cast<std::int64_t>(sent_total_++);
        return {};
    }

    // A receive on `id` answered `got`; the queue held len_before messages before it.
    [[nodiscard]] std::string received(spec::handle_id id, const recv_outcome& got, std::size_t len_before) {
        receiver_state& r = receivers_[id];
        const std::uint64_t head = sent_total_ - len_before; // the queue holds the last len() accepted messages
        if (r.saw_closed && (got.ok || got.code != recv_errc::closed)) {
            return "close: a receiver that got closed got something else later";
        }
        if (r.next < head) {
            if (got.ok || got.code != recv_errc::overflowed || got.missed != head - r.next) {
                return "lag: receiver " + std::to_string(id) + " is " + std::to_string(head - r.next) +
                       " messages behind the oldest queued one and must get overflowed(" +
                       std::to_string(head - r.next) + ") now, got " + show(got);
            }
            r.next = head;
            return {};
        }
        if (r.next == sent_total_) {
            if (got.ok || got.code == recv_errc::overflowed) {
                return "lag/overflow: receiver " + std::to_string(id) +
                       " has read everything sent since it started, yet got " + show(got);
            }
            if (got.code == recv_errc::closed) r.saw_closed = true;
            return {};
        }
        if (!got.ok || seq_of(got.value) != static_cast<std::int64_t>(r.next)) {
            return "overflow/lag: receiver " + std::to_string(id) + " must get the message with sequence number " +
                   std::to_string(r.next) + " (received + missed == sent since it started), got " + show(got);
        }
        ++r.next;
        return {};
    }

    // Receiver `id` was drained to `closed` after close: it must have accounted for every accepted message.
    [[nodiscard]] std::string drained(spec::handle_id id) {
        const std::uint64_t next = receivers_[id].next;
        if (next == sent_total_) return {};
        return "overflow: after draining, receiver " + std::to_string(id) +
               " has received or been told it missed messages up to sequence number " + std::to_string(next) +
               ", but " + std::to_string(sent_total_) + " were accepted (received + missed != sent since it started)";
    }

private:
    struct receiver_state {
        std::uint64_t next = 0; // sequence number (among accepted messages) of the next one it should get
        bool saw_closed = false;
    };

    std::int64_t seq_of(int value) const {
        const auto index = static_cast<std::size_t>(value);
        return index < seq_of_.size() ? seq_of_[index] : -1;
    }

    static std::string show(const recv_outcome& got) {
        std::ostringstream out;
        out << got;
        return out.str();
    }

    std::map<spec::handle_id, receiver_state> receivers_;
    std::uint64_t sent_total_ = 0;     // accepted messages since the channel was created
    std::vector<std::int64_t> seq_of_; // message value -> sequence number among accepted ones
    bool closed_seen_ = false;
};

} // namespace bcast::prop
