// SPDX-License-Identifier: MIT OR Apache-2.0
// Forward declarations of the public handle types.
#pragma once

#include "primitives.hpp"

namespace bcast {

template <class T, class Primitives = std_primitives>
class sender;
template <class T, class Primitives = std_primitives>
class receiver;
template <class T, class Primitives = std_primitives>
class inactive_receiver;

} // namespace bcast
