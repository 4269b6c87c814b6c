#pragma once
// What the test main was asked to run on: every space-aware test reads its execution space here.

#include "tfbench/engine/core/exec_space.hpp"

namespace tfbench::testing {

/// The execution space of this test process (--space), e.g. to build a backend on it.
ExecSpaceKind space();
/// The thread count Kokkos was initialized with (--threads).
int threads();

/// Calls f with an instance of the test process's Kokkos execution space.
template <class F>
decltype(auto) with_space(F&& f) {
  return dispatch_exec_space(space(), std::forward<F>(f));
}

namespace detail {
void set_context(ExecSpaceKind space, int threads);
}

}  // namespace tfbench::testing
