// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::spec::broadcast_channel: what "a broadcast channel implementation" is,
// for the conformance kit (property_tests/, docs/conformance.md).
//
// It is exactly the interface that the executable specification
// (bcast::spec::model) and the real channel behind its adapter
// (bcast::spec::channel_adapter) share: one object per channel, handles named
// by ids handed out in creation order from one counter (sender 0 and receiver 1
// first), every operation of spec/rules.md as a member taking the id of the
// handle it is called on. Anything that satisfies it (a faster channel, a port
// in another language behind a C++ adapter) can be run command by command
// against the model by the property tests and the fuzzer.
//
// An implementation *family* names one such channel per message type:
// `F::template channel<T>`; the suite instantiates it with plain ints and with
// instrumented message types (instance counting, throwing copy), so the family
// must accept any nothrow-move-constructible T.
#pragma once

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include <bcast/errors.hpp>
#include <bcast/result.hpp>

#include "conformance_profile.hpp"
#include "model.hpp"

namespace bcast::spec {

// The required part: non-blocking and zero-timeout operations, handle
// management through ids, channel-wide settings and queries through any handle.
// Failures that are caller errors (an id that does not exist) may throw
// std::logic_error; set_capacity(0) and construction with capacity 0 must throw
// std::invalid_argument and change nothing (R-CAP-1, R-CAP-2).
template <class C, class T>
concept broadcast_channel =
    std::constructible_from<C, std::size_t> && std::destructible<C> &&
    requires(C& c, const C& cc, handle_id id, T message, std::size_t n, bool flag) {
        // sending: try_broadcast (R-SEND-1) and a timed broadcast whose time is up (R-SEND-4)
        { c.try_broadcast(id, std::move(message)) } -> std::same_as<send_result<T>>;
        { c.broadcast_expired(id, std::move(message)) } -> std::same_as<send_result<T>>;
        // receiving: try_recv (R-RECV-1) and a timed recv whose time is up (R-RECV-5)
        { c.try_recv(id) } -> std::same_as<recv_result<T>>;
        { c.recv_expired(id) } -> std::same_as<recv_result<T>>;
        // handles: each creating call returns the new handle's id
        { c.clone_sender(id) } -> std::same_as<handle_id>;
        { c.new_sender(id) } -> std::same_as<handle_id>;   // from a receiver
        { c.drop_sender(id) };
        { c.clone_receiver(id) } -> std::same_as<handle_id>;
        { c.new_receiver(id) } -> std::same_as<handle_id>; // from a sender or a receiver
        { c.drop_receiver(id) };
        { c.deactivate(id) } -> std::same_as<handle_id>;
        { c.activate(id) } -> std::same_as<handle_id>;
        { c.activate_cloned(id) } -> std::same_as<handle_id>;
        { c.clone_inactive(id) } -> std::same_as<handle_id>;
        { c.drop_inactive(id) };
        // channel-wide, through any handle
        { c.set_capacity(id, n) };
        { c.set_overflow(id, flag) };
        { c.set_await_active(id, flag) };
        { c.close(id) } -> std::same_as<bool>;
        // queries, through any handle (R-QUERY-1)
        { cc.capacity(id) } -> std::same_as<std::size_t>;
        { cc.overflow(id) } -> std::same_as<bool>;
        { cc.await_active(id) } -> std::same_as<bool>;
        { cc.is_closed(id) } -> std::same_as<bool>;
        { cc.len(id) } -> std::same_as<std::size_t>;
        { cc.is_empty(id) } -> std::same_as<bool>;
        { cc.is_full(id) } -> std::same_as<bool>;
        { cc.receiver_count(id) } -> std::same_as<std::size_t>;
        { cc.inactive_receiver_count(id) } -> std::same_as<std::size_t>;
        { cc.sender_count(id) } -> std::same_as<std::size_t>;
        // which kind of handle an id names (false once dropped)
        { cc.is_sender(id) } -> std::same_as<bool>;
        { cc.is_receiver(id) } -> std::same_as<bool>;
        { cc.is_inactive_receiver(id) } -> std::same_as<bool>;
        { cc.exists(id) } -> std::same_as<bool>;
    };

// The optional part: blocking broadcast/recv. The suite calls them only where
// the model says they cannot block; an implementation without them is still
// checked, with those commands turned into their zero-timeout forms.
template <class C, class T>
concept blocking_broadcast_channel =
    broadcast_channel<C, T> && requires(C& c, handle_id id, T message) {
        { c.broadcast(id, std::move(message)) } -> std::same_as<send_result<T>>;
        { c.recv(id) } -> std::same_as<recv_result<T>>;
    };

// The optional extensions (bcast's own, beyond upstream's API; a port of
// upstream has none of them, and is still checked without them). Each is
// checked where the implementation offers it, and skipped where it does not:
// the commands that use it then compare nothing (pending counts, same_channel)
// or run as the plain receives they stand for (ranges).

// R-QUERY-2: a receiver's own counts, on a receiver's id.
template <class C, class T>
concept pending_count_channel = broadcast_channel<C, T> && requires(const C& cc, handle_id id) {
    { cc.unread(id) } -> std::same_as<std::size_t>;   // queued messages it will still receive
    { cc.missed(id) } -> std::same_as<std::uint64_t>; // the n of its pending overflowed(n), else 0
};

// What the history recorder (spec/traces/include/bcast/trace/record.hpp,
// docs/traces.md "Histories") runs: timed calls (R-SEND-4, R-RECV-5), so that
// a recorded run never hangs, and a receiver's counts. The recorder also calls
// it from several threads at once, each on handles of its own: calls on
// distinct ids must be safe to run concurrently (the concept cannot say so).
template <class C, class T>
concept timed_broadcast_channel =
    blocking_broadcast_channel<C, T> && pending_count_channel<C, T> &&
    requires(C& c, handle_id id, T message, std::chrono::nanoseconds timeout) {
        { c.broadcast_for(id, std::move(message), timeout) } -> std::same_as<send_result<T>>;
        { c.recv_for(id, timeout) } -> std::same_as<recv_result<T>>;
    };

// R-HANDLE-3: whether two handles (ids of any kinds) share a channel.
template <class C, class T>
concept handle_identity_channel = broadcast_channel<C, T> && requires(const C& cc, handle_id a, handle_id b) {
    { cc.same_channel(a, b) } -> std::same_as<bool>;
};

// R-RECV-6: the first n items of a receiver's ranges, taken through the range
// itself as `| std::views::take(n)` takes them, not through single receives.
// messages() is called only where the model says taking n cannot block.
template <class C, class T>
concept message_range_channel = broadcast_channel<C, T> && requires(C& c, handle_id id, std::size_t n) {
    { c.try_messages(id, n) } -> std::same_as<std::vector<recv_result<T>>>;
    { c.messages(id, n) } -> std::same_as<std::vector<recv_result<T>>>;
};

// Profiles (conformance_profile.hpp, spec/rules.md "Profiles"): an adapter may
// declare `static constexpr const conformance_profile& profile`, the named
// divergences from spec/rules.md it lives under; the suite then skips, by
// that profile's entry, what the profile says does not apply, and checks
// everything else exactly. profile_of<C>() is the reference profile otherwise.

// A family of implementations, one channel type per message type, with a
// display name for test output: what the conformance suite is instantiated with.
//
//   struct my_family {
//       static constexpr std::string_view name = "mine";
//       template <class T> using channel = my_adapter<T>;
//   };
template <class F>
concept implementation_family = requires {
    { F::name } -> std::convertible_to<std::string_view>;
} && broadcast_channel<typename F::template channel<int>, int>;

// The reference satisfies its own concept (and is the oracle, never a subject).
static_assert(broadcast_channel<model<int>, int>);
static_assert(pending_count_channel<model<int>, int> && handle_identity_channel<model<int>, int> &&
              message_range_channel<model<int>, int>);

} // namespace bcast::spec
