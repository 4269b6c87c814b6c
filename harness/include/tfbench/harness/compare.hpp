#pragma once
// `tfbench compare`: rows of two result files matched by (case_id, threads, exec_space), the ratio
// of medians, a two-sided Mann-Whitney U test on the raw samples, and a verdict per row. With
// paired rounds (interleaved runs of both sides) the round is the unit instead: the median of the
// per-round ratios and a sign test over the rounds.

#include "tfbench/harness/results.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace tfbench::harness {

enum class Verdict { Regression, Improvement, NoChange, Inconclusive };
/// "REGRESSION", "IMPROVEMENT", "NO_CHANGE", "INCONCLUSIVE".
const char* name(Verdict verdict);

struct CompareSettings {
  double threshold_pct = 10.0;  // default for rows without a threshold_pct of their own
  double alpha = 0.05;          // significance level of the test
  // The i-th run of each file ran side by side with the other's i-th run (the perf gate's
  // interleaved rounds): judge with judge_paired() over the rounds instead of judge().
  bool paired_rounds = false;
  // Holm's step-down over the rows judged on samples: the chance of any false verdict among them
  // stays below alpha, where alpha per row would let k noisy rows raise about k * alpha of them.
  bool family_wise = false;
};

struct Judgement {
  Verdict verdict = Verdict::Inconclusive;
  double ratio = kNaN;                // median(new) / median(base): > 1 is slower
  double change_pct = kNaN;           // (ratio - 1) * 100
  double p = kNaN;                    // two-sided p-value of `test`
  double u = kNaN;                    // U of the new samples (Mann-Whitney only)
  bool exact = false;                 // exact null distribution used
  std::string test = "mann-whitney";  // or "sign" (paired rounds)
  std::vector<double> round_ratios;   // paired rounds: new/base of each round's medians, in order
  std::string reason;                 // why this verdict, in words
  bool undecidable = false;           // NO_CHANGE, but no outcome of the test could reach alpha
  double alpha = kNaN;                // the level p was held to (family-wise: Holm's level for its rank)
};

/// The verdict for one row. A change counts when new/base >= 1 + t/100 (slower) or
/// <= 1/(1 + t/100) (faster); it is a REGRESSION or IMPROVEMENT only when also p < alpha.
/// A counting change with p >= alpha is INCONCLUSIVE: "too few samples" when no outcome of the
/// test could reach alpha with these sample counts, else "too noisy".
Judgement judge(const std::vector<double>& base, const std::vector<double>& fresh, double threshold_pct,
                double alpha);

/// The smallest equal sample count per side with which the exact test can reach p < alpha.
std::size_t samples_needed(double alpha);

/// The verdict for one row measured in paired rounds: base_rounds[i] and new_rounds[i] are the
/// medians of round i of each side, measured side by side. ratio = the median of the per-round
/// ratios; p = two-sided sign test over the rounds (ties left out). Samples within one process
/// share its state (placement, neighbours), so the round, not the sample, is the independent
/// unit: one slow process cannot make a verdict. Same threshold and alpha rules as judge().
Judgement judge_paired(const std::vector<double>& base_rounds, const std::vector<double>& new_rounds,
                       double threshold_pct, double alpha);

/// The smallest number of paired rounds with which the sign test can reach p < alpha (6 at 0.05).
std::size_t rounds_needed(double alpha);

/// Holm's step-down levels for p-values: the i-th smallest p is held to alpha / (m - i) while every
/// smaller one passed its level; from the first that fails on, every p is held to that level (so it
/// fails too). Returns one level per p, in the order given; NaN p-values are not counted in m and
/// get alpha.
std::vector<double> holm_levels(const std::vector<double>& p_values, double alpha);

struct CaseComparison {
  std::string case_id, family, variant, exec_space;
  std::int64_t threads = 0;
  RowStatus base_status = RowStatus::Unknown, new_status = RowStatus::Unknown;
  double base_median = kNaN, new_median = kNaN;
  std::size_t base_samples = 0, new_samples = 0;
  double threshold_pct = kNaN;
  bool threshold_from_config = false;
  Judgement judgement;
};

struct NotCompared {
  std::string case_id, exec_space;
  std::int64_t threads = 0;
  std::string reason;
  bool missing = false;  // the row exists in one file only
};

struct CompareReport {
  std::string base_path, new_path;
  std::vector<std::string> base_runs, new_runs;
  CompareSettings settings;
  std::vector<CaseComparison> rows;
  std::vector<NotCompared> not_compared;
  std::vector<std::string> notes;
  double geomean_ratio = kNaN;  // over rows compared on samples
  std::size_t count(Verdict verdict) const;
  std::size_t missing() const;  // rows in one file only
};

/// Thrown when two files cannot be compared (no rows in common, no rows at all).
class CompareError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

CompareReport compare_results(const ResultsFile& base, const ResultsFile& fresh,
                              const CompareSettings& settings);

enum class CompareFormat { Table, Markdown, Json };
void print_compare(const CompareReport& report, CompareFormat format, std::ostream& out);

}  // namespace tfbench::harness
