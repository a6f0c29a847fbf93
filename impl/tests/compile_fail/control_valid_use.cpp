// SPDX-License-Identifier: MIT OR Apache-2.0
// Must compile, under -Werror with the warnings the tests use: the positive
// control of the compile-fail harness. It is compiled exactly as the snippets
// beside it, so if the harness's command were wrong (no include path, a
// missing standard flag), this fails too instead of every snippet "failing as
// it should". It also shows the uses the constraints and [[nodiscard]] allow:
// results looked at, a result dropped on purpose with a cast, a move-only
// message that is only sent, a Primitives set of one's own, a scheduler.
// flags: -Wall -Wextra -Wpedantic -Werror
#include <coroutine>
#include <memory>

#include <bcast/bcast.hpp>

struct my_primitives : bcast::std_primitives {}; // a channel_primitives too (R-IMPL-1)

struct event_loop {
    void schedule(std::coroutine_handle<> handle) { handle.resume(); } // a bcast::scheduler (R-ASYNC-3)
};

static_assert(bcast::message_type<int> && bcast::message_type<std::unique_ptr<int>>);
static_assert(!bcast::message_type<int&> && !bcast::message_type<const int> && !bcast::message_type<void>);
static_assert(bcast::channel_primitives<my_primitives> && bcast::scheduler<event_loop>);

int main() {
    auto [tx, rx] = bcast::channel<int, my_primitives>(2);
    if (!tx.try_broadcast(1)) return 1;
    static_cast<void>(tx.try_broadcast(2)); // dropped on purpose: the channel has room, and 2 is never read
    const auto got = rx.try_recv();
    if (!got || *got != 1) return 1;

    auto [move_only_tx, move_only_rx] = bcast::channel<std::unique_ptr<int>>(1);
    if (!move_only_tx.try_broadcast(std::make_unique<int>(3))) return 1; // sending needs no copy (R-MSG-4)

    event_loop loop;
    auto operation = tx.async_broadcast(loop, 4); // never awaited here: it is destroyed unstarted
    static_cast<void>(operation);

    auto inactive = std::move(rx).deactivate();
    const auto active = std::move(inactive).activate();
    return active.valid() && move_only_rx.valid() ? 0 : 1;
}
