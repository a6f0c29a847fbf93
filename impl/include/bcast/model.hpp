// The memory-model primitive set the channel is templated over (R-IMPL-1).
//
// The channel's algorithm is written once against a `Model`: a bundle of the
// synchronisation primitives it uses. `std_model` maps them straight onto the
// standard library, so the production build compiles to exactly the code one
// would write with `std::mutex` by hand. A checker build (model_tests/'s
// `relacy_model`) maps the same names onto a deterministic scheduler's types so
// that every access the channel makes becomes a scheduling point. The idea is
// folly's `Atom` template parameter and tokio's loom shim.
//
// What a Model provides (checked by the `channel_model` concept below):
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

// Receiver position policy: a plain integer. All accesses happen under the
// channel mutex, which already orders them; this is upstream's choice.
struct plain_position {
    template <class Model>
    class type {
    public:
        type() = default;
        explicit type(std::uint64_t initial) : pos_(initial) {}
        std::uint64_t load() const noexcept { return pos_.get(); }
        void store(std::uint64_t value) noexcept { pos_.set(value); }

    private:
        typename Model::template var<std::uint64_t> pos_;
    };
};

// Receiver position policy: an atomic with a chosen memory order, the
// alternative measured upstream (async-broadcast PR #70). `Order` names the
// strength: relaxed -> relaxed load/store; acq_rel -> acquire load, release
// store; seq_cst -> seq_cst both. The channel still accesses the position only
// under its mutex, so every order is correct here; what the policy changes is
// the instructions emitted, which is what the benchmark measures.
template <std::memory_order Order>
struct atomic_position {
    static constexpr std::memory_order load_order =
        Order == std::memory_order_acq_rel ? std::memory_order_acquire : Order;
    static constexpr std::memory_order store_order =
        Order == std::memory_order_acq_rel ? std::memory_order_release : Order;

    template <class Model>
    class type {
    public:
        type() = default;
        explicit type(std::uint64_t initial) : pos_(initial) {}
        // Partner: the store below, made by whichever thread owned the receiver
        // before; the order is the policy's experimental variable (see above).
        std::uint64_t load() const noexcept { return pos_.load(load_order); }
        // Partner: the load above, in the receiver's next owner.
        void store(std::uint64_t value) noexcept { pos_.store(value, store_order); }

    private:
        typename Model::template atomic<std::uint64_t> pos_{0};
    };
};

// What a message type must be (R-MSG-4): moving messages inside the channel
// (ring growth, hand-over to the last reader, eviction) cannot fail half-way.
// Copy construction is needed only to receive.
template <class T>
concept message_type = std::is_nothrow_move_constructible_v<T> && std::is_nothrow_destructible_v<T>;

// The standard-library model, parameterised on the position policy.
template <class PositionPolicy = plain_position>
struct basic_std_model {
    using mutex = std::mutex;
    using unique_lock = std::unique_lock<std::mutex>;
    using condition_variable = std::condition_variable;
    template <class U>
    using atomic = std::atomic<U>;
    template <class U>
    using var = detail::std_var<U>;
    using position = typename PositionPolicy::template type<basic_std_model>;
};

// The default: what `bcast::channel<T>(cap)` uses.
using std_model = basic_std_model<plain_position>;

// The atomic-position designs of the position experiment.
using std_atomic_relaxed_model = basic_std_model<atomic_position<std::memory_order_relaxed>>;
using std_atomic_acq_rel_model = basic_std_model<atomic_position<std::memory_order_acq_rel>>;
using std_atomic_seq_cst_model = basic_std_model<atomic_position<std::memory_order_seq_cst>>;

// What the channel requires of a Model.
template <class M>
concept channel_model = requires(typename M::mutex& m, typename M::unique_lock& lock,
                                 typename M::condition_variable& cv,
                                 typename M::template var<std::uint64_t>& v,
                                 typename M::position& pos) {
    { typename M::unique_lock(m) };
    { cv.wait(lock) };
    { cv.wait_until(lock, std::chrono::steady_clock::now()) } -> std::same_as<std::cv_status>;
    { cv.notify_one() };
    { cv.notify_all() };
    { v.get() } -> std::same_as<std::uint64_t>;
    { v.set(std::uint64_t{}) };
    { pos.load() } -> std::same_as<std::uint64_t>;
    { pos.store(std::uint64_t{}) };
};

static_assert(channel_model<std_model>);
static_assert(channel_model<std_atomic_seq_cst_model>);

} // namespace bcast
