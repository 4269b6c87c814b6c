#pragma once
// The supervising half of `tfbench run`: each worker plan runs in worker processes, one at a time;
// their rows are completed and written as they arrive, and a worker that crashes, hangs past its
// case's time limit or fails verification has its unfinished variants recorded while a fresh
// worker goes on with the rest.

#include "run/progress.hpp"
#include "run/supervisor.hpp"
#include "tfbench/harness/results.hpp"
#include "tfbench/harness/runner.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tfbench::harness::impl {

/// What a run counted: rows by status, and where its time went besides the samples.
struct Tally {
  std::map<RowStatus, std::size_t> by_status;
  std::size_t verification_failures = 0;
  double overhead_s = 0.0;
  double startup_s = 0.0;
  double ceilings_s = 0.0;
  std::size_t workers = 0;
  /// A failed row or a worker that failed verification: `tfbench run` exits 1.
  bool failures() const;
  /// "3 ok", "1 skipped", ... in the order of the status names.
  std::vector<std::string> counts() const;
  std::size_t rows() const;
};

/// Runs every worker plan in turn, until done or interrupted (a signal seen by `signals`), writing
/// each worker and each finished case into `writer` and counting into `tally` as it goes, so that
/// the counts hold what was written when a ResultsWriteError escapes.
void run_plan(const RunOptions& options, const RunPlan& plan, std::uint64_t seed, ResultsWriter& writer,
              Progress& progress, const SignalWatch& signals, Tally& tally);

}  // namespace tfbench::harness::impl
