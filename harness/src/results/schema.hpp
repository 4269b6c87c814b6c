#pragma once
// The columns of the `workers` and `results` tables and the run attributes, in the order of
// docs/results-format.md, with the units and descriptions the writer records beside them. Writer,
// reader and the exports all use these lists.

#include "results/hdf5_util.hpp"

#include <vector>

namespace tfbench::harness::impl {

const std::vector<Column<WorkerRow>>& worker_columns();
const std::vector<Column<ResultRow>>& result_columns();
/// Run attributes; `text`, `integer` or `number` says the attribute's type.
const std::vector<Column<RunInfo>>& run_attributes();

/// Descriptions of the tables and datasets of a run (their `description` attribute).
inline constexpr const char* kWorkersDescription = "one row per worker process (thread configuration)";
inline constexpr const char* kResultsDescription = "one row per (case, variant, thread configuration)";
inline constexpr const char* kSamplesDescription =
    "raw samples of every result row, seconds per iteration; a row's are "
    "samples[sample_offset : sample_offset + sample_count]";
inline constexpr const char* kConfigDescription =
    "text of a config file given to the run (config_paths, in order)";

}  // namespace tfbench::harness::impl
