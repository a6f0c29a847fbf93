// SPDX-License-Identifier: MIT OR Apache-2.0
// The primitive set bcast::fast is templated over, as the reference channel is
// over bcast::basic_std_primitives (R-IMPL-1): the production build maps it to
// the standard library and the platform, a checker maps the same names onto
// its own types (model_tests/relacy/fast_primitives.hpp), and the channel's
// code is the same in both (docs/fast-design.md, section 8).
//
// What a fast Primitives provides (checked by fast::channel_primitives below):
//   mutex, unique_lock    the lock of senders and rare operations
//   atomic<U>             std::atomic's interface: slots, stamps, flags, the ring pointer
//   var<U>                a plain variable touched only under the lock (get/set)
//   position              a receiver's position (bcast::atomic_position<order>; R-IMPL-2)
//   wait_word             a 32-bit atomic a thread can sleep on
//   wait(w, seen), wait_until(w, seen, deadline) -> bool, wake_all(w)
//   back_off_rounds, pause(round)   the back-off before sleeping: rounds 0 .. back_off_rounds - 1
//   deadline_passed(t)    whether a steady_clock deadline has passed (a checker: never, time is not modelled)
//   fences                light(word) / heavy(word): the asymmetric fence pair (docs/fast-design.md,
//                         section 5); `word` is an atomic<uint64_t> of the channel for a fallback
// There is no thread fence: every ordering is an atomic operation's own, which
// ThreadSanitizer models (it does not model fences).
#pragma once

#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <mutex>
#include <type_traits>

#include "../primitives.hpp"
#include "detail/lock.hpp"
#include "detail/platform.hpp"

namespace bcast::fast {

/// What a message type of bcast::fast must be: a bcast::message_type that is
/// trivially copyable (P-FAST-1 in spec/rules.md). A receiver copies a message
/// out of its slot while a sender may be overwriting it and then checks that
/// the copy is whole (a seqlock, docs/fast-design.md section 4), which only a
/// trivially copyable type allows; the channel then never runs a message's
/// constructor or destructor.
/// @tparam T The candidate message type.
template <class T>
concept message_type = bcast::message_type<T> && std::is_trivially_copyable_v<T>;

/// The position policy of bcast::fast (R-IMPL-2, P-FAST-6): an atomic with
/// release stores and acquire loads; the model checker's primitives
/// (model_tests/relacy/fast_primitives.hpp) take the same default.
using default_position = atomic_position<std::memory_order_acq_rel>;

#if BCAST_HAVE_FUTEX
/// Lock policy of bcast::fast on Linux: bcast's futex lock released by a plain
/// store (detail/lock.hpp; docs/fast-design.md, section 5): one locked
/// instruction per send where bcast::futex_lock has two.
/// @tparam Fences The fence pair of its sleepers: detail::asymmetric_fences
///         (membarrier where the kernel has it) or detail::symmetric_fences.
template <class Fences = detail::asymmetric_fences>
struct store_release_lock {
    using mutex = detail::store_release_mutex<bcast::detail::linux_futex_ops, Fences>; ///< The lock.
};
/// The lock policy of bcast::fast's Primitives on this platform, for a fence policy.
template <class Fences>
using fast_lock = store_release_lock<Fences>;
#else
/// The lock policy of bcast::fast's Primitives on this platform (no futex: the reference's).
template <class Fences>
using fast_lock = default_lock;
#endif

/// The standard-library Primitives of bcast::fast.
///
/// @tparam PositionPolicy The receiver's position (R-IMPL-2): an atomic, since
///         senders read it while its receiver writes it. bcast::atomic_position
///         with acq_rel (release stores, the default), relaxed or seq_cst: the
///         experiment of docs/position-design.md. bcast::plain_position is a
///         data race here (model_tests/relacy shows Relacy's report).
/// @tparam LockPolicy The lock of senders and rare operations:
///         fast_lock<FencePolicy> (store_release_lock on Linux, the default),
///         default_lock (bcast's futex lock on Linux) or std_lock.
/// @tparam FencePolicy detail::asymmetric_fences (membarrier where the kernel
///         has it, the default) or detail::symmetric_fences (a
///         read-modify-write per receive and per send).
template <class PositionPolicy = default_position, class LockPolicy = fast_lock<detail::asymmetric_fences>,
          class FencePolicy = detail::asymmetric_fences>
struct basic_std_primitives {
    using mutex = typename LockPolicy::mutex;    ///< Senders and rare operations.
    using unique_lock = std::unique_lock<mutex>; ///< Scoped lock over `mutex`.
    /// An atomic shared variable. @tparam U The value type.
    template <class U>
    using atomic = std::atomic<U>;
    /// A plain variable touched only under the lock. @tparam U The value type.
    template <class U>
    using var = bcast::detail::std_var<U>;
    using position = typename PositionPolicy::template type<basic_std_primitives>; ///< A receiver's position.
    using wait_word = detail::std_waits::word;                                     ///< A word to sleep on.
    using fences = FencePolicy;                                                    ///< light() and heavy().

    /// Sleeps while `w` holds `seen`; may return spuriously. @param w The word. @param seen Its value before.
    static void wait(wait_word& w, std::uint32_t seen) noexcept { detail::std_waits::wait(w, seen); }
    /// wait() until `deadline`. @param w The word. @param seen Its value before.
    /// @param deadline When to give up. @return False once the deadline has passed.
    static bool wait_until(wait_word& w, std::uint32_t seen, std::chrono::steady_clock::time_point deadline) noexcept {
        return detail::std_waits::wait_until(w, seen, deadline);
    }
    /// Wakes every thread asleep on `w`. @param w The word.
    static void wake_all(wait_word& w) noexcept { detail::std_waits::wake_all(w); }
    /// Whether `deadline` has passed (a waiter then skips its back-off). @param deadline The deadline.
    /// @return steady_clock::now() >= deadline.
    static bool deadline_passed(std::chrono::steady_clock::time_point deadline) noexcept {
        return std::chrono::steady_clock::now() >= deadline;
    }
    /// How many rounds of back-off a waiter polls before it sleeps.
    static constexpr unsigned back_off_rounds = detail::std_waits::back_off_rounds;
    /// One round of back-off (pauses, then yields). @param round 0 .. back_off_rounds - 1.
    static void pause(unsigned round) noexcept { detail::std_waits::pause(round); }
};

/// The default: release position stores, the store-release lock, membarrier where available.
using std_primitives = basic_std_primitives<>;
/// Relaxed position stores, for the position experiment (docs/position-design.md).
using std_relaxed_position_primitives = basic_std_primitives<atomic_position<std::memory_order_relaxed>>;
/// Seq_cst position stores (an `xchg` per receive on x86-64), for the position experiment.
using std_seq_cst_position_primitives = basic_std_primitives<atomic_position<std::memory_order_seq_cst>>;
/// Without membarrier: a read-modify-write per receive and per send (what platforms without it get).
using std_symmetric_fence_primitives =
    basic_std_primitives<default_position, fast_lock<detail::symmetric_fences>, detail::symmetric_fences>;

/// What bcast::fast requires of a Primitives (R-IMPL-1, profile P-FAST). The
/// channel and the handle templates are constrained on it.
/// @tparam M The candidate Primitives.
template <class M>
concept channel_primitives = requires(typename M::mutex& m, typename M::template atomic<std::uint64_t>& a,
                                      typename M::template var<std::uint64_t>& v, typename M::position& pos,
                                      typename M::wait_word& w, const typename M::fences& f, unsigned round) {
    {typename M::unique_lock(m)};
    { a.load(std::memory_order_acquire) } -> std::same_as<std::uint64_t>;
    {a.store(std::uint64_t{}, std::memory_order_release)};
    { v.get() } -> std::same_as<std::uint64_t>;
    {v.set(std::uint64_t{})};
    { pos.load() } -> std::same_as<std::uint64_t>;
    {pos.store(std::uint64_t{})};
    { w.load(std::memory_order_acquire) } -> std::same_as<std::uint32_t>;
    {M::wait(w, std::uint32_t{})};
    { M::wait_until(w, std::uint32_t{}, std::chrono::steady_clock::now()) } -> std::same_as<bool>;
    {M::wake_all(w)};
    { M::back_off_rounds } -> std::convertible_to<unsigned>;
    { M::deadline_passed(std::chrono::steady_clock::now()) } -> std::same_as<bool>;
    {M::pause(round)};
    {f.light(a)};
    {f.heavy(a)};
};

static_assert(channel_primitives<std_primitives>);
static_assert(channel_primitives<std_symmetric_fence_primitives>);

} // namespace bcast::fast
