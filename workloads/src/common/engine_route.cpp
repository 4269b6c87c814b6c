#include "common/engine_route.hpp"

#include "common/engine_backend.hpp"

#include <Kokkos_Core.hpp>

#include <mutex>

namespace tfbench::workloads {

const std::vector<EngineStrategy>& engine_strategies() {
  static const std::vector<EngineStrategy> all = {
      {"engine:auto", std::nullopt},
      {"engine:sequential", BatchStrategy::Sequential},
      {"engine:outer_parallel", BatchStrategy::OuterParallel},
      {"engine:provider_items", BatchStrategy::ProviderItems},
      {"engine:whole_batch_vendor", BatchStrategy::WholeBatchVendor},
  };
  return all;
}

const EngineStrategy* find_engine_strategy(const std::string& variant) {
  for (const auto& s : engine_strategies()) {
    if (s.variant == variant) return &s;
  }
  return nullptr;
}

ops::BatchedOptions batched_options(const EngineStrategy& s) {
  ops::BatchedOptions o;
  if (s.strategy) o.policy = BatchPolicy{*s.strategy, BatchThresholds{}};
  return o;
}

std::map<std::string, double> route_metrics(const ops::BatchRun& run) {
  std::map<std::string, double> m{{"route.lanes", static_cast<double>(run.lanes)},
                                  {"route.items", static_cast<double>(run.items)},
                                  {"route.tuned", run.tuned ? 1.0 : 0.0},  // from the installed tuning
                                  {std::string("route.strategy.") + name(run.strategy), 1.0},
                                  {std::string("route.provider.") + ops::name(run.provider), 1.0}};
  if (run.prefetch) m["route.prefetch"] = *run.prefetch ? 1.0 : 0.0;  // libxsmm routes only
  // GEMM routes of the specialized kernel and libxsmm only
  if (run.streaming_stores) m["route.streaming_stores"] = *run.streaming_stores ? 1.0 : 0.0;
  // Specialized GEMM routes of items with a 512-bit and a 256-bit kernel only
  if (run.narrow_vectors) m["route.narrow_vectors"] = *run.narrow_vectors ? 1.0 : 0.0;
  // OuterParallel only: lane 0's items, the learned split of the last run (not part of the route's
  // identity: target_report.py leaves it out when it compares routes).
  if (run.first_lane_items) m["route.first_lane_items"] = static_cast<double>(*run.first_lane_items);
  return m;
}

void FanOutTally::add(const ops::BatchRun& run) {
  if (!run.fan_out_withheld) return;
  ++checked_;
  if (*run.fan_out_withheld) ++withheld_;
}

void FanOutTally::add_metric(std::map<std::string, double>& metrics) const {
  if (checked_ > 0) metrics["route.fan_out_withheld"] = static_cast<double>(withheld_) / checked_;
}

std::optional<std::string> engine_refusal(
    const std::string& key, const RunContext& ctx,
    const std::function<Result<ops::BatchRun, ops::BatchedError>(Session&)>& op) {
  if (!Kokkos::is_initialized()) return std::nullopt;
  static std::mutex mutex;
  static std::map<std::string, std::optional<std::string>> cache;
  const std::string full_key = key + "|" + name(ctx.space) + "|" + std::to_string(ctx.threads);
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = cache.find(full_key);
    if (it != cache.end()) return it->second;
  }
  std::optional<std::string> why;
  try {
    auto ran = with_case_session(ctx, [&](Session& s) { return op(s); });
    if (!ran) {
      why = std::string("session entry failed: ") + ran.error().message;
    } else if (!*ran) {
      why = ran->error().what();
    }
  } catch (const std::exception& e) {
    why = e.what();
  }
  std::lock_guard<std::mutex> lock(mutex);
  cache[full_key] = why;
  return why;
}

}  // namespace tfbench::workloads
