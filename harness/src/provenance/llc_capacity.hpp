#pragma once
// The LLC capacity tfbench's processes size their levels by (workloads::detect_caches): where sysfs
// lists no L3 and the CPUID report may be a whole package's, measured once per machine
// (workloads/llc_probe.hpp) and kept beside the tuning and ceilings files.

#include <optional>
#include <ostream>
#include <string>

#include "tfbench/harness/json.hpp"
#include "tfbench/workloads/tuning.hpp"

namespace tfbench::harness {

/// Checks $TFBENCH_LLC_BYTES (std::runtime_error naming it and what it expected when it is not a
/// byte count); where it is unset and the LLC would come from CPUID, reads the capacity measured for
/// this machine from the cache or measures it (a line on `log` before and after), and exports it as
/// $TFBENCH_LLC_MEASURED for this process and the workers it starts. Before any detect_caches().
void settle_llc_capacity(std::ostream& log);

namespace impl {

/// The cache file of a machine with these reported caches:
/// $TFBENCH_MACHINE_DIR, else $XDG_CACHE_HOME/tfbench/machine, else ~/.cache/tfbench/machine, and a
/// hash of the key (CPU model, CPUs online, the reported sizes, the probe's version).
Json llc_probe_key(const workloads::DetectedCaches& reported);
std::string llc_probe_path(const Json& key);

/// A sweep taken beside other work is kept as provisional for this long, then measured again: every
/// process measuring its own (one beside a parallel ctest read 77 MiB, the next 28) gave each run
/// another LLC, and so another ceilings file, than the run before.
constexpr double kProvisionalLlcSeconds = 3600;

struct KeptLlc {
  double llc_bytes = 0;      ///< 0: the sweep saw no end, the report stands
  bool provisional = false;  ///< measured on a busy host
  double measured_unix = 0;  ///< when (0: not recorded, files before the field)
};

/// The capacity a cache file holds for `key`, or nothing when the file is absent, foreign, unreadable
/// or provisional and older than kProvisionalLlcSeconds at `now_unix`.
std::optional<KeptLlc> read_llc_probe(const std::string& path, const Json& key, double now_unix);
/// `busy_load`: the host's load during a sweep beside other work (null: a quiet host).
void store_llc_probe(const std::string& path, const Json& key, double llc_bytes, const Json& sweep,
                     const Json& busy_load, double now_unix);

double unix_now();

}  // namespace impl
}  // namespace tfbench::harness
