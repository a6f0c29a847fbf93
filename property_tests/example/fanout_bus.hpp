// SPDX-License-Identifier: MIT OR Apache-2.0
// fanout::bus: a stand-in for "an outside implementation" of a broadcast
// channel, written against its own API, as a port from another language or a
// third-party library would be. Nothing here knows about bcast; the adapter
// (fanout_adapter.hpp) maps it onto bcast::spec::broadcast_channel, and
// conformance_example.cpp checks it against the spec with one line. See
// docs/conformance.md.
//
// Design (different from bcast's ring): a deque of messages with sequence
// numbers, a cursor per listener, tokens per kind of handle, status codes
// instead of results. Single-threaded; no blocking calls.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

namespace fanout {

enum class status { ok, full, shut, no_listeners, nothing, lagged };

template <class T>
class bus {
public:
    using token = unsigned;

    // A bus starts with one publisher (token 1) and one listener (token 2).
    explicit bus(std::size_t limit) : limit_(checked(limit)) {
        publishers_ = 1;
        ++next_token_;
        cursors_[next_token_++] = 0;
    }

    // ---- handles ---------------------------------------------------------
    token add_publisher() { return ++publishers_, next_token_++; }
    void remove_publisher() {
        if (--publishers_ == 0) shut_ = true;
    }
    token add_listener() { return cursors_[next_token_] = head_ + queue_.size(), next_token_++; }
    token copy_listener(token of) { return cursors_[next_token_] = cursors_.at(of), next_token_++; }
    void remove_listener(token t) {
        cursors_.erase(t);
        trim();
        shut_if_unheard();
    }
    token add_dormant() { return ++dormant_, next_token_++; }
    void remove_dormant() {
        --dormant_;
        shut_if_unheard();
    }

    // ---- messages ----------------------------------------------------------
    // On ok, `evicted` may hold the oldest message; otherwise `message` is untouched.
    status publish(T& message, std::optional<T>& evicted) {
        if (shut_) return status::shut;
        if (cursors_.empty()) return status::no_listeners;
        if (queue_.size() >= limit_) {
            if (!evicting_) return status::full;
            evicted.emplace(std::move(queue_.front()));
            queue_.pop_front();
            ++head_;
        }
        queue_.push_back(std::move(message));
        return status::ok;
    }

    // ok: `out` holds the next message. lagged: `missed` messages are gone.
    status poll(token listener, std::optional<T>& out, std::uint64_t& missed) {
        std::uint64_t& cursor = cursors_.at(listener);
        if (cursor < head_) {
            missed = head_ - cursor;
            cursor = head_;
            return status::lagged;
        }
        if (cursor == head_ + queue_.size()) return shut_ ? status::shut : status::nothing;
        out.emplace(queue_[cursor - head_]); // may throw: nothing changed yet
        ++cursor;
        trim();
        return status::ok;
    }

    // ---- settings and queries ---------------------------------------------------
    void resize(std::size_t limit) {
        limit_ = checked(limit);
        while (queue_.size() > limit_) queue_.pop_front(), ++head_;
    }
    void set_evicting(bool on) { evicting_ = on; }
    void set_waits_for_listeners(bool on) { waits_ = on; }
    bool shut_down() { return !std::exchange(shut_, true); } // true if this call shut it

    std::size_t size() const { return queue_.size(); }
    std::size_t limit() const { return limit_; }
    bool evicting() const { return evicting_; }
    bool waits_for_listeners() const { return waits_; }
    bool is_shut() const { return shut_; }
    std::size_t listeners() const { return cursors_.size(); }
    // A listener's backlog (queued messages it has not polled) and how many it
    // lost that poll has not reported yet.
    std::size_t backlog(token listener) const {
        return static_cast<std::size_t>(head_ + queue_.size() - std::max(cursors_.at(listener), head_));
    }
    std::uint64_t lost(token listener) const {
        const std::uint64_t cursor = cursors_.at(listener);
        return cursor < head_ ? head_ - cursor : 0;
    }
    std::size_t dormant() const { return dormant_; }
    std::size_t publishers() const { return publishers_; }

private:
    static std::size_t checked(std::size_t limit) {
        if (limit == 0) throw std::invalid_argument("fanout::bus: limit must be at least 1");
        return limit;
    }
    // Forget the messages every listener has read.
    void trim() {
        std::uint64_t lowest = head_ + queue_.size();
        for (const auto& [t, cursor] : cursors_) lowest = std::min(lowest, cursor);
        while (head_ < lowest) queue_.pop_front(), ++head_;
    }
    void shut_if_unheard() {
        if (cursors_.empty() && dormant_ == 0) shut_ = true;
    }

    std::deque<T> queue_;
    std::uint64_t head_ = 0; // sequence number of queue_.front()
    std::size_t limit_;
    std::map<token, std::uint64_t> cursors_;
    std::size_t publishers_ = 0, dormant_ = 0;
    bool evicting_ = false, waits_ = true, shut_ = false;
    token next_token_ = 1;
};

} // namespace fanout
