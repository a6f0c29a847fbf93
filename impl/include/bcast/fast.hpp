// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::fast: a second broadcast channel with the reference's API and rules,
// whose receive path takes no lock (docs/fast-design.md). Messages must be
// trivially copyable, and where the design cannot keep a rule at its speed the
// profile P-FAST of spec/rules.md says so.
//
//   auto [tx, rx] = bcast::fast::channel<std::uint64_t>(64);
//   if (!tx.broadcast(1)) return;   // senders take a short lock
//   auto got = rx.recv();           // no lock, no read-modify-write when a message is there
//
// Same names, other meanings: inside namespace bcast::fast, `message_type`
// (trivially copyable too, P-FAST-1), `channel_primitives` (a Primitives
// bundle with the atomics and fences the lock-free receive needs),
// `std_primitives` and `basic_std_primitives` are bcast::fast's own, not the
// reference's bcast:: ones of the same name. Code that names both families
// qualifies them (bcast::std_primitives, bcast::fast::std_primitives), as
// bcast/spec/families.hpp does.
#pragma once

#include "errors.hpp"
#include "fast/channel.hpp"
#include "fast/inactive_receiver.hpp"
#include "fast/primitives.hpp"
#include "fast/receiver.hpp"
#include "fast/sender.hpp"
#include "result.hpp"
#include "version.hpp"
