#include "results/file_access.hpp"
#include "results/schema.hpp"

#include <algorithm>
#include <filesystem>

namespace tfbench::harness {

using impl::h5_check;
using impl::h5_checked;
using impl::H5Handle;

namespace impl {

std::vector<std::string> child_names(hid_t group) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  h5_check(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names), "list group");
  return names;
}

std::string read_string_dataset(hid_t group, const char* name) {
  H5Handle d = h5_checked(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose, name);
  H5Handle file_type = h5_checked(H5Dget_type(d), H5Tclose, "type");
  if (H5Tget_class(file_type) != H5T_STRING) return {};
  if (H5Tis_variable_str(file_type) > 0) {
    H5Handle type = vlen_string_type();
    char* p = nullptr;
    h5_check(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &p), std::string("read ") + name);
    std::string out = p ? p : "";
    H5free_memory(p);
    return out;
  }
  std::string out(H5Tget_size(file_type), '\0');
  h5_check(H5Dread(d, file_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), std::string("read ") + name);
  return out.substr(0, out.find('\0'));
}

/// Checks the root attributes; returns the schema version.
std::int64_t check_schema(hid_t file, const std::string& path) {
  const auto schema = read_string_attribute(file, "schema");
  if (!schema || *schema != kResultsSchema) {
    throw ResultsError(path + " is an HDF5 file but not a tfbench result file (root attribute 'schema' is " +
                       (schema ? "'" + *schema + "'" : std::string("missing")) + ", expected '" +
                       kResultsSchema + "')");
  }
  const auto version = read_int_attribute(file, "schema_version");
  if (!version) {
    // Present but not an integer (a string "1" written by hand or another tool) is not "missing".
    if (const auto text = read_string_attribute(file, "schema_version")) {
      throw ResultsError(path + ": root attribute 'schema_version' is the string '" + *text +
                         "'; expected an integer (" + std::to_string(kResultsSchemaVersion) + ")");
    }
    if (H5Aexists(file, "schema_version") > 0) {
      throw ResultsError(path + ": root attribute 'schema_version' is not an integer; expected " +
                         std::to_string(kResultsSchemaVersion));
    }
    throw ResultsError(path + ": root attribute 'schema_version' is missing");
  }
  if (*version > kResultsSchemaVersion || *version < 1) {
    throw ResultsError(path + " has schema version " + std::to_string(*version) +
                       "; this tfbench reads version " + std::to_string(kResultsSchemaVersion) +
                       " (update tfbench)");
  }
  return *version;
}

H5Handle open_results_file(const std::string& path, unsigned flags) {
  h5_quiet();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw ResultsError(path + ": no such file");
  if (H5Fis_hdf5(path.c_str()) <= 0) throw ResultsError(path + " is not an HDF5 file");
  H5Handle access = unlocked_file_access();
  const hid_t file = H5Fopen(path.c_str(), flags, access);
  if (file < 0) throw ResultsError("cannot open " + path + " (damaged or truncated)");
  return H5Handle(file, H5Fclose);
}

}  // namespace impl

namespace {

RunData read_run(hid_t runs, const std::string& run_id, const std::string& path) {
  RunData run;
  H5Handle group = h5_checked(H5Gopen2(runs, run_id.c_str(), H5P_DEFAULT), H5Gclose, "/runs/" + run_id);
  run.info.run_id = run_id;
  for (const auto& a : impl::run_attributes()) {
    if (a.text) {
      if (auto v = impl::read_string_attribute(group, a.name)) run.info.*a.text = *v;
    } else if (a.integer) {
      if (auto v = impl::read_int_attribute(group, a.name)) run.info.*a.integer = *v;
    } else if (auto v = impl::read_double_attribute(group, a.name)) {
      run.info.*a.number = *v;
    }
  }
  if (auto v = impl::read_string_attribute(group, "merged_from")) run.info.merged_from = *v;
  if (H5Lexists(group, "configs", H5P_DEFAULT) > 0) {
    H5Handle configs = h5_checked(H5Gopen2(group, "configs", H5P_DEFAULT), H5Gclose, "configs");
    auto names = impl::child_names(configs);
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;  // numeric order of "0", "1", ...
    });
    for (const auto& n : names)
      run.info.config_texts.push_back(impl::read_string_dataset(configs, n.c_str()));
  }
  try {
    run.workers = impl::read_table(group, "workers", impl::worker_columns());
    run.results = impl::read_table(group, "results", impl::result_columns());
  } catch (const ResultsError& e) {
    throw ResultsError(path + ": run " + run_id + ": " + e.what());
  }
  std::vector<double> samples;
  if (H5Lexists(group, "samples", H5P_DEFAULT) > 0) {
    H5Handle d = h5_checked(H5Dopen2(group, "samples", H5P_DEFAULT), H5Dclose, "samples");
    samples.resize(impl::dataset_length(d));
    if (!samples.empty()) {
      h5_check(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, samples.data()), "read samples");
    }
  }
  for (auto& row : run.results) {
    const auto end = row.sample_offset + row.sample_count;
    if (row.sample_offset < 0 || row.sample_count < 0 || end > static_cast<std::int64_t>(samples.size())) {
      throw ResultsError(path + ": run " + run_id + ": row '" + row.case_id +
                         "' points at samples outside the samples dataset");
    }
    row.samples.assign(samples.begin() + row.sample_offset, samples.begin() + end);
  }
  return run;
}

}  // namespace

ResultsFile read_results(const std::string& path) {
  H5Handle file = impl::open_results_file(path, H5F_ACC_RDONLY);
  ResultsFile out;
  out.path = path;
  out.schema_version = impl::check_schema(file, path);
  if (H5Lexists(file, "runs", H5P_DEFAULT) <= 0) throw ResultsError(path + ": group /runs is missing");
  H5Handle runs = h5_checked(H5Gopen2(file, "runs", H5P_DEFAULT), H5Gclose, "/runs");
  for (const auto& id : impl::child_names(runs)) out.runs.push_back(read_run(runs, id, path));
  std::stable_sort(out.runs.begin(), out.runs.end(),
                   [](const RunData& a, const RunData& b) { return a.info.start_utc < b.info.start_utc; });
  return out;
}

}  // namespace tfbench::harness
