#include "results/file_access.hpp"

#include <filesystem>
#include <set>

namespace tfbench::harness {

using impl::h5_check;
using impl::h5_checked;
using impl::H5Handle;

namespace {

std::size_t result_count(hid_t runs, const std::string& run_id) {
  H5Handle group = h5_checked(H5Gopen2(runs, run_id.c_str(), H5P_DEFAULT), H5Gclose, run_id);
  if (H5Lexists(group, "results", H5P_DEFAULT) <= 0) return 0;
  H5Handle results = h5_checked(H5Dopen2(group, "results", H5P_DEFAULT), H5Dclose, "results");
  return impl::dataset_length(results);
}

}  // namespace

MergeSummary merge_results(const std::vector<std::string>& inputs, const std::string& output,
                           bool overwrite) {
  namespace fs = std::filesystem;
  impl::h5_quiet();
  if (inputs.empty()) throw ResultsError("merge: no input files");
  std::error_code ec;
  for (const auto& in : inputs) {
    if (fs::exists(output, ec) && fs::equivalent(in, output, ec)) {
      throw ResultsError("merge: the output " + output + " is also an input; choose a new output file");
    }
  }
  // Check every input before writing anything.
  std::vector<H5Handle> files;
  for (const auto& in : inputs) {
    H5Handle f = impl::open_results_file(in, H5F_ACC_RDONLY);
    impl::check_schema(f, in);
    if (H5Lexists(f, "runs", H5P_DEFAULT) <= 0) throw ResultsError(in + ": group /runs is missing");
    files.push_back(std::move(f));
  }
  if (fs::exists(output, ec) && !overwrite) {
    throw ResultsError(output + " already exists (choose another -o, or pass --overwrite)");
  }
  const fs::path target(output);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  const hid_t out_id = H5Fcreate(output.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (out_id < 0) throw ResultsError("cannot create " + output);
  H5Handle out(out_id, H5Fclose);
  impl::write_attribute(out, "schema", std::string(kResultsSchema));
  impl::write_attribute(out, "schema_version", static_cast<std::int64_t>(kResultsSchemaVersion));
  H5Handle out_runs =
      h5_checked(H5Gcreate2(out, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "/runs");

  MergeSummary summary;
  std::set<std::string> taken;
  for (std::size_t f = 0; f < files.size(); ++f) {
    H5Handle runs = h5_checked(H5Gopen2(files[f], "runs", H5P_DEFAULT), H5Gclose, inputs[f] + ":/runs");
    for (const auto& run_id : impl::child_names(runs)) {
      std::string name = run_id;
      for (int k = 2; taken.count(name); ++k) name = run_id + "-" + std::to_string(k);
      taken.insert(name);
      // H5Ocopy copies the group with every dataset, attribute and config: provenance unchanged.
      h5_check(H5Ocopy(runs, run_id.c_str(), out_runs, name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
               "copy " + inputs[f] + ":/runs/" + run_id);
      H5Handle copied = h5_checked(H5Gopen2(out_runs, name.c_str(), H5P_DEFAULT), H5Gclose, name);
      if (!impl::read_string_attribute(copied, "merged_from")) {
        impl::write_attribute(copied, "merged_from", inputs[f] + "#/runs/" + run_id);
      }
      const std::size_t before = result_count(runs, run_id);
      const std::size_t after = result_count(out_runs, name);
      if (before != after) {
        throw ResultsError("merge: copy of " + inputs[f] + ":/runs/" + run_id + " has " +
                           std::to_string(after) + " result rows, expected " + std::to_string(before));
      }
      summary.runs.push_back({inputs[f], run_id, name, after});
    }
  }
  h5_check(H5Fflush(out, H5F_SCOPE_GLOBAL), "flush " + output);
  return summary;
}

}  // namespace tfbench::harness
