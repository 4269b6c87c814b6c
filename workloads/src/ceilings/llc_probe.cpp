#include "tfbench/workloads/llc_probe.hpp"

#include <algorithm>
#include <cmath>

#include "ceilings/level_bandwidth.hpp"
#include "common/physical_memory.hpp"

namespace tfbench::workloads {
namespace {

// Three samples of 5 ms each: the sweep needs the plateau and the floor apart (2-3x), not a ceiling.
constexpr int kSweepSamples = 3;
// Past an LLC the bandwidth is at the floor within 4x of it (the EPYC VM: 28 MiB, 54 GB/s from 128);
// the sweep stops at 1 GiB, where a larger LLC keeps its report.
constexpr double kMaxSweepBytes = 1024.0 * 1024 * 1024;

double best_gbs(const std::vector<SweepPoint>& sweep) {
  double best = 0;
  for (const SweepPoint& p : sweep) best = std::max(best, p.gbs);
  return best;
}

}  // namespace

bool sweep_at_floor(const std::vector<SweepPoint>& sweep) {
  if (sweep.size() < 3) return false;
  const double limit = kLlcFallFraction * best_gbs(sweep);
  const double last = sweep[sweep.size() - 1].gbs, before = sweep[sweep.size() - 2].gbs;
  return last < limit && before < limit && last >= (1 - kFloorStep) * before;
}

double bytes_where_bandwidth_falls(const std::vector<SweepPoint>& sweep, double threshold) {
  if (sweep.empty()) return 0;
  if (sweep.back().gbs >= threshold) return sweep.back().bytes;
  for (std::size_t i = sweep.size() - 1; i-- > 0;) {
    const SweepPoint &above = sweep[i], &below = sweep[i + 1];
    if (above.gbs < threshold) continue;
    // The fraction of the step (log bytes) at which log bandwidth reaches the threshold.
    const double t = std::log(above.gbs / threshold) / std::log(above.gbs / below.gbs);
    return above.bytes * std::pow(below.bytes / above.bytes, std::clamp(t, 0.0, 1.0));
  }
  return 0;
}

double llc_capacity_from_sweep(const std::vector<SweepPoint>& sweep) {
  if (sweep.empty()) return 0;
  const double plateau = best_gbs(sweep), floor = sweep.back().gbs;
  if (!(floor < kLlcFallFraction * plateau)) return 0;
  return bytes_where_bandwidth_falls(sweep, std::sqrt(plateau * floor));
}

LlcSweep measure_llc_sweep(double l2_bytes, double reported_llc_bytes,
                           const std::function<void(const SweepPoint&)>& progress) {
  const double from_bytes = 2 * (l2_bytes > 0 ? l2_bytes : 512.0 * 1024);
  double max_bytes = std::max(std::min(4 * reported_llc_bytes, kMaxSweepBytes), 2 * from_bytes);
  if (const double memory = physical_memory_bytes(); memory > 0) max_bytes = std::min(max_bytes, memory / 8);
  LlcSweep sweep;
  const auto before = read_cpu_ticks(CpuSet::allowed(), {});
  for (double ws = from_bytes; ws <= max_bytes && !sweep_at_floor(sweep.points); ws *= 2) {
    const std::vector<double> gbs = impl::sample_bandwidth(impl::BandwidthKernel::InPlace, ws, 1,
                                                           kSweepSamples, impl::kCacheSampleSeconds);
    sweep.points.push_back({ws, *std::max_element(gbs.begin(), gbs.end())});
    if (progress) progress(sweep.points.back());
  }
  sweep.load.add(before, read_cpu_ticks(CpuSet::allowed(), {}));
  return sweep;
}

}  // namespace tfbench::workloads
