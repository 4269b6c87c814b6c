#pragma once
// The ceilings that bound a case's rows, measured again in the case's own rounds: per row, the one
// that sets its bound by the cached ceilings (a level's bandwidth: workloads::bandwidth_reference
// over that ceiling's working set; the FMA peak: workloads::peak_reference), one reference per
// distinct ceiling, timed interleaved with the variants, so that a row and its bound see the host of
// the same minutes (results-format.md, "Roofline", "Measured beside the row").

#include "tfbench/workloads/ceilings.hpp"
#include "tfbench/workloads/family.hpp"

#include <memory>
#include <vector>

namespace tfbench::harness::impl {

enum class BesideKind { Bandwidth, Peak };

struct BesidePlan {
  std::vector<std::unique_ptr<workloads::Instance>> references;
  std::vector<BesideKind> kinds;           // of each reference
  std::vector<int> reference_of_instance;  // per instance: its reference, or -1 (none)
};

/// For each instance with a roofline bound by `ceilings` (its work read once, before timing), the
/// reference of the ceiling that sets it: a level's bandwidth, or the peak where the cached peak is
/// the FMA measurement (a GEMM-set peak is not re-measured: the FMA chains would read below it).
/// Instances that name the same ceiling share its reference. Empty where the ceilings were not
/// measured.
BesidePlan plan_ceilings_beside(const std::vector<std::unique_ptr<workloads::Instance>>& instances,
                                const workloads::Ceilings& ceilings);

/// Work per second / 1e9 (GB/s or GFLOP/s) of the fastest of a reference's rounds (`samples_s`:
/// seconds per run); NaN without one.
double best_round_rate(const std::vector<double>& samples_s, double work_per_run);

}  // namespace tfbench::harness::impl
