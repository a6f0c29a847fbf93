// SPDX-License-Identifier: MIT OR Apache-2.0
// Running traces: one step on anything with bcast::spec::model's interface
// (the model itself, or spec::channel_adapter over a real channel), the
// handles a trace has alive, and the generator that makes traces from the
// property profiles by running the model (docs/traces.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <bcast/errors.hpp>
#include <bcast/result.hpp>
#include <bcast/spec/model.hpp>
#include <bcast/spec/queries.hpp>
#include <bcast_prop/commands.hpp>
#include <bcast_prop/profiles.hpp>

#include "format.hpp"

namespace bcast::trace {

// ---- results as JSON (docs/traces.md, "Results") -------------------------------

inline const char* name_of(send_errc code) {
    switch (code) {
    case send_errc::full: return "full";
    case send_errc::closed: return "closed";
    case send_errc::inactive: return "inactive";
    case send_errc::timed_out: return "timed_out";
    case send_errc::cancelled: return "cancelled";
    }
    return "unknown";
}

inline const char* name_of(recv_errc code) {
    switch (code) {
    case recv_errc::empty: return "empty";
    case recv_errc::closed: return "closed";
    case recv_errc::overflowed: return "overflowed";
    case recv_errc::timed_out: return "timed_out";
    case recv_errc::cancelled: return "cancelled";
    }
    return "unknown";
}

inline json ok() { return json(json_object{{"ok", json(true)}}); }
inline json value_result(json v) { return json(json_object{{"value", std::move(v)}}); }
// A query's answer: a flag as true / false, a count as a number.
template <class Answer>
json answer(Answer a) {
    if constexpr (std::is_same_v<Answer, bool>) return json(a);
    else return json(std::uint64_t{a});
}
inline json unsupported() { return json(json_object{{"unsupported", json(true)}}); }
inline json blocked() { return json(json_object{{"blocked", json(true)}}); }
inline bool is_unsupported(const json& r) { return r == unsupported(); }

inline json to_json(const send_result<int>& r) {
    if (r.has_value()) {
        if (!*r) return ok();
        return json(json_object{{"ok", json(true)}, {"evicted", json(**r)}});
    }
    return json(json_object{{"error", json(name_of(r.error().code))}, {"message", json(r.error().message)}});
}

inline json to_json(const recv_result<int>& r) {
    if (r.has_value()) return json(json_object{{"ok", json(true)}, {"message", json(*r)}});
    if (r.error().code == recv_errc::overflowed) {
        return json(json_object{{"error", json("overflowed")}, {"missed", json(r.error().missed)}});
    }
    return json(json_object{{"error", json(name_of(r.error().code))}});
}

// ---- the handles a trace has alive ------------------------------------------------
//
// Kept from the steps themselves, so a replayer can refuse a step on a handle
// that does not exist, or of the wrong kind, before it calls anything.

enum class live_kind { sender,
                       receiver,
                       inactive };

class handle_table {
public:
    handle_table() { live_ = {{0, live_kind::sender}, {1, live_kind::receiver}}; }

    // "" if the step may run now, else why not.
    std::string problem(const step& s) const {
        const auto found = live_.find(s.handle);
        if (found == live_.end()) return "handle " + std::to_string(s.handle) + " does not exist (never made, or dropped)";
        if (!fits(found->second, s.op->on)) {
            return "handle " + std::to_string(s.handle) + " is " + article(found->second) + "; \"" + std::string(s.op->name) +
                   "\" needs " + wanted(s.op->on);
        }
        if (s.made && live_.count(*s.made) != 0) return "\"new\" names handle " + std::to_string(*s.made) + ", which is alive";
        if (s.op->arg == arg_kind::handle && live_.count(static_cast<std::uint64_t>(s.arg.as_int())) == 0) {
            return "\"arg\" names handle " + std::to_string(s.arg.as_int()) + ", which does not exist";
        }
        return {};
    }

    // After the step ran.
    void apply(const step& s) {
        const std::string_view op = s.op->name;
        if (op == "drop_sender" || op == "drop_receiver" || op == "drop_inactive" || op == "deactivate" || op == "activate") {
            live_.erase(s.handle);
        }
        if (!s.made) return;
        if (op == "new_sender" || op == "clone_sender") live_[*s.made] = live_kind::sender;
        else if (op == "deactivate" || op == "clone_inactive") live_[*s.made] = live_kind::inactive;
        else live_[*s.made] = live_kind::receiver;
    }

    // The live ids of handles an operation may be called on, in id order.
    std::vector<std::uint64_t> candidates(handle_kind on) const {
        std::vector<std::uint64_t> ids;
        for (const auto& [id, kind] : live_) {
            if (fits(kind, on)) ids.push_back(id);
        }
        return ids;
    }

private:
    static bool fits(live_kind k, handle_kind on) {
        switch (on) {
        case handle_kind::sender: return k == live_kind::sender;
        case handle_kind::receiver: return k == live_kind::receiver;
        case handle_kind::inactive: return k == live_kind::inactive;
        case handle_kind::sender_or_receiver: return k != live_kind::inactive;
        case handle_kind::any: return true;
        case handle_kind::none: return false;
        }
        return false;
    }
    static std::string article(live_kind k) {
        return k == live_kind::sender ? "a sender" : k == live_kind::receiver ? "a receiver"
                                                                              : "an inactive receiver";
    }
    static std::string wanted(handle_kind on) {
        switch (on) {
        case handle_kind::sender: return "a sender";
        case handle_kind::receiver: return "a receiver";
        case handle_kind::inactive: return "an inactive receiver";
        case handle_kind::sender_or_receiver: return "a sender or a receiver";
        case handle_kind::any: return "a handle";
        case handle_kind::none: return "no handle";
        }
        return "a handle";
    }

    std::map<std::uint64_t, live_kind> live_;
};

// ---- one step ----------------------------------------------------------------------
//
// `Impl` has spec::model<int>'s interface (spec/conformance.hpp); `id` maps the
// trace's handle ids to Impl's. Returns the step's result and, for a step that
// makes a handle, records Impl's id of it under the trace's "new" id.
//
// The blocking calls: the model has none (a trace has them only where the
// model says they cannot block, and there they answer what try_* does). On a
// real channel they run as broadcast_for / recv_for with `block_bound`, so a
// trace that does make them wait ends in `{"blocked":true}`, never in a hang.

template <class Impl>
class step_runner {
public:
    explicit step_runner(Impl& impl, std::chrono::milliseconds block_bound = std::chrono::seconds(5))
        : impl_(impl), bound_(block_bound) {
        ids_ = {{0, 0}, {1, 1}};
    }

    json run(const step& s) {
        const spec::handle_id h = ids_.at(s.handle);
        const int message = s.message ? static_cast<int>(*s.message) : 0;
        using spec::call_kind;
        switch (s.op->kind) {
        case call_kind::try_broadcast: return to_json(impl_.try_broadcast(h, message));
        case call_kind::broadcast: return broadcast(h, message);
        case call_kind::broadcast_expired: return to_json(impl_.broadcast_expired(h, message));
        case call_kind::try_recv: return to_json(impl_.try_recv(h));
        case call_kind::recv: return recv(h);
        case call_kind::recv_expired: return to_json(impl_.recv_expired(h));
        case call_kind::clone_receiver: return made(s, impl_.clone_receiver(h));
        case call_kind::new_receiver: return made(s, impl_.new_receiver(h));
        case call_kind::new_sender: return made(s, impl_.new_sender(h));
        case call_kind::clone_sender: return made(s, impl_.clone_sender(h));
        case call_kind::drop_sender: return impl_.drop_sender(h), ok();
        case call_kind::drop_receiver: return impl_.drop_receiver(h), ok();
        case call_kind::drop_inactive: return impl_.drop_inactive(h), ok();
        case call_kind::deactivate: return made(s, impl_.deactivate(h));
        case call_kind::activate: return made(s, impl_.activate(h));
        case call_kind::activate_cloned: return made(s, impl_.activate_cloned(h));
        case call_kind::clone_inactive: return made(s, impl_.clone_inactive(h));
        case call_kind::set_capacity:
            try {
                impl_.set_capacity(h, static_cast<std::size_t>(s.arg.as_int()));
            } catch (const std::invalid_argument&) { // R-CAP-2
                return json(json_object{{"error", json("invalid_argument")}});
            }
            return ok();
        case call_kind::set_overflow: return impl_.set_overflow(h, s.arg.as_bool()), ok();
        case call_kind::set_await_active: return impl_.set_await_active(h, s.arg.as_bool()), ok();
        case call_kind::close: return value_result(json(impl_.close(h)));
#define BCAST_PLAIN_QUERY(name) \
    case call_kind::name: return value_result(answer(impl_.name(h)));
            BCAST_PLAIN_QUERIES
#undef BCAST_PLAIN_QUERY
        case call_kind::same_channel:
            return value_result(json(impl_.same_channel(h, ids_.at(static_cast<std::uint64_t>(s.arg.as_int())))));
        case call_kind::broadcast_timed: // not in the trace language (in_trace_language): histories only
        case call_kind::recv_timed: break;
        }
        throw std::logic_error("bcast::trace::step_runner: no case for \"" + std::string(s.op->name) + "\"");
    }

private:
    json made(const step& s, spec::handle_id impl_id) {
        ids_[*s.made] = impl_id;
        return ok();
    }

    json broadcast(spec::handle_id h, int message) {
        if constexpr (requires { impl_.sender_at(h).broadcast_for(message, bound_); }) {
            const send_result<int> r = impl_.sender_at(h).broadcast_for(message, bound_);
            if (!r.has_value() && r.error().code == send_errc::timed_out) return blocked();
            return to_json(r);
        } else {
            return to_json(impl_.try_broadcast(h, message)); // the model: where it cannot block
        }
    }

    json recv(spec::handle_id h) {
        if constexpr (requires { impl_.receiver_at(h).recv_for(bound_); }) {
            const recv_result<int> r = impl_.receiver_at(h).recv_for(bound_);
            if (!r.has_value() && r.error().code == recv_errc::timed_out) return blocked();
            return to_json(r);
        } else {
            return to_json(impl_.try_recv(h));
        }
    }

    Impl& impl_;
    std::chrono::milliseconds bound_;
    std::map<std::uint64_t, spec::handle_id> ids_;
};

// ---- the model's results for a list of steps ----------------------------------------
//
// Runs `steps` (op, handle, new, message, arg; results ignored) on a fresh
// model and fills in the model's results, renumbering handles in creation
// order. nullopt if the steps are not a valid trace: a step names a handle
// that is not alive (or of the wrong kind), or a blocking step would block.
// The generator and the minimiser (check.hpp) both make traces this way.

inline std::optional<trace> resolve(trace t) {
    spec::model<int> model(t.capacity);
    step_runner<spec::model<int>> runner(model);
    handle_table table;
    std::map<std::uint64_t, std::uint64_t> renumber{{0, 0}, {1, 1}};
    std::uint64_t next_id = 2;
    for (std::size_t i = 0; i < t.steps.size(); ++i) {
        step& s = t.steps[i];
        s.index = i;
        const auto mapped = renumber.find(s.handle);
        if (mapped == renumber.end()) return std::nullopt;
        s.handle = mapped->second;
        if (s.op->arg == arg_kind::handle) {
            const auto other = renumber.find(static_cast<std::uint64_t>(s.arg.as_int()));
            if (other == renumber.end()) return std::nullopt;
            s.arg = json(other->second);
        }
        if (s.made) {
            renumber[*s.made] = next_id;
            s.made = next_id++;
        }
        if (!table.problem(s).empty()) return std::nullopt;
        const spec::handle_id h = s.handle;
        if (s.op->kind == spec::call_kind::broadcast && model.broadcast_would_block()) return std::nullopt;
        if (s.op->kind == spec::call_kind::recv && model.recv_would_block(h)) return std::nullopt;
        s.result = runner.run(s);
        table.apply(s);
    }
    return t;
}

// ---- generating ---------------------------------------------------------------------

struct generate_options {
    std::uint64_t seed = 1;
    std::size_t count = 100;
    std::string target{target_bcast};
    std::vector<std::string> profiles; // empty: every profile of bcast_prop/profiles.hpp, in turn
    std::size_t max_steps = 40;        // commands drawn per trace (the profile's prefix comes on top)
};

namespace detail {

// The trace operation a command of the property language stands for, or ""
// where it has none: what only C++ can run (async forms stand for their
// blocking calls, R-ASYNC-1; a throwing copy for a plain try_recv), and for
// async-broadcast none of bcast's extensions.
inline std::string_view trace_op_of(prop::op o, bool upstream) {
    using prop::op;
    switch (o) {
    case op::recv_throwing: return "try_recv";
    case op::async_recv: return "recv";
    case op::async_broadcast: return "broadcast";
    case op::create:
    case op::async_recv_cancelled:
    case op::async_broadcast_cancelled:
    case op::try_messages:
    case op::messages: return "";
    default: break;
    }
    const op_info* info = find_op(prop::name_of(o));
    if (info == nullptr || (upstream && info->extension)) return "";
    return info->name;
}

} // namespace detail

// The profile names generate() knows.
inline std::vector<std::string> profile_names() {
    std::vector<std::string> names;
    for (const auto& named : prop::suite::named_profiles) names.emplace_back(named.name);
    return names;
}

// Trace `id` of a generation: the same seed and id always give the same trace.
inline trace generate_one(const generate_options& options, std::uint64_t id) {
    const std::vector<std::string> names = options.profiles.empty() ? profile_names() : options.profiles;
    const std::string& name = names[id % names.size()];
    const prop::suite::named_profile* named = nullptr;
    for (const auto& p : prop::suite::named_profiles) {
        if (p.name == name) named = &p;
    }
    if (named == nullptr) throw std::invalid_argument("unknown profile \"" + name + "\"");
    const prop::suite::profile profile = named->make();
    const bool upstream = options.target == target_upstream;

    std::seed_seq seeds{static_cast<std::uint32_t>(options.seed), static_cast<std::uint32_t>(options.seed >> 32),
                        static_cast<std::uint32_t>(id), static_cast<std::uint32_t>(id >> 32)};
    std::mt19937_64 rng(seeds);
    auto below = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };

    std::vector<prop::op> pool;
    for (const auto& [weight, what] : profile.weights) pool.insert(pool.end(), weight, what);
    std::vector<prop::command> commands = profile.prefix;
    const std::size_t length = 1 + below(options.max_steps);
    for (std::size_t i = 0; i < length; ++i) {
        commands.push_back(prop::command{pool[below(pool.size())], static_cast<std::uint8_t>(below(8)),
                                         static_cast<std::uint8_t>(below(8))});
    }

    trace t;
    t.id = id;
    t.capacity = 1 + below(prop::max_capacity);
    t.profile = name;
    t.target = options.target;
    spec::model<int> model(t.capacity);
    step_runner<spec::model<int>> runner(model);
    handle_table table;
    std::uint64_t next_id = 2;
    std::int64_t next_message = 0;
    for (const prop::command& c : commands) {
        std::string_view op = detail::trace_op_of(c.what, upstream);
        if (op.empty()) continue;
        step s;
        s.op = find_op(op);
        const std::vector<std::uint64_t> ids = table.candidates(s.op->on);
        if (ids.empty()) continue;
        s.handle = ids[c.a % ids.size()];
        // Blocking calls only where they cannot block; elsewhere bcast's traces
        // use the timed form with no time left, async-broadcast's leave them out.
        if ((op == "broadcast" && model.broadcast_would_block()) || (op == "recv" && model.recv_would_block(s.handle))) {
            if (upstream) continue;
            s.op = find_op(op == "broadcast" ? "broadcast_expired" : "recv_expired");
        }
        if (s.op->makes_handle) s.made = next_id++;
        if (s.op->sends) s.message = next_message++;
        switch (s.op->arg) {
        case arg_kind::none: break;
        case arg_kind::capacity: // 0 (R-CAP-2) now and then, not a quarter of the time as in the property tests
            s.arg = json(std::uint64_t{below(16) == 0 ? 0 : 1 + c.b % prop::max_capacity});
            break;
        case arg_kind::flag: s.arg = json((c.b & 1) != 0); break;
        case arg_kind::handle: {
            const std::vector<std::uint64_t> any = table.candidates(handle_kind::any);
            s.arg = json(any[c.b % any.size()]);
            break;
        }
        }
        s.index = t.steps.size();
        s.result = runner.run(s);
        table.apply(s);
        t.steps.push_back(std::move(s));
    }
    return t;
}

inline std::vector<trace> generate(const generate_options& options) {
    std::vector<trace> traces;
    for (std::uint64_t id = 0; id < options.count; ++id) traces.push_back(generate_one(options, id));
    return traces;
}

// ---- replaying ------------------------------------------------------------------------
//
// Runs every trace on a fresh `Impl` (constructed from the capacity) and
// returns the same traces with Impl's results. A step on a handle that does
// not exist or is of the wrong kind throws format_error naming its line.
template <class Impl>
std::vector<trace> replay(const std::vector<trace>& traces, std::string_view source, const std::string& implementation,
                          std::chrono::milliseconds block_bound = std::chrono::seconds(5)) {
    std::vector<trace> results;
    for (const trace& t : traces) {
        trace r = t;
        r.implementation = implementation;
        Impl impl(t.capacity);
        step_runner<Impl> runner(impl, block_bound);
        handle_table table;
        for (step& s : r.steps) {
            if (const std::string problem = table.problem(s); !problem.empty()) {
                detail::fail_at(source, s.line, "trace " + std::to_string(t.id) + " step " + std::to_string(s.index) + ": " + problem);
            }
            s.result = runner.run(s);
            table.apply(s);
        }
        results.push_back(std::move(r));
    }
    return results;
}

} // namespace bcast::trace
