#pragma once
// Derived fields of result rows: statistics from the samples, rates, fractions of the worker's
// ceilings, and the fastest peer of each case; and the headline rate shown by run and report.

#include "tfbench/harness/results.hpp"
#include "tfbench/workloads/ceilings.hpp"

#include <string>
#include <vector>

namespace tfbench::harness {

/// A row above this fraction of its roofline bound is flagged (report, target_report.py): 5% covers
/// a best-of-samples ceiling against a median row; more is a modelling error, not noise.
inline constexpr double kRooflineTolerance = 1.05;

/// Fills median/min/max/mean/stddev/cv, gflops/gbs, the roofline (arithmetic intensity, memory
/// level, the bounding ceiling, the bound and the fraction of it; with `ceilings` null only the
/// intensity) and, over the rows of one case from one worker, fastest_peer and
/// speedup_vs_fastest_peer (= median of the fastest `ok` peer / median of the row). Rows that are
/// not `ok` keep NaN numbers. `one_thread`: the same machine's ceilings at one thread, for the
/// bound of a multi-threaded worker's rows (workloads::roofline_bound); null: the worker's alone.
void derive_case_fields(std::vector<ResultRow>& rows, const workloads::Ceilings* ceilings,
                        const workloads::Ceilings* one_thread = nullptr);

/// Whether a multi-threaded worker's row is bound by one thread's (cached) ceilings rather than its
/// threads' (roofline_threads): nothing was then measured beside it at the bound's thread count.
inline bool bound_by_one_thread(const ResultRow& row) {
  return row.roofline_threads == 1 && row.threads > 1;
}

/// The rate that matters for a row: the one of the ceiling that bounds it on the roofline; without
/// ceilings, GB/s below one flop per byte, else GFLOP/s.
struct HeadlineRate {
  double value = kNaN;
  std::string unit;        // "GFLOP/s", "GB/s" or "" (no work recorded)
  double fraction = kNaN;  // of the row's roofline bound
  std::string ceiling;     // which: "f64 peak", "f32 peak", "L2 bandwidth", ...
};
HeadlineRate headline_rate(const ResultRow& row);

/// "24.6 GB/s (68% of the L2 bandwidth)" or "-".
std::string format_rate(const HeadlineRate& rate);

}  // namespace tfbench::harness
