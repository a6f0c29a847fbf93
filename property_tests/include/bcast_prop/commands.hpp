// SPDX-License-Identifier: MIT OR Apache-2.0
// The command language of the property tests and the fuzzer (docs/property-tests.md).
//
// A program is an initial capacity and a list of commands. A command is an
// operation and two small numbers: `a` selects the handle it is called on,
// `b` is its argument (a capacity, a flag). Handles are not named by id but by
// position among the live handles of the kind the operation needs
// (a % count), so every command is valid in every state and any sub-list of a
// program is again a program: that is what lets rapidcheck shrink a failure to
// a minimal command sequence, and what lets the fuzzer decode any bytes.
//
// Text form (printed for every counterexample, read back by bcast_replay):
//     cap:2 try_broadcast:0 clone_receiver:0 set_capacity:1:1 try_recv:1
// `name:a:b`, with `:b` and `:a` left out when zero.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <bcast/spec/operations.hpp>

namespace bcast::prop {

// Which handles `a` selects from: the operation table's handle kinds
// (bcast/spec/operations.hpp). A command that is an operation of the table
// acts on the handle its row names (checked below); the C++-only commands
// (create, the async and throwing ones, the iterators) say their own.
using target = spec::handle_kind;

#define BCAST_PROP_OPS(X)                                                                      \
    X(create, none)                     /* new channel with capacity b % 6 (0 must throw)   */ \
    X(try_broadcast, sender)                                                                   \
    X(broadcast, sender)                /* blocking, only where it cannot block; else 0 timeout */ \
    X(broadcast_expired, sender)        /* broadcast_for(0)                                  */ \
    X(try_recv, receiver)                                                                      \
    X(recv, receiver)                   /* blocking, only where it cannot block; else 0 timeout */ \
    X(recv_expired, receiver)           /* recv_for(0)                                       */ \
    X(recv_throwing, receiver)          /* try_recv with the message's copy armed to throw   */ \
    X(clone_receiver, receiver)         /* receiver copy (R-LIFE-1)                          */ \
    X(new_receiver, sender_or_receiver) /* at the tail (R-LIFE-2)                            */ \
    X(new_sender, receiver)                                                                    \
    X(clone_sender, sender)                                                                    \
    X(drop_sender, sender)                                                                     \
    X(drop_receiver, receiver)                                                                 \
    X(drop_inactive, inactive)                                                                 \
    X(deactivate, receiver)                                                                    \
    X(activate, inactive)                                                                      \
    X(activate_cloned, inactive)                                                               \
    X(clone_inactive, inactive)                                                                \
    X(set_capacity, any)                /* b % 6: includes shrink below len, and 0 (throws)  */ \
    X(set_overflow, any)                /* b & 1                                             */ \
    X(set_await_active, any)            /* b & 1                                             */ \
    X(close, any)                                                                              \
    X(len, any)                                                                                \
    X(is_empty, any)                                                                           \
    X(is_full, any)                                                                            \
    X(capacity, any)                                                                           \
    X(receiver_count, any)                                                                     \
    X(inactive_receiver_count, any)                                                            \
    X(sender_count, any)                                                                       \
    X(is_closed, any)                                                                          \
    X(overflow, any)                                                                           \
    X(await_active, any)                                                                       \
    /* Appended last, so older fuzz seeds keep their meaning. b & 2: through a scheduler.   */ \
    X(async_recv, receiver)             /* co_await async_recv() where it cannot wait; else as below */ \
    X(async_broadcast, sender)          /* co_await async_broadcast(m) likewise              */ \
    X(async_recv_cancelled, receiver)   /* with a stop_token: b & 1 stop before, else after the start */ \
    X(async_broadcast_cancelled, sender)                                                       \
    /* Appended after those for the same reason: bcast's extensions (optional, spec/conformance.hpp). */ \
    X(unread, receiver)                 /* R-QUERY-2                                         */ \
    X(missed, receiver)                 /* R-QUERY-2                                         */ \
    X(same_channel, any)                /* R-HANDLE-3: with the live handle b % count        */ \
    X(try_messages, receiver)           /* R-RECV-6: the first b % 8 items of try_messages() */ \
    X(messages, receiver)               /* R-RECV-6: of messages(), at most what it has without waiting */

enum class op : std::uint8_t {
#define BCAST_PROP_ENUM(name, tgt) name,
    BCAST_PROP_OPS(BCAST_PROP_ENUM)
#undef BCAST_PROP_ENUM
};

inline constexpr std::size_t op_count = 0
#define BCAST_PROP_COUNT(name, tgt) +1
    BCAST_PROP_OPS(BCAST_PROP_COUNT)
#undef BCAST_PROP_COUNT
    ;

inline constexpr std::array<std::string_view, op_count> op_names = {
#define BCAST_PROP_NAME(name, tgt) #name,
    BCAST_PROP_OPS(BCAST_PROP_NAME)
#undef BCAST_PROP_NAME
};

inline constexpr std::array<target, op_count> op_targets = {
#define BCAST_PROP_TARGET(name, tgt) target::tgt,
    BCAST_PROP_OPS(BCAST_PROP_TARGET)
#undef BCAST_PROP_TARGET
};

inline std::string_view name_of(op o) { return op_names[static_cast<std::size_t>(o)]; }

namespace detail {
// Every command that is an operation of the table acts on the kind of handle its row says.
constexpr bool targets_are_the_tables() {
    for (std::size_t i = 0; i < op_count; ++i) {
        const std::size_t row = spec::operation_index(op_names[i]);
        if (row < spec::operation_count && spec::operations[row].acts_on != op_targets[i]) return false;
    }
    return true;
}
static_assert(targets_are_the_tables(), "bcast::prop: a command's target differs from its row in bcast/spec/operations.hpp");
} // namespace detail
inline target target_of(op o) { return op_targets[static_cast<std::size_t>(o)]; }

// Largest capacity a command asks for (arguments are taken modulo this + 1).
inline constexpr unsigned max_capacity = 5;

struct command {
    op what = op::len;
    std::uint8_t a = 0; // handle selector
    std::uint8_t b = 0; // argument

    friend bool operator==(const command&, const command&) = default;
};

struct program {
    std::uint8_t capacity = 1; // of the channel every program starts with (1..max_capacity)
    std::vector<command> commands;

    friend bool operator==(const program&, const program&) = default;
};

inline std::ostream& operator<<(std::ostream& out, const command& c) {
    out << name_of(c.what);
    if (c.a != 0 || c.b != 0) out << ':' << unsigned(c.a);
    if (c.b != 0) out << ':' << unsigned(c.b);
    return out;
}

inline std::ostream& operator<<(std::ostream& out, const program& p) {
    out << "cap:" << unsigned(p.capacity);
    for (const command& c : p.commands) out << ' ' << c;
    return out;
}

inline std::string to_string(const program& p) {
    std::ostringstream out;
    out << p;
    return out.str();
}

// The command named `name` in the text form; nullopt for no command.
inline std::optional<op> op_named(std::string_view name) {
    for (std::size_t i = 0; i < op_count; ++i)
        if (op_names[i] == name) return static_cast<op>(i);
    return std::nullopt;
}

// The ':'-separated fields of a token ("set_capacity:1:1": "set_capacity", "1", "1"; empty ones
// kept); the generated scenarios' text form (model_tests/generator/scenario.hpp) reads them so too.
inline std::vector<std::string> colon_fields(const std::string& token) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (;;) {
        const std::size_t colon = token.find(':', start);
        fields.push_back(token.substr(start, colon - start));
        if (colon == std::string::npos) return fields;
        start = colon + 1;
    }
}

// Reads the text form back; nullopt (and `error`) if it does not parse.
inline std::optional<program> parse_program(std::string_view text, std::string* error = nullptr) {
    program result;
    std::istringstream in{std::string(text)};
    std::string token;
    bool first = true;
    auto fail = [&](const std::string& why) -> std::optional<program> {
        if (error != nullptr) *error = why;
        return std::nullopt;
    };
    while (in >> token) {
        const std::vector<std::string> parts = colon_fields(token);
        if (parts.size() > 3) return fail("too many ':' in '" + token + "'");
        unsigned numbers[2] = {0, 0};
        for (std::size_t i = 1; i < parts.size(); ++i) {
            try {
                numbers[i - 1] = static_cast<unsigned>(std::stoul(parts[i]));
            } catch (...) {
                return fail("bad number in '" + token + "'");
            }
            if (numbers[i - 1] > 255) return fail("number above 255 in '" + token + "'");
        }
        if (parts[0] == "cap") {
            if (!first || numbers[0] < 1 || numbers[0] > max_capacity) return fail("'cap:N' (1..5) must come first");
            result.capacity = static_cast<std::uint8_t>(numbers[0]);
            first = false;
            continue;
        }
        first = false;
        const std::optional<op> what = op_named(parts[0]);
        if (!what) return fail("unknown command '" + parts[0] + "'");
        result.commands.push_back(command{*what, static_cast<std::uint8_t>(numbers[0]), static_cast<std::uint8_t>(numbers[1])});
    }
    return result;
}

// The fuzzer's view: byte 0 is the capacity, then every 3 bytes one command.
inline program decode(const std::uint8_t* data, std::size_t size) {
    program result;
    if (size == 0) return result;
    result.capacity = static_cast<std::uint8_t>(1 + data[0] % max_capacity);
    for (std::size_t i = 1; i + 3 <= size; i += 3) {
        result.commands.push_back(
            command{static_cast<op>(data[i] % op_count), data[i + 1], data[i + 2]});
    }
    return result;
}

inline std::vector<std::uint8_t> encode(const program& p) {
    std::vector<std::uint8_t> bytes{static_cast<std::uint8_t>(p.capacity - 1)};
    for (const command& c : p.commands) {
        bytes.push_back(static_cast<std::uint8_t>(c.what));
        bytes.push_back(c.a);
        bytes.push_back(c.b);
    }
    return bytes;
}

} // namespace bcast::prop
