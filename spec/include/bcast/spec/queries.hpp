// SPDX-License-Identifier: MIT OR Apache-2.0
// The plain queries: the rows of the operation table (operations.hpp) that are
// a query and take no argument (len, is_empty, ..., unread, missed), written out
// one line each by a consumer's own macro. Every switch over call_kind that
// calls a query by name (the model's step function, the recorder's and the
// driver library's dispatch, the trace runner, the Relacy harness) writes its
// query cases this way, so a new query row reaches all of them without an edit
// there, and each switch keeps no `default:` (a new row that changes the
// channel still fails to compile until it is handled).
//
// Use: define BCAST_PLAIN_QUERY(name) as the case for one query, expand
// BCAST_PLAIN_QUERIES, undefine it:
//
//     #define BCAST_PLAIN_QUERY(name) case call_kind::name: return impl.name(id);
//         BCAST_PLAIN_QUERIES
//     #undef BCAST_PLAIN_QUERY
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <bcast/spec/operations.hpp>

// One row of BCAST_OPERATIONS: BCAST_PLAIN_QUERY(name) for a query without an
// argument, nothing for any other row (same_channel is a query that takes a
// second handle: its callers pass it themselves).
#define BCAST_PLAIN_QUERY_ROW(n, on, makes, eats, arg, ans, q, ...) BCAST_PLAIN_QUERY_IF_##q(n, arg)
#define BCAST_PLAIN_QUERY_IF_changes(n, arg)
#define BCAST_PLAIN_QUERY_IF_query(n, arg) BCAST_PLAIN_QUERY_ARGUMENT_##arg(n)
#define BCAST_PLAIN_QUERY_ARGUMENT_none(n) BCAST_PLAIN_QUERY(n)
#define BCAST_PLAIN_QUERY_ARGUMENT_handle(n)

#define BCAST_PLAIN_QUERIES BCAST_OPERATIONS(BCAST_PLAIN_QUERY_ROW)

namespace bcast::spec {

// Whether `k` is one of the plain queries (the table's answer, for code that
// is not a switch).
constexpr bool is_plain_query(call_kind k) {
    return operation_of(k).query && operation_of(k).argument == argument_shape::none;
}

// Plain query `k` on handle `id` of `channel` (the model, or an adapter over a
// real channel), its answer as one number (a flag as 0 or 1): for callers that
// pick the query at run time.
template <class Channel, class Id>
std::uint64_t ask(const Channel& channel, call_kind k, Id id) {
    switch (k) {
#define BCAST_PLAIN_QUERY(name) \
    case call_kind::name: return std::uint64_t(channel.name(id));
        BCAST_PLAIN_QUERIES
#undef BCAST_PLAIN_QUERY
    default: break; // the rows that change the channel, and same_channel
    }
    throw std::logic_error("bcast::spec::ask: " + std::string(operation_of(k).name) + " is not a plain query");
}

} // namespace bcast::spec
