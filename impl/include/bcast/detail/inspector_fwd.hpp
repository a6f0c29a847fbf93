// SPDX-License-Identifier: MIT OR Apache-2.0
// The one declared reader of bcast's private state from outside the library.
#pragma once

namespace bcast::detail {

// The Relacy model tests (model_tests/relacy/inspector.hpp) define it to read,
// between critical sections, the private fields their invariants are stated
// over. The classes whose fields it reads befriend it, each with a comment
// naming those fields, so renaming one shows at its declaration which checker
// reads it. Nothing in bcast defines or uses it: a friend declaration of an
// incomplete class generates no code, so ordinary builds pay nothing.
struct state_inspector;

} // namespace bcast::detail
