// SPDX-License-Identifier: MIT OR Apache-2.0
// The queue's storage: a preallocated ring of slots (R-IMPL-3).
//
// Slot k of the queue (k = 0 is the oldest message, sequence number head_pos)
// lives at index (front_index + k) % slots_.size(). A slot holds the message
// and `pending_readers`, the number of active receivers that still have to
// read it. The ring allocates only when the capacity grows beyond what it has
// (set_capacity); in the steady state sending and receiving never allocate.
//
// Not thread-safe: the channel calls it only while holding its mutex.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "../primitives.hpp"
#include "assert.hpp"

namespace bcast::detail {

template <class T, class Primitives>
class slot_ring {
    // Moving messages inside the ring (on growth, and out to the last reader)
    // must not throw, or a failed move would leave a half-moved queue (R-MSG-4).
    static_assert(message_type<T>, "bcast: the message type must be nothrow move constructible and "
                                   "nothrow destructible (R-MSG-4)");

    struct slot {
        // Active receivers that have not read this message yet. Invariant: >= 1
        // while the slot is occupied (a message nobody needs is removed at once,
        // R-MSG-1). `storage` itself is not traced. A receive reads this field
        // before it touches the message, and push_back and grow write it next
        // to theirs; eviction (pop_front in a send), a shrink and ~slot_ring
        // (drop_front) do not, but every access goes through at(), which reads
        // the traced front_index_, and a removal then writes it. So a checker
        // that traces these fields sees a race on a message through them.
        typename Primitives::template var<std::size_t> pending_readers;
        alignas(T) std::byte storage[sizeof(T)];

        T& message() noexcept { return *std::launder(reinterpret_cast<T*>(storage)); }
    };

public:
    explicit slot_ring(std::size_t slot_count) : slots_(std::make_unique<slot[]>(slot_count)), slot_count_(slot_count) {}

    slot_ring(const slot_ring&) = delete;
    slot_ring& operator=(const slot_ring&) = delete;

    ~slot_ring() { // every queued message is destroyed exactly once (R-MSG-2)
        while (size() != 0) drop_front();
    }

    std::size_t size() const noexcept { return size_.get(); }
    std::size_t slot_count() const noexcept { return slot_count_; }

    // Appends a message that `readers` receivers still have to read.
    // Precondition: size() < slot_count(), readers >= 1.
    void push_back(T&& message, std::size_t readers) noexcept {
        BCAST_ASSERT(size() < slot_count_ && readers >= 1);
        slot& target = at(size());
        target.pending_readers.set(readers);
        ::new (static_cast<void*>(target.storage)) T(std::move(message));
        size_.set(size() + 1);
    }

    std::size_t pending_readers(std::size_t index) const noexcept { return at(index).pending_readers.get(); }
    void set_pending_readers(std::size_t index, std::size_t readers) noexcept {
        at(index).pending_readers.set(readers);
    }

    // Precondition: index < size(); the caller has just read pending_readers(index).
    const T& message(std::size_t index) const noexcept { return at(index).message(); }

    // Removes the oldest message and hands it to the caller.
    T pop_front() noexcept {
        BCAST_ASSERT(size() != 0);
        slot& front = at(0);
        T message(std::move(front.message()));
        front.message().~T();
        advance_front();
        return message;
    }

    // Removes and destroys the oldest message.
    void drop_front() noexcept {
        BCAST_ASSERT(size() != 0);
        at(0).message().~T();
        advance_front();
    }

    // Makes room for `slot_count` messages without changing the queue. Strong
    // guarantee: if the allocation throws, nothing changed (R-EXC-1).
    void grow(std::size_t slot_count) {
        if (slot_count <= slot_count_) return;
        auto grown = std::make_unique<slot[]>(slot_count); // may throw: nothing changed yet
        const std::size_t count = size();
        for (std::size_t k = 0; k < count; ++k) {
            slot& from = at(k);
            grown[k].pending_readers.set(from.pending_readers.get());
            ::new (static_cast<void*>(grown[k].storage)) T(std::move(from.message()));
            from.message().~T();
        }
        slots_ = std::move(grown);
        slot_count_ = slot_count;
        front_index_.set(0);
    }

private:
    slot& at(std::size_t index) const noexcept {
        BCAST_ASSERT(index <= size() && index < slot_count_);
        std::size_t physical = front_index_.get() + index;
        if (physical >= slot_count_) physical -= slot_count_; // cheaper than %, and front_index_ < slot_count_
        return slots_[physical];
    }

    void advance_front() noexcept {
        std::size_t next = front_index_.get() + 1;
        front_index_.set(next == slot_count_ ? 0 : next);
        size_.set(size() - 1);
    }

    std::unique_ptr<slot[]> slots_; // replaced only by grow(), under the channel lock
    std::size_t slot_count_;        // slots_'s length; >= the channel's capacity
    typename Primitives::template var<std::size_t> front_index_; // < slot_count_
    typename Primitives::template var<std::size_t> size_;        // queued messages; <= slot_count_
};

} // namespace bcast::detail
