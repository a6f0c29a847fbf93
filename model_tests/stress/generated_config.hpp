// SPDX-License-Identifier: MIT OR Apache-2.0
// A stress round drawn from the scenario generator (model_tests/generator/):
// the generated scenario of a seed, scaled up to real threads and thousands
// of messages.
//
// A generated scenario is a handful of commands for Relacy; a stress round is
// the same shape run for milliseconds on real threads. The mapping keeps what
// the scenario chose and lets the round repeat it:
//   capacity, overflow, await_active   the scenario's setup
//   sender threads                     its threads that send (at least one)
//   receiver threads                   its threads that receive (at least one);
//                                      those that also clone, drop, deactivate
//                                      or activate a receiver churn theirs
//   how the senders send, how the      its send and receive commands: blocking,
//   receivers receive                  try, timed (the *_expired ones) and
//                                      async (inline or through the pool)
//   handle churn                       any handle made or dropped in a thread,
//                                      or an inactive receiver handed to one
//   settings churn                     any set_capacity / set_overflow /
//                                      set_await_active in a thread
// The seed also picks what a scenario cannot say: the number of messages, the
// timeout of the timed calls, inline or pooled resumption.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>

#include "../generator/generator.hpp"
#include "stress_config.hpp"

namespace bcast::stress {

// The stress configuration of generated scenario `s`, seeded with `seed`.
[[nodiscard]] inline stress_config config_from_scenario(const gen::scenario& s, std::uint64_t seed) {
    using gen::op;
    std::mt19937_64 random(seed ^ 0x5ca1ab1e0ddba11ULL);
    stress_config config;
    config.seed = seed;
    config.capacity = static_cast<std::size_t>(s.capacity);
    for (const gen::step& st : s.setup) {
        if (st.what == op::set_overflow) config.overflow = st.arg != 0;
        if (st.what == op::set_await_active) config.await_active = st.arg != 0;
    }
    const bool pooled = random() % 2 == 0; // how an async call is resumed
    const auto kind = pooled ? call_kind::async_pool : call_kind::async_inline;
    std::size_t senders = 0, receivers = 0, churning = 0;
    config.sends.weight = {}, config.receives.weight = {};
    for (const gen::thread_plan& t : s.threads) {
        bool sends = false, receives = false, churns = false;
        for (const gen::step& st : t.steps) {
            switch (st.what) {
            case op::broadcast: ++config.sends.weight[std::size_t(call_kind::blocking)], sends = true; break;
            case op::try_broadcast: ++config.sends.weight[std::size_t(call_kind::try_call)], sends = true; break;
            case op::broadcast_expired: ++config.sends.weight[std::size_t(call_kind::timed)], sends = true; break;
            case op::async_broadcast:
            case op::async_broadcast_cancelled: ++config.sends.weight[std::size_t(kind)], sends = true; break;
            case op::recv: ++config.receives.weight[std::size_t(call_kind::blocking)], receives = true; break;
            case op::try_recv: ++config.receives.weight[std::size_t(call_kind::try_call)], receives = true; break;
            case op::recv_expired: ++config.receives.weight[std::size_t(call_kind::timed)], receives = true; break;
            case op::async_recv:
            case op::async_recv_cancelled: ++config.receives.weight[std::size_t(kind)], receives = true; break;
            case op::clone_receiver:
            case op::drop_receiver:
            case op::deactivate:
            case op::activate:
            case op::activate_cloned: churns = true, config.handle_churn = true; break;
            case op::clone_sender:
            case op::new_sender:
            case op::new_receiver:
            case op::drop_sender:
            case op::drop_inactive:
            case op::clone_inactive: config.handle_churn = true; break;
            case op::set_capacity:
            case op::set_overflow:
            case op::set_await_active: config.settings_churn = true; break;
            default: break; // queries and close: the round asks len() and closes at its end anyway
            }
        }
        senders += sends;
        receivers += receives;
        churning += receives && churns;
    }
    if (config.sends.total() == 0) config.sends.weight[std::size_t(call_kind::blocking)] = 1;
    if (config.receives.total() == 0) config.receives.weight[std::size_t(call_kind::blocking)] = 1;
    config.senders = std::max<std::size_t>(1, senders);
    config.receivers = std::max<std::size_t>(1, receivers);
    config.churning = std::min(churning, config.receivers);
    for (const gen::thread_plan& t : s.threads) // an inactive receiver handed to a thread: spare receivers churn
        for (int h : t.owns)
            for (const gen::step& st : s.setup)
                if (st.what == op::deactivate && st.out == h) config.handle_churn = true;
    config.messages_per_sender = 100 + random() % 2000;
    config.timeout_us = random() % 4 == 0 ? 0 : static_cast<std::uint32_t>(1 + random() % 200);
    return config;
}

// Where round `seed` of the random stress test comes from: an even seed is
// drawn by draw_config() (stress_config.hpp: the larger capacities and up to
// four receiver threads), an odd one from the scenario generator (the seed
// picks the scenario, in the flavours bcast_relacy_generated samples).
[[nodiscard]] inline bool drawn_from_generator(std::uint64_t seed) noexcept { return seed % 2 == 1; }

[[nodiscard]] inline stress_config round_config(std::uint64_t seed, gen::scenario* scenario_out = nullptr) {
    if (!drawn_from_generator(seed)) return draw_config(seed);
    const gen::scenario s = gen::random_scenario(seed, gen::sampling_config(seed, {}));
    if (scenario_out != nullptr) *scenario_out = s;
    return config_from_scenario(s, seed);
}

} // namespace bcast::stress
