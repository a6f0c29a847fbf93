// SPDX-License-Identifier: MIT OR Apache-2.0
// The one operation table: every channel operation that the spec model, the
// recorded histories, the portable traces and the Relacy harness know, with
// one name each and what each is. Every consumer derives from it: the
// `call_kind` enum and its names (history.hpp), what a call needs, makes and
// consumes (the history reader, the linearizability checker), whether its
// answer is a value, the rule that governs it (trace/check.hpp), the trace
// language (trace/format.hpp), and `bcast-trace operations`, which prints the
// table as JSON so that a driver in another language is checked against it
// (spec/traces/tests/check_driver_vocabulary.py does that for the Rust driver).
//
// A new operation is a new row, appended (call_kind's order is the rows'); the
// switches over call_kind that have no `default:` (the model's step function
// `apply` in linearizability.hpp, the recorder's dispatch, the trace runner)
// then fail to compile until they handle it. A new query needs none of them:
// they write their query cases from the table (queries.hpp).
// docs/verification.md, "A new operation", lists every file that follows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace bcast::spec {

// Which handle an operation is called on, and which it creates.
enum class handle_kind : std::uint8_t {
    none,               // creates: nothing
    sender,             //
    receiver,           // an active receiver
    inactive,           // an inactive receiver
    sender_or_receiver, // new_receiver: a sender, or (bcast) a receiver
    any,                // every handle answers it
};

// What an operation takes besides its handle.
enum class argument_shape : std::uint8_t {
    none,
    message,             // an int message
    message_and_timeout, // a message and a time bound (bcast's timed calls)
    timeout,             // a time bound
    capacity,            // a new capacity (0 is refused: R-CAP-2)
    flag,                // a bool setting
    handle,              // another handle (same_channel)
};

// What an operation answers.
enum class answer_shape : std::uint8_t {
    none,  // nothing (a set_capacity may refuse with invalid_argument)
    send,  // a send_result: ok (with the evicted message, if any) or a send_errc with the message handed back
    recv,  // a recv_result: the message, or a recv_errc (overflowed with its count)
    flag,  // a bool
    count, // a non-negative number
};

// X(name, acts_on, creates, consumes|keeps, argument, answer, query|changes, blocks|returns,
//   extension|shared, recorded|trace_only, rules, upstream)
//   name        the one spelling: the C++ enum, histories, traces, the generator's text, the drivers, the docs
//   acts_on     the handle it is called on; creates: the handle it makes (none)
//   consumes    the handle it is called on is gone afterwards (keeps: it stays)
//   query       it changes nothing (R-QUERY-1, R-QUERY-2; changes: it may change the channel)
//   blocks      it can wait: the checker leaves a pending one unplaced (returns: it never waits)
//   extension   bcast's own, not async-broadcast's: a trace for upstream leaves it out (shared: both have it)
//   recorded    recorders (histories, the Relacy harness) make it (trace_only: the trace language's
//               zero-bound forms and same_channel, which only traces and the properties use)
//   rules       the rule that governs its success (spec/rules.md); its errors have their own (trace/check.hpp)
//   upstream    async-broadcast's name for it ("" for an extension)
// clang-format off: one row a line, the columns aligned by hand
#define BCAST_OPERATIONS(X) \
    X(try_broadcast, sender, none, keeps, message, send, changes, returns, shared, recorded, "R-SEND-2", "Sender::try_broadcast") \
    X(broadcast, sender, none, keeps, message, send, changes, blocks, shared, recorded, "R-SEND-3", "Sender::broadcast") \
    X(broadcast_timed, sender, none, keeps, message_and_timeout, send, changes, blocks, extension, recorded, "R-SEND-4", "") \
    X(try_recv, receiver, none, keeps, none, recv, changes, returns, shared, recorded, "R-RECV-2", "Receiver::try_recv") \
    X(recv, receiver, none, keeps, none, recv, changes, blocks, shared, recorded, "R-RECV-4", "Receiver::recv") \
    X(recv_timed, receiver, none, keeps, timeout, recv, changes, blocks, extension, recorded, "R-RECV-5", "") \
    X(clone_receiver, receiver, receiver, keeps, none, none, changes, returns, shared, recorded, "R-LIFE-1", "Receiver::clone") \
    X(new_receiver, sender_or_receiver, receiver, keeps, none, none, changes, returns, shared, recorded, "R-LIFE-2", "Sender::new_receiver") \
    X(drop_receiver, receiver, none, consumes, none, none, changes, returns, shared, recorded, "R-LIFE-3", "Receiver::drop") \
    X(drop_sender, sender, none, consumes, none, none, changes, returns, shared, recorded, "R-CLOSE-2", "Sender::drop") \
    X(deactivate, receiver, inactive, consumes, none, none, changes, returns, shared, recorded, "R-LIFE-4", "Receiver::deactivate") \
    X(activate_cloned, inactive, receiver, keeps, none, none, changes, returns, shared, recorded, "R-LIFE-5", "InactiveReceiver::activate_cloned") \
    X(drop_inactive, inactive, none, consumes, none, none, changes, returns, shared, recorded, "R-CLOSE-3", "InactiveReceiver::drop") \
    X(set_capacity, any, none, keeps, capacity, none, changes, returns, shared, recorded, "R-CAP-3", "set_capacity") \
    X(set_overflow, any, none, keeps, flag, none, changes, returns, shared, recorded, "R-OVF-3", "set_overflow") \
    X(set_await_active, any, none, keeps, flag, none, changes, returns, shared, recorded, "R-ACT-2", "set_await_active") \
    X(close, any, none, keeps, none, flag, changes, returns, shared, recorded, "R-CLOSE-1", "close") \
    X(clone_sender, sender, sender, keeps, none, none, changes, returns, shared, recorded, "R-HANDLE-2", "Sender::clone") \
    X(new_sender, receiver, sender, keeps, none, none, changes, returns, shared, recorded, "R-HANDLE-2", "Receiver::new_sender") \
    X(activate, inactive, receiver, consumes, none, none, changes, returns, shared, recorded, "R-LIFE-5", "InactiveReceiver::activate") \
    X(clone_inactive, inactive, inactive, keeps, none, none, changes, returns, shared, recorded, "R-HANDLE-2", "InactiveReceiver::clone") \
    X(len, any, none, keeps, none, count, query, returns, shared, recorded, "R-QUERY-1", "len") \
    X(is_empty, any, none, keeps, none, flag, query, returns, shared, recorded, "R-CAP-5", "is_empty") \
    X(is_full, any, none, keeps, none, flag, query, returns, shared, recorded, "R-CAP-5", "is_full") \
    X(capacity, any, none, keeps, none, count, query, returns, shared, recorded, "R-CAP-2", "capacity") \
    X(receiver_count, any, none, keeps, none, count, query, returns, shared, recorded, "R-QUERY-1", "receiver_count") \
    X(inactive_receiver_count, any, none, keeps, none, count, query, returns, shared, recorded, "R-QUERY-1", "inactive_receiver_count") \
    X(sender_count, any, none, keeps, none, count, query, returns, shared, recorded, "R-QUERY-1", "sender_count") \
    X(is_closed, any, none, keeps, none, flag, query, returns, shared, recorded, "R-CLOSE-4", "is_closed") \
    X(overflow, any, none, keeps, none, flag, query, returns, shared, recorded, "R-OVF-3", "overflow") \
    X(await_active, any, none, keeps, none, flag, query, returns, shared, recorded, "R-ACT-2", "await_active") \
    X(unread, receiver, none, keeps, none, count, query, returns, extension, recorded, "R-QUERY-2", "") \
    X(missed, receiver, none, keeps, none, count, query, returns, extension, recorded, "R-QUERY-2", "") \
    X(broadcast_expired, sender, none, keeps, message, send, changes, returns, extension, trace_only, "R-SEND-4", "") \
    X(recv_expired, receiver, none, keeps, none, recv, changes, returns, extension, trace_only, "R-RECV-5", "") \
    X(same_channel, any, none, keeps, handle, flag, query, returns, extension, trace_only, "R-HANDLE-3", "")
// clang-format on

// Every channel operation, in the table's order (recorders and reports may
// store it as a byte: append rows, never reorder them).
enum class call_kind : std::uint8_t {
#define BCAST_OPERATION_ENUM(name, ...) name,
    BCAST_OPERATIONS(BCAST_OPERATION_ENUM)
#undef BCAST_OPERATION_ENUM
};

// One row of the table.
struct operation {
    call_kind kind;
    std::string_view name;
    handle_kind acts_on;
    handle_kind creates;
    bool consumes;
    argument_shape argument;
    answer_shape answer;
    bool query;
    bool blocks;
    bool extension;
    bool recorded;
    std::string_view rules;
    std::string_view upstream;
};

// The words of the yes/no columns.
namespace table_words {
inline constexpr bool consumes = true, keeps = false;
inline constexpr bool query = true, changes = false;
inline constexpr bool blocks = true, returns = false;
inline constexpr bool extension = true, shared = false;
inline constexpr bool recorded = true, trace_only = false;
} // namespace table_words

inline constexpr operation operations[] = {
#define BCAST_OPERATION_ROW(n, on, makes, eats, arg, ans, q, b, ext, rec, rules_, upstream_) \
    {call_kind::n, #n, handle_kind::on, handle_kind::makes, table_words::eats, argument_shape::arg, \
     answer_shape::ans, table_words::q, table_words::b, table_words::ext, table_words::rec, rules_, upstream_},
    BCAST_OPERATIONS(BCAST_OPERATION_ROW)
#undef BCAST_OPERATION_ROW
};
inline constexpr std::size_t operation_count = sizeof(operations) / sizeof(operations[0]);

// The row of a kind. A value outside the enum (a corrupted recording) has none.
constexpr const operation* find_operation(call_kind kind) {
    const auto index = static_cast<std::size_t>(kind);
    return index < operation_count ? &operations[index] : nullptr;
}
constexpr const operation& operation_of(call_kind kind) { return operations[static_cast<std::size_t>(kind)]; }

// The index of the row named `name`, or operation_count. (An index, not a
// pointer, for compile-time checks: GCC 12 with -fsanitize=undefined cannot
// compare a pointer into the table with nullptr in a constant expression.)
constexpr std::size_t operation_index(std::string_view name) {
    for (std::size_t i = 0; i < operation_count; ++i)
        if (operations[i].name == name) return i;
    return operation_count;
}
// The row named `name`, or nullptr.
constexpr const operation* find_operation(std::string_view name) {
    const std::size_t i = operation_index(name);
    return i < operation_count ? &operations[i] : nullptr;
}

// The questions consumers ask, each answered by the table alone.
constexpr bool is_query(call_kind k) { return operation_of(k).query; }
constexpr bool is_blocking(call_kind k) { return operation_of(k).blocks; }
constexpr bool creates_handle(call_kind k) { return operation_of(k).creates != handle_kind::none; }
constexpr bool consumes_handle(call_kind k) { return operation_of(k).consumes; }
constexpr bool is_send(call_kind k) { return operation_of(k).answer == answer_shape::send; }
constexpr bool is_recv(call_kind k) { return operation_of(k).answer == answer_shape::recv; }
// Whether the answer is one number (a count, or a flag as 0 / 1) rather than a send or receive result.
constexpr bool answers_value(call_kind k) {
    return operation_of(k).answer == answer_shape::count || operation_of(k).answer == answer_shape::flag;
}
constexpr bool is_timed(call_kind k) {
    const argument_shape a = operation_of(k).argument;
    return a == argument_shape::message_and_timeout || a == argument_shape::timeout;
}

// Names of the enums, as `bcast-trace operations` prints them.
constexpr std::string_view name(handle_kind k) {
    switch (k) {
    case handle_kind::none: return "none";
    case handle_kind::sender: return "sender";
    case handle_kind::receiver: return "receiver";
    case handle_kind::inactive: return "inactive";
    case handle_kind::sender_or_receiver: return "sender_or_receiver";
    case handle_kind::any: return "any";
    }
    return "?";
}
constexpr std::string_view name(argument_shape a) {
    switch (a) {
    case argument_shape::none: return "none";
    case argument_shape::message: return "message";
    case argument_shape::message_and_timeout: return "message_and_timeout";
    case argument_shape::timeout: return "timeout";
    case argument_shape::capacity: return "capacity";
    case argument_shape::flag: return "flag";
    case argument_shape::handle: return "handle";
    }
    return "?";
}
constexpr std::string_view name(answer_shape a) {
    switch (a) {
    case answer_shape::none: return "none";
    case answer_shape::send: return "send";
    case answer_shape::recv: return "recv";
    case answer_shape::flag: return "flag";
    case answer_shape::count: return "count";
    }
    return "?";
}

// The table's own consistency, checked where it is compiled.
namespace detail {
constexpr bool operations_are_consistent() {
    for (std::size_t i = 0; i < operation_count; ++i) {
        const operation& op = operations[i];
        if (static_cast<std::size_t>(op.kind) != i) return false;                       // the enum is the rows' order
        if (op.query && (op.creates != handle_kind::none || op.consumes)) return false; // a query changes nothing
        if (op.query && op.answer != answer_shape::count && op.answer != answer_shape::flag) return false;
        if (op.blocks && op.answer != answer_shape::send && op.answer != answer_shape::recv) return false;
        if (op.extension != op.upstream.empty()) return false; // upstream names exactly the operations it has
        for (std::size_t j = 0; j < i; ++j)
            if (operations[j].name == op.name) return false; // one row per name
    }
    return true;
}
static_assert(operations_are_consistent(), "bcast::spec::operations: see operations_are_consistent()");
} // namespace detail

} // namespace bcast::spec
