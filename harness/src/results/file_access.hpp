#pragma once
// Opening and checking result files; shared by the reader and merge.

#include "results/hdf5_util.hpp"

#include <string>
#include <vector>

namespace tfbench::harness::impl {

/// Opens an existing file; ResultsError says whether it is missing, not HDF5, or unreadable.
H5Handle open_results_file(const std::string& path, unsigned flags);
/// Checks the root `schema`/`schema_version` attributes; returns the version.
std::int64_t check_schema(hid_t file, const std::string& path);
/// Names of a group's links in name order.
std::vector<std::string> child_names(hid_t group);
/// A scalar string dataset's text.
std::string read_string_dataset(hid_t group, const char* name);

}  // namespace tfbench::harness::impl
