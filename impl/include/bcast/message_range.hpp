// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::message_range: a receiver's answers as a C++20 input range, what
// receiver::messages() and receiver::try_messages() return (R-RECV-6).
//
// Why a range of recv_result<T> and not of T: upstream's Stream drops
// `Overflowed` and goes on, so a consumer iterating it cannot tell that it
// lost messages; here the lag report is an item of its own.
//
// Why the receive happens when the loop first looks at an item (comparison
// with the end or operator*), not in operator++: an input range's ++ comes
// before the end test, so an eager ++ would make `views::take(n)` receive an
// (n+1)-th message it then throws away, and on messages() wait for it. Lazily,
// the n-th ++ only forgets the n-th item and take's count ends the loop.
#pragma once

#include <concepts>
#include <cstddef>
#include <iterator>
#include <optional>
#include <ranges>
#include <utility>

#include "detail/assert.hpp"
#include "errors.hpp"
#include "fwd.hpp"
#include "result.hpp"

namespace bcast {

/// A receiver's answers as a C++20 input range (a view): what
/// receiver::messages() (`Blocking`: each item is a recv()) and
/// receiver::try_messages() (each item is a try_recv()) return (R-RECV-6).
///
/// Each item is one `recv_result<T>`: a message, or an `overflowed(n)` report
/// when the receiver lagged (R-OVF-2), which is yielded, never skipped. The
/// range ends at the answer `closed` (the channel is closed and this receiver
/// has drained it, R-CLOSE-5), and the non-blocking one also at `empty`; that
/// answer is not yielded. An item is received when the iteration first looks
/// at it (comparing the iterator with the end, or `*`), so
/// `rx.messages() | std::views::take(n)` receives exactly n items and never
/// waits for an (n+1)-th. Incrementing past an item that was not looked at
/// receives it and drops it (as `std::views::drop` does). Once ended, the range
/// stays ended; call messages() again for a new one.
///
/// ```cpp
/// for (auto&& item : rx.messages()) {      // blocks in recv(); ends at close
///     if (item) use(*item);
///     else report_gap(item.error().missed); // the only error an item can hold
/// }
/// ```
///
/// @contract The range refers to its receiver, which must outlive it and must
/// not be moved or used otherwise while an iteration is going on. The current
/// item lives in the range: `*it` is a reference to it, valid until the next
/// `++it`, and may be moved from.
/// @exception A receive that throws (a copy of the message, R-MSG-3) throws
/// out of the comparison or `*`, and nothing is received: the next look
/// retries the same message.
/// @complexity Each item costs one receive.
/// @blocking The blocking range waits in recv() when the loop looks at an item
/// and there is none yet (R-RECV-4); the other never waits.
/// @threadsafety As the receiver: one user at a time (R-THREAD-1).
///
/// @tparam T        The message type.
/// @tparam Primitives The primitive set (R-IMPL-1).
/// @tparam Blocking Whether each item is a recv() (messages()) or a try_recv()
///                  (try_messages()).
/// @tparam Receiver The receiver type the items come from: bcast::receiver, or
///                  bcast::fast::receiver (whose messages() returns this range too).
template <class T, class Primitives, bool Blocking, class Receiver = receiver<T, Primitives>>
class message_range : public std::ranges::view_base {
public:
    /// The receiver the items come from.
    using receiver_type = Receiver;

    /// The range's input iterator; its end is `std::default_sentinel`.
    class iterator {
    public:
        /// Single pass: each item is received once.
        using iterator_concept = std::input_iterator_tag;
        /// What the range yields.
        using value_type = recv_result<T>;
        /// Required of every iterator; never used to measure this range.
        using difference_type = std::ptrdiff_t;

        /// An iterator of no range; only for assignment.
        iterator() = default;

        /// The current item, received now if it was not yet. Precondition: not
        /// at the end.
        /// @exception As receiver::recv() or receiver::try_recv() (R-MSG-3).
        /// @return The item: a message or an `overflowed(n)` report.
        value_type& operator*() const { return range_->current(); }
        /// Moves past the current item, which is received and dropped first if
        /// it was not looked at.
        /// @return `*this`.
        iterator& operator++() {
            range_->advance();
            return *this;
        }
        /// As the prefix form; an input iterator's postfix increment returns nothing.
        void operator++(int) { ++*this; }

        /// Whether the range has ended; looks at the current item, receiving it
        /// if it was not yet.
        /// @exception As operator*().
        /// @param it The iterator.
        /// @return True once the receive that would give the next item answered
        ///         `closed` (or, for try_messages(), `empty`).
        friend bool operator==(const iterator& it, std::default_sentinel_t) { return it.at_end(); }

    private:
        friend class message_range;
        explicit iterator(message_range& range) noexcept : range_(&range) {}
        bool at_end() const { return !range_->look(); } // a member: the friend above has no access to the range
        message_range* range_ = nullptr;
    };

    /// An empty range, of no receiver.
    message_range() = default;
    /// The range of `rx`'s items; receiver::messages() and
    /// receiver::try_messages() make it.
    /// @param rx The receiver; must outlive the range.
    explicit message_range(receiver_type& rx) noexcept : rx_(&rx) {}
    /// Takes over `other`'s receiver and current item; `other` becomes empty.
    /// @param other The range to move from.
    message_range(message_range&& other) noexcept
        : rx_(std::exchange(other.rx_, nullptr)), current_(std::move(other.current_)), ended_(other.ended_) {
        other.current_.reset();
    }
    /// Drops this range's current item, then takes over `other`'s; `other`
    /// becomes empty. Needs only T's move constructor.
    /// @param other The range to move from.
    /// @return `*this`.
    message_range& operator=(message_range&& other) noexcept {
        if (this != &other) {
            rx_ = std::exchange(other.rx_, nullptr);
            current_.reset();
            if (other.current_) current_.emplace(std::move(*other.current_));
            other.current_.reset();
            ended_ = other.ended_;
        }
        return *this;
    }
    message_range(const message_range&) = delete;            ///< One pass, one owner of the current item.
    message_range& operator=(const message_range&) = delete; ///< One pass, one owner of the current item.
    /// Destroys the current item, if any; the receiver is unaffected.
    ~message_range() = default;

    /// The iterator at the current item. Receives nothing by itself.
    /// @return An iterator into this range.
    iterator begin() noexcept { return iterator(*this); }
    /// The end.
    /// @return `std::default_sentinel`.
    std::default_sentinel_t end() const noexcept { return std::default_sentinel; }

private:
    // Receives the current item if it is not here yet; false if the range
    // ended (then it stays ended: `closed` is permanent, and a try_messages()
    // pass that met `empty` is over).
    bool look() {
        if (current_) return true;
        if (ended_ || rx_ == nullptr) return false;
        recv_result<T> got = receive(); // may throw: then nothing changed (R-MSG-3)
        if (!got.has_value() && (got.error().code == recv_errc::closed || got.error().code == recv_errc::empty)) {
            ended_ = true;
            return false;
        }
        current_.emplace(std::move(got));
        return true;
    }
    recv_result<T> receive() {
        if constexpr (Blocking) {
            return rx_->recv();
        } else {
            return rx_->try_recv();
        }
    }
    recv_result<T>& current() {
        [[maybe_unused]] const bool here = look();
        BCAST_ASSERT(here); // dereferencing the end
        return *current_;
    }
    void advance() {
        if (!current_) look(); // ++ without a look skips one item: it is received and dropped
        current_.reset();
    }

    receiver_type* rx_ = nullptr;
    std::optional<recv_result<T>> current_; // received, not yet advanced past
    bool ended_ = false;
};

// What R-RECV-6 promises of the types, checked with every include: input
// ranges and views, so range-for, std::views::take and the other adaptors
// take them; single pass, so nothing pretends an item can be read twice.
static_assert(std::ranges::input_range<message_range<int, std_primitives, true>>);
static_assert(std::ranges::view<message_range<int, std_primitives, true>>);
static_assert(!std::ranges::forward_range<message_range<int, std_primitives, true>>);
static_assert(std::ranges::input_range<message_range<int, std_primitives, false>>);
static_assert(std::ranges::view<message_range<int, std_primitives, false>>);
static_assert(std::same_as<std::ranges::range_reference_t<message_range<int, std_primitives, true>>, recv_result<int>&>);

} // namespace bcast
