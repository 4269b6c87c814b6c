#pragma once
// The columns of the `workers` and `results` tables and the run attributes, in the order of
// docs/results-format.md, with the units and descriptions the writer records beside them. Writer,
// reader and the exports all use these lists.

#include "results/hdf5_util.hpp"
#include "tfbench/harness/json.hpp"

#include <vector>

namespace tfbench::harness::impl {

const std::vector<Column<WorkerRow>>& worker_columns();
const std::vector<Column<ResultRow>>& result_columns();
/// Run attributes; `text`, `integer` or `number` says the attribute's type.
const std::vector<Column<RunInfo>>& run_attributes();

/// One JSON member per column, named as in the file (NaN numbers are written as null by dump()).
template <class BasicJson, class Row>
BasicJson record_json(const Row& row, const std::vector<Column<Row>>& columns) {
  BasicJson out = BasicJson::object();
  for (const auto& c : columns) {
    if (c.is_text())
      out[c.name] = c.text_of(row);
    else if (c.integer)
      out[c.name] = row.*c.integer;
    else
      out[c.name] = row.*c.number;
  }
  return out;
}

/// Reads what record_json wrote: every column is required (nlohmann's out_of_range names the one
/// missing), a null number reads as NaN, a status must be one of the known ones.
template <class BasicJson, class Row>
void record_from_json(const BasicJson& json, Row& row, const std::vector<Column<Row>>& columns) {
  for (const auto& c : columns) {
    const BasicJson& value = json.at(c.name);
    if (c.text) {
      value.get_to(row.*c.text);
    } else if (c.status) {
      const auto text = value.template get<std::string>();
      const auto status = parse_row_status(text);
      if (!status)
        throw std::invalid_argument(std::string("column '") + c.name + "': unknown status '" + text + "'");
      row.*c.status = *status;
    } else if (c.integer) {
      value.get_to(row.*c.integer);
    } else {
      row.*c.number = value.is_null() ? kNaN : value.template get<double>();
    }
  }
}

/// Descriptions of the tables and datasets of a run (their `description` attribute).
inline constexpr const char* kWorkersDescription = "one row per worker process (thread configuration)";
inline constexpr const char* kResultsDescription = "one row per (case, variant, thread configuration)";
inline constexpr const char* kSamplesDescription =
    "raw samples of every result row, seconds per iteration; a row's are "
    "samples[sample_offset : sample_offset + sample_count]";
inline constexpr const char* kConfigDescription =
    "text of a config file given to the run (config_paths, in order)";

}  // namespace tfbench::harness::impl
