// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::spec::model: the executable specification (spec/rules.md).
//
// Single-threaded and deliberately naive: a deque of messages, a map from
// receiver id to position, and sets of the other handles. After every change,
// messages that no active receiver still wants are forgotten. It is meant to be
// correct by reading, not fast; tests run the implementation against it.
//
// Handles are named by ids. Ids are handed out in creation order from one
// counter for all three kinds, starting with the first sender (0) and the first
// receiver (1), so any implementation driven by the same operations assigns the
// same ids (see channel_adapter.hpp).
//
// What the model leaves out, because a single-threaded model cannot show it:
// - waking (R-WAKE-1, R-CAP-4, R-OVF-4, R-ACT-3, R-LIFE-6, R-CLOSE-6): the model
//   instead answers broadcast_would_block() / recv_would_block(); a rule of
//   R-WAKE-1 is "a waiter is woken whenever that answer may have changed";
// - threads (R-THREAD-1) and the implementation's shape (R-IMPL-1, R-IMPL-2,
//   R-IMPL-3);
// - object lifetimes and copies (R-MSG-2, R-MSG-3, R-MSG-4, R-RECV-3): the
//   model copies freely; the implementation's tests count objects;
// - handle objects (R-HANDLE-1, R-HANDLE-2): the model has ids, not objects;
//   and one model object is one channel, so its same_channel (R-HANDLE-3) is
//   true for any two live ids: handles of different channels are the
//   implementation's tests' business;
// - iterators (R-RECV-6): the model answers with the items a receiver's range
//   yields; that the implementation receives each item only when the loop
//   looks at it is what makes its answers equal to these.
// It uses the implementation's error vocabulary (R-ERR-1, R-ERR-2).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include <bcast/errors.hpp>
#include <bcast/result.hpp>

namespace bcast::spec {

using handle_id = std::size_t;

template <class T>
class model {
public:
    static constexpr handle_id first_sender = 0;
    static constexpr handle_id first_receiver = 1;

    // R-CAP-1.
    explicit model(std::size_t capacity) : capacity_(checked(capacity)) {
        senders_.insert(next_id_++);
        positions_[next_id_++] = 0;
    }

    // ---- sending (R-SEND-*, R-OVF-1, R-ACT-*, R-CLOSE-5) -------------------

    // R-SEND-1: closed, then inactive (R-ACT-1), then full or evict (R-OVF-1).
    send_result<T> try_broadcast(handle_id sender, T message) {
        require(senders_.count(sender));
        if (closed_) return failed(send_errc::closed, std::move(message)); // R-CLOSE-5
        if (positions_.empty()) return failed(send_errc::inactive, std::move(message));
        std::optional<T> evicted;
        if (queue_.size() >= capacity_) {
            if (!overflow_) return failed(send_errc::full, std::move(message));
            evicted = std::move(queue_.front()); // R-OVF-1
            queue_.pop_front();
            ++head_pos_;
        }
        queue_.push_back(std::move(message)); // R-SEND-2: every receiver's position is <= the tail
        return send_result<T>(std::move(evicted));
    }

    // Whether a blocking broadcast would wait now (R-SEND-3, R-ACT-2).
    bool broadcast_would_block() const {
        if (closed_) return false;
        if (positions_.empty()) return await_active_;
        return queue_.size() >= capacity_ && !overflow_;
    }

    // A timed broadcast whose time is up when it starts (R-SEND-4): the
    // outcome of try_broadcast, except that a wait becomes timed_out.
    send_result<T> broadcast_expired(handle_id sender, T message) {
        require(senders_.count(sender));
        if (broadcast_would_block()) return failed(send_errc::timed_out, std::move(message));
        return try_broadcast(sender, std::move(message));
    }

    // ---- receiving (R-RECV-*, R-OVF-2, R-CLOSE-5) --------------------------

    // R-RECV-1: overflowed, the next message in sequence order (R-RECV-2),
    // closed (R-CLOSE-5), empty.
    recv_result<T> try_recv(handle_id receiver) {
        std::uint64_t& pos = position_of(receiver);
        if (pos < head_pos_) { // R-OVF-2
            const std::uint64_t missed = head_pos_ - pos;
            pos = head_pos_;
            return recv_result<T>(error_tag, recv_error{recv_errc::overflowed, missed});
        }
        if (pos == tail_pos()) {
            return recv_result<T>(error_tag, recv_error{closed_ ? recv_errc::closed : recv_errc::empty, 0});
        }
        T message = queue_[static_cast<std::size_t>(pos - head_pos_)];
        ++pos;
        forget_read_messages();
        return recv_result<T>(std::move(message));
    }

    // Whether a blocking recv would wait now (R-RECV-4).
    bool recv_would_block(handle_id receiver) const {
        const std::uint64_t pos = positions_.at(receiver);
        return pos == tail_pos() && !closed_;
    }

    // A timed recv whose time is up when it starts (R-RECV-5).
    recv_result<T> recv_expired(handle_id receiver) {
        if (recv_would_block(receiver)) return recv_result<T>(error_tag, recv_error{recv_errc::timed_out, 0});
        return try_recv(receiver);
    }

    // ---- a receiver's messages as a range (R-RECV-6) ------------------------
    // What `for (auto&& m : rx.try_messages() | std::views::take(limit))` and
    // the same over rx.messages() yield: one receive per item, the lag report
    // included; the answer that ends the range (closed, and for try_messages
    // empty) is consumed by the range but not yielded.

    // try_recv() answers until the first `empty` or `closed`, at most `limit`.
    std::vector<recv_result<T>> try_messages(handle_id receiver, std::size_t limit) {
        std::vector<recv_result<T>> items;
        while (items.size() < limit) {
            recv_result<T> got = try_recv(receiver);
            if (ends_a_range(got)) break;
            items.push_back(std::move(got));
        }
        return items;
    }

    // recv() answers until the first `closed`, at most `limit`. Precondition:
    // it cannot block (!messages_would_block(receiver, limit)); the model has
    // no other thread to wait for.
    std::vector<recv_result<T>> messages(handle_id receiver, std::size_t limit) {
        if (messages_would_block(receiver, limit)) {
            throw std::logic_error("bcast::spec::model: messages() would block: nothing to read, channel open");
        }
        return try_messages(receiver, limit); // where recv() cannot block it answers what try_recv() does
    }

    // Whether taking `limit` items of rx.messages() would wait (R-RECV-4): the
    // channel is open and the receiver has fewer items than that, counting a
    // pending lag report as one.
    bool messages_would_block(handle_id receiver, std::size_t limit) const {
        const std::size_t ready = unread(receiver) + (missed(receiver) != 0 ? 1 : 0);
        return !closed_ && limit > ready;
    }

    // ---- handles (R-LIFE-*, R-CLOSE-2, R-CLOSE-3) ---------------------------

    handle_id clone_sender(handle_id sender) {
        require(senders_.count(sender));
        return add_sender();
    }
    handle_id new_sender(handle_id receiver) {
        position_of(receiver);
        return add_sender();
    }
    void drop_sender(handle_id sender) {
        require(senders_.erase(sender));
        if (senders_.empty()) close(); // R-CLOSE-2
    }

    handle_id clone_receiver(handle_id receiver) { // R-LIFE-1
        const std::uint64_t pos = position_of(receiver);
        positions_[next_id_] = pos;
        return next_id_++;
    }
    handle_id new_receiver(handle_id any_sender_or_receiver) { // R-LIFE-2
        require(senders_.count(any_sender_or_receiver) || positions_.count(any_sender_or_receiver));
        return add_receiver_at_tail();
    }
    void drop_receiver(handle_id receiver) { // R-LIFE-3
        require(positions_.erase(receiver));
        forget_read_messages();
        close_if_no_receivers();
    }

    handle_id deactivate(handle_id receiver) { // R-LIFE-4
        const handle_id inactive = add_inactive();
        drop_receiver(receiver);
        return inactive;
    }
    handle_id activate(handle_id inactive) { // R-LIFE-5
        const handle_id receiver = activate_cloned(inactive);
        drop_inactive(inactive);
        return receiver;
    }
    handle_id activate_cloned(handle_id inactive) {
        require(inactives_.count(inactive));
        return add_receiver_at_tail();
    }
    handle_id clone_inactive(handle_id inactive) {
        require(inactives_.count(inactive));
        return add_inactive();
    }
    void drop_inactive(handle_id inactive) {
        require(inactives_.erase(inactive));
        close_if_no_receivers();
    }

    // ---- channel-wide (R-CAP-*, R-OVF-*, R-ACT-*, R-CLOSE-1, R-QUERY-1) ------
    // `via` is the handle the call is made on; any kind will do, and the answer
    // does not depend on which.

    void set_capacity(handle_id via, std::size_t capacity) {
        require(exists(via));
        capacity_ = checked(capacity);  // R-CAP-2: 0 throws before anything changes
        while (queue_.size() > capacity_) { // R-CAP-3
            queue_.pop_front();
            ++head_pos_;
        }
    }
    void set_overflow(handle_id via, bool enabled) { require(exists(via)), overflow_ = enabled; } // R-OVF-3
    void set_await_active(handle_id via, bool enabled) { require(exists(via)), await_active_ = enabled; }
    bool close(handle_id via) { // R-CLOSE-1
        require(exists(via));
        return close();
    }

    std::size_t capacity(handle_id via) const { return require(exists(via)), capacity_; }
    bool overflow(handle_id via) const { return require(exists(via)), overflow_; }
    bool await_active(handle_id via) const { return require(exists(via)), await_active_; }
    bool is_closed(handle_id via) const { return require(exists(via)), closed_; }
    std::size_t len(handle_id via) const { return require(exists(via)), queue_.size(); }
    bool is_empty(handle_id via) const { return require(exists(via)), queue_.empty(); }
    bool is_full(handle_id via) const { return require(exists(via)), queue_.size() == capacity_; } // R-CAP-5
    std::size_t receiver_count(handle_id via) const { return require(exists(via)), positions_.size(); }
    std::size_t inactive_receiver_count(handle_id via) const { return require(exists(via)), inactives_.size(); }
    std::size_t sender_count(handle_id via) const { return require(exists(via)), senders_.size(); }

    bool exists(handle_id id) const { return is_sender(id) || is_receiver(id) || is_inactive_receiver(id); }
    bool is_sender(handle_id id) const { return senders_.count(id) != 0; }
    bool is_receiver(handle_id id) const { return positions_.count(id) != 0; }
    bool is_inactive_receiver(handle_id id) const { return inactives_.count(id) != 0; }

    // ---- a receiver's own counts (R-QUERY-2) ----------------------------------
    // Only active receivers have a position; any other id is a caller error.

    // The queued messages this receiver will still receive: those at or after
    // its position (what it drains after close). Lost ones are not counted.
    std::size_t unread(handle_id receiver) const {
        const std::uint64_t pos = std::max(position_of(receiver), head_pos_);
        return static_cast<std::size_t>(tail_pos() - pos);
    }
    // The n of the overflowed(n) its next receive reports (R-OVF-2), 0 if none.
    std::uint64_t missed(handle_id receiver) const {
        const std::uint64_t pos = position_of(receiver);
        return pos < head_pos_ ? head_pos_ - pos : 0;
    }

    // ---- handle identity (R-HANDLE-3) -----------------------------------------
    // One model object is one channel: any two live handles share it.
    bool same_channel(handle_id a, handle_id b) const { return require(exists(a) && exists(b)), true; }

    // Equal states (queue, positions, handles, settings, id counter): lets the
    // linearizability checker memoise explored states (linearizability.hpp).
    // Needs T to be equality comparable.
    friend bool operator==(const model&, const model&) = default;

private:
    static std::size_t checked(std::size_t capacity) {
        if (capacity == 0) throw std::invalid_argument("bcast: channel capacity must be at least 1");
        return capacity;
    }
    static void require(bool handle_exists) {
        if (!handle_exists) throw std::logic_error("bcast::spec::model: no such handle");
    }
    static send_result<T> failed(send_errc code, T message) { // the message goes back (R-SEND-5)
        return send_result<T>(error_tag, send_error<T>{code, std::move(message)});
    }

    std::uint64_t& position_of(handle_id receiver) {
        auto found = positions_.find(receiver);
        require(found != positions_.end());
        return found->second;
    }
    std::uint64_t position_of(handle_id receiver) const {
        auto found = positions_.find(receiver);
        require(found != positions_.end());
        return found->second;
    }
    // The answers that end a receiver's range (R-RECV-6); recv() never answers empty.
    static bool ends_a_range(const recv_result<T>& got) {
        return !got.has_value() && (got.error().code == recv_errc::closed || got.error().code == recv_errc::empty);
    }
    std::uint64_t tail_pos() const { return head_pos_ + queue_.size(); }

    handle_id add_sender() {
        senders_.insert(next_id_);
        return next_id_++;
    }
    handle_id add_inactive() {
        inactives_.insert(next_id_);
        return next_id_++;
    }
    handle_id add_receiver_at_tail() {
        positions_[next_id_] = tail_pos();
        return next_id_++;
    }

    // R-MSG-1: a message stays queued while some active receiver has not read
    // it, and not a moment longer.
    void forget_read_messages() {
        auto wants_front = [this](const auto& entry) { return entry.second <= head_pos_; };
        while (!queue_.empty() && std::none_of(positions_.begin(), positions_.end(), wants_front)) {
            queue_.pop_front();
            ++head_pos_;
        }
    }

    bool close() {
        const bool was_open = !closed_;
        closed_ = true; // permanent (R-CLOSE-4)
        return was_open;
    }

    void close_if_no_receivers() { // R-CLOSE-3
        if (positions_.empty() && inactives_.empty()) close();
    }

    std::deque<T> queue_;        // queue_[k] has sequence number head_pos_ + k
    std::uint64_t head_pos_ = 0;
    std::size_t capacity_;
    bool overflow_ = false;
    bool await_active_ = true;   // R-ACT-2
    bool closed_ = false;
    std::map<handle_id, std::uint64_t> positions_; // active receivers: next sequence number each wants
    std::set<handle_id> senders_;
    std::set<handle_id> inactives_;
    handle_id next_id_ = 0;
};

} // namespace bcast::spec
