// Forward declarations of the public handle types.
#pragma once

#include "model.hpp"

namespace bcast {

template <class T, class Model = std_model>
class sender;
template <class T, class Model = std_model>
class receiver;
template <class T, class Model = std_model>
class inactive_receiver;

} // namespace bcast
