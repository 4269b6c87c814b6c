#pragma once
// Result files for the harness tests: a fresh directory per test, a run's attributes and rows.

#include "tfbench/harness/results.hpp"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace tfbench::harness::test {

/// A fresh directory per test, removed afterwards.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("tfbench-results-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

inline RunInfo info(const std::string& id) {
  RunInfo i;
  i.run_id = id;
  i.start_utc = "2026-01-02T03:04:05Z";
  i.hostname = "node-7";
  i.command_line = "tfbench run configs/x.yaml";
  i.config_paths = "configs/x.yaml";
  i.config_texts = {"benchmarks: []\n# ünïcødé\n", "second"};
  i.online_cpus = 2;
  i.seed = 42;
  i.repetitions_default = 5;
  i.min_time_default = 0.05;
  return i;
}

inline ResultRow result(const std::string& variant, std::vector<double> samples) {
  ResultRow r;
  r.case_id = "fake/n=1/" + variant;
  r.group_id = "fake/n=1";
  r.family = "fake";
  r.variant = variant;
  r.variant_kind = "peer";
  r.params = "{\"n\":1}";
  r.exec_space = "openmp";
  r.threads = 2;
  r.kokkos_threads = 2;
  r.blas_threads = 2;
  r.status = RowStatus::Ok;
  r.error = "naïve ✓";
  r.median_s = 1.5;
  r.samples = std::move(samples);
  r.metrics = "{\"hits\":3}";
  return r;
}

}  // namespace tfbench::harness::test
