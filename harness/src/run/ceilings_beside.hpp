#pragma once
// The ceilings that bound a case's rows, measured again in the case's own rounds: per row, the one
// that sets its bound by the cached ceilings (a level's bandwidth: workloads::bandwidth_reference
// over that ceiling's working set; the FMA peak: workloads::peak_reference), one reference per
// distinct ceiling, and in a worker of several threads the handoff that their bound adds
// (workloads::handoff_reference) and the ceiling that sets one thread's bound, timed interleaved
// with the variants, so that a row and its bound see the host of the same minutes (results-format.md,
// "Roofline", "Measured beside the row").

#include "tfbench/harness/results.hpp"
#include "tfbench/workloads/ceilings.hpp"
#include "tfbench/workloads/family.hpp"

#include <cstddef>
#include <memory>
#include <vector>

namespace tfbench::harness::impl {

enum class BesideKind { Bandwidth, Peak, Handoff };

struct BesidePlan {
  std::vector<std::unique_ptr<workloads::Instance>> references;
  std::vector<BesideKind> kinds;                      // of each reference
  std::vector<double> work_per_run;                   // of each reference: its bytes, flops or round trips
  std::vector<int> reference_of_instance;             // per instance: its bandwidth or peak reference, or -1
  std::vector<int> one_thread_reference_of_instance;  // per instance: one thread's, or -1
  std::vector<bool> bounded;                          // per instance: whether the cached ceilings bound it
  int handoff = -1;                                   // the handoff's reference, for every bounded instance
};

/// For each instance with a roofline bound by `ceilings` (its work read once, before timing), the
/// reference of the ceiling that sets it: a level's bandwidth, or the peak where the cached peak is
/// the FMA measurement (a GEMM-set peak is not re-measured: the FMA chains would read below it).
/// Instances that name the same ceiling share its reference. Where the ceilings hold a handoff (a
/// worker of several threads) and any instance is bounded, one handoff reference for them all, and
/// with `one_thread` (the machine's cached one-thread ceilings) per bounded instance the reference of
/// the ceiling that sets one thread's bound, run on one thread (roofline_bound takes the smaller of
/// the two bounds). Empty where the ceilings were not measured.
BesidePlan plan_ceilings_beside(const std::vector<std::unique_ptr<workloads::Instance>>& instances,
                                const workloads::Ceilings& ceilings,
                                const workloads::Ceilings* one_thread = nullptr);

/// Work per second / 1e9 (GB/s, GFLOP/s or round trips per ns) of the fastest of a reference's rounds
/// (`samples_s`: seconds per run); NaN without one.
double best_round_rate(const std::vector<double>& samples_s, double work_per_run);

/// The same rate in each round (NaN for a round without a positive sample).
std::vector<double> round_rates(const std::vector<double>& samples_s, double work_per_run);

/// What instance `i`'s row records of the references' rounds (`samples_of(r)`: reference r's samples):
/// its level's bandwidth or its peak, one thread's, and the handoff, each as its best round and
/// round by round (ResultRow::beside_rounds).
template <class SamplesOf>
void record_beside(ResultRow& row, const BesidePlan& plan, std::size_t i, const SamplesOf& samples_of) {
  BesideRounds& rounds = row.beside_rounds;
  const auto record = [&](const std::vector<int>& reference_of, double& peak, double& bandwidth,
                          std::vector<double>& peak_rounds, std::vector<double>& bandwidth_rounds) {
    if (i >= reference_of.size() || reference_of[i] < 0) return;
    const auto k = static_cast<std::size_t>(reference_of[i]);
    const bool is_peak = plan.kinds[k] == BesideKind::Peak;
    (is_peak ? peak : bandwidth) = best_round_rate(samples_of(k), plan.work_per_run[k]);
    (is_peak ? peak_rounds : bandwidth_rounds) = round_rates(samples_of(k), plan.work_per_run[k]);
  };
  record(plan.reference_of_instance, row.peak_beside_gflops, row.bandwidth_beside_gbs, rounds.peak_gflops,
         rounds.bandwidth_gbs);
  record(plan.one_thread_reference_of_instance, row.peak_beside_1t_gflops, row.bandwidth_beside_1t_gbs,
         rounds.peak_1t_gflops, rounds.bandwidth_1t_gbs);
  if (plan.handoff >= 0 && i < plan.bounded.size() && plan.bounded[i]) {
    const auto k = static_cast<std::size_t>(plan.handoff);
    const double per_ns = best_round_rate(samples_of(k), plan.work_per_run[k]);
    if (per_ns > 0) row.handoff_beside_us = 1e-3 / per_ns;
    rounds.handoff_us = round_rates(samples_of(k), plan.work_per_run[k]);
    for (double& us : rounds.handoff_us) us = us > 0 ? 1e-3 / us : kNaN;
  }
}

}  // namespace tfbench::harness::impl
