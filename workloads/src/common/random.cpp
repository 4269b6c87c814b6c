#include "common/random.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace tfbench::workloads {

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t index) {
  // splitmix64 of (seed, index): streams for different operands do not overlap in practice.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void fill_random(double* data, std::size_t count, std::uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (std::size_t i = 0; i < count; ++i) data[i] = dist(rng);
}

void fill_random(float* data, std::size_t count, std::uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (std::size_t i = 0; i < count; ++i) data[i] = dist(rng);
}

std::vector<double> random_vector(std::size_t count, std::uint64_t seed, double lo, double hi) {
  std::vector<double> v(count);
  fill_random(v.data(), count, seed, lo, hi);
  return v;
}

double max_relative_error(const double* x, const double* ref, std::size_t count, double floor) {
  double worst = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    const double err = std::abs(x[i] - ref[i]) / std::max(std::abs(ref[i]), floor);
    worst = std::max(worst, std::isnan(err) ? INFINITY : err);
  }
  return worst;
}

}  // namespace tfbench::workloads
