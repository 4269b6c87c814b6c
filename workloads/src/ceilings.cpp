#include "bandwidth_control/bandwidth_control.hpp"
#include "tfbench/workloads/registry.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "common/random.hpp"

namespace tfbench::workloads {
namespace {

/// GFLOP/s of OpenBLAS dgemm at n (best of `repetitions`), with the BLAS library's current threads.
double measure_dgemm_gflops(int n, int repetitions) {
  const auto count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  auto a = random_vector(count, 11);
  auto b = random_vector(count, 12);
  std::vector<double> c(count, 0.0);
  auto gemm = [&] {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0,
                c.data(), n);
  };
  gemm();  // warm-up: thread start-up and page faults
  double best = 1e300;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    gemm();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return 2.0 * n * static_cast<double>(n) * n / best / 1e9;
}

}  // namespace

Ceilings measure_ceilings(const RunContext& ctx) {
  Ceilings c;
  c.gflops = measure_dgemm_gflops(1024, 5);
  c.gbs = measure_triad_gbs(std::int64_t{1} << 24, ctx.threads, 5);
  return c;
}

}  // namespace tfbench::workloads
