// SPDX-License-Identifier: MIT OR Apache-2.0
// bcast::spec::fast_channel_adapter: the second channel family, bcast::fast
// (docs/fast-design.md), behind bcast::spec::model's interface, as
// channel_adapter.hpp puts the reference there; the conformance kit, the
// per-rule examples of spec/tests and the property tests drive it the same way.
// It is channel_adapter.hpp's basic_channel_adapter over bcast::fast's handles
// (a file of its own because its Primitives parameter names a different
// concept). bcast::fast has every optional extension of the conformance
// concept (R-QUERY-2, R-HANDLE-3, R-RECV-6) and no async calls (P-FAST-5).
#pragma once

#include <cstddef>

#include <bcast/fast.hpp>

#include "conformance_profile.hpp"
#include "model.hpp"

#include "channel_adapter.hpp"

namespace bcast::spec {

// bcast::fast's handles, under its profile P-FAST.
template <class T, class Primitives>
struct fast_handles {
    using sender_type = fast::sender<T, Primitives>;
    using receiver_type = fast::receiver<T, Primitives>;
    using inactive_type = fast::inactive_receiver<T, Primitives>;
    static auto open(std::size_t capacity) { return fast::channel<T, Primitives>(capacity); }
    static constexpr const conformance_profile& profile = fast_profile;
};

template <class T, class Primitives = fast::std_primitives>
using fast_channel_adapter = basic_channel_adapter<T, fast_handles<T, Primitives>>;

} // namespace bcast::spec
