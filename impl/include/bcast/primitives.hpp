// SPDX-License-Identifier: MIT OR Apache-2.0
// The memory-model primitive set the channel is templated over (R-IMPL-1).
//
// The channel's algorithm is written once against a `Primitives`: a bundle of the
// synchronisation primitives it uses. `std_primitives` maps them straight onto the
// standard library, so the production build compiles to exactly the code one
// would write with `std::mutex` by hand. A checker build (model_tests/'s
// `relacy_primitives`) maps the same names onto a deterministic scheduler's types so
// that every access the channel makes becomes a scheduling point. The idea is
// folly's `Atom` template parameter and tokio's loom shim.
//
// What a Primitives provides (checked by the `channel_primitives` concept below):
//   mutex                 lockable; the one lock that guards a channel's state
//   unique_lock           movable scoped lock over `mutex` (std::unique_lock's interface)
//   condition_variable    wait(unique_lock&), wait_until(unique_lock&, time_point) -> std::cv_status,
//                         notify_one(), notify_all()
//   atomic<U>             std::atomic's interface (load/store/fetch_add with explicit orders)
//   var<U>                a plain shared variable: get(), set(U). It costs nothing in the std build;
//                         a checker uses it to see (and race-check) every access.
//   position              the receiver's read-position representation (a policy, R-IMPL-2)
#pragma once

#include <atomic>
#include <chrono>
#include <concepts>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <type_traits>

#include "detail/futex_condition_variable.hpp"
#include "detail/futex_mutex.hpp"

namespace bcast {

namespace detail {

// A plain variable that is shared between threads but only touched under the
// channel lock. In the std build it is the variable itself: get/set are inline
// and vanish. It exists so a checker model can substitute a traced variable.
template <class U>
class std_var {
public:
    std_var() = default;
    explicit std_var(U initial) : value_(initial) {}
    U get() const noexcept { return value_; }
    void set(U value) noexcept { value_ = value; }

private:
    U value_{};
};

} // namespace detail

/// Receiver position policy (R-IMPL-2): a plain integer, the default.
///
/// The channel reads and writes a position only while holding its mutex,
/// which already orders every access; this is upstream's choice, and the
/// cheapest (docs/position-design.md measures the alternatives).
struct plain_position {
    /// The position stored in a receiver built on `Primitives`.
    ///
    /// @complexity Every member is O(1). @blocking Never.
    /// @threadsafety None of its own: the channel calls load() and store()
    /// only under its mutex (R-THREAD-1).
    /// @tparam Primitives The primitive set, whose `var` holds the integer.
    template <class Primitives>
    class type {
    public:
        /// Position 0. @complexity O(1).
        type() = default;
        /// Position `initial`. @param initial A sequence number.
        explicit type(std::uint64_t initial) : pos_(initial) {}
        /// @return The position. Called under the channel mutex.
        std::uint64_t load() const noexcept { return pos_.get(); }
        /// Sets the position. Called under the channel mutex. @param value A sequence number.
        void store(std::uint64_t value) noexcept { pos_.set(value); }

    private:
        typename Primitives::template var<std::uint64_t> pos_;
    };
};

/// Receiver position policy (R-IMPL-2): an atomic with a chosen memory
/// order, the alternative measured upstream (async-broadcast PR #70).
///
/// `Order` names the strength: relaxed → relaxed load/store; acq_rel →
/// acquire load, release store; seq_cst → seq_cst both. The channel still
/// accesses the position only under its mutex, so every order is correct
/// here; what the policy changes is the instructions emitted, which is what
/// the benchmark measures (docs/position-design.md). It would matter only for
/// a design that reads a position outside the lock
/// (docs/position-question-relacy.md).
/// @tparam Order The memory order family: relaxed, acq_rel or seq_cst.
template <std::memory_order Order>
struct atomic_position {
    /// The order of every position load.
    static constexpr std::memory_order load_order =
        Order == std::memory_order_acq_rel ? std::memory_order_acquire : Order;
    /// The order of every position store.
    static constexpr std::memory_order store_order =
        Order == std::memory_order_acq_rel ? std::memory_order_release : Order;

    /// The position stored in a receiver built on `Primitives`.
    ///
    /// @complexity Every member is O(1). @blocking Never.
    /// @threadsafety Atomic, but the channel still calls load() and store()
    /// only under its mutex; the order is what the benchmark varies.
    /// @tparam Primitives The primitive set, whose `atomic` holds the integer.
    template <class Primitives>
    class type {
    public:
        /// Position 0.
        type() = default;
        /// Position `initial`. @param initial A sequence number.
        explicit type(std::uint64_t initial) : pos_(initial) {}
        // Partner: the store below, made by whichever thread owned the receiver
        // before; the order is the policy's experimental variable (see above).
        /// @return The position, loaded with load_order.
        std::uint64_t load() const noexcept { return pos_.load(load_order); }
        // Partner: the load above, in the receiver's next owner.
        /// Stores the position with store_order. @param value A sequence number.
        void store(std::uint64_t value) noexcept { pos_.store(value, store_order); }

    private:
        typename Primitives::template atomic<std::uint64_t> pos_{0};
    };
};

/// What a message type must be (R-MSG-4): a cv-unqualified object type,
/// nothrow move constructible and nothrow destructible, so that moving
/// messages inside the channel (ring growth, hand-over to the last reader,
/// eviction) cannot fail half-way. Copy construction is needed only to
/// receive (R-RECV-3); the receiving members ask for it themselves.
///
/// An object type, because a slot stores the message itself: a reference
/// satisfies both traits but cannot be stored, and would share the sender's
/// object with every receiver's thread. Not const or volatile, as for the
/// standard containers' element types: the channel moves its messages, and a
/// const one can only be copied. channel() and the handle class templates are
/// constrained on it, so a wrong type is one error where it is first named.
/// @tparam T The candidate message type.
template <class T>
concept message_type = std::is_object_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T> &&
                       std::is_nothrow_move_constructible_v<T> && std::is_nothrow_destructible_v<T>;

/// Lock policy: the standard library's std::mutex and std::condition_variable
/// (glibc's on Linux). A contended lock or a wait goes straight to the kernel;
/// docs/design.md (section 4) measures what that costs when threads outnumber
/// cores. The default where there is no futex, and the "before" row of the
/// benchmark.
struct std_lock {
    using mutex = std::mutex;                           ///< The one lock of a channel.
    using condition_variable = std::condition_variable; ///< Where senders and receivers wait.
};

#if BCAST_HAVE_FUTEX
/// Lock policy: bcast's own lock and condition variable (Linux): an inline
/// uncontended path, bounded back-off, then a futex (detail/futex_mutex.hpp,
/// detail/futex_condition_variable.hpp; docs/design.md, section 4). Annotated
/// for ThreadSanitizer. The default on Linux.
struct futex_lock {
    using mutex = detail::futex_mutex<detail::linux_futex_ops>;                           ///< The one lock of a channel.
    using condition_variable = detail::futex_condition_variable<detail::linux_futex_ops>; ///< Where they wait.
};
/// The lock policy the default Primitives use on this platform.
using default_lock = futex_lock;
#else
/// The lock policy the default Primitives use on this platform.
using default_lock = std_lock;
#endif

/// The standard-library Primitives (R-IMPL-1): the channel compiled on it is the
/// code one would write by hand with a mutex and a condition variable, since
/// `var` vanishes.
/// @tparam PositionPolicy plain_position or an atomic_position (R-IMPL-2).
/// @tparam LockPolicy default_lock (futex_lock on Linux) or std_lock.
template <class PositionPolicy = plain_position, class LockPolicy = default_lock>
struct basic_std_primitives {
    using mutex = typename LockPolicy::mutex;                           ///< The one lock of a channel.
    using unique_lock = std::unique_lock<mutex>;                        ///< Scoped lock; waits release it.
    using condition_variable = typename LockPolicy::condition_variable; ///< Where senders and receivers wait.
    /// An atomic shared variable. @tparam U The value type.
    template <class U>
    using atomic = std::atomic<U>;
    /// A plain shared variable touched only under the lock. @tparam U The value type.
    template <class U>
    using var = detail::std_var<U>;
    using position = typename PositionPolicy::template type<basic_std_primitives>; ///< A receiver's position.
};

/// The default Primitives: what `bcast::channel<T>(cap)` uses.
using std_primitives = basic_std_primitives<plain_position>;

/// An atomic position with relaxed order, for the position experiment.
using std_atomic_relaxed_primitives = basic_std_primitives<atomic_position<std::memory_order_relaxed>>;
/// An atomic position with acquire loads and release stores, for the position experiment.
using std_atomic_acq_rel_primitives = basic_std_primitives<atomic_position<std::memory_order_acq_rel>>;
/// An atomic position with seq_cst order, for the position experiment.
using std_atomic_seq_cst_primitives = basic_std_primitives<atomic_position<std::memory_order_seq_cst>>;

/// What the channel requires of a Primitives (R-IMPL-1): the lock, the condition
/// variable with untimed and timed waits, the traced plain variable and the
/// position. A checker supplies its own types under these names
/// (model_tests/relacy/relacy_primitives.hpp). channel() and the handle class
/// templates are constrained on it.
/// @tparam M The candidate Primitives.
template <class M>
concept channel_primitives = requires(typename M::mutex& m, typename M::unique_lock& lock,
                                      typename M::condition_variable& cv,
                                      typename M::template var<std::uint64_t>& v,
                                      typename M::position& pos) {
    {typename M::unique_lock(m)};
    {cv.wait(lock)};
    { cv.wait_until(lock, std::chrono::steady_clock::now()) } -> std::same_as<std::cv_status>;
    {cv.notify_one()};
    {cv.notify_all()};
    { v.get() } -> std::same_as<std::uint64_t>;
    {v.set(std::uint64_t{})};
    { pos.load() } -> std::same_as<std::uint64_t>;
    {pos.store(std::uint64_t{})};
};

static_assert(channel_primitives<std_primitives>);
static_assert(channel_primitives<basic_std_primitives<plain_position, std_lock>>);
static_assert(channel_primitives<std_atomic_seq_cst_primitives>);

} // namespace bcast
