#pragma once
// Sample statistics of one result row, the two-sided Mann-Whitney U test `tfbench compare`
// rests on, and the sign test of its paired-rounds mode.

#include <cstddef>
#include <vector>

namespace tfbench::harness {

struct SampleStats {
  std::size_t count = 0;
  double median = 0.0, min = 0.0, max = 0.0, mean = 0.0;
  double stddev = 0.0;  // sample standard deviation (n - 1); NaN for fewer than 2 samples
  double cv = 0.0;      // stddev / mean
};

/// Statistics of `samples`; every field is NaN when there are none.
SampleStats summarize(const std::vector<double>& samples);

struct MedianInterval {
  double median, lo, hi;  // NaN without values; lo, hi NaN with one
};

/// The median of `values` (NaN left out) and a distribution-free interval for it: the order statistics
/// x(k) and x(n + 1 - k) for the largest k whose coverage 1 - 2 P(Binomial(n, 1/2) < k) is at least
/// `confidence` (k = 1, the whole range, where even that falls short), as scripts/tfbench_results'
/// stats.median_interval, by which target_report.py judges.
MedianInterval median_interval(std::vector<double> values, double confidence = 0.90);

struct MannWhitneyResult {
  double u = 0.0;      // U of the first sample: pairs (x, y) with x > y, ties counting 1/2
  double p = 1.0;      // two-sided p-value
  bool exact = false;  // exact null distribution (no ties, small samples) or normal approximation
  bool ties = false;
};

/// Two-sided Mann-Whitney U test of x against y. Exact distribution when there are no ties and
/// m + n <= kMannWhitneyExactMax; otherwise the normal approximation with tie and continuity
/// correction. p = 1 when either sample is empty.
MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);
constexpr std::size_t kMannWhitneyExactMax = 60;

/// The smallest two-sided p-value the exact test can give with m and n samples: 2 / C(m+n, m).
double mann_whitney_min_p(std::size_t m, std::size_t n);

/// Two-sided exact sign test: `above` of the pairs moved one way, `below` the other (ties left
/// out): 2 P(Binomial(above + below, 1/2) <= min(above, below)), at most 1; 1 without pairs.
double sign_test_p(std::size_t above, std::size_t below);

/// The smallest two-sided p-value the sign test can give with n pairs: 2 / 2^n.
double sign_test_min_p(std::size_t n);

}  // namespace tfbench::harness
