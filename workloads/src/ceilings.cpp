// The machine ceilings of a worker, measured first by the same code as the control families' peers
// (compute_control peer:openblas, bandwidth_control peer:openmp) at the worker's thread budget, so a
// control row at the ceiling's size reads 1.0 of its ceiling.

#include "bandwidth_control/bandwidth_control.hpp"
#include "compute_control/compute_control.hpp"
#include "tfbench/workloads/registry.hpp"

namespace tfbench::workloads {

// Sizes: n = 1024 keeps OpenBLAS near its n = 2048 rate at an eighth of the time per call; 3 x 8 Mi
// doubles (192 MiB) is six times a 32 MiB last-level cache. Best of 3 after a warm-up each: about
// 0.5 s at one thread on an idle reference machine (allocation and first touch included).
constexpr int kCeilingGemmN = 1024;
constexpr std::int64_t kCeilingTriadElements = std::int64_t{1} << 23;

Ceilings measure_ceilings(const RunContext& ctx) {
  Ceilings c;
  c.gflops = measure_dgemm_gflops(kCeilingGemmN, ctx.threads, 3);
  c.gbs = measure_triad_gbs(kCeilingTriadElements, ctx.threads, 3);
  return c;
}

}  // namespace tfbench::workloads
