#pragma once
// The HDF5 result file (docs/results-format.md, schema `tfbench-results` version 1): the records
// of a run, its workers and its result rows; a writer that appends and flushes row by row; a reader
// that tolerates files with fewer or more columns; and merge.

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tfbench::harness {

inline constexpr const char* kResultsSchema = "tfbench-results";
inline constexpr int kResultsSchemaVersion = 1;

/// A file that is not a readable tfbench result file, or an HDF5 failure (message says which).
class ResultsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The file could not be written (a full disk, a quota, an I/O error); the file on disk is as it was.
class ResultsWriteError : public ResultsError {
 public:
  using ResultsError::ResultsError;
};

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Attributes of `/runs/<run_id>`: the run's provenance.
struct RunInfo {
  std::string run_id;
  std::string status;  // "running", "complete", "interrupted", "failed"
  std::string start_utc, end_utc;
  std::string tfbench_version, git_revision, git_dirty;
  std::string command_line, config_paths, config_sha256;
  std::string hostname, cpu_model;
  std::int64_t online_cpus = 0;
  std::string compiler, build_type, build_flags;
  std::string kokkos_version, kokkos_kernels_version, kokkos_spaces;
  std::string blas_vendor, blas_config, blas_threading;
  std::int64_t seed = 0;
  std::int64_t repetitions_default = 0;
  double min_time_default = kNaN;
  std::string merged_from;                // set by `tfbench merge`: "<file>#/runs/<original id>"
  std::string fault_inject;               // TFBENCH_FAULT_INJECT of the run (empty: not set)
  std::vector<std::string> config_texts;  // configs/<i>
  // Instruction sets (TFBENCH_ARCH; lists "avx2,fma,..."); empty in files of older writers.
  std::string build_cpu_model, build_arch, build_isa, build_host_isa, run_isa, isa_mismatch;
  std::string tuning_file, tuning_sha256;  // the tuning the workers installed (empty: none; docs/tuning.md)
  std::string blas_coretype_forced;  // OPENBLAS_CORETYPE tfbench set for its workers, and why ("": none)
  std::string transparent_hugepage;  // the kernel's THP mode ("always", "madvise", "never"; "": unknown)
  std::string openmp_runtime;        // the OpenMP runtime library the processes ran on ("": older writer)
};

/// One row of the `workers` table: one worker process.
struct WorkerRow {
  std::int64_t threads = 0;
  std::string exec_space;
  std::int64_t kokkos_threads = 0, blas_threads_requested = 0, blas_threads = 0, affinity_cpus = 0;
  std::string omp_proc_bind;
  double ceiling_gflops = kNaN, ceiling_gbs = kNaN;
  std::int64_t pid = 0;
  std::string exit = "running";
  // Compatible extensions of version 1:
  std::string omp_places;
  double startup_s = kNaN;   // process start until verified
  double ceilings_s = kNaN;  // measuring the ceilings (0: reused from the previous worker)
  std::string binding;       // how the worker pinned its threads ("off": not pinned)
  // The roofline's other ceilings (ceiling_gflops is the f64 peak, ceiling_gbs the DRAM level):
  double ceiling_gflops_f32 = kNaN, ceiling_l1_gbs = kNaN, ceiling_l2_gbs = kNaN, ceiling_llc_gbs = kNaN;
  std::string ceilings;         // JSON: every ceiling's samples (best, median, worst), the cache sizes
  std::string ceilings_source;  // "measured", "cached <path> (<when>)", "reused" or "off"
  std::string blas_core;        // verified: the kernels OpenBLAS loaded in the worker ("SkylakeX", ...)
  // JSON: the ceilings this worker measured itself, before the cache's best of each was taken
  // (`ceilings` then holds the combination); empty where it measured none (cached, reused, off).
  std::string ceilings_measured;
  // The accelerator of a device-space worker as its runtime names it (device_description); empty
  // on a host space.
  std::string device;
};

/// How a result row ended. The file holds the text of `name()`; `Unknown` is a row whose file has
/// no status (or one this tfbench does not know), written back as an empty string.
enum class RowStatus { Unknown, Ok, Skipped, CheckFailed, Error, Crashed, TimedOut, Interrupted };

/// "ok", "skipped", "check_failed", "error", "crashed", "timed_out", "interrupted"; "" for Unknown.
const char* name(RowStatus status);
/// The status spelled `text`; nullopt for any other text (the empty string included).
std::optional<RowStatus> parse_row_status(std::string_view text);
/// A row that failed: check_failed, error, crashed or timed_out (not ok, skipped or interrupted).
bool is_failure(RowStatus status);

/// The ceilings measured beside a row, one entry per round of its case (NaN where a round has none),
/// each vector empty where that ceiling was not measured beside the row: the same quantities as the
/// row's *_beside_* columns, which hold their best rounds.
struct BesideRounds {
  std::vector<double> bandwidth_gbs, peak_gflops, handoff_us, bandwidth_1t_gbs, peak_1t_gflops;
};

/// One row of the `results` table: one (case, variant, thread configuration). The one record of a
/// finished variant: the worker fills what it measured, the protocol carries it to the parent
/// (run/protocol.hpp), which adds the case's identity and its worker, derives the statistics
/// (rows.hpp) and writes it; the reader, report, compare and the exports read it back. Its columns
/// are listed once, in results/schema.cpp.
struct ResultRow {
  std::string case_id, group_id, family, variant, variant_kind, provider, strategy, params;
  std::string exec_space;
  std::int64_t threads = 0, kokkos_threads = 0, blas_threads = 0;
  RowStatus status = RowStatus::Unknown;
  std::string error;
  std::int64_t repetitions = 0, iterations = 0;
  double median_s = kNaN, min_s = kNaN, max_s = kNaN, mean_s = kNaN, stddev_s = kNaN, cv = kNaN;
  double flops = kNaN, bytes = kNaN, gflops = kNaN, gbs = kNaN;
  double frac_compute_ceiling = kNaN, frac_bandwidth_ceiling = kNaN;
  std::string fastest_peer;
  double speedup_vs_fastest_peer = kNaN;
  double allocations = kNaN, pool_hits = kNaN, transfers = kNaN, bytes_retained = kNaN;
  double max_rel_error = kNaN, tolerance = kNaN, threshold_pct = kNaN;
  std::string metrics = "{}";
  std::int64_t sample_offset = 0, sample_count = 0;
  std::string finished_utc;
  // Compatible extensions of version 1:
  double overhead_s = kNaN;      // wall seconds spent on the row outside its kept samples
  std::int64_t worker_pid = 0;   // the worker process that produced the row (workers.pid)
  double case_timeout_s = kNaN;  // the case's time limit (0: none)
  // The roofline (docs/results-format.md, "Roofline"): the worker fills the first two from the
  // variant's work, the parent the rest against its worker's ceilings.
  double working_set_bytes = kNaN;     // distinct bytes one run touches: decides memory_level
  std::string precision;               // "f64" or "f32": the peak its flops are bounded by ("": no flops)
  double arithmetic_intensity = kNaN;  // flops / bytes
  std::string memory_level;            // "l1", "l2", "llc" or "dram" at the worker's threads
  std::string roofline_ceiling;        // the ceiling that sets the bound: peak_f64, peak_f32, bw_<level>
  double roofline_bound_s = kNaN;      // seconds per run the roofline allows
  /// The median over the case's rounds of the bound with that round's ceilings measured beside the row
  /// over that round's sample, where the worker measured them in every round (roofline_bound_s, from
  /// their best rounds, over median_s otherwise): 1.0 is the bound.
  double roofline_fraction = kNaN;
  /// Bytes of `bytes` stored without being read first through the caches (the worker, from the
  /// variant's work): at the DRAM level the roofline counts them twice (write-allocate).
  double write_allocate_bytes = kNaN;
  /// The bandwidth of the row's memory_level measured beside it, in the rounds of its case (the best
  /// round of workloads::bandwidth_reference): what roofline_bound_s divides by in place of the
  /// worker's cached ceiling. NaN: not measured (no ceilings, a compute-bound row, a device space).
  double bandwidth_beside_gbs = kNaN;
  /// The peak of the row's precision measured beside it the same way (the FMA chains; only where the
  /// cached peak is theirs): what roofline_bound_s divides a compute-bound row's flops by.
  double peak_beside_gflops = kNaN;
  /// One round trip of a cache line between two of the worker's threads, measured beside the row the
  /// same way (workloads::handoff_reference; workers of several threads): the handoff the bound of
  /// its threads adds in place of the cached one. NaN: not measured (one thread, no bound).
  double handoff_beside_us = kNaN;
  /// In a worker of several threads, the ceiling that sets one thread's bound, measured beside the row
  /// on one thread the same way: one thread's bandwidth of its level, or one thread's peak (the
  /// smaller of the two bounds divides by it in place of the cached one-thread ceiling).
  double bandwidth_beside_1t_gbs = kNaN;
  double peak_beside_1t_gflops = kNaN;
  /// The threads roofline_bound_s assumes: the worker's, or 1 where one thread's ceilings bound the
  /// row more tightly than the worker's threads plus their handoff (0: no bound, or an older writer).
  std::int64_t roofline_threads = 0;
  /// The 90% distribution-free interval of roofline_fraction's median (stats.hpp, median_interval):
  /// over the rounds' fractions, or roofline_bound_s over the samples'. NaN: no fraction.
  double roofline_fraction_lo = kNaN, roofline_fraction_hi = kNaN;

  std::vector<double> samples;  // samples[sample_offset : sample_offset + sample_count]
  /// What the worker measured beside the row in each round (round i beside samples[i]), which the
  /// parent pairs with the row's samples; carried from worker to parent, not written to the file.
  BesideRounds beside_rounds;
};

struct RunData {
  RunInfo info;
  std::vector<WorkerRow> workers;
  std::vector<ResultRow> results;  // with their samples
};

struct ResultsFile {
  std::string path;
  std::int64_t schema_version = 0;
  std::vector<RunData> runs;  // ordered by start_utc
};

/// Reads a whole result file. Throws ResultsError saying why a file cannot be used.
ResultsFile read_results(const std::string& path);

/// Writes one run into a new file, row by row. The file is built in memory and every change is
/// published at once: written whole to a temporary file beside it, synced and renamed over it, so
/// that the file on disk is always complete (after a crash, a kill or a full disk too). While the
/// writer lives, `<path>.lock` keeps other writers off the file.
class ResultsWriter {
 public:
  /// Takes the lock of `path` (its directory is created) and writes the empty file. Throws
  /// ResultsError if another writer holds the lock, if `path` exists and !overwrite, or if it
  /// cannot be written. `command` goes into the lock file for whoever finds it taken.
  ResultsWriter(const std::string& path, bool overwrite, const std::string& command = "");
  ~ResultsWriter();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  /// What taking the lock had to do (a stale lock of a dead writer taken over); empty normally.
  const std::string& note() const;
  /// Creates `/runs/<info.run_id>` with its attributes, configs and empty tables.
  void begin_run(const RunInfo& info);
  /// Appends a worker row; returns its index for update_worker().
  std::size_t append_worker(const WorkerRow& worker);
  void update_worker(std::size_t index, const WorkerRow& worker);
  /// Appends the rows with their samples, setting sample_offset/sample_count, and publishes them.
  /// ResultsWriteError (the disk is full, ...): the file on disk is as it was before the call.
  void append_results(std::vector<ResultRow>& rows);
  /// Sets `status` and `end_utc` and publishes.
  void finish_run(const std::string& status, const std::string& end_utc);
  /// Releases the lock (every change is already on disk).
  void close();
  const std::string& path() const { return path_; }

 private:
  struct State;
  std::string path_;
  std::unique_ptr<State> state_;
};

struct MergeSummary {
  struct Copied {
    std::string source_file, source_run_id, run_id;  // run_id: the name in the output
    std::size_t results = 0;
  };
  std::vector<Copied> runs;
  std::vector<std::string> notes;  // inputs and runs given twice, merged once
};

/// Copies every run of every input into a new file `output`; a run id already present gets a
/// suffix "-2", "-3", ... A file given twice, or a run found in two inputs (same original id, start
/// and host), is merged once. Every input is read and checked as read_results() does before
/// anything is written, each copy's row count is verified, and the output is written once at the
/// end under its lock, atomically. Throws ResultsError; the output is then untouched.
MergeSummary merge_results(const std::vector<std::string>& inputs, const std::string& output, bool overwrite,
                           const std::string& command = "");

}  // namespace tfbench::harness
