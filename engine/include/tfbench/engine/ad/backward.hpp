#pragma once
// backward(): reverse-mode sweep from a tracked value. The graph reachable from `y` is ordered once,
// then every node's vector-Jacobian product runs, in reverse order, inside the one session given
// (or the one entered on the backend); gradient contributions meeting at a node are added there, and
// leaves add theirs to what earlier backward calls left (zero_grad() forgets it). The graph stays
// valid: backward may run again (gradients accumulate). Nothing is recorded during the sweep.

#include <type_traits>
#include <utility>

#include "tfbench/engine/ad/var.hpp"
#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/ops/error.hpp"

namespace tfbench::ad {

/// Seeds with ones; y must have exactly one element.
template <class T>
void backward(Session& s, const Var<T>& y);
/// Seeds with `seed` (y's shape).
template <class T>
void backward(Session& s, const Var<T>& y, const Tensor<T>& seed);

/// Enters one session on `backend` (CpuBackend, DeviceBackend) and runs the whole sweep in it. Not a
/// candidate for sessions: a SessionWrapper subclass takes the Session& overload above.
template <class Backend, class T, class = std::enable_if_t<!std::is_base_of<Session, Backend>::value>>
auto backward(Backend& backend, const Var<T>& y) {
  return backend.with_session([&](Session& s) { backward(s, y); });
}

}  // namespace tfbench::ad
