#include "tfbench/workloads/llc_probe.hpp"

#include <algorithm>
#include <cmath>

#include "ceilings/level_bandwidth.hpp"

namespace tfbench::workloads {
namespace {

// Three samples of 5 ms each: the sweep needs the plateau and the floor apart (2-3x), not a ceiling.
constexpr int kSweepSamples = 3;

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

double llc_capacity_from_sweep(const std::vector<SweepPoint>& sweep) {
  if (sweep.empty()) return 0;
  const double plateau = best_gbs(sweep), floor = sweep.back().gbs;
  if (!(floor < kLlcFallFraction * plateau)) return 0;
  const double threshold = std::sqrt(plateau * floor);
  for (std::size_t i = sweep.size() - 1; i-- > 0;) {
    const SweepPoint &above = sweep[i], &below = sweep[i + 1];
    if (above.gbs < threshold) continue;
    // The fraction of the step (log bytes) at which log bandwidth reaches the threshold.
    const double t = std::log(above.gbs / threshold) / std::log(above.gbs / below.gbs);
    return above.bytes * std::pow(below.bytes / above.bytes, std::clamp(t, 0.0, 1.0));
  }
  return 0;
}

std::vector<SweepPoint> measure_llc_sweep(double from_bytes, double max_bytes,
                                          const std::function<void(const SweepPoint&)>& progress) {
  std::vector<SweepPoint> sweep;
  for (double ws = from_bytes; ws <= max_bytes && !sweep_at_floor(sweep); ws *= 2) {
    std::vector<double> gbs = impl::sample_bandwidth(impl::BandwidthKernel::InPlace, ws, 1, kSweepSamples,
                                                     impl::kCacheSampleSeconds);
    std::sort(gbs.begin(), gbs.end());
    sweep.push_back({ws, gbs[gbs.size() / 2]});
    if (progress) progress(sweep.back());
  }
  return sweep;
}

}  // namespace tfbench::workloads
