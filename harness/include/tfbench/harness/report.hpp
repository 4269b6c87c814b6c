#pragma once
// `tfbench report`: a readable summary of a result file, per run and per worker configuration,
// with the spread of every row and a warning about rows too noisy to trust at a glance.

#include "tfbench/harness/results.hpp"

#include <ostream>
#include <vector>

namespace tfbench::harness {

/// A row is noisy above this coefficient of variation (stddev / mean of its samples): 5%, where
/// Google Benchmark users start to distrust a `_cv` aggregate.
inline constexpr double kDefaultNoisyCv = 0.05;

struct ReportOptions {
  bool markdown = false;
  double noisy_cv = kDefaultNoisyCv;
};

/// The 90% interval of the samples, p5..p95 (linear interpolation between order statistics, as
/// numpy.percentile does); NaN for no samples.
struct SampleInterval {
  double low = kNaN, high = kNaN;
};
SampleInterval interval_90(std::vector<double> samples);

/// An `ok` row whose cv is above the threshold.
bool is_noisy(const ResultRow& row, double noisy_cv);

void print_report(const ResultsFile& file, std::ostream& out, const ReportOptions& options);
inline void print_report(const ResultsFile& file, std::ostream& out, bool markdown) {
  print_report(file, out, ReportOptions{markdown, kDefaultNoisyCv});
}

}  // namespace tfbench::harness
