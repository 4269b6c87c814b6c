// `tfbench export`: a result file as CSV, JSON, Google Benchmark JSON or markdown.

#include "cli/commands.hpp"
#include "tfbench/harness/export.hpp"

#include <iostream>

namespace tfbench::harness::cli {
namespace {

class ExportCommand final : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* sub = app.add_subcommand(
        "export",
        "Write a result file in a format other tools read, to stdout or to -o:\n"
        "  csv       one row per (run, case, variant, threads, space) with every scalar column of the "
        "results table, params and metrics as param.<key> and metric.<key> columns, units in the "
        "header ('median_s [s]'), NaN as an empty cell: pandas.read_csv loads it as it is\n"
        "  json      the whole file, provenance, workers, rows and samples "
        "(docs/results-export.schema.json)\n"
        "  gbench    Google Benchmark's JSON: an iteration entry per sample of the ok rows and the "
        "mean, median, stddev and cv aggregates, for its tools/compare.py\n"
        "  markdown  what `tfbench report --format markdown` prints: provenance and the table of rows, for "
        "a PR comment\n"
        "Exit codes: 0 written, 2 unusable input or output.");
    sub->add_option("file", file_, "result file")->required()->type_name("FILE.h5");
    sub->add_option("--format", format_, "output format")
        ->required()
        ->check(CLI::IsMember({"csv", "json", "gbench", "markdown"}));
    sub->add_option("-o,--out", output_,
                    "write here instead of stdout, replacing the file whole at once (directories are "
                    "created); '-' is stdout")
        ->type_name("OUT");
    sub->add_flag("--overwrite", overwrite_, "replace --out if it exists (never the input file)");
    time_unit_option_ = sub->add_option("--time-unit", options_.time_unit,
                                        "gbench only: the time_unit of every entry (one unit for all, so "
                                        "that compare.py matches every entry of two files)")
                            ->check(CLI::IsMember({"ns", "us", "ms", "s"}))
                            ->capture_default_str();
    return sub;
  }

  int execute() override {
    try {
      options_.format = *parse_export_format(format_);
      if (time_unit_option_->count() > 0 && options_.format != ExportFormat::Gbench)
        throw ExportError("--time-unit applies to --format gbench only");
      const ResultsFile file = read_results(file_);
      if (output_.empty() || output_ == "-")  // "-": stdout, as every Unix tool reads it
        export_results(file, options_, std::cout);
      else
        export_to_file(file, options_, output_, overwrite_);
      return 0;
    } catch (const ResultsError& e) {
      std::cerr << "tfbench export: " << e.what() << "\n";
      return 2;
    }
  }

 private:
  std::string file_, format_, output_;
  bool overwrite_ = false;
  ExportOptions options_;
  CLI::Option* time_unit_option_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> make_export_command() {
  return std::make_unique<ExportCommand>();
}

}  // namespace tfbench::harness::cli
