#pragma once
// The tuners' guard against a busy host: interference slows the candidates of a measurement unevenly
// (a first-use calibration on the Xeon VM had the 2-thread fan-outs 2x slower than one thread), so a
// measurement that ran while other work or the hypervisor took the CPUs is made again.

#include "tfbench/workloads/host_load.hpp"
#include "tfbench/workloads/tuning.hpp"

namespace tfbench::workloads {

/// The host's load over the kept attempt of a measurement.
struct QuietMeasurement {
  double host_other_cpu = 0;  // HostLoad::other(), NaN: too short to tell
  double host_steal = 0;      // HostLoad::steal()
  int attempts = 1;
  bool busy_host = false;  // still busy after options.busy_retries more attempts
};

/// Runs measure() until the host was quiet over it (HostLoad::busy(options.busy_share) false; a
/// negative share counts every attempt busy), at most 1 + options.busy_retries times.
template <class Measure>
QuietMeasurement measure_quietly(const TuneOptions& options, Measure&& measure) {
  for (int attempt = 1;; ++attempt) {
    const auto before = read_cpu_ticks(CpuSet::allowed(), {});
    measure();
    HostLoad load;
    load.add(before, read_cpu_ticks(CpuSet::allowed(), {}));
    const bool busy = options.busy_share < 0 || load.busy(options.busy_share);
    const QuietMeasurement q{load.other(), load.steal(), attempt, busy && attempt > options.busy_retries};
    if (!busy || q.busy_host) return q;
  }
}

}  // namespace tfbench::workloads
