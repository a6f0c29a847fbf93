// SPDX-License-Identifier: MIT OR Apache-2.0
// The scenario generator: random scenarios from a seed, every scenario of a
// small size class, and the smaller variants of a failing one.
//
// One function, build(), makes a scenario from a sequence of choices (which
// roles the threads have, how many messages are queued, which command comes
// next, ...). Random generation answers each choice from a seeded generator,
// weighted towards the blocking calls; enumeration answers them in every
// possible way, as an odometer over the choice sequence (the technique of
// Hypothesis and SmallCheck). So the random sample and the exhaustive space
// are the same space, and "scenario k of the space" is well defined.
//
// A generated setup: capacity 1..max_capacity, 0..capacity messages queued by
// the first sender, overflow on or off, await_active on or off, then one
// role per thread (sender, receiver, both, inactive receiver, sender and
// inactive receiver), the handles of which the setup makes (clone_sender,
// clone_receiver, deactivate) and hands over. A thread then runs 1..max_steps
// commands valid on the handles it holds at that point, including the ones it
// created itself.
#pragma once

#include <cstdint>
#include <algorithm>
#include <functional>
#include <random>
#include <span>
#include <vector>

#include "scenario.hpp"

namespace bcast::gen {

struct generator_config {
    int min_threads = 2;
    int max_threads = 3;
    int max_steps = 3; // per thread
    int max_capacity = 2;
    bool flags = true;     // setup may turn overflow on / await_active off
    bool lifecycle = true; // threads may clone, drop, deactivate, activate handles and change settings
    bool queries = true;   // threads may ask the queries (len, is_closed, unread, ...)
    bool borrowing = true; // a thread may use one handle object another thread owns (scenario.hpp)
    bool async = true;     // threads may run the async commands (off for a family without them, P-FAST-5)
    // The contention shape (random sampling only): three threads, the first
    // two each start with a blocking call on the same event (senders on a
    // full channel, senders with no active receiver, receivers on an empty
    // one), the third does anything. A wake site that wakes one waiter where
    // it must wake all, or a waiter list that loses or reorders one, shows
    // only with two waiters, which free sampling draws rarely.
    bool two_waiters = false;
};

// Answers the choices build() asks; see the header comment.
class chooser {
public:
    virtual ~chooser() = default;
    // An index into `weights` (weights > 0).
    virtual int pick(std::span<const int> weights) = 0;
    int pick_count(int n) { // 0..n-1, equally likely
        std::vector<int> w(std::size_t(n), 1);
        return pick(w);
    }
};

class random_chooser final : public chooser {
public:
    explicit random_chooser(std::uint64_t seed) : rng_(seed) {}
    int pick(std::span<const int> weights) override {
        std::discrete_distribution<int> d(weights.begin(), weights.end());
        return d(rng_);
    }

private:
    std::mt19937_64 rng_;
};

// Replays a prefix of choices and then takes option 0, recording every choice
// and its number of options, so the caller can step to the next sequence.
class enumerating_chooser final : public chooser {
public:
    std::vector<int> prefix;
    std::vector<std::pair<int, int>> taken; // (choice, options)
    int pick(std::span<const int> weights) override {
        const int n = int(weights.size());
        const int c = taken.size() < prefix.size() ? prefix[taken.size()] : 0;
        taken.emplace_back(c, n);
        return c;
    }
    // The next choice sequence in odometer order; false when all were made.
    bool advance() {
        for (std::size_t j = taken.size(); j-- > 0;) {
            if (taken[j].first + 1 < taken[j].second) {
                prefix.assign(taken.size() > 0 ? j + 1 : 0, 0);
                for (std::size_t i = 0; i < j; ++i) prefix[i] = taken[i].first;
                prefix[j] = taken[j].first + 1;
                taken.clear();
                return true;
            }
        }
        return false;
    }
};

namespace detail {

enum role : int { sends = 1,
                  receives = 2,
                  holds_inactive = 4 };
inline constexpr int roles[] = {sends, receives, sends | receives, holds_inactive, sends | holds_inactive};

struct candidate {
    op what;
    int weight;
    bool lifecycle;
};
// What a thread may do with a handle of each kind, and how often. Blocking
// calls weigh most: they are where wakeups are lost.
inline constexpr candidate sender_ops[] = {
    {op::broadcast, 5, false},
    {op::try_broadcast, 2, false},
    {op::async_broadcast, 4, false},
    {op::broadcast_expired, 1, false},
    {op::async_broadcast_cancelled, 1, false},
    {op::set_capacity, 2, true},
    {op::set_overflow, 1, true},
    {op::set_await_active, 1, true},
    {op::close, 1, true},
    {op::drop_sender, 2, true},
    {op::new_receiver, 1, true},
    {op::clone_sender, 1, true},
    {op::len, 2, false}, // stands for a query: which one is a further choice
};
inline constexpr candidate receiver_ops[] = {
    {op::recv, 5, false},
    {op::try_recv, 2, false},
    {op::async_recv, 4, false},
    {op::recv_expired, 1, false},
    {op::async_recv_cancelled, 1, false},
    {op::drop_receiver, 2, true},
    {op::deactivate, 1, true},
    {op::clone_receiver, 1, true},
    {op::new_sender, 1, true},
    {op::close, 1, true},
    {op::len, 2, false},
};
inline constexpr candidate inactive_ops[] = {
    {op::activate, 2, true},
    {op::activate_cloned, 2, true},
    {op::drop_inactive, 1, true},
    {op::clone_inactive, 1, true},
    {op::len, 1, false},
};

} // namespace detail

inline handle_kind kind_of(int h, std::span<const std::pair<int, handle_kind>> mine,
                           std::span<const std::pair<int, handle_kind>> lent) {
    for (const auto& e : mine)
        if (e.first == h) return e.second;
    for (const auto& e : lent)
        if (e.first == h) return e.second;
    return handle_kind::none;
}

// What the two waiters of the contention shape wait for.
enum class waiting_on : int { nothing = -1,
                              free_slot,       // senders, channel full (R-SEND-3)
                              active_receiver, // senders, no active receiver (R-ACT-2)
                              message };       // receivers, channel empty (R-RECV-4)

// The commands of the third thread in the contention shape that end the wait
// of every waiter at once (weighted up there): one waiter left waiting after
// one of them is a wake site that woke one where it had to wake all.
inline bool wakes_every_waiter(waiting_on event, op what) {
    switch (event) {
    case waiting_on::free_slot: // R-CAP-4, R-OVF-4, R-CLOSE-6, and the last active receiver leaving
        return what == op::set_capacity || what == op::set_overflow || what == op::drop_receiver ||
               what == op::deactivate || what == op::close;
    case waiting_on::active_receiver: // R-LIFE-6, R-ACT-3, R-CLOSE-6
        return what == op::activate || what == op::activate_cloned || what == op::set_await_active ||
               what == op::close || what == op::drop_inactive;
    case waiting_on::message: // R-CLOSE-6, the last sender leaving
        return what == op::close || what == op::drop_sender;
    case waiting_on::nothing: return false;
    }
    return false;
}

// Makes one scenario from the chooser's answers (normalised).
inline scenario build(chooser& c, const generator_config& cfg) {
    using namespace detail;
    scenario s;
    const bool contention = cfg.two_waiters && cfg.max_threads >= 3;
    waiting_on event = waiting_on::nothing;
    if (contention) {
        const int events[] = {3, 1, 2};
        event = waiting_on(c.pick(events));
    }
    s.capacity = 1 + c.pick_count(cfg.max_capacity);
    const int queued = event == waiting_on::free_slot ? s.capacity
                       : event == waiting_on::nothing ? c.pick_count(s.capacity + 1)
                                                      : 0;
    for (int i = 0; i < queued; ++i) s.setup.push_back({op::try_broadcast, 0, 0, -1});
    bool await_off = false;
    if (cfg.flags && event != waiting_on::active_receiver) {
        // none, overflow on, await_active off. Senders on a full channel: never
        // overflow (they would not wait), and await_active off more often, where
        // the last active receiver leaving must wake them all (R-ACT-2).
        const int flags[] = {6, 2, 1};
        const int full_flags[] = {4, 3}; // no overflow option: every option a chooser sees has weight > 0
        const int f = event == waiting_on::free_slot ? 2 * c.pick(full_flags) : c.pick(flags);
        if (f == 1) s.setup.push_back({op::set_overflow, 0, 1, -1});
        if (f == 2) s.setup.push_back({op::set_await_active, 0, 0, -1}), await_off = true;
    }
    const int threads = contention ? 3 : cfg.min_threads + c.pick_count(cfg.max_threads - cfg.min_threads + 1);
    int next_setup = first_logical(setup_context);
    bool sender_taken = false, receiver_taken = false;
    s.threads.resize(std::size_t(threads));
    std::vector<std::vector<std::pair<int, handle_kind>>> held(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) {
        int role = roles[c.pick_count(int(std::size(roles)))];
        if (contention && t < 2) role = event == waiting_on::message ? receives : sends;
        // In the contention shape the third thread has what can end the wait,
        // and keeps the channel open.
        if (contention && t == 2) {
            // Senders on full: it receives, grows, turns overflow on, ...; sometimes
            // it also keeps the channel open with an inactive receiver once the
            // active ones left: then, with await_active off, the senders must all
            // wake and answer `inactive`.
            if (event == waiting_on::free_slot) {
                const int keeps_inactive[] = {await_off ? 1 : 3, await_off ? 3 : 1};
                role = sends | receives | (c.pick(keeps_inactive) == 1 ? holds_inactive : 0);
            }
            if (event == waiting_on::message) role |= sends;
            if (event == waiting_on::active_receiver) role = sends | holds_inactive; // activates, turns await_active off
        }
        auto give = [&](int h, handle_kind k) {
            s.threads[std::size_t(t)].owns.push_back(h);
            held[std::size_t(t)].push_back({h, k});
        };
        if (role & sends) {
            if (!sender_taken) give(0, handle_kind::sender), sender_taken = true;
            else s.setup.push_back({op::clone_sender, 0, 0, -1}), give(next_setup++, handle_kind::sender);
        }
        if (role & receives) {
            if (!receiver_taken) give(1, handle_kind::receiver), receiver_taken = true;
            else s.setup.push_back({op::clone_receiver, 1, 0, -1}), give(next_setup++, handle_kind::receiver);
        }
        if (role & holds_inactive) {
            s.setup.push_back({op::clone_receiver, 1, 0, -1});
            s.setup.push_back({op::deactivate, next_setup++, 0, -1});
            give(next_setup++, handle_kind::inactive);
        }
    }
    // Senders on a full channel of capacity 2 or more: sometimes the third
    // thread also holds a lagging receiver, the only reader left of every
    // queued message (the first receiver read them in the setup), so dropping
    // or deactivating it frees several slots at once: every sender must wake.
    if (event == waiting_on::free_slot && s.capacity >= 2 && threads == 3) {
        const int lagging[] = {1, 1};
        if (c.pick(lagging) == 1) {
            s.setup.push_back({op::clone_receiver, 1, 0, -1});
            s.threads[2].owns.push_back(next_setup);
            held[2].push_back({next_setup++, handle_kind::receiver});
            for (int i = 0; i < queued; ++i) s.setup.push_back({op::try_recv, 1, 0, -1});
        }
    }
    // Borrowing (scenario.hpp): a thread may also use one handle object that
    // an earlier thread owns, through its const methods: two senders on one
    // sender object, a receiver copied while its owner receives.
    std::vector<std::vector<std::pair<int, handle_kind>>> lent(static_cast<std::size_t>(threads));
    for (int t = 1; t < threads && cfg.borrowing; ++t) {
        std::vector<std::pair<int, handle_kind>> others;
        for (int u = 0; u < t; ++u)
            for (const auto& e : held[std::size_t(u)]) others.push_back(e);
        std::vector<int> weights{int(others.size()) * 2}; // option 0: borrow nothing
        weights.resize(others.size() + 1, 1);
        if (const int b = c.pick(weights); b > 0) {
            s.threads[std::size_t(t)].borrows.push_back(others[std::size_t(b - 1)].first);
            lent[std::size_t(t)].push_back(others[std::size_t(b - 1)]);
        }
    }
    auto is_lent = [&lent](int h) {
        for (const auto& l : lent)
            for (const auto& e : l)
                if (e.first == h) return true;
        return false;
    };
    for (int t = 0; t < threads; ++t) {
        auto& mine = held[std::size_t(t)];
        int next = first_logical(t);
        const bool waiter = contention && t < 2;
        const int steps = 1 + c.pick_count(waiter ? std::min(2, cfg.max_steps) : cfg.max_steps);
        for (int i = 0; i < steps; ++i) {
            // Every (handle, operation) this thread may do now.
            std::vector<std::pair<int, op>> options;
            std::vector<int> weights;
            auto offer = [&](int h, handle_kind k, bool borrowed) {
                std::span<const candidate> ops = k == handle_kind::sender     ? std::span<const candidate>(sender_ops)
                                                 : k == handle_kind::receiver ? std::span<const candidate>(receiver_ops)
                                                                              : std::span<const candidate>(inactive_ops);
                for (const candidate& o : ops) {
                    if (o.lifecycle && !cfg.lifecycle) continue;
                    if (o.what == op::len && !cfg.queries) continue;
                    if (is_async(o.what) && !cfg.async) continue;
                    if (creates(o.what) != handle_kind::none && next == end_logical(t)) continue;
                    if (borrowed && !borrowable(o.what, k)) continue;
                    if (!borrowed && consumes(o.what) && is_lent(h)) continue; // a borrower may be using it
                    options.push_back({h, o.what});
                    weights.push_back(o.weight * (contention && t == 2 && wakes_every_waiter(event, o.what) ? 4 : 1));
                }
            };
            for (const auto& [h, k] : mine) offer(h, k, false);
            for (const auto& [h, k] : lent[std::size_t(t)]) offer(h, k, true);
            if (waiter && i == 0) { // the waiter starts with a blocking call on its own handle, plain or async
                std::size_t kept = 0;
                for (std::size_t j = 0; j < options.size(); ++j)
                    if (may_block(options[j].second) && options[j].first == mine.front().first)
                        options[kept] = options[j], weights[kept++] = weights[j];
                options.resize(kept), weights.resize(kept);
            }
            if (options.empty()) break;
            auto [h, what] = options[std::size_t(c.pick(weights))];
            if (what == op::len) { // a query, any of those the handle answers
                const handle_kind k = kind_of(h, mine, lent[std::size_t(t)]);
                std::vector<op> asks;
                for (op q : queries)
                    if (valid_on(q, k)) asks.push_back(q);
                what = asks[std::size_t(c.pick_count(int(asks.size())))];
            }
            step st{what, h, 0, -1};
            if (what == op::set_capacity) { // growth by two or more weighs most: it must wake two waiters (R-CAP-4)
                const int capacities[] = {1, 2, 4};
                st.arg = 1 + c.pick(capacities);
            }
            if (what == op::set_overflow || what == op::set_await_active) st.arg = c.pick_count(2);
            if (what == op::async_recv_cancelled || what == op::async_broadcast_cancelled)
                st.arg = c.pick_count(2); // 1: cancelled before it starts (R-ASYNC-4)
            s.threads[std::size_t(t)].steps.push_back(st);
            if (consumes(what))
                mine.erase(std::find_if(mine.begin(), mine.end(), [h = h](const auto& e) { return e.first == h; }));
            if (creates(what) != handle_kind::none) mine.push_back({next++, creates(what)});
        }
    }
    // An optional teardown: a close after the threads ended, on the first
    // sender or receiver if still alive (normalise() drops it otherwise),
    // then what every scenario ends with (harness.hpp: drop every handle,
    // check every message destroyed once and the history).
    const int teardown[] = {3, 1, 1}; // nothing, close:0, close:1
    if (const int td = c.pick(teardown); td != 0) s.teardown.push_back({op::close, td - 1, 0, -1});
    return normalise(s);
}

inline scenario random_scenario(std::uint64_t seed, const generator_config& cfg) {
    random_chooser c(seed);
    return build(c, cfg);
}

// The configuration random sampling draws scenario `seed` from: the seeds
// take turns, so any run of three consecutive seeds has one of each flavour.
// seed % 3 == 0: `cfg` itself (queries and borrowing as it says); 1: the core
// commands only (no queries, no borrowing: the budget goes to blocking calls
// and handle changes); 2: the core commands in the contention shape.
inline generator_config sampling_config(std::uint64_t seed, generator_config cfg) {
    if (seed % 3 != 0) cfg.queries = false, cfg.borrowing = false;
    if (seed % 3 == 2) cfg.two_waiters = true;
    return cfg;
}

// Calls `visit` with every scenario of the space `cfg` describes, in a fixed
// order; stops early when visit returns false. Returns how many it visited.
inline std::uint64_t enumerate(const generator_config& cfg, const std::function<bool(const scenario&)>& visit) {
    enumerating_chooser c;
    std::uint64_t n = 0;
    do {
        const scenario s = build(c, cfg);
        ++n;
        if (!visit(s)) break;
    } while (c.advance());
    return n;
}

// The scenarios one step smaller than `s`: one thread, one command, one
// owned handle or one unit of capacity less (normalised, distinct, not `s`).
inline std::vector<scenario> smaller_variants(const scenario& s) {
    std::vector<scenario> out;
    auto add = [&](scenario v) {
        v = normalise(v);
        if (v == s || v.threads.empty()) return;
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    };
    // One variant per element of the list `part` picks (the same list in `s`
    // and in its copy), with that element left out.
    auto without_each = [&](auto part) {
        for (std::size_t i = 0; i < part(s).size(); ++i) {
            scenario v = s;
            part(v).erase(part(v).begin() + std::ptrdiff_t(i));
            add(v);
        }
    };
    if (s.threads.size() > 1) without_each([](auto& v) -> auto& { return v.threads; });
    for (std::size_t t = 0; t < s.threads.size(); ++t) without_each([t](auto& v) -> auto& { return v.threads[t].steps; });
    without_each([](auto& v) -> auto& { return v.teardown; });
    without_each([](auto& v) -> auto& { return v.setup; });
    for (std::size_t t = 0; t < s.threads.size(); ++t) without_each([t](auto& v) -> auto& { return v.threads[t].borrows; });
    for (std::size_t t = 0; t < s.threads.size(); ++t) without_each([t](auto& v) -> auto& { return v.threads[t].owns; });
    if (s.capacity > 1) {
        scenario v = s;
        --v.capacity;
        add(v);
    }
    return out;
}

} // namespace bcast::gen
