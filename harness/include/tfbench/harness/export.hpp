#pragma once
// `tfbench export`: a result file in the formats other tools read: CSV for pandas and
// spreadsheets, JSON described by docs/results-export.schema.json, Google Benchmark's JSON for
// its tools/compare.py, and the markdown of `tfbench report` for a PR comment.

#include "tfbench/harness/results.hpp"

#include <optional>
#include <ostream>
#include <string>

namespace tfbench::harness {

enum class ExportFormat { Csv, Json, Gbench, Markdown };

/// "csv", "json", "gbench" or "markdown"; nullopt for anything else.
std::optional<ExportFormat> parse_export_format(const std::string& name);

struct ExportOptions {
  ExportFormat format = ExportFormat::Csv;
  std::string time_unit = "ns";  // gbench: "ns", "us", "ms" or "s", as Google Benchmark writes
};

/// A file that cannot be exported: a row whose params or metrics is not a JSON object, an
/// unknown time unit, an output that would replace the input.
class ExportError : public ResultsError {
 public:
  using ResultsError::ResultsError;
};

/// One row per (run, case, variant, thread configuration, space): every scalar column of the
/// results table after `run_id`, params and metrics expanded into `param.<key>` and
/// `metric.<key>` columns; a header `name [unit]` where the column has a unit; NaN an empty cell.
void export_csv(const ResultsFile& file, std::ostream& out);
/// The whole file: runs with their provenance, configs, workers, and rows with their samples.
void export_json(const ResultsFile& file, std::ostream& out);
/// Google Benchmark's JSON reporter format: one `iteration` entry per sample of the `ok` rows
/// (the runs of a case in one file pooled, as `tfbench compare` pools them) and the mean, median,
/// stddev and cv aggregates; named `<case_id>/threads:<n>/space:<exec_space>`.
void export_gbench(const ResultsFile& file, const std::string& time_unit, std::ostream& out);

void export_results(const ResultsFile& file, const ExportOptions& options, std::ostream& out);

/// export_results() into `path`, which is replaced whole at once (written beside it, synced and
/// renamed): a reader sees the old file or the new one. Its directory is created. Throws
/// ExportError when `path` is the input file or exists and !overwrite, ResultsWriteError when it
/// cannot be written.
void export_to_file(const ResultsFile& file, const ExportOptions& options, const std::string& path,
                    bool overwrite);

}  // namespace tfbench::harness
