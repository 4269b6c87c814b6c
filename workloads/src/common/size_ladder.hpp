#pragma once
// Working-set sizes spread over a range on a log scale: the sizes at which `tune` measures a cache
// level's classes and the ceilings measure the LLC's bandwidth, so that both sample a level that
// spans a factor of 100 or more (an LLC from 2 to 300 MiB) at the same points.

#include <algorithm>
#include <cmath>
#include <vector>

namespace tfbench::workloads {

/// One size per factor of 8 of [lo, hi], at most `max_sizes` (at least one), each the geometric
/// middle of its part of the range. Empty when the range is empty or not positive.
inline std::vector<double> log_size_ladder(double lo, double hi, int max_sizes) {
  std::vector<double> out;
  if (!(lo > 0) || !(hi > lo)) return out;
  const double span = std::log(hi / lo);
  const int sizes = std::clamp(static_cast<int>(std::ceil(span / std::log(8.0))), 1, std::max(1, max_sizes));
  for (int i = 0; i < sizes; ++i) out.push_back(lo * std::exp(span * (2.0 * i + 1) / (2.0 * sizes)));
  return out;
}

}  // namespace tfbench::workloads
