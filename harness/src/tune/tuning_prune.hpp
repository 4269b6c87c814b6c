#pragma once
// Pruning a tuning directory: every rebuilt tfbench calibrates a file of its own (0.3-0.9 MB), so a
// directory a machine's builds share grows by one file per build. `tfbench tune --prune DAYS` removes
// the tuning files no run has used for DAYS days, except this build's own; `run` marks a file used
// by setting its modification time when it installs it (load_tuning), so a file another build or
// partition of a shared directory still uses stays.

#include <iosfwd>
#include <string>

#include "tune/tuning_file.hpp"

namespace tfbench::harness::tune {

struct PruneCounts {
  int removed = 0;  // tuning files unused for the period, removed
  int kept = 0;     // tuning files used within it, or this build's
  int failed = 0;   // unused, but could not be removed (another user's, a read-only directory)
  int skipped = 0;  // not tuning files, or damaged ones (left as they are)
};

/// Removes from `dir` the tuning files (*.json of the tuning format, of any version: older builds
/// wrote older ones) last used more than `days` days ago, except the one whose key is `here`; reports
/// each removal and each failure to `out`.
PruneCounts prune_tuning_dir(const std::string& dir, double days, const TuningKey& here, std::ostream& out);

/// Marks `path` used now (its modification time); silent where that is not allowed.
void mark_tuning_used(const std::string& path);

}  // namespace tfbench::harness::tune
