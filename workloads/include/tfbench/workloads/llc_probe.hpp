#pragma once
// The last-level cache's capacity as one core sees it, measured: where a VM's hypervisor lists no
// cache topology in sysfs, the C library's CPUID report of the L3 can be the whole package's (an
// AMD EPYC VM here read 508 MiB, the sum of sixteen CCDs' L3s, of which one core reaches 32), and a
// level boundary 16x too high classes every DRAM-sized batch as LLC. The sweep below reads ERT's
// in-place kernel at one thread over doubling working sets from past the L2 until the bandwidth has
// fallen to a floor and stays there (DRAM's); the capacity is where the bandwidth crosses the
// geometric mean of the cache's best and that floor.

#include <functional>
#include <vector>

#include "tfbench/workloads/host_load.hpp"

namespace tfbench::workloads {

struct SweepPoint {
  double bytes = 0;  // the working set
  double gbs = 0;    // its best sample's bandwidth
};

/// A sweep has reached its floor once its last two points are below kLlcFallFraction of its best and
/// the last is no more than kFloorStep below the one before: past the cache, not still leaving it
/// (the EPYC VM read 146, 85, 61 and 54 GB/s at 16, 32, 64 and 128 MiB).
constexpr double kLlcFallFraction = 0.6;
constexpr double kFloorStep = 0.1;

/// Where the bandwidth of `sweep` (ascending working sets) falls through `threshold`: the last point
/// at or above it and the next, interpolated on a log-log scale; the last point's working set when
/// none after the first falls below it, 0 when none is at or above it.
double bytes_where_bandwidth_falls(const std::vector<SweepPoint>& sweep, double threshold);

/// Where the bandwidth of `sweep` (ascending) crosses sqrt(best x floor), the floor being its last
/// point's: the last point above that and the next, interpolated on a log-log scale (the capacity
/// rarely is a power of two: 21-28 MiB on the EPYC VM, whose core shares a 32 MiB L3 slice). 0 when
/// the sweep never fell below kLlcFallFraction of its best (no end seen: keep the report).
double llc_capacity_from_sweep(const std::vector<SweepPoint>& sweep);

/// Whether `sweep` has reached its floor (above).
bool sweep_at_floor(const std::vector<SweepPoint>& sweep);

/// A measured sweep and the host's load while it ran.
struct LlcSweep {
  std::vector<SweepPoint> points;
  HostLoad load;
};

/// Measures the sweep at one thread: working sets from twice `l2_bytes`, doubling, until
/// sweep_at_floor or beyond 4x `reported_llc_bytes` (1 GiB and an eighth of the memory at most); each point
/// the best of three 5 ms samples (noise only slows a sample down); `progress` is told each point.
/// About a second on the EPYC VM, most of it the first touch of the working sets. Beside a build on
/// the other core the sweep's plateau read half of the quiet one's and its end 77 MiB instead of 28:
/// a caller keeps a sweep whose `load` is busy() only provisionally.
LlcSweep measure_llc_sweep(double l2_bytes, double reported_llc_bytes,
                           const std::function<void(const SweepPoint&)>& progress = {});

}  // namespace tfbench::workloads
