#pragma once
// Where one operation's kernels run: the session's execution space and its thread budget. A
// one-thread budget, or work too small to pay for a parallel region, runs on Kokkos::Serial
// (inline on the caller) instead of opening an OpenMP region: an empty OpenMP parallel_for costs
// 0.5-1.7 us on the development machine, a Serial one 20-45 ns.

#include "tfbench/engine/core/exec_space.hpp"
#include "tfbench/engine/ops/impl/layout.hpp"

namespace tfbench::impl {

struct ExecTarget {
  ExecSpaceKind space = ExecSpaceKind::Serial;
  int threads = 1;  // the session's thread budget
};

/// Work (elements or multiply-adds) below which a multi-thread host budget still runs inline.
inline constexpr index_t kInlineWorkThreshold = 16384;

/// The space a kernel of `work` units runs on under `target`.
inline ExecSpaceKind kernel_space(const ExecTarget& target, index_t work) {
#if defined(KOKKOS_ENABLE_SERIAL)
  if (is_host_space(target.space) && (target.threads <= 1 || work < kInlineWorkThreshold))
    return ExecSpaceKind::Serial;
#endif
  (void)work;
  return target.space;
}

}  // namespace tfbench::impl
