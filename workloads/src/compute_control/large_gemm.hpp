#pragma once
// One compute_control case: C (m x n) = A (m x k) B (k x n), column-major, alpha 1, beta 0.

#include "common/param_specs.hpp"
#include "tfbench/workloads/family.hpp"

#include <cstdint>
#include <functional>

namespace tfbench::workloads::compute_control {

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  std::size_t element_size = 8;
};

std::vector<ParamSpec> gemm_params();
GemmShape gemm_shape(const ParamReader& p);
/// 2 m n k flops; A and B read, C written once.
Work gemm_work(const GemmShape& s);

struct GemmSeeds {
  std::uint64_t a = 0, b = 0;
};
GemmSeeds gemm_seeds(std::uint64_t run_seed);

/// Fills a column-major operand (rows x cols) from `seed` with `threads` threads.
template <class T>
void fill_matrix(T* data, std::int64_t rows, std::int64_t cols, std::uint64_t seed, int threads);

/// Compares 256 entries of C (spread over rows and columns) with long-double dot products.
template <class T>
CheckResult check_gemm(const GemmShape& s, const GemmSeeds& seeds,
                       const std::function<T(std::int64_t, std::int64_t)>& c_at);

}  // namespace tfbench::workloads::compute_control
