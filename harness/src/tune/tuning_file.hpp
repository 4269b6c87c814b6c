#pragma once
// The tuning file: Auto's measured choices for one machine and one build, as JSON
// (docs/tuning.md). It is trusted only on the machine and build its key names: a file from another
// CPU, core count, cache layout, tfbench build or library version is refused with the first
// difference, and Auto then keeps its built-in preference.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tfbench/engine/ops/batched/auto_tuning.hpp"
#include "tfbench/workloads/tuning.hpp"

namespace tfbench::harness::tune {

// 2: libxsmm candidates and choices carry "prefetch".
// 3: GEMM candidates and choices of the specialized kernel and libxsmm carry "streaming_stores".
// 4: "contraction": the direct kernel's crossover per thread count.
inline constexpr int kTuningFormatVersion = 4;

/// The element types `tune` measures, by name ("f64", "f32"); empty for any other name.
std::optional<DType> parse_tuned_dtype(const std::string& text);

/// What a tuning is valid for. Two keys match when every field is equal.
struct TuningKey {
  std::string cpu_model;
  int online_cpus = 0;
  ops::CacheSizes caches;
  std::string tfbench_version, git_revision, compiler, build_type, build_flags;
  std::string kokkos_version, kokkos_kernels_version, blas_config;
  /// The OpenMP runtime library (openmp_runtime.hpp): its fork-join decides whether outer lanes pay.
  std::string openmp_runtime;
};
/// This machine and this build.
TuningKey current_key();
/// The first field that differs, as "cpu_model: file 'X', here 'Y'"; empty when the keys match.
std::optional<std::string> key_mismatch(const TuningKey& file, const TuningKey& here);

struct TuningFile {
  TuningKey key;
  std::string created_utc, command_line;
  std::vector<workloads::TuneClassResult> classes;
  std::vector<workloads::ContractionCrossover> contraction;  // one per thread count measured
};

/// Where this machine's and build's tuning lives by default: $TFBENCH_TUNING_DIR, else
/// $XDG_CACHE_HOME/tfbench/tuning, else ~/.cache/tfbench/tuning; the name is a hash of the key, so
/// builds and machines sharing a directory (one per cluster partition) never collide.
std::string default_tuning_path(const TuningKey& key);

/// Writes atomically (temporary file + rename). Throws std::runtime_error naming the path.
void write_tuning_file(const std::string& path, const TuningFile& file);

/// Reads a tuning file; throws std::runtime_error naming the path and the field that is wrong.
TuningFile read_tuning_file(const std::string& path);

/// What `tune --prune` reads of a file: its format version (older builds wrote older ones) and, for
/// this version, its key, from one parse.
struct TuningFileHead {
  int version = 0;
  std::optional<TuningKey> key;  // this version's files only; empty where the key is malformed
};
/// The head of the file at `path`, or nothing where it is not a tuning file (unreadable, not JSON,
/// another format). Never throws.
std::optional<TuningFileHead> read_tuning_head(const std::string& path);

/// A loaded tuning ready for the engine, or why the file was not used.
struct LoadedTuning {
  std::shared_ptr<const ops::AutoTuning> tuning;  // null when refused or absent
  std::string sha256;                             // of the file's bytes
  std::string refusal;                            // why it was not used (absent, foreign, unreadable)
};
/// Reads `path`, checks its key against this machine and build, and builds the AutoTuning (its id
/// is the file's sha256); a file used is marked so (mark_tuning_used). Never throws: a refused file
/// comes back with the reason.
LoadedTuning load_tuning(const std::string& path);

/// The engine's view of the classes that have a choice.
std::shared_ptr<const ops::AutoTuning> to_auto_tuning(const TuningFile& file, std::string id);

}  // namespace tfbench::harness::tune
