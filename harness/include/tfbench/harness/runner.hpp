#pragma once
// `tfbench run`: the parent process. It expands the configs into a plan, starts one worker per
// execution space and thread configuration, records every finished case into the HDF5 file as it
// arrives, survives crashing workers (the case is recorded `crashed`, a fresh worker continues)
// and hung ones (killed at the case's time limit, recorded `timed_out`, a fresh worker continues),
// and stops cleanly on SIGINT/SIGTERM (the run is marked `interrupted`).

#include "tfbench/harness/plan.hpp"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace tfbench::harness {

/// Where the workers' ceilings come from (`run --ceilings`).
enum class CeilingsMode {
  Cached,   // the per-machine cache; measured by the first worker of a configuration not in it
  Measure,  // measured by every configuration's first worker, and the cache refreshed
  Off       // none (fractions and roofline stay NaN)
};

struct RunOptions {
  std::vector<std::string> configs;
  std::optional<std::string> out;  // default results/<UTC timestamp>-<host>.h5
  bool overwrite = false;
  RunOverrides overrides;
  std::optional<std::uint64_t> seed;
  bool dry_run = false;
  std::optional<std::string> omp_proc_bind;  // forced into workers (normally removed)
  std::optional<std::string> omp_places;
  bool pin = true;  // false: workers leave their threads unpinned (--no-pin)
  CeilingsMode ceilings = CeilingsMode::Cached;
  bool measure_ceilings() const { return ceilings != CeilingsMode::Off; }
  /// Whether a worker on `space` measures (or takes from the cache) the machine's ceilings: only a
  /// host space's rows have a roofline (a device worker's would be the host's numbers, unused).
  bool measure_ceilings(ExecSpaceKind space) const { return measure_ceilings() && is_host_space(space); }
  /// The tuning file `run --tuning` checked, which every run worker installs, and the SHA-256 of its
  /// bytes (both recorded in the run's provenance); empty: Auto's built-in preference.
  std::string tuning_file, tuning_sha256;
  std::string command_line;
  /// stderr is a terminal: a status line there rewrites itself (elapsed, time left, what runs);
  /// otherwise only plain lines, on stdout.
  bool interactive = false;
};

/// Exit codes of `tfbench run`.
enum RunExit : int {
  kRunOk = 0,           // every row ok or skipped
  kRunFailures = 1,     // some row check_failed, error, crashed or timed_out, or a worker failed verification
  kRunBadInput = 2,     // unusable config, option or output path (exists, locked, is a config)
  kRunWriteFailed = 3,  // the result file could not be written (full disk, ...); it keeps what it had
  kRunInterrupted = 130  // SIGINT/SIGTERM
};

/// A run's input, checked: its configs loaded and its plan made, once, before anything is
/// calibrated or measured.
struct RunInput {
  std::vector<Config> configs;
  RunPlan plan;
};

/// Loads options.configs, checks $TFBENCH_FAULT_INJECT and makes the plan, printing the plan's notes
/// and each problem to `err`; nullopt: bad input (a config, the filter, nothing to run), exit
/// kRunBadInput.
std::optional<RunInput> load_run_input(const RunOptions& options, std::ostream& err);

/// Runs `input` (load_run_input's, for the same options) and records it; returns a RunExit.
int run_benchmarks(const RunOptions& options, RunInput input, std::ostream& out, std::ostream& err);

/// CPUs tfbench may use: its affinity mask after undoing libgomp's start-up pinning. `max` in a
/// thread list means this.
int available_cpus();

/// Starts one worker per thread count in verify-only mode and returns what each verified;
/// used by `tfbench info`.
struct VerifiedWorker {
  int threads = 0;
  std::string exec_space;
  std::int64_t kokkos_threads = 0, blas_threads = 0, affinity_cpus = 0;
  std::string omp_proc_bind;
  bool verified = false;
  std::string why;  // verification problems, or how the worker failed
};
std::vector<VerifiedWorker> verify_workers(const std::vector<int>& threads,
                                           const std::optional<std::string>& proc_bind,
                                           const std::optional<std::string>& places);

}  // namespace tfbench::harness
