// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast: a broadcast channel with the semantics of the Rust crate
// async-broadcast. This header is the whole public API.
//
//   auto [tx, rx] = bcast::channel<int>(16);
//   if (!tx.broadcast(1)) return; // [[nodiscard]]: a failed send hands 1 back
//   auto copy = rx;               // same position: also gets 1
//   int one = *rx.recv();
//
// See docs/semantics.md for the contract, rule by rule.
#pragma once

#include "async.hpp"
#include "channel.hpp"
#include "errors.hpp"
#include "inactive_receiver.hpp"
#include "message_range.hpp"
#include "primitives.hpp"
#include "receiver.hpp"
#include "result.hpp"
#include "sender.hpp"
#include "version.hpp"
