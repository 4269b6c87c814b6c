// `tfbench export --format json`: the whole result file as one JSON document, described by
// docs/results-export.schema.json. NaN and infinite numbers become null (JSON has neither).

#include "export/values.hpp"
#include "results/schema.hpp"
#include "tfbench/harness/export.hpp"

namespace tfbench::harness {
namespace {

using nlohmann::ordered_json;

template <class Row>
ordered_json record(const Row& row, const std::vector<impl::Column<Row>>& columns) {
  return impl::record_json<ordered_json>(row, columns);  // dump() writes NaN as null
}

/// The units of the columns that have one ("1": a plain number); text and identifiers have none.
template <class Row>
ordered_json units(const std::vector<impl::Column<Row>>& columns) {
  ordered_json out = ordered_json::object();
  for (const auto& c : columns) {
    if (*c.units) out[c.name] = c.units;
  }
  return out;
}

ordered_json run_record(const RunData& run) {
  ordered_json out = {{"run_id", run.info.run_id}};
  out.update(record(run.info, impl::run_attributes()));
  out["merged_from"] = run.info.merged_from;
  out["configs"] = run.info.config_texts;
  out["workers"] = ordered_json::array();
  for (const auto& w : run.workers) out["workers"].push_back(record(w, impl::worker_columns()));
  out["results"] = ordered_json::array();
  for (std::size_t i = 0; i < run.results.size(); ++i) {
    const ResultRow& row = run.results[i];
    ordered_json r = record(row, impl::result_columns());
    const std::string where = impl::row_place(run, i);
    r["params"] = impl::parse_object(row.params, where + " params");
    r["metrics"] = impl::parse_object(row.metrics, where + " metrics");
    r["samples"] = row.samples;
    out["results"].push_back(std::move(r));
  }
  return out;
}

}  // namespace

void export_json(const ResultsFile& file, std::ostream& out) {
  ordered_json doc = {
      {"format", "tfbench-export"},
      {"format_version", 1},
      {"source", file.path},
      {"schema", kResultsSchema},
      {"schema_version", file.schema_version},
      {"units",
       {{"run", units(impl::run_attributes())},
        {"workers", units(impl::worker_columns())},
        {"results", units(impl::result_columns())},
        {"samples", "s"}}},
  };
  doc["runs"] = ordered_json::array();
  for (const auto& run : file.runs) doc["runs"].push_back(run_record(run));
  // Invalid UTF-8 (an error text from a library) becomes U+FFFD instead of failing the export.
  out << doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace tfbench::harness
