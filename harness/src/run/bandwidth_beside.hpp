#pragma once
// The bandwidth a case's memory-bound rows are bounded by, measured in the case's own rounds: one
// workloads::bandwidth_reference per ceiling working set among them, timed interleaved with the
// variants, so that a row and its bound see the host of the same minutes (results-format.md,
// "Roofline").

#include "tfbench/workloads/ceilings.hpp"
#include "tfbench/workloads/family.hpp"

#include <memory>
#include <vector>

namespace tfbench::harness::impl {

struct BesidePlan {
  std::vector<std::unique_ptr<workloads::Instance>> references;
  std::vector<int> reference_of_instance;  // per instance: its reference, or -1 (none)
};

/// For each instance whose roofline bound by `ceilings` is a level's bandwidth (its work read once,
/// before timing), the reference of that level's ceiling working set, shared by the instances that
/// name the same one. Empty where the ceilings were not measured.
BesidePlan plan_bandwidth_beside(const std::vector<std::unique_ptr<workloads::Instance>>& instances,
                                 const workloads::Ceilings& ceilings);

/// GB/s of the fastest of a reference's rounds (`samples_s`: seconds per run); NaN without one.
double best_round_gbs(const std::vector<double>& samples_s, double bytes_per_run);

}  // namespace tfbench::harness::impl
