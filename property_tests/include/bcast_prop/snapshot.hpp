// SPDX-License-Identifier: MIT OR Apache-2.0
// The ten queries of a channel, read through one handle, as one comparable,
// printable value: the runner compares the model's and the implementation's
// after every command.
#pragma once

#include <cstddef>
#include <ostream>

#include <bcast/spec/model.hpp> // handle_id

namespace bcast::prop {

struct snapshot {
    std::size_t len, capacity, receivers, inactives, senders;
    bool empty, full, closed, overflow, await_active;
    friend bool operator==(const snapshot&, const snapshot&) = default;
    friend std::ostream& operator<<(std::ostream& out, const snapshot& s) {
        return out << std::boolalpha << "{len " << s.len << ", capacity " << s.capacity << ", receivers "
                   << s.receivers << ", inactive " << s.inactives << ", senders " << s.senders << ", empty "
                   << s.empty << ", full " << s.full << ", closed " << s.closed << ", overflow " << s.overflow
                   << ", await_active " << s.await_active << "}";
    }
};

// `C`: the spec model or an implementation's adapter (same query interface).
template <class C>
snapshot snapshot_of(const C& c, spec::handle_id via) {
    return snapshot{c.len(via), c.capacity(via), c.receiver_count(via),
                    c.inactive_receiver_count(via), c.sender_count(via), c.is_empty(via),
                    c.is_full(via), c.is_closed(via), c.overflow(via),
                    c.await_active(via)};
}

} // namespace bcast::prop
