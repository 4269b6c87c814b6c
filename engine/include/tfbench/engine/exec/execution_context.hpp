#pragma once
// The execution context of a session: where its kernels run, its thread budget, and whether
// it is a lane of an outer fan-out. Three facts stay separate: a provider's declaration (providers.hpp),
// active outer fan-out (outer_active), and whether inner parallel work is permitted (threads > 1).

#include <cstdint>
#include <utility>

#include "tfbench/engine/core/exec_space.hpp"

namespace tfbench {

/// Where a session's outputs and scratch live.
enum class MemoryKind { Host, Device };
const char* name(MemoryKind kind);

struct ExecutionContext {
  /// The Kokkos space this context's kernels run on. A one-thread host context runs on Serial (no
  /// OpenMP parallel region is paid for); an N-thread host context runs on OpenMP.
  ExecSpaceKind space = ExecSpaceKind::Serial;
  /// The thread budget: lanes a fan-out may start, threads a same-pool kernel may use. At least 1.
  int threads = 1;
  /// True inside a lane of outer fan-out (with_outer_lanes / submit_outer) or a phase lane. Set only
  /// by starting lanes explicitly, never inferred from the thread the code happens to run on.
  bool outer_active = false;
  /// This lane's index and the fan-out width (0 and 1 outside fan-out).
  int lane = 0;
  int lanes = 1;
  /// Host memory for CPU backends; the default execution space's memory for the device backend.
  MemoryKind memory = MemoryKind::Host;
  /// Device ordinal (0 for host contexts).
  int device = 0;

  /// Whether this context may start outer lanes: it owns more than one thread and is not a lane.
  bool can_fan_out() const { return threads > 1 && !outer_active; }
};

/// The space a context of `threads` threads on `space` runs its kernels on: Kokkos::Serial for one
/// thread on a host space (no OpenMP parallel region is paid for; when Serial is enabled), else `space`
/// (a device space whatever the host thread count). CpuBackend and outer lanes decide with it;
/// callers that launch their own kernels beside the engine's ask it too.
ExecSpaceKind context_space(ExecSpaceKind space, int threads);

/// The contiguous chunk [first, second) of `items` that `lane` of `lanes` owns (outer or phase lanes).
std::pair<std::int64_t, std::int64_t> lane_item_range(int lane, int lanes, std::int64_t items);

}  // namespace tfbench
