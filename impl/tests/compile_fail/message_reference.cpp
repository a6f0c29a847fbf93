// SPDX-License-Identifier: MIT OR Apache-2.0
// Must not compile: a reference as the message type (R-MSG-4). It passes
// both nothrow traits, but a slot stores the message itself, and a reference
// would share the sender's object with every receiver's thread; message_type
// asks for an object type. The handle class templates carry the constraint
// as channel() does, so merely naming `bcast::receiver<int&>` is the error.
// expect: message_type
// expect: is_object
#include <bcast/bcast.hpp>

#ifdef BCAST_COMPILE_FAIL_CONTROL
using message = int;
#else
using message = int&;
#endif

int drain(bcast::receiver<message>& rx); // declared, never called: naming the type is what is checked

int main() {
    auto [tx, rx] = bcast::channel<int>(1);
    return tx.try_broadcast(1) && rx.try_recv() ? 0 : 1;
}
