#pragma once
// Fresh random inputs for correctness checks and timing: non-zero, well-scaled, reproducible from
// the run's seed.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tfbench::workloads {

/// Fills `data` with values uniform in [lo, hi] (defaults keep every value away from zero).
void fill_random(double* data, std::size_t count, std::uint64_t seed, double lo = 0.5, double hi = 1.5);
void fill_random(float* data, std::size_t count, std::uint64_t seed, float lo = 0.5f, float hi = 1.5f);
std::vector<double> random_vector(std::size_t count, std::uint64_t seed, double lo = 0.5, double hi = 1.5);

/// Element `index` of the counter-based stream `seed`, uniform in [lo, hi]: any element can be
/// regenerated on its own (references of sampled items, parallel fills of large batches).
inline double random_at(std::uint64_t seed, std::uint64_t index, double lo = 0.5, double hi = 1.5) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return lo + (hi - lo) * static_cast<double>(z >> 11) * 0x1.0p-53;
}

/// Derives an independent stream for operand `index` of one case from the run seed.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t index);

/// max_i |x_i - ref_i| / max(|ref_i|, floor): the error recorded with every result.
double max_relative_error(const double* x, const double* ref, std::size_t count, double floor = 1e-300);

}  // namespace tfbench::workloads
