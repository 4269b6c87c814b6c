// `tfbench export --format gbench`: Google Benchmark's JSON reporter format (its docs/
// user_guide.md "Output Formats"), so that its tools/compare.py compares two tfbench files as
// it compares two benchmark binaries: entries matched by name, iterations fed to its U test,
// aggregates shown beside them.

#include "export/values.hpp"
#include "tfbench/harness/export.hpp"
#include "tfbench/harness/stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <tuple>

namespace tfbench::harness {
namespace {

using nlohmann::ordered_json;

/// One Google Benchmark instance: a (case, threads, space) with the samples of its `ok` rows in
/// every run of the file, in run order.
struct Instance {
  std::string name, family;
  std::int64_t threads = 0;
  std::vector<double> samples;
  std::vector<std::int64_t> iterations;  // of the row each sample came from
  std::size_t family_index = 0, per_family_index = 0;
};

std::vector<Instance> instances(const ResultsFile& file) {
  std::vector<Instance> out;
  std::map<std::tuple<std::string, std::int64_t, std::string>, std::size_t> index;
  for (const auto& run : file.runs) {
    for (const auto& row : run.results) {
      if (row.status != RowStatus::Ok || row.samples.empty()) continue;
      const auto key = std::make_tuple(row.case_id, row.threads, row.exec_space);
      auto [at, fresh] = index.emplace(key, out.size());
      if (fresh) {
        Instance i;
        i.name = row.case_id + "/threads:" + std::to_string(row.threads) + "/space:" + row.exec_space;
        i.family = row.family;
        i.threads = row.threads;
        out.push_back(std::move(i));
      }
      Instance& i = out[at->second];
      i.samples.insert(i.samples.end(), row.samples.begin(), row.samples.end());
      i.iterations.insert(i.iterations.end(), row.samples.size(), row.iterations);
    }
  }
  // Families numbered in order of first appearance, instances within each; emitted family by
  // family as Google Benchmark runs them.
  std::map<std::string, std::size_t> families;
  std::vector<std::size_t> instances_of;
  for (auto& i : out) {
    auto [at, fresh] = families.emplace(i.family, families.size());
    if (fresh) instances_of.push_back(0);
    i.family_index = at->second;
    i.per_family_index = instances_of[at->second]++;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Instance& a, const Instance& b) { return a.family_index < b.family_index; });
  return out;
}

double seconds_per(const std::string& unit) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  throw ExportError("unknown time unit '" + unit + "' (ns, us, ms or s)");
}

/// The fields every entry starts with, in Google Benchmark's order.
ordered_json entry(const Instance& i, const std::string& name, const char* run_type) {
  return {{"name", name},
          {"family_index", i.family_index},
          {"per_family_instance_index", i.per_family_index},
          {"run_name", i.name},
          {"run_type", run_type},
          {"repetitions", i.samples.size()}};
}

void add_times(ordered_json& e, std::int64_t iterations, double value, const std::string& unit) {
  e["iterations"] = iterations;
  e["real_time"] = value;
  e["cpu_time"] = value;  // tfbench measures wall time only
  e["time_unit"] = unit;
}

/// "2026-12-01T20:39:22.315Z" -> "2026-12-01T20:39:22+00:00", Google Benchmark's `date`.
std::string gbench_date(const std::string& utc) {
  return utc.size() >= 19 ? utc.substr(0, 19) + "+00:00" : utc;
}

/// The nominal clock of model names like "... CPU @ 2.20GHz"; 0 when the name has none.
long mhz_of(const std::string& cpu_model) {
  std::smatch m;
  static const std::regex ghz("@\\s*([0-9]+(\\.[0-9]+)?)\\s*GHz");
  return std::regex_search(cpu_model, m, ghz) ? std::lround(std::stod(m[1]) * 1000.0) : 0;
}

ordered_json context(const ResultsFile& file) {
  RunInfo first;
  std::string ids;
  for (const auto& run : file.runs) ids += (ids.empty() ? "" : ";") + run.info.run_id;
  if (!file.runs.empty()) first = file.runs.front().info;
  // argv[0] of the command line, which quotes it '...' when it has a space (main.cpp).
  const std::string& line = first.command_line;
  const std::string executable = !line.empty() && line[0] == '\'' ? line.substr(1, line.find('\'', 1) - 1)
                                                                  : line.substr(0, line.find(' '));
  // The machine fields the file does not record (caches, load average) are empty; fields Google
  // Benchmark omits when unknown (cpu_scaling_enabled, aslr_enabled) are left out.
  return {{"date", gbench_date(first.start_utc)},
          {"host_name", first.hostname},
          {"executable", executable},
          {"num_cpus", first.online_cpus},
          {"mhz_per_cpu", mhz_of(first.cpu_model)},
          {"caches", ordered_json::array()},
          {"load_avg", ordered_json::array()},
          {"library_build_type", first.build_type == "Debug" ? "debug" : "release"},
          {"json_schema_version", 1},
          // Custom context, as --benchmark_context=key=value adds it: strings.
          {"tfbench_file", file.path},
          {"tfbench_runs", ids},
          {"tfbench_version", first.tfbench_version},
          {"git_revision", first.git_revision},
          {"cpu_model", first.cpu_model},
          {"compiler", first.compiler},
          {"build_flags", first.build_flags},
          {"kokkos_version", first.kokkos_version},
          {"blas", first.blas_config}};
}

}  // namespace

void export_gbench(const ResultsFile& file, const std::string& time_unit, std::ostream& out) {
  const double scale = 1.0 / seconds_per(time_unit);
  ordered_json benchmarks = ordered_json::array();
  for (const Instance& i : instances(file)) {
    for (std::size_t r = 0; r < i.samples.size(); ++r) {
      ordered_json e = entry(i, i.name, "iteration");
      e["repetition_index"] = r;
      e["threads"] = i.threads;
      add_times(e, i.iterations[r], i.samples[r] * scale, time_unit);
      benchmarks.push_back(std::move(e));
    }
    if (i.samples.size() < 2) continue;  // Google Benchmark aggregates two repetitions or more
    const SampleStats s = summarize(i.samples);
    const std::int64_t n = static_cast<std::int64_t>(i.samples.size());
    for (const auto& [aggregate, value, unit] :
         {std::make_tuple("mean", s.mean * scale, "time"),
          std::make_tuple("median", s.median * scale, "time"),
          std::make_tuple("stddev", s.stddev * scale, "time"), std::make_tuple("cv", s.cv, "percentage")}) {
      ordered_json e = entry(i, i.name + "_" + aggregate, "aggregate");
      e["threads"] = i.threads;
      e["aggregate_name"] = aggregate;
      e["aggregate_unit"] = unit;
      add_times(e, n, value, time_unit);
      benchmarks.push_back(std::move(e));
    }
  }
  const ordered_json doc = {{"context", context(file)}, {"benchmarks", std::move(benchmarks)}};
  out << doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace tfbench::harness
