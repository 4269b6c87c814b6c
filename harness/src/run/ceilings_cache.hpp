#pragma once
// The per-machine cache of measured ceilings (docs/results-format.md, "Roofline"): measuring them
// takes seconds per thread configuration, and a machine's ceilings do not change between runs, so
// `run --ceilings cached` (the default) measures a configuration once and reuses it afterwards.
// A file holds the ceilings of one machine and build (the key: CPU, caches, compiler, flags, BLAS);
// a file whose key differs, or that cannot be read, is ignored with the reason and replaced.

#include <optional>
#include <string>

#include "tfbench/harness/json.hpp"
#include "tfbench/harness/plan.hpp"
#include "tfbench/harness/results.hpp"
#include "tfbench/harness/runner.hpp"
#include "tfbench/workloads/ceilings.hpp"

namespace tfbench::harness::impl {

inline constexpr int kCeilingsFormatVersion = 1;

/// What the cached ceilings are valid for: this machine and the code that measured them.
Json ceilings_cache_key();

/// $TFBENCH_CEILINGS_DIR, else $XDG_CACHE_HOME/tfbench/ceilings, else ~/.cache/tfbench/ceilings;
/// the file name is a hash of the key, so machines and builds sharing a directory never collide.
std::string default_ceilings_cache_path(const Json& key);

/// One thread configuration: the threads and whether the worker pinned them.
struct CeilingsEntryKey {
  int threads = 1;
  bool pinned = true;
};

struct CachedCeilings {
  workloads::Ceilings ceilings;
  std::string measured_utc;
};

/// The entry for `entry` in the file at `path` if its key is `key`; `why` says why not otherwise
/// (absent, unreadable, another machine or build), empty when the file simply has no such entry.
std::optional<CachedCeilings> read_cached_ceilings(const std::string& path, const Json& key,
                                                   const CeilingsEntryKey& entry, std::string& why);

/// Adds or replaces the entry (atomically: a temporary file and a rename). Throws
/// std::runtime_error naming the path.
void store_cached_ceilings(const std::string& path, const Json& key, const CeilingsEntryKey& entry,
                           const CachedCeilings& value);

/// Which workers of a run measure their ceilings, for its estimate: every one with `measure`, none
/// with `off`, and with `cached` those whose configuration (threads, `pin`) this machine's cache lacks.
MeasuresCeilingsFn ceilings_measured_by(CeilingsMode mode, bool pin);

/// The worker row's ceiling columns (the values, their JSON detail and where they came from).
void fill_worker_ceilings(WorkerRow& row, const workloads::Ceilings& ceilings, const std::string& source);

}  // namespace tfbench::harness::impl
