#pragma once
// What else ran on the worker's CPUs while its variants (or the tuner's candidates) were timed: other
// processes' and the kernel's CPU time, and the time the hypervisor took from the virtual CPUs (steal), each
// as a share of those CPUs' capacity over the timed intervals. From the tick counters of /proc/stat and
// /proc/<pid>/stat (USER_HZ: 10 ms ticks), so meaningful over a row's samples together, not for one
// short sample. The worker's own time and its helper processes' (the Python peers' runners) are
// not interference and are subtracted.

#include "tfbench/engine/exec/cpu_set.hpp"

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfbench::workloads {

/// Rows measured while other work or steal took more than this share of the worker's CPUs are
/// reported as measured on a busy host (progress line, scripts/target_report.py); a tuned class is
/// measured again (docs/tuning.md).
constexpr double kBusyHostShare = 0.10;
/// Below this many ticks of capacity over a row's samples (0.4 CPU-seconds; a tick is then at most
/// 2.5%) the shares say nothing and are not reported: a row of a few 5 ms samples spans 0-4 ticks.
constexpr std::uint64_t kMinHostTicks = 40;

/// Tick counters at one instant.
struct CpuTicks {
  std::uint64_t busy = 0;   // user, nice, system, irq and softirq time of the CPUs read
  std::uint64_t steal = 0;  // taken by the hypervisor
  std::uint64_t total = 0;  // every state, steal included
  std::uint64_t self = 0;   // utime + stime of this process (all its threads)
  std::vector<std::pair<pid_t, std::uint64_t>> helpers;  // the same for each helper process
};

/// The busy, steal and total sums of /proc/stat's `cpuN` lines for the CPUs in `cpus` (`text`: the
/// file's contents); nullopt when none of them is listed.
std::optional<CpuTicks> parse_proc_stat(const std::string& text, const CpuSet& cpus);
/// utime + stime of a /proc/<pid>/stat line; nullopt when it does not parse.
std::optional<std::uint64_t> parse_process_ticks(const std::string& text);

/// utime + stime of process `pid` now; nullopt when it cannot be read (it exited).
std::optional<std::uint64_t> process_cpu_ticks(pid_t pid);

/// The state letter of a /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat line ('R' running or
/// runnable, 'S' sleeping, ...); 0 when it does not parse.
char parse_process_state(const std::string& text);
/// Whether any thread of `pid` is running or waiting for a CPU (state R).
bool process_runnable(pid_t pid);

/// Waits until `pids` use no more CPU: no tick of theirs and no thread of theirs runnable over two
/// 10 ms polls in a row, at most `max_seconds`. Returns whether they went quiet. Why: a Python peer's
/// runner keeps its OpenBLAS threads spinning (sched_yield in a loop) for about 0.1 s after its call,
/// and they took 52% of the CPUs while the next variant of a batched_solve case was timed at two
/// threads (Xeon VM). Runnable, not only ticking: a spinner kept off the CPUs by other work for 20 ms
/// (a parallel build on both cores) earned no tick and passed for idle.
bool wait_until_idle(const std::vector<pid_t>& pids, double max_seconds);

/// Now, for `cpus`, this process and `helpers` (a helper that cannot be read is left out); nullopt
/// where /proc cannot be read (not Linux).
std::optional<CpuTicks> read_cpu_ticks(const CpuSet& cpus, const std::vector<pid_t>& helpers);

/// The load over a set of intervals (a row's samples).
class HostLoad {
 public:
  /// One interval; ignored when either end is missing. The helpers' time is the measurement's own
  /// (`helpers_own`) only while their variant is timed: a Python peer's runner whose BLAS threads
  /// still spin after its call (OpenBLAS yields in a loop for a while) is interference to the next.
  void add(const std::optional<CpuTicks>& before, const std::optional<CpuTicks>& after,
           bool helpers_own = true);
  /// Whether the intervals span kMinHostTicks.
  bool measured() const { return total_ >= kMinHostTicks; }
  /// Other processes' and the kernel's share of the CPUs' capacity (NaN: not measured).
  double other() const;
  /// The hypervisor's share (NaN: not measured).
  double steal() const;
  /// Measured, with other work or steal above `share` of the CPUs.
  bool busy(double share = kBusyHostShare) const {
    return measured() && (other() > share || steal() > share);
  }

 private:
  std::uint64_t other_ = 0, steal_ = 0, total_ = 0;
};

}  // namespace tfbench::workloads
