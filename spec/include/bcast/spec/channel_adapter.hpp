// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::spec::basic_channel_adapter: a channel family's handles behind
// bcast::spec::model's interface, so one test can drive either (spec/tests/,
// property_tests/, the traces and the history recorder). It is written once
// for every family whose handles have bcast's API: `channel_adapter` below is
// the reference channel's, fast_channel_adapter.hpp bcast::fast's; a family is
// a small `Handles` type (its three handle types, how to open a channel, its
// profile).
//
// It owns the handles and names them by the same ids the model hands out
// (creation order, one counter; sender 0 and receiver 1 first). Any other
// implementation can be checked against the spec the same way: write an
// adapter with this interface (docs/conformance.md).
//
// Calls on distinct handles may run at once from different threads (the
// history recorder, bcast/trace/record.hpp, does): the id maps are guarded by
// a mutex held only to find, add or remove a handle, never during a channel
// call, and std::map keeps every other element where it is. A handle itself is
// used by one thread at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <ranges>
#include <stdexcept>
#include <utility>
#include <vector>

#include <bcast/bcast.hpp>

#include "conformance_profile.hpp"
#include "model.hpp"
#include "queries.hpp"

// clang before 16 cannot instantiate libstdc++'s range adaptors at all (even
// `std::views::istream<int>(in) | std::views::take(2)` fails inside
// view_interface), and the clang TSan tree and the fuzzer are clang 14 with
// libstdc++. There the adapter takes a range's items by hand, exactly as
// take_view does; elsewhere through std::views::take itself.
#if defined(__clang__) && __clang_major__ < 16 && defined(__GLIBCXX__)
#define BCAST_SPEC_HAS_VIEW_ADAPTORS 0
#else
#define BCAST_SPEC_HAS_VIEW_ADAPTORS 1
#endif

namespace bcast::spec {

// Handles: { sender_type, receiver_type, inactive_type; static open(capacity)
// -> pair of a sender and a receiver; static constexpr profile }.
template <class T, class Handles>
class basic_channel_adapter {
public:
    using sender_type = typename Handles::sender_type;
    using receiver_type = typename Handles::receiver_type;
    using inactive_type = typename Handles::inactive_type;
    // The family's own handles, for the checks that drive the channel from
    // threads of their own (the stress tests open it with handles::open).
    using handles = Handles;
    // The rules the family diverges from, and why (spec/rules.md, "Profiles").
    static constexpr const conformance_profile& profile = Handles::profile;

    explicit basic_channel_adapter(std::size_t capacity) {
        auto [tx, rx] = Handles::open(capacity);
        senders_.emplace(next_id_++, std::move(tx));
        receivers_.emplace(next_id_++, std::move(rx));
    }

    // ---- sending -----------------------------------------------------------
    send_result<T> try_broadcast(handle_id sender, T message) {
        return sender_at(sender).try_broadcast(std::move(message));
    }
    // Precondition: it cannot block (the model's broadcast_would_block()).
    send_result<T> broadcast(handle_id sender, T message) { return sender_at(sender).broadcast(std::move(message)); }
    send_result<T> broadcast_expired(handle_id sender, T message) {
        return sender_at(sender).broadcast_for(std::move(message), std::chrono::nanoseconds(0));
    }

    // ---- receiving ---------------------------------------------------------
    recv_result<T> try_recv(handle_id receiver) { return receiver_at(receiver).try_recv(); }
    // Precondition: it cannot block.
    recv_result<T> recv(handle_id receiver) { return receiver_at(receiver).recv(); }
    recv_result<T> recv_expired(handle_id receiver) {
        return receiver_at(receiver).recv_for(std::chrono::nanoseconds(0));
    }

    // Timed calls (R-SEND-4, R-RECV-5): what the history recorder runs its
    // blocking calls as, so that no recorded run can hang.
    send_result<T> broadcast_for(handle_id sender, T message, std::chrono::nanoseconds timeout) {
        return sender_at(sender).broadcast_for(std::move(message), timeout);
    }
    recv_result<T> recv_for(handle_id receiver, std::chrono::nanoseconds timeout) {
        return receiver_at(receiver).recv_for(timeout);
    }

    // The receiver's ranges (R-RECV-6), taken through std::views::take, so
    // that receiving exactly `limit` items is the range's own doing.
    std::vector<recv_result<T>> try_messages(handle_id receiver, std::size_t limit) {
        return take(receiver_at(receiver).try_messages(), limit);
    }
    // Precondition: taking `limit` items cannot block (the model's messages_would_block()).
    std::vector<recv_result<T>> messages(handle_id receiver, std::size_t limit) {
        return take(receiver_at(receiver).messages(), limit);
    }

    // ---- handles -----------------------------------------------------------
    handle_id clone_sender(handle_id sender) { return add(senders_, sender_type(sender_at(sender))); }
    handle_id new_sender(handle_id receiver) { return add(senders_, receiver_at(receiver).new_sender()); }
    void drop_sender(handle_id sender) { erase(senders_, sender); }

    handle_id clone_receiver(handle_id receiver) { return add(receivers_, receiver_type(receiver_at(receiver))); }
    handle_id new_receiver(handle_id via) {
        if (is_sender(via)) return add(receivers_, sender_at(via).new_receiver());
        return add(receivers_, receiver_at(via).new_receiver());
    }
    void drop_receiver(handle_id receiver) { erase(receivers_, receiver); }

    handle_id deactivate(handle_id receiver) {
        auto node = take_out(receivers_, receiver);
        return add(inactives_, std::move(node.mapped()).deactivate());
    }
    handle_id activate(handle_id inactive) {
        auto node = take_out(inactives_, inactive);
        return add(receivers_, std::move(node.mapped()).activate());
    }
    handle_id activate_cloned(handle_id inactive) { return add(receivers_, find(inactives_, inactive)->second.activate_cloned()); }
    handle_id clone_inactive(handle_id inactive) { return add(inactives_, inactive_type(find(inactives_, inactive)->second)); }
    void drop_inactive(handle_id inactive) { erase(inactives_, inactive); }

    // ---- channel-wide, through the handle `via` ------------------------------
    void set_capacity(handle_id via, std::size_t capacity) {
        on(via, [&](const auto& handle) { handle.set_capacity(capacity); });
    }
    void set_overflow(handle_id via, bool enabled) {
        on(via, [&](const auto& handle) { handle.set_overflow(enabled); });
    }
    void set_await_active(handle_id via, bool enabled) {
        on(via, [&](const auto& handle) { handle.set_await_active(enabled); });
    }
    bool close(handle_id via) {
        return on(via, [](const auto& handle) { return handle.close(); });
    }

    // The plain queries (queries.hpp), each answered by the handle's member of
    // the same name: the channel-wide ones by the handle `via`, whatever its
    // kind (R-QUERY-1); a receiver's own counts, unread and missed, by that
    // receiver (R-QUERY-2). A new query row needs no line here.
#define BCAST_PLAIN_QUERY(name) \
    auto name(handle_id via) const { \
        return query_via<call_kind::name>(via, [](const auto& h) { return h.name(); }); \
    }
    BCAST_PLAIN_QUERIES
#undef BCAST_PLAIN_QUERY

    // Handle identity (R-HANDLE-3).
    bool same_channel(handle_id a, handle_id b) const {
        return on(a, [&](const auto& first) { return on(b, [&](const auto& second) { return first.same_channel(second); }); });
    }

    bool is_sender(handle_id id) const { return holds(senders_, id); }
    bool is_receiver(handle_id id) const { return holds(receivers_, id); }
    bool is_inactive_receiver(handle_id id) const { return holds(inactives_, id); }
    bool exists(handle_id id) const { return is_sender(id) || is_receiver(id) || is_inactive_receiver(id); }

    // Direct access, for tests that need the handle itself.
    sender_type& sender_at(handle_id id) { return find(senders_, id)->second; }
    receiver_type& receiver_at(handle_id id) { return find(receivers_, id)->second; }
    const receiver_type& receiver_at(handle_id id) const { return find(receivers_, id)->second; }
    inactive_type& inactive_at(handle_id id) { return find(inactives_, id)->second; }

private:
    // The handle a query of kind K asks: the one its row acts on.
    template <call_kind K, class Query>
    auto query_via(handle_id via, Query query) const {
        if constexpr (operation_of(K).acts_on == handle_kind::receiver) return query(receiver_at(via));
        else return on(via, query);
    }

    template <class Map>
    auto find(Map& handles, handle_id id) const {
        const std::lock_guard lock(handles_mutex_);
        auto found = handles.find(id);
        if (found == handles.end()) throw std::logic_error("bcast::spec::basic_channel_adapter: no such handle");
        return found;
    }
    template <class Map>
    bool holds(const Map& handles, handle_id id) const {
        const std::lock_guard lock(handles_mutex_);
        return handles.count(id) != 0;
    }
    // Unlinks the handle under the lock; the caller destroys or converts it outside.
    template <class Map>
    auto take_out(Map& handles, handle_id id) {
        const std::lock_guard lock(handles_mutex_);
        auto node = handles.extract(id);
        if (node.empty()) throw std::logic_error("bcast::spec::basic_channel_adapter: no such handle");
        return node;
    }
    template <class Map>
    void erase(Map& handles, handle_id id) {
        take_out(handles, id); // the node, and with it the handle, dies here, outside the lock
    }
    template <class Map, class Handle>
    handle_id add(Map& handles, Handle&& handle) {
        const std::lock_guard lock(handles_mutex_);
        handles.emplace(next_id_, std::forward<Handle>(handle));
        return next_id_++;
    }
    template <class Range>
    static std::vector<recv_result<T>> take(Range&& items, std::size_t limit) {
        std::vector<recv_result<T>> taken;
#if BCAST_SPEC_HAS_VIEW_ADAPTORS
        for (auto&& item : std::forward<Range>(items) | std::views::take(static_cast<std::ptrdiff_t>(limit))) {
            taken.push_back(std::move(item));
        }
#else
        // take_view's protocol: the end test before each item, ++ after it, and
        // after the last one the count alone ends the loop (no end test).
        auto it = items.begin();
        for (std::size_t count = 0; count < limit && it != items.end(); ++count, ++it) taken.push_back(std::move(*it));
#endif
        return taken;
    }
    template <class Fn>
    decltype(auto) on(handle_id via, Fn fn) const {
        if (is_sender(via)) return fn(find(senders_, via)->second);
        if (is_receiver(via)) return fn(find(receivers_, via)->second);
        return fn(find(inactives_, via)->second);
    }

    std::map<handle_id, sender_type> senders_;
    std::map<handle_id, receiver_type> receivers_;
    std::map<handle_id, inactive_type> inactives_;
    handle_id next_id_ = 0;
    mutable std::mutex handles_mutex_; // guards the three maps and next_id_, never held during a channel call
};

// The reference channel's handles (bcast/bcast.hpp), under the reference profile.
template <class T, class Primitives>
struct reference_handles {
    using sender_type = sender<T, Primitives>;
    using receiver_type = receiver<T, Primitives>;
    using inactive_type = inactive_receiver<T, Primitives>;
    static auto open(std::size_t capacity) { return channel<T, Primitives>(capacity); }
    static constexpr const conformance_profile& profile = reference_profile;
};

template <class T, class Primitives = std_primitives>
using channel_adapter = basic_channel_adapter<T, reference_handles<T, Primitives>>;

} // namespace bcast::spec
