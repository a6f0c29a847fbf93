// SPDX-License-Identifier: MIT OR Apache-2.0
// Must not compile: async_broadcast() through something that is not a
// bcast::scheduler (no `schedule(handle)`, R-ASYNC-3). The overload is
// constrained on the concept, so the error names it and the missing call.
// expect: schedule[(]handle[)]
// expect-GNU: satisfaction of .*scheduler<S>
// expect-Clang: does not satisfy 'scheduler'
#include <coroutine>

#include <bcast/bcast.hpp>

struct event_loop {
#ifdef BCAST_COMPILE_FAIL_CONTROL
    void schedule(std::coroutine_handle<> handle) { handle.resume(); }
#else
    void post(std::coroutine_handle<> handle) { handle.resume(); } // Asio's word, not bcast's
#endif
};

int main() {
    auto [tx, rx] = bcast::channel<int>(1);
    event_loop loop;
    auto operation = tx.async_broadcast(loop, 1); // an awaitable; nothing runs until it is awaited
    static_cast<void>(operation);
    return rx.valid() ? 0 : 1;
}
