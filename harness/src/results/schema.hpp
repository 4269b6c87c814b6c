#pragma once
// The columns of the `workers` and `results` tables and the run attributes, in the order of
// docs/results-format.md. Writer and reader both use these lists.

#include "results/hdf5_util.hpp"

#include <vector>

namespace tfbench::harness::impl {

const std::vector<Column<WorkerRow>>& worker_columns();
const std::vector<Column<ResultRow>>& result_columns();
/// Run attributes; `text`, `integer` or `number` says the attribute's type.
const std::vector<Column<RunInfo>>& run_attributes();

}  // namespace tfbench::harness::impl
