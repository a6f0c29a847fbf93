// SPDX-License-Identifier: MIT OR Apache-2.0
// Waiters: the async operations that are suspended inside a channel.
//
// A waiter is a node that lives inside the suspended operation (in practice in
// a coroutine frame), so queueing one allocates nothing (R-ASYNC-2). The
// channel keeps two FIFO lists of them, one of pending receives and one of
// pending sends, linked through the nodes themselves. A waiter is in at most
// one list at a time:
//
//   channel list --(completed under the lock)--> completed list --(after the unlock)--> on_complete()
//
// Everything in a waiter except `on_complete` is guarded by the channel mutex
// while the waiter is queued; `on_complete` is set by the owner before the
// waiter is first offered to the channel and only read after that. Once
// completed a waiter belongs to the thread that runs on_complete(), and after
// that to the operation's owner.
#pragma once

#include <exception>
#include <optional>

#include "../errors.hpp"
#include "../result.hpp"
#include "assert.hpp"

namespace bcast::detail {

struct waiter {
    waiter* prev = nullptr; // links of whichever list holds this waiter
    waiter* next = nullptr;
    bool queued = false;    // in the channel's list right now (the channel mutex guards it)
    // Resumes the suspended operation. Called exactly once per queued waiter,
    // outside the channel lock, by the thread that completed it; the waiter may
    // be destroyed by the time it returns.
    void (*on_complete)(waiter& self) noexcept = nullptr;
};

// An intrusive doubly linked FIFO; it owns nothing.
class waiter_list {
public:
    waiter_list() = default;
    waiter_list(const waiter_list&) = delete;
    waiter_list& operator=(const waiter_list&) = delete;

    bool empty() const noexcept { return head_ == nullptr; }
    waiter* front() const noexcept { return head_; }

    void push_back(waiter& node) noexcept {
        BCAST_ASSERT(node.prev == nullptr && node.next == nullptr && head_ != &node);
        node.prev = tail_;
        if (tail_ != nullptr) tail_->next = &node;
        else head_ = &node;
        tail_ = &node;
    }

    void remove(waiter& node) noexcept {
        if (node.prev != nullptr) node.prev->next = node.next;
        else head_ = node.next;
        if (node.next != nullptr) node.next->prev = node.prev;
        else tail_ = node.prev;
        node.prev = node.next = nullptr;
    }

    waiter* pop_front() noexcept {
        waiter* node = head_;
        if (node != nullptr) remove(*node);
        return node;
    }

private:
    waiter* head_ = nullptr;
    waiter* tail_ = nullptr;
};

// Waiters completed inside one critical section, resumed when the batch is
// destroyed. channel_state fills it under the lock and destroys it after the
// unlock: on_complete() never runs under the channel mutex, and a resumed
// coroutine may use the channel at once (R-ASYNC-3).
class completion_batch {
public:
    completion_batch() = default;
    completion_batch(const completion_batch&) = delete;
    completion_batch& operator=(const completion_batch&) = delete;
    ~completion_batch() {
        while (waiter* node = completed_.pop_front()) node->on_complete(*node); // node may die in there
    }
    void add(waiter& node) noexcept { completed_.push_back(node); }

private:
    waiter_list completed_;
};

// A pending async_recv(): which receiver, and where its answer goes.
template <class T, class Primitives>
struct recv_waiter : waiter {
    typename Primitives::position* pos = nullptr;     // the receiver's position; the receiver outlives the wait
    std::optional<recv_result<T>> result;        // the answer, once completed
    std::exception_ptr failure;                  // a throwing message copy, rethrown to the receiver (R-MSG-3)
    typename Primitives::template var<bool> cancel_requested; // cancel() came before the wait was queued
    typename Primitives::template var<bool> completed;        // written under the lock; read by the owner once resumed
};

// A pending async_broadcast(): the message it still owns and its answer.
template <class T, class Primitives>
struct send_waiter : waiter {
    std::optional<T> message;                    // moved into the queue on success, handed back otherwise (R-SEND-5)
    std::optional<send_result<T>> result;
    typename Primitives::template var<bool> cancel_requested;
    typename Primitives::template var<bool> completed;
};

} // namespace bcast::detail
