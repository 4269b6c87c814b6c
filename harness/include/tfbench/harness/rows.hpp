#pragma once
// Derived fields of result rows: statistics from the samples, rates, fractions of the worker's
// ceilings, and the fastest peer of each case; and the headline rate shown by run and report.

#include "tfbench/harness/results.hpp"

#include <string>
#include <vector>

namespace tfbench::harness {

/// Fills median/min/max/mean/stddev/cv, gflops/gbs, the ceiling fractions and, over the rows of
/// one case from one worker, fastest_peer and speedup_vs_fastest_peer (= median of the fastest
/// `ok` peer / median of the row). Rows that are not `ok` keep NaN numbers.
void derive_case_fields(std::vector<ResultRow>& rows, double ceiling_gflops, double ceiling_gbs);

/// The rate that matters for a row: the one closer to its ceiling (the binding resource); without
/// ceilings, GB/s below one flop per byte, else GFLOP/s.
struct HeadlineRate {
  double value = kNaN;
  std::string unit;        // "GFLOP/s", "GB/s" or "" (no work recorded)
  double fraction = kNaN;  // of the matching ceiling
};
HeadlineRate headline_rate(const ResultRow& row);

/// "24.6 GB/s (68% of ceiling)" or "-".
std::string format_rate(const HeadlineRate& rate);

}  // namespace tfbench::harness
