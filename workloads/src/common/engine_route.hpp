#pragma once
// The batch strategies an engine variant of a batched family forces, the route a run took as
// metrics, and a probe that asks the engine itself whether a forced strategy has a route here.

#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/ops/batched/options.hpp"
#include "tfbench/workloads/family.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfbench::workloads {

/// One engine variant of a batched family: "engine:auto" (no per-operation policy: the backend's
/// Auto decides) or a forced strategy.
struct EngineStrategy {
  std::string variant;                    // "engine:outer_parallel"
  std::optional<BatchStrategy> strategy;  // empty: Auto through the backend default
};
const std::vector<EngineStrategy>& engine_strategies();
/// The strategy of an "engine:*" variant name, or nullptr.
const EngineStrategy* find_engine_strategy(const std::string& variant);

/// Per-operation options forcing `s` (none for Auto).
ops::BatchedOptions batched_options(const EngineStrategy& s);

/// The route of a run as numbers: route.lanes, route.items, and one-hot route.strategy.<name> and
/// route.provider.<name> (metrics hold numbers only); route.prefetch, route.streaming_stores and
/// route.first_lane_items where the run reports them.
std::map<std::string, double> route_metrics(const ops::BatchRun& run);

/// The calls of an instance whose route was a fan-out Auto chose, and how many of them the engine's
/// fan-out check ran on the calling thread instead (BatchRun::fan_out_withheld).
class FanOutTally {
 public:
  void add(const ops::BatchRun& run);
  /// route.fan_out_withheld: the share of those calls (0 to 1); nothing where no call was checked.
  void add_metric(std::map<std::string, double>& metrics) const;

 private:
  std::int64_t checked_ = 0;
  std::int64_t withheld_ = 0;
};

/// Why the engine cannot run `op` here, asked of the engine itself: `op` runs once on a tiny problem
/// of the case's item shape in a session of a backend like the worker's. Empty when it ran, or when
/// Kokkos is not initialized (a supervisor listing cases: the worker asks again). Cached by `key`.
std::optional<std::string> engine_refusal(
    const std::string& key, const RunContext& ctx,
    const std::function<Result<ops::BatchRun, ops::BatchedError>(Session&)>& op);

}  // namespace tfbench::workloads
