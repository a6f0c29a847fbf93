// SPDX-License-Identifier: MIT OR Apache-2.0
// One recorded call made on an implementation of the conformance concept: the
// one dispatch from a call kind (bcast/spec/operations.hpp) to the concept's
// member, shared by bcast's in-process recorder (record.hpp) and the C++
// driver library of the driver protocol (driver.hpp, docs/drivers.md).
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

#include <bcast/spec/conformance.hpp>
#include <bcast/spec/history.hpp>
#include <bcast/spec/queries.hpp>

namespace bcast::trace {

// What a call answered, and the handle it made (the calls that create one).
struct invoked_call {
    spec::outcome result{};
    std::optional<spec::handle_id> made;
};

// Makes call `k` on handle `id` of `impl`. `arg` is the message, capacity or
// flag; `wait` bounds the waiting calls (`broadcast`, `recv`: the recorder's
// bound; `broadcast_timed`, `recv_timed`: their own timeout), which run as the
// concept's timed calls. A call that consumes its handle (drops, deactivate,
// activate) leaves `id` dead; the caller forgets it.
template <class Impl>
    requires spec::timed_broadcast_channel<Impl, int>
        invoked_call invoke(Impl& impl, spec::call_kind k, spec::handle_id id, int arg, std::chrono::nanoseconds wait) {
        using spec::call_kind;
        invoked_call c;
        auto value = [&c](auto v) { c.result.value = int(v); };
        switch (k) {
        case call_kind::try_broadcast: c.result = spec::encode_send(impl.try_broadcast(id, arg)); break;
        case call_kind::broadcast:
        case call_kind::broadcast_timed: c.result = spec::encode_send(impl.broadcast_for(id, arg, wait)); break;
        case call_kind::try_recv: c.result = spec::encode_recv(impl.try_recv(id)); break;
        case call_kind::recv:
        case call_kind::recv_timed: c.result = spec::encode_recv(impl.recv_for(id, wait)); break;
        case call_kind::clone_receiver: c.made = impl.clone_receiver(id); break;
        case call_kind::new_receiver: c.made = impl.new_receiver(id); break;
        case call_kind::new_sender: c.made = impl.new_sender(id); break;
        case call_kind::clone_sender: c.made = impl.clone_sender(id); break;
        case call_kind::clone_inactive: c.made = impl.clone_inactive(id); break;
        case call_kind::activate_cloned: c.made = impl.activate_cloned(id); break;
        case call_kind::deactivate: c.made = impl.deactivate(id); break;
        case call_kind::activate: c.made = impl.activate(id); break;
        case call_kind::drop_sender: impl.drop_sender(id); break;
        case call_kind::drop_receiver: impl.drop_receiver(id); break;
        case call_kind::drop_inactive: impl.drop_inactive(id); break;
        case call_kind::set_capacity: impl.set_capacity(id, std::size_t(arg)); break;
        case call_kind::set_overflow: impl.set_overflow(id, arg != 0); break;
        case call_kind::set_await_active: impl.set_await_active(id, arg != 0); break;
        case call_kind::close: value(impl.close(id)); break;
#define BCAST_PLAIN_QUERY(name) \
    case call_kind::name: value(impl.name(id)); break;
            BCAST_PLAIN_QUERIES
#undef BCAST_PLAIN_QUERY
        case call_kind::broadcast_expired: // not `recorded` in the operation table: no program generator draws them
        case call_kind::recv_expired:
        case call_kind::same_channel: throw std::logic_error(std::string("bcast::trace::invoke: ") + spec::name(k) + " is not recorded");
        }
        return c;
    }

// Whether an answer is a timed-out wait (a send's or a receive's).
inline bool timed_out(spec::call_kind k, const spec::outcome& r) {
    if (spec::detail::lin::is_send(k)) return r.code == 1 + int(send_errc::timed_out);
    return spec::detail::lin::is_recv(k) && r.code == 1 + int(recv_errc::timed_out);
}

} // namespace bcast::trace
