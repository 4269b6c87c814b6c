#include "results/file_access.hpp"
#include "results/output_file.hpp"

#include <filesystem>
#include <map>
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

/// Device and inode, not the spelling: `a.h5`, `./a.h5` and a hard link are one file.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

/// What makes two run groups the same run wherever they were copied: the id it was written under
/// (kept in merged_from by earlier merges), its start time and host.
std::string run_identity(const RunInfo& run) {
  const auto at = run.merged_from.rfind("#/runs/");
  const std::string original = at == std::string::npos ? run.run_id : run.merged_from.substr(at + 7);
  return original + "\n" + run.start_utc + "\n" + run.hostname;
}

struct Source {
  std::size_t input = 0;  // index into the distinct inputs
  const RunData* run = nullptr;
};

}  // namespace

MergeSummary merge_results(const std::vector<std::string>& inputs, const std::string& output, bool overwrite,
                           const std::string& command) {
  impl::h5_quiet();
  if (inputs.empty()) throw ResultsError("merge: no input files");
  for (const auto& in : inputs) {
    if (same_file(in, output))
      throw ResultsError("merge: the output " + output + " is also an input (" + in +
                         "); choose a new output file");
  }
  MergeSummary summary;
  // Every input passes the reader's checks (those of `report`) before anything is written.
  std::vector<std::string> paths;
  std::vector<ResultsFile> files;
  for (const auto& in : inputs) {
    bool repeated = false;
    for (const auto& p : paths) {
      if (!same_file(p, in)) continue;
      summary.notes.push_back(in + " is the same file as " + p + ": merged once");
      repeated = true;
      break;
    }
    if (repeated) continue;
    files.push_back(read_results(in));
    paths.push_back(in);
  }
  std::vector<Source> sources;
  std::map<std::string, Source> seen;
  for (std::size_t f = 0; f < files.size(); ++f) {
    for (const RunData& run : files[f].runs) {
      const Source source{f, &run};
      const auto [it, fresh] = seen.emplace(run_identity(run.info), source);
      if (fresh) {
        sources.push_back(source);
        continue;
      }
      const RunData& kept = *it->second.run;
      const std::string here = paths[f] + ":/runs/" + run.info.run_id;
      const std::string there = paths[it->second.input] + ":/runs/" + kept.info.run_id;
      if (kept.results.size() != run.results.size() || kept.info.status != run.info.status) {
        throw ResultsError("merge: " + here + " and " + there + " are the same run (started " +
                           run.info.start_utc + " on " + run.info.hostname + ") with different contents (" +
                           std::to_string(run.results.size()) + " row(s), " + run.info.status + " vs " +
                           std::to_string(kept.results.size()) + " row(s), " + kept.info.status +
                           "): one was copied while the run was still writing; merge only the complete one");
      }
      summary.notes.push_back(here + " is the same run as " + there + ": merged once");
    }
  }

  impl::OutputFile out(output, overwrite, command);
  impl::write_attribute(out.file(), "schema", std::string(kResultsSchema));
  impl::write_attribute(out.file(), "schema_version", static_cast<std::int64_t>(kResultsSchemaVersion));
  H5Handle out_runs =
      h5_checked(H5Gcreate2(out.file(), "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "/runs");
  std::vector<H5Handle> opened;
  for (const auto& p : paths) opened.push_back(impl::open_results_file(p, H5F_ACC_RDONLY));
  std::set<std::string> taken;
  for (const Source& source : sources) {
    const std::string& in = paths[source.input];
    const std::string& run_id = source.run->info.run_id;
    H5Handle runs = h5_checked(H5Gopen2(opened[source.input], "runs", H5P_DEFAULT), H5Gclose, in + ":/runs");
    std::string name = run_id;
    for (int k = 2; taken.count(name); ++k) name = run_id + "-" + std::to_string(k);
    taken.insert(name);
    // H5Ocopy copies the group with every dataset, attribute and config: provenance unchanged.
    h5_check(H5Ocopy(runs, run_id.c_str(), out_runs, name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
             "copy " + in + ":/runs/" + run_id);
    H5Handle copied = h5_checked(H5Gopen2(out_runs, name.c_str(), H5P_DEFAULT), H5Gclose, name);
    if (!impl::read_string_attribute(copied, "merged_from")) {
      impl::write_attribute(copied, "merged_from", in + "#/runs/" + run_id);
    }
    const std::size_t before = source.run->results.size();
    const std::size_t after = result_count(out_runs, name);
    if (before != after) {
      throw ResultsError("merge: copy of " + in + ":/runs/" + run_id + " has " + std::to_string(after) +
                         " result rows, expected " + std::to_string(before));
    }
    summary.runs.push_back({in, run_id, name, after});
  }
  out.commit();  // the only write: a merge that fails on the way leaves no output file
  return summary;
}

}  // namespace tfbench::harness
