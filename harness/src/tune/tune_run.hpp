#pragma once
// Running a calibration (one child process per thread count, as workers are) and putting a tuning
// into effect: for `run` (which file its workers use, calibrating on first use) and in a worker.

#include <iosfwd>
#include <string>
#include <vector>

#include "tune/tuning_file.hpp"

namespace tfbench::harness::tune {

struct TuneRequest {
  std::vector<int> threads;  // resolved counts (max -> the CPUs tfbench may use)
  std::vector<int> item_dims;
  std::vector<ops::MemoryLevel> levels;
  std::vector<DType> dtypes;
  bool gemm = true, solve = true;
  bool contraction = true;  // the contraction direct kernel's crossover (tune_direct_contraction)
  int rounds = 5;
  int sizes_per_level = 3;     // workloads::TuneOptions::max_sizes_per_level
  bool llc_top_octave = true;  // workloads::TuneOptions::llc_top_octave (not in the quick calibration)
  double min_time_s = 0.005;
  double dram_bytes = 256.0 * 1024 * 1024;
  std::string command_line;
};

/// Parses the comma-separated lists of `tfbench tune`; false (with a message on `err`) on bad input.
bool parse_request(const std::string& threads, const std::string& sizes, const std::string& families,
                   const std::string& levels, const std::string& dtypes, TuneRequest& request,
                   std::ostream& err);

/// The bounded calibration `run` does on first use (`tune --quick`): the cache levels only (a DRAM
/// class needs twice the last-level cache of operands, minutes to fill and time), no class in the
/// LLC's top octave, 3 rounds of 2 ms.
void make_quick(TuneRequest& request);

/// Measures every thread count of `request` in a child process each and writes `path`. Returns the
/// exit status of `tfbench tune`: 0 written, 1 nothing measured.
int run_tuning(const TuneRequest& request, const std::string& path, std::ostream& log);

/// The child's part: measures one thread count in this process (Kokkos started here) and writes
/// the classes to `path`.
int run_tuning_child(const TuneRequest& request, int threads, const std::string& path, std::ostream& log);

/// One line per class: the choice and each candidate's time.
std::string decision_table(const TuningFile& file);

/// The environment variable a run sets for its workers: the path of a tuning file whose key was
/// checked. A worker installs it (install_tuning_from_environment).
inline constexpr const char* kTuningFileVariable = "TFBENCH_TUNING_FILE";

/// The tuning file a run hands its workers and the SHA-256 of its bytes; both empty: none.
struct RunTuning {
  std::string path, sha256;
};

/// What `run --tuning MODE` uses: "off" none; "auto" this machine's file, calibrated first (a
/// bounded `tune --quick`, with progress on `log`) where it is missing or stale; anything else a
/// file path, which must apply here. A refused file is reported on `log` and Auto keeps its
/// built-in preference (an empty RunTuning).
RunTuning resolve_run_tuning(const std::string& mode, std::ostream& log);

/// In a worker: loads $TFBENCH_TUNING_FILE (if set) and installs it for the engine backends; a
/// refused file is reported on `log`.
void install_tuning_from_environment(std::ostream& log);

}  // namespace tfbench::harness::tune
