#pragma once
// What a run executes: the validated configs expanded into cases, grouped by worker process (one
// per execution space and thread configuration), with command-line overrides applied.

#include "tfbench/harness/config.hpp"

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace tfbench::harness {

/// One point of a sweep at one worker configuration, with the variants that will run on it.
struct CaseGroup {
  const workloads::Family* family = nullptr;
  workloads::Params params;
  std::string group_id;                          // "<family>/<params>"
  std::vector<workloads::VariantInfo> variants;  // selected variants, unavailable ones included
  int repetitions = BuiltinDefaults::repetitions;
  double min_time = BuiltinDefaults::min_time;
  std::optional<double> threshold_pct;
  std::optional<double> case_timeout;  // seconds, 0: no limit; unset: the default of case_time_limit()
  SourceLocation where;
};

/// Seconds the group's variants are expected to take together: calibration (about 2.5 min_time)
/// and the samples of each.
double expected_case_seconds(const CaseGroup& group);

/// The time limit of one case (all its variants in one worker), in seconds; 0: none. The default,
/// like asv's, is 60 s, scaled by the expected duration when that exceeds 1 s (60 s per expected
/// second): generous enough for a case whose single run outlasts min_time, small enough to end a hang.
double case_time_limit(const CaseGroup& group);

/// "<group_id>/<variant>": a result row's case id.
std::string case_id(const CaseGroup& group, const std::string& variant);

/// One worker process: an execution space and a thread count, and its cases in run order.
struct WorkerPlan {
  ExecSpaceKind space = ExecSpaceKind::Serial;
  int threads = 1;
  std::vector<CaseGroup> groups;
  std::size_t row_count() const;
};

struct RunOverrides {
  std::optional<std::vector<int>> threads;
  std::optional<ExecSpaceKind> space;
  std::optional<int> repetitions;
  std::optional<double> min_time;
  std::optional<double> case_timeout;  // --case-timeout: seconds per case, 0: no limit
  std::optional<std::string> filter;   // ECMAScript regex searched in each case id
};

struct RunPlan {
  std::vector<WorkerPlan> workers;
  std::vector<std::string> notes;  // e.g. a case repeated by two blocks
  std::size_t row_count() const;
};

/// Expands every block of every config. Throws std::invalid_argument on a bad filter regex.
RunPlan make_plan(const std::vector<Config>& configs, const RunOverrides& overrides);

/// Whether a worker of the plan runs on a host space: Auto's tuning serves the CPU backend only, so a
/// run whose every case is on a device needs no calibration.
bool runs_on_host(const RunPlan& plan);

/// What a run is expected to cost beyond its timing settings, as measured on a loaded 2-core VM
/// (configs/smoke.yaml: 2 worker starts 57 ms, 3.8 s of set-up, check and calibration over 246
/// measured rows, i.e. about 2.5 min_time + 10 ms per row; the hierarchical ceilings 3-6.6 s per
/// thread configuration on the 2-core Xeon with two bandwidth kernels per level, most of it the
/// DRAM working sets' first touch).
struct EstimateCosts {
  double worker_start_s = 0.05;  // starting Kokkos and the BLAS library, verifying the threads
  double ceilings_s = 5.0;       // measuring one configuration's ceilings (0 where they are cached)
  double row_setup_s = 0.01;     // allocating a variant's inputs and checking it
  double skipped_row_s = 0.001;  // a variant that cannot run here: asked and recorded, not measured
};

/// Seconds one row is expected to take: calibration (about 2.5 min_time, doubling as warm-up),
/// `repetitions` samples of min_time and its set-up; a variant unavailable here costs next to nothing.
double expected_row_seconds(const CaseGroup& group, const workloads::VariantInfo& variant,
                            const EstimateCosts& costs = {});

/// Seconds one worker is expected to take before its first case: start-up and ceilings.
double expected_worker_seconds(bool measure_ceilings, const EstimateCosts& costs = {});

/// The whole run's expected time, from the plan's settings: every row (repetitions x min_time and
/// calibration per variant, per thread configuration) plus the start-up of every worker.
struct RunEstimate {
  double rows_s = 0.0, workers_s = 0.0;
  /// With ceilings, each case on the host also times a ceiling beside its rows (results-format.md,
  /// "Measured beside the row"): counted as one more row per case with a runnable variant.
  double beside_s = 0.0;
  std::size_t measured = 0, skipped = 0, workers = 0;
  std::size_t ceilings_measured = 0;  // workers that measure the machine ceilings (not cached, not off)
  bool ceilings = true;               // the run has ceilings (measured or cached)
  double total_s() const { return rows_s + beside_s + workers_s; }
};
/// Whether a worker measures its ceilings: false where they are off or in the machine's cache.
using MeasuresCeilingsFn = std::function<bool(const WorkerPlan&)>;
RunEstimate estimate_run(const RunPlan& plan, const MeasuresCeilingsFn& measures_ceilings,
                         bool ceilings = true, const EstimateCosts& costs = {});
/// Every worker measures (`measure_ceilings`) or none does.
RunEstimate estimate_run(const RunPlan& plan, bool measure_ceilings, const EstimateCosts& costs = {});

/// "about 14 s (246 row(s) to measure: 9.4 s; 30 skipped; the ceilings beside them: 2.5 s; 2 worker
/// start(s) with ceilings: 2.1 s)".
std::string describe(const RunEstimate& estimate);

/// A duration for people: "850 ms", "42 s", "3 min 20 s", "2 h 05 min".
std::string format_duration(double seconds);

/// One line per row a run would produce, then a count and the estimated time: what `tfbench list`
/// prints. A variant unavailable here is marked `[skipped: <reason>]`.
void print_plan(const RunPlan& plan, std::ostream& out, const RunEstimate& estimate);

}  // namespace tfbench::harness
