// SPDX-License-Identifier: MIT OR Apache-2.0
// The configuration of one round of the random stress test
// (random_stress_tests.cpp), its draw from a seed, and its text.
//
// A round is fully described by a stress_config: the runner takes any value of
// it, so a scenario generator can build configurations itself instead of
// drawing them. The draw uses only std::mt19937_64's raw output (specified by
// the standard, unlike the std:: distributions), so a seed gives the same
// configuration with libstdc++ and libc++. The seed also seeds each thread's
// own choices (which call to make next), so it reproduces the whole round
// except the interleaving.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>

namespace bcast::stress {

// How one send or receive is made. Each call draws its kind from the round's mix.
enum class call_kind : std::uint8_t {
    blocking,     // broadcast() / recv()
    try_call,     // try_broadcast() / try_recv()
    timed,        // broadcast_for() / recv_for() with the round's timeout
    async_inline, // co_await async_broadcast() / async_recv(), resumed by the completing thread
    async_pool,   // the same through a bcast_support::thread_pool
};
inline constexpr std::size_t call_kind_count = 5;

[[nodiscard]] inline const char* to_string(call_kind kind) noexcept {
    switch (kind) {
    case call_kind::blocking: return "blocking";
    case call_kind::try_call: return "try";
    case call_kind::timed: return "timed";
    case call_kind::async_inline: return "async_inline";
    case call_kind::async_pool: return "async_pool";
    }
    return "?";
}

// Relative weights of the call kinds: a call is of kind k with probability
// weight[k] / total(). At least one weight is non-zero.
struct call_mix {
    std::array<unsigned, call_kind_count> weight{1, 0, 0, 0, 0};

    [[nodiscard]] unsigned total() const noexcept {
        unsigned sum = 0;
        for (unsigned w : weight) sum += w;
        return sum;
    }
    [[nodiscard]] bool uses(call_kind kind) const noexcept { return weight[static_cast<std::size_t>(kind)] != 0; }
    // The kind that the random number `r` picks.
    [[nodiscard]] call_kind pick(std::uint64_t r) const noexcept {
        std::uint64_t left = r % total();
        for (std::size_t k = 0; k < call_kind_count; ++k) {
            if (left < weight[k]) return static_cast<call_kind>(k);
            left -= weight[k];
        }
        return call_kind::blocking; // not reached: left < total()
    }
};

struct stress_config {
    std::uint64_t seed = 0;                   // drawn from (draw_config), and seeds each thread's choices
    std::size_t capacity = 4;                 // initial capacity, >= 1
    bool overflow = false;                    // initial overflow mode
    bool await_active = true;                 // initial await_active
    std::size_t senders = 1;                  // sender threads, 1..1000 (the message value encodes the sender)
    std::size_t receivers = 1;                // receiver threads, >= 1, each with a receiver active from the start
    std::size_t churning = 0;                 // how many of them (the last ones) churn their receiver: clone it,
                                              // deactivate and reactivate it, replace it by a new_receiver();
                                              // the others are steady: one receiver, from the start to close
    std::uint64_t messages_per_sender = 1000; // < 1'000'000
    call_mix sends;                           // how the senders send
    call_mix receives;                        // how the receivers receive
    std::uint32_t timeout_us = 50;            // of the timed calls; 0: the deadline has already passed
    bool handle_churn = false;                // a chaos thread copies, creates, deactivates and reactivates spare receivers
    bool settings_churn = false;              // the chaos thread also changes capacity, overflow and await_active mid-run

    // Nothing may be lost: overflow never on, and the capacity never shrinks.
    [[nodiscard]] bool lossless() const noexcept { return !overflow && !settings_churn; }
    // await_active may be off at some point, so a blocking send may answer `inactive`.
    [[nodiscard]] bool await_active_may_be_off() const noexcept { return !await_active || settings_churn; }
    [[nodiscard]] bool has_chaos_thread() const noexcept { return handle_churn || settings_churn; }
    [[nodiscard]] bool uses(call_kind kind) const noexcept { return sends.uses(kind) || receives.uses(kind); }
    [[nodiscard]] std::size_t steady() const noexcept { return receivers - churning; }
};

// The seed of the round after the one drawn from `seed` (splitmix64's step):
// the rounds of a run form a chain, so the seed a round prints is all that is
// needed to start a run at that round.
[[nodiscard]] inline std::uint64_t next_seed(std::uint64_t seed) noexcept {
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

namespace detail {

// Half the time a single kind, so each call path also runs alone; otherwise
// random weights 0..3 (at least one non-zero), so the kinds race each other.
inline call_mix draw_mix(std::mt19937_64& random) {
    call_mix mix;
    if (random() % 2 == 0) {
        mix.weight = {};
        mix.weight[random() % call_kind_count] = 1;
        return mix;
    }
    do {
        for (unsigned& w : mix.weight) w = static_cast<unsigned>(random() % 4);
    } while (mix.total() == 0);
    return mix;
}

} // namespace detail

// The configuration of the round seeded with `seed`. Ranges: capacity 1..5,
// one round in eight 8, 16 or 64; 1-3 senders, 1-4 receiver threads, a third
// of the rounds with some or all of them churning; 100-2099 messages per
// sender (a round lasts milliseconds, so a budget of seconds sees many
// configurations); a third each with handle churn and with settings churn.
[[nodiscard]] inline stress_config draw_config(std::uint64_t seed) {
    std::mt19937_64 random(seed);
    const auto below = [&random](std::uint64_t n) { return random() % n; };
    stress_config config;
    config.seed = seed;
    static constexpr std::size_t larger[] = {8, 16, 64};
    config.capacity = below(8) == 0 ? larger[below(3)] : static_cast<std::size_t>(1 + below(5));
    config.overflow = below(2) == 0;
    config.await_active = below(2) == 0;
    config.senders = static_cast<std::size_t>(1 + below(3));
    config.receivers = static_cast<std::size_t>(1 + below(4));
    config.churning = below(3) == 0 ? static_cast<std::size_t>(1 + below(config.receivers)) : 0;
    config.messages_per_sender = 100 + below(2000);
    config.sends = detail::draw_mix(random);
    config.receives = detail::draw_mix(random);
    config.timeout_us = below(4) == 0 ? 0 : static_cast<std::uint32_t>(1 + below(200));
    config.handle_churn = below(3) == 0;
    config.settings_churn = below(3) == 0;
    return config;
}

[[nodiscard]] inline std::string to_string(const call_mix& mix) {
    std::ostringstream text;
    const char* separator = "";
    for (std::size_t k = 0; k < call_kind_count; ++k) {
        if (mix.weight[k] == 0) continue;
        text << separator << to_string(static_cast<call_kind>(k)) << ':' << mix.weight[k];
        separator = ",";
    }
    return text.str();
}

// One line, key=value, e.g. "seed=0x2a capacity=3 overflow=off ...".
[[nodiscard]] inline std::string to_string(const stress_config& config) {
    const auto on_off = [](bool b) { return b ? "on" : "off"; };
    std::ostringstream text;
    text << "seed=0x" << std::hex << config.seed << std::dec << " capacity=" << config.capacity
         << " overflow=" << on_off(config.overflow) << " await_active=" << on_off(config.await_active)
         << " senders=" << config.senders << " receivers=" << config.receivers << " churning=" << config.churning
         << " messages/sender=" << config.messages_per_sender << " sends=" << to_string(config.sends)
         << " receives=" << to_string(config.receives) << " timeout=" << config.timeout_us << "us"
         << " handle_churn=" << on_off(config.handle_churn) << " settings_churn=" << on_off(config.settings_churn);
    return text.str();
}

} // namespace bcast::stress
