// SPDX-License-Identifier: MIT OR Apache-2.0
// The adapter that puts fanout::bus (an "outside implementation" with its own
// API) behind bcast::spec::broadcast_channel, and the family that names it for
// the conformance suite. This is the worked example of docs/conformance.md.
//
// What an adapter does:
//  - hand out handle ids in creation order from one counter, sender 0 and
//    receiver 1 first, and map each id to the implementation's own handle;
//  - translate results into bcast's vocabulary (send_result / recv_result,
//    send_errc / recv_errc), handing a refused message back;
//  - give the zero-timeout forms their meaning (timed_out where the blocking
//    call would wait); the blocking forms are optional and left out here;
//  - throw std::logic_error for an id that names no live handle;
//  - offer the optional extensions the implementation has: here a
//    receiver's own counts (R-QUERY-2) and handle identity (R-HANDLE-3), but
//    not the ranges (R-RECV-6), which the suite then runs as plain receives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <bcast/errors.hpp>
#include <bcast/result.hpp>
#include <bcast/spec/conformance.hpp>

#include "fanout_bus.hpp"

namespace fanout {

using bcast::spec::handle_id;

template <class T>
class adapter {
public:
    explicit adapter(std::size_t capacity) : bus_(capacity) {
        handles_[next_id_++] = {kind::sender, 1};   // bcast id 0: the bus's first publisher
        handles_[next_id_++] = {kind::receiver, 2}; // bcast id 1: its first listener
    }

    // ---- sending ---------------------------------------------------------------
    bcast::send_result<T> try_broadcast(handle_id sender, T message) {
        require(sender, kind::sender);
        std::optional<T> evicted;
        switch (bus_.publish(message, evicted)) {
        case status::ok: return bcast::send_result<T>(std::move(evicted));
        case status::full: return refused(bcast::send_errc::full, std::move(message));
        case status::no_listeners: return refused(bcast::send_errc::inactive, std::move(message));
        default: return refused(bcast::send_errc::closed, std::move(message));
        }
    }
    // broadcast_for(0): where broadcast() would wait, it times out instead.
    bcast::send_result<T> broadcast_expired(handle_id sender, T message) {
        bcast::send_result<T> result = try_broadcast(sender, std::move(message));
        if (!result.has_value()) {
            const bcast::send_errc code = result.error().code;
            if (code == bcast::send_errc::full || (code == bcast::send_errc::inactive && bus_.waits_for_listeners())) {
                return refused(bcast::send_errc::timed_out, std::move(result.error().message));
            }
        }
        return result;
    }

    // ---- receiving -----------------------------------------------------------
    bcast::recv_result<T> try_recv(handle_id receiver) {
        std::optional<T> message;
        std::uint64_t missed = 0;
        switch (bus_.poll(token_of(receiver, kind::receiver), message, missed)) {
        case status::ok: return bcast::recv_result<T>(std::move(*message));
        case status::lagged: return nothing(bcast::recv_errc::overflowed, missed);
        case status::shut: return nothing(bcast::recv_errc::closed);
        default: return nothing(bcast::recv_errc::empty);
        }
    }
    bcast::recv_result<T> recv_expired(handle_id receiver) {
        bcast::recv_result<T> result = try_recv(receiver);
        if (!result.has_value() && result.error().code == bcast::recv_errc::empty) return nothing(bcast::recv_errc::timed_out);
        return result;
    }

    // ---- handles -------------------------------------------------------------
    handle_id clone_sender(handle_id sender) { return require(sender, kind::sender), add(kind::sender, bus_.add_publisher()); }
    handle_id new_sender(handle_id receiver) { return require(receiver, kind::receiver), add(kind::sender, bus_.add_publisher()); }
    void drop_sender(handle_id sender) { require(sender, kind::sender), handles_.erase(sender), bus_.remove_publisher(); }
    handle_id clone_receiver(handle_id receiver) {
        return add(kind::receiver, bus_.copy_listener(token_of(receiver, kind::receiver)));
    }
    handle_id new_receiver(handle_id via) {
        if (!is_sender(via)) require(via, kind::receiver);
        return add(kind::receiver, bus_.add_listener());
    }
    void drop_receiver(handle_id receiver) {
        const auto t = token_of(receiver, kind::receiver);
        handles_.erase(receiver), bus_.remove_listener(t);
    }
    handle_id deactivate(handle_id receiver) {
        const auto t = token_of(receiver, kind::receiver);
        const handle_id inactive = add(kind::inactive, bus_.add_dormant()); // first, so the bus never looks unheard
        handles_.erase(receiver), bus_.remove_listener(t);
        return inactive;
    }
    handle_id activate(handle_id inactive) {
        const handle_id receiver = activate_cloned(inactive);
        drop_inactive(inactive);
        return receiver;
    }
    handle_id activate_cloned(handle_id inactive) { return require(inactive, kind::inactive), add(kind::receiver, bus_.add_listener()); }
    handle_id clone_inactive(handle_id inactive) { return require(inactive, kind::inactive), add(kind::inactive, bus_.add_dormant()); }
    void drop_inactive(handle_id inactive) { require(inactive, kind::inactive), handles_.erase(inactive), bus_.remove_dormant(); }

    // ---- channel-wide, through any handle --------------------------------------
    void set_capacity(handle_id via, std::size_t capacity) { require(via), bus_.resize(capacity); }
    void set_overflow(handle_id via, bool on) { require(via), bus_.set_evicting(on); }
    void set_await_active(handle_id via, bool on) { require(via), bus_.set_waits_for_listeners(on); }
    bool close(handle_id via) { return require(via), bus_.shut_down(); }

    std::size_t capacity(handle_id via) const { return require(via), bus_.limit(); }
    bool overflow(handle_id via) const { return require(via), bus_.evicting(); }
    bool await_active(handle_id via) const { return require(via), bus_.waits_for_listeners(); }
    bool is_closed(handle_id via) const { return require(via), bus_.is_shut(); }
    std::size_t len(handle_id via) const { return require(via), bus_.size(); }
    bool is_empty(handle_id via) const { return require(via), bus_.size() == 0; }
    bool is_full(handle_id via) const { return require(via), bus_.size() == bus_.limit(); }
    std::size_t receiver_count(handle_id via) const { return require(via), bus_.listeners(); }
    std::size_t inactive_receiver_count(handle_id via) const { return require(via), bus_.dormant(); }
    std::size_t sender_count(handle_id via) const { return require(via), bus_.publishers(); }

    // ---- optional extensions (spec/conformance.hpp) -------------------------------
    std::size_t unread(handle_id receiver) const { return bus_.backlog(token_of(receiver, kind::receiver)); }
    std::uint64_t missed(handle_id receiver) const { return bus_.lost(token_of(receiver, kind::receiver)); }
    // One adapter drives one bus: any two live handles share it.
    bool same_channel(handle_id a, handle_id b) const { return require(a), require(b), true; }

    bool is_sender(handle_id id) const { return is(id, kind::sender); }
    bool is_receiver(handle_id id) const { return is(id, kind::receiver); }
    bool is_inactive_receiver(handle_id id) const { return is(id, kind::inactive); }
    bool exists(handle_id id) const { return handles_.count(id) != 0; }

private:
    enum class kind { sender, receiver, inactive };
    struct handle {
        kind what;
        typename bus<T>::token token;
    };

    bool is(handle_id id, kind what) const {
        auto found = handles_.find(id);
        return found != handles_.end() && found->second.what == what;
    }
    void require(handle_id id) const {
        if (!exists(id)) throw std::logic_error("fanout::adapter: no such handle");
    }
    void require(handle_id id, kind what) const {
        if (!is(id, what)) throw std::logic_error("fanout::adapter: no such handle of that kind");
    }
    typename bus<T>::token token_of(handle_id id, kind what) const { return require(id, what), handles_.at(id).token; }
    handle_id add(kind what, typename bus<T>::token token) {
        handles_[next_id_] = {what, token};
        return next_id_++;
    }
    static bcast::send_result<T> refused(bcast::send_errc code, T message) {
        return bcast::send_result<T>(bcast::error_tag, bcast::send_error<T>{code, std::move(message)});
    }
    static bcast::recv_result<T> nothing(bcast::recv_errc code, std::uint64_t missed = 0) {
        return bcast::recv_result<T>(bcast::error_tag, bcast::recv_error{code, missed});
    }

    bus<T> bus_;
    std::map<handle_id, handle> handles_;
    handle_id next_id_ = 0;
};

// The family the conformance suite is instantiated with.
struct family {
    static constexpr std::string_view name = "fanout_bus";
    template <class T>
    using channel = adapter<T>;
};

static_assert(bcast::spec::implementation_family<family>);
static_assert(bcast::spec::pending_count_channel<adapter<int>, int>);
static_assert(bcast::spec::handle_identity_channel<adapter<int>, int>);
static_assert(!bcast::spec::message_range_channel<adapter<int>, int>); // optional, and left out

} // namespace fanout
