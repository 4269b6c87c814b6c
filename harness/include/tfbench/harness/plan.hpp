#pragma once
// What a run executes: the validated configs expanded into cases, grouped by worker process (one
// per execution space and thread configuration), with command-line overrides applied.

#include "tfbench/harness/config.hpp"

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

/// One line per row a run would produce, then a count: what `tfbench list` prints.
void print_plan(const RunPlan& plan, std::ostream& out);

}  // namespace tfbench::harness
