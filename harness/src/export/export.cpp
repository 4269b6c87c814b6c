// The format dispatch of `tfbench export` and the atomic write of its output file.

#include "tfbench/harness/export.hpp"

#include "results/atomic_write.hpp"
#include "tfbench/harness/report.hpp"

#include <filesystem>
#include <sstream>

namespace tfbench::harness {

std::optional<ExportFormat> parse_export_format(const std::string& name) {
  if (name == "csv") return ExportFormat::Csv;
  if (name == "json") return ExportFormat::Json;
  if (name == "gbench") return ExportFormat::Gbench;
  if (name == "markdown") return ExportFormat::Markdown;
  return std::nullopt;
}

void export_results(const ResultsFile& file, const ExportOptions& options, std::ostream& out) {
  switch (options.format) {
    case ExportFormat::Csv:
      export_csv(file, out);
      break;
    case ExportFormat::Json:
      export_json(file, out);
      break;
    case ExportFormat::Gbench:
      export_gbench(file, options.time_unit, out);
      break;
    case ExportFormat::Markdown:
      print_report(file, out, true);
      break;
  }
}

void export_to_file(const ResultsFile& file, const ExportOptions& options, const std::string& path,
                    bool overwrite) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(path, ec)) {
    if (fs::equivalent(path, file.path, ec)) throw ExportError(path + " is the input file; not replaced");
    if (!overwrite) throw ExportError(path + " exists (--overwrite replaces it)");
  }
  std::ostringstream text;
  export_results(file, options, text);  // before touching the disk: a failed export writes nothing
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);  // a failure shows in the write below
  const std::string data = text.str();
  impl::write_file_atomically(path, data.data(), data.size(), overwrite);
}

}  // namespace tfbench::harness
