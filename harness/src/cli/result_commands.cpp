// `tfbench compare`, `merge` and `report`: commands over result files.

#include "cli/commands.hpp"
#include "tfbench/harness/compare.hpp"
#include "tfbench/harness/report.hpp"
#include "tfbench/harness/results.hpp"

#include <iostream>
#include <map>

namespace tfbench::harness::cli {
namespace {

class CompareCommand final : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* sub = app.add_subcommand(
        "compare",
        "Compare two result files row by row (matched on case_id, threads, exec_space): ratio of medians, "
        "two-sided Mann-Whitney U test on the raw samples (a case repeated over a file's runs pools "
        "them), and a verdict REGRESSION, IMPROVEMENT, NO_CHANGE or INCONCLUSIVE. With --paired-rounds, "
        "the round is the unit instead: median of the per-round ratios and a sign test over the "
        "rounds.\n"
        "Exit codes: 0 compared, 1 a REGRESSION with --fail-on-regression (or a row in one file only "
        "with --fail-on-missing), 2 unusable input.");
    sub->add_option("base", base_, "baseline result file")->required()->type_name("BASE.h5");
    sub->add_option("new", fresh_, "result file to judge against the baseline")
        ->required()
        ->type_name("NEW.h5");
    sub->add_option(
           "--threshold", settings_.threshold_pct,
           "smallest change that counts, in percent, for rows without threshold_pct from their config")
        ->check(CLI::Range(0.0, 100000.0))
        ->type_name("PCT")
        ->capture_default_str();
    sub->add_option("--alpha", settings_.alpha, "significance level of the test")
        ->check(CLI::Range(1e-12, 0.5))
        ->type_name("A")
        ->capture_default_str();
    sub->add_option("--format", format_, "output format")
        ->check(CLI::IsMember({"table", "markdown", "json"}))
        ->capture_default_str();
    sub->add_flag("--paired-rounds", settings_.paired_rounds,
                  "the i-th run of BASE ran side by side with the i-th run of NEW (interleaved rounds, "
                  "e.g. merged by the perf gate): judge each case by the median of its per-round "
                  "ratios new/base and a two-sided sign test over the rounds (needs equal run counts; "
                  "6 rounds or more at alpha 0.05)");
    sub->add_flag(
        "--family-wise", settings_.family_wise,
        "hold the rows compared to alpha together (Holm's step-down: the k-th smallest of m p-values "
        "must be below alpha / (m - k + 1)), so that m rows judged at once raise a false verdict with "
        "probability below alpha, not up to m * alpha; the perf gate's confirmation uses it");
    sub->add_flag("--fail-on-regression", fail_on_regression_, "exit 1 when any row is a REGRESSION");
    sub->add_flag("--fail-on-missing", fail_on_missing_,
                  "exit 1 when a row (case, threads, space) is in one file only, e.g. two builds of one "
                  "config that must give the same rows");
    return sub;
  }

  int execute() override {
    try {
      const ResultsFile base = read_results(base_);
      const ResultsFile fresh = read_results(fresh_);
      const CompareReport report = compare_results(base, fresh, settings_);
      const CompareFormat format = format_ == "json"       ? CompareFormat::Json
                                   : format_ == "markdown" ? CompareFormat::Markdown
                                                           : CompareFormat::Table;
      print_compare(report, format, std::cout);
      if (fail_on_regression_ && report.count(Verdict::Regression) > 0) return 1;
      if (fail_on_missing_ && report.missing() > 0) {
        std::cerr << "tfbench compare: " << report.missing()
                  << " row(s) in one file only (--fail-on-missing)\n";
        return 1;
      }
      return 0;
    } catch (const ResultsError& e) {
      std::cerr << "tfbench compare: unusable input: " << e.what() << "\n";
    } catch (const CompareError& e) {
      std::cerr << "tfbench compare: unusable input: " << e.what() << "\n";
    }
    return 2;
  }

 private:
  std::string base_, fresh_;
  CompareSettings settings_;
  std::string format_ = "table";
  bool fail_on_regression_ = false;
  bool fail_on_missing_ = false;
};

class MergeCommand final : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* sub =
        app.add_subcommand("merge",
                           "Combine the runs of several result files (e.g. a Slurm array job) into one file. "
                           "Every run group is copied whole with its provenance; a run id already taken gets "
                           "a suffix -2, -3, ...; a file or run given twice is merged once. Every input is "
                           "checked before the output is written, at once.\n"
                           "Exit codes: 0 merged, 2 unusable input or output.");
    sub->add_option("inputs", inputs_, "result files to combine")->required()->type_name("IN.h5");
    sub->add_option("-o,--out", output_, "the new combined file")->required()->type_name("OUT.h5");
    sub->add_flag("--overwrite", overwrite_, "replace the output if it exists");
    return sub;
  }

  int execute() override {
    try {
      const MergeSummary summary = merge_results(inputs_, output_, overwrite_, "tfbench merge -o " + output_);
      for (const auto& note : summary.notes) std::cerr << "tfbench merge: note: " << note << "\n";
      std::size_t rows = 0;
      for (const auto& r : summary.runs) {
        std::cout << r.source_file << ":/runs/" << r.source_run_id << " -> " << output_ << ":/runs/"
                  << r.run_id << " (" << r.results << " rows)\n";
        rows += r.results;
      }
      std::cout << "merged " << summary.runs.size() << " run(s), " << rows << " rows, into " << output_
                << "\n";
      return 0;
    } catch (const ResultsError& e) {
      std::cerr << "tfbench merge: " << e.what() << "\n";
      return 2;
    }
  }

 private:
  std::vector<std::string> inputs_;
  std::string output_;
  bool overwrite_ = false;
};

class ReportCommand final : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* sub = app.add_subcommand(
        "report",
        "Summarize a result file: per run its provenance, per worker the verified threads "
        "and ceilings, and a table of every row with its median, spread (p5 .. p95: the 90% interval of "
        "its samples; cv: their stddev / mean) and rate. Rows whose cv is above --noisy-cv are marked "
        "'noisy' and counted in a warning at the end.\nExit codes: 0 printed, 2 unusable input.");
    sub->add_option("file", file_, "result file")->required()->type_name("FILE.h5");
    sub->add_option("--format", format_, "output format")
        ->check(CLI::IsMember({"table", "markdown"}))
        ->capture_default_str();
    sub->add_option("--noisy-cv", options_.noisy_cv,
                    "mark a row noisy when the cv of its samples is above this fraction (0.05: 5%)")
        ->check(CLI::Range(0.0, 1.0))
        ->type_name("CV")
        ->capture_default_str();
    return sub;
  }

  int execute() override {
    try {
      options_.markdown = format_ == "markdown";
      print_report(read_results(file_), std::cout, options_);
      return 0;
    } catch (const ResultsError& e) {
      std::cerr << "tfbench report: " << e.what() << "\n";
      return 2;
    }
  }

 private:
  std::string file_;
  std::string format_ = "table";
  ReportOptions options_;
};

}  // namespace

std::unique_ptr<Command> make_compare_command() {
  return std::make_unique<CompareCommand>();
}
std::unique_ptr<Command> make_merge_command() {
  return std::make_unique<MergeCommand>();
}
std::unique_ptr<Command> make_report_command() {
  return std::make_unique<ReportCommand>();
}

}  // namespace tfbench::harness::cli
