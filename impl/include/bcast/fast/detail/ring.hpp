// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::fast's ring: a power-of-two array of slots, each a stamp and the
// message as atomic 64-bit words, written under the channel lock with the
// seqlock protocol and read without it (docs/fast-design.md, sections 1 and 4).
//
// A slot's stamp says what its words hold: 0 nothing yet; writing_stamp(s)
// message s is being written; evicting_stamp(s) message s is being written by
// a send that has already published its eviction, so it is sent and a reader
// waits for it (state.hpp, attempt_send); written_stamp(s) message s is
// complete. The messages of one slot are s, s + slot_count, ..., so its stamp
// only grows.
// The ring itself never changes size; a growing set_capacity makes a new one.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>

#include "../../detail/assert.hpp"

namespace bcast::fast::detail {

// Stamps (see the top of the file). Sequence numbers stay far below 2^62.
constexpr std::uint64_t writing_stamp(std::uint64_t seq) noexcept { return 4 * seq + 1; }
constexpr std::uint64_t evicting_stamp(std::uint64_t seq) noexcept { return 4 * seq + 2; }
constexpr std::uint64_t written_stamp(std::uint64_t seq) noexcept { return 4 * seq + 3; }

// How a send begins its write: an evicting send publishes its eviction between
// its begin_write and its finish_write, and says so in the stamp.
enum class write_kind { plain,
                        evicting };

// The width of a cache line on the platforms bcast targets; slots and
// receivers' positions get one each, so that a sender writing one slot and
// receivers reading the previous one, or two receivers advancing, do not
// share a line (std::hardware_destructive_interference_size is not stable
// across compiler flags, which g++ warns about).
inline constexpr std::size_t cache_line_bytes = 64;

template <class T, class Primitives>
class ring {
    static_assert(std::is_trivially_copyable_v<T>, "bcast::fast: the message type must be trivially copyable (P-FAST-1)");

    using word = std::uint64_t;
    static constexpr std::size_t word_count = (sizeof(T) + sizeof(word) - 1) / sizeof(word);
    using words = std::array<word, word_count>;

    struct alignas(cache_line_bytes) slot {
        typename Primitives::template atomic<std::uint64_t> stamp{0};
        // The message's bytes. Atomics, because a reader's copy races with a
        // writer by design and is validated afterwards (section 4).
        std::array<typename Primitives::template atomic<word>, word_count> payload{};
    };

public:
    explicit ring(std::size_t slot_count) : slots_(std::make_unique<slot[]>(slot_count)), mask_(slot_count - 1) {
        BCAST_ASSERT(std::has_single_bit(slot_count)); // a power of two: slot = seq & mask_
    }

    std::size_t slot_count() const noexcept { return mask_ + 1; }

    // The slot count for a capacity: the next power of two above it. One slot
    // more than the capacity at least, so that an evicting send never
    // overwrites the slot of the message it evicts (state.hpp, F3).
    static std::size_t slots_for(std::size_t capacity) noexcept { return std::bit_ceil(capacity + 1); }

    // ---- the writer: under the channel lock ------------------------------------

    // Publishes message `seq` in its slot. F3 (state.hpp): no active
    // receiver that does not lag still wants the message it replaces.
    void write(std::uint64_t seq, const T& message) noexcept {
        begin_write(seq, write_kind::plain);
        finish_write(seq, message);
    }

    // The first half of write(): marks the slot as being written. An evicting
    // send stores its eviction ([S1], state.hpp) between the two halves.
    void begin_write(std::uint64_t seq, write_kind kind) noexcept {
        slot& target = at(seq);
        BCAST_ASSERT(target.stamp.load(std::memory_order_relaxed) < writing_stamp(seq)); // stamps only grow
        // [S2] release; partner [R4]: a reader that sees the overwrite begin
        // also sees the eviction stored before it ([S1] of an earlier critical
        // section, state.hpp), and a reader that sees this send's own [S1]
        // sees this stamp, so it waits for the message instead of missing it.
        target.stamp.store(kind == write_kind::evicting ? evicting_stamp(seq) : writing_stamp(seq),
                           std::memory_order_release);
    }

    // The second half: the words, then the stamp that says they are complete.
    void finish_write(std::uint64_t seq, const T& message) noexcept {
        slot& target = at(seq); // begin_write(seq) has marked it
        const words bits = to_words(message);
        // [S3] release; partner the reader's acquire word loads [R5]: a reader
        // whose copy read any word stored here sees [S2] in its re-check [R7].
        // (A release fence before relaxed stores would do the same on fewer
        // instructions on some CPUs; ThreadSanitizer does not model fences,
        // and on x86-64 both are plain stores.)
        for (std::size_t i = 0; i < word_count; ++i) target.payload[i].store(bits[i], std::memory_order_release);
        // [S4] release; partner [R4]: a reader that sees the message complete sees its words.
        target.stamp.store(written_stamp(seq), std::memory_order_release);
    }

    // Message `seq`, read by the lock holder (an eviction, a grow): only
    // lock holders write slots, so the words are stable. Precondition: the
    // slot holds message `seq`.
    T read_stable(std::uint64_t seq) const noexcept {
        const slot& source = at(seq);
        BCAST_ASSERT(source.stamp.load(std::memory_order_relaxed) == written_stamp(seq));
        words bits{};
        // Relaxed: this thread, or an earlier lock holder (ordered by the lock), wrote them.
        for (std::size_t i = 0; i < word_count; ++i) bits[i] = source.payload[i].load(std::memory_order_relaxed);
        return from_words(bits);
    }

    // ---- a reader: without the lock --------------------------------------------

    // What a reader found in message `seq`'s slot.
    enum class found { message,    // `out` holds message seq, copied whole
                       not_yet,    // the slot still holds an older message, or message seq is half written
                       being_sent, // message seq is half written by an evicting send: it is sent, wait for it
                       overwritten // a newer message is (being) written there: the reader lags
    };

    // One optimistic copy of message `seq` ([R4], [R5], [R7]).
    found try_read(std::uint64_t seq, std::optional<T>& out) const noexcept {
        const slot& source = at(seq);
        // [R4] acquire; partners [S4] (the words of message seq are visible)
        // and [S2] (a reader that sees an overwrite sees its eviction).
        const std::uint64_t before = source.stamp.load(std::memory_order_acquire);
        if (before != written_stamp(seq)) {
            if (before > written_stamp(seq)) return found::overwritten;
            return before == evicting_stamp(seq) ? found::being_sent : found::not_yet;
        }
        words bits{};
        // [R5] acquire; partner [S3]: if a word comes from a later message's
        // write, that write's [S2] happens before [R7], which then differs.
        for (std::size_t i = 0; i < word_count; ++i) bits[i] = source.payload[i].load(std::memory_order_acquire);
        // [R7] relaxed: after the copy, since no later load moves above an acquire.
        if (source.stamp.load(std::memory_order_relaxed) != before) return found::overwritten;
        out.emplace(from_words(bits));
        return found::message;
    }

private:
    slot& at(std::uint64_t seq) noexcept { return slots_[static_cast<std::size_t>(seq) & mask_]; }
    const slot& at(std::uint64_t seq) const noexcept { return slots_[static_cast<std::size_t>(seq) & mask_]; }

    static words to_words(const T& message) noexcept {
        words bits{};
        std::memcpy(bits.data(), &message, sizeof(T));
        return bits;
    }
    static T from_words(const words& bits) noexcept {
        std::array<std::byte, sizeof(T)> bytes{};
        std::memcpy(bytes.data(), bits.data(), sizeof(T));
        return std::bit_cast<T>(bytes);
    }

    std::unique_ptr<slot[]> slots_; // never reallocated: a grow makes a new ring
    std::size_t mask_;              // slot_count - 1
};

} // namespace bcast::fast::detail
