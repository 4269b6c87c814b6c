// The machine ceilings of a worker, measured first by the same code as the control families' peers
// (compute_control peer:openblas, bandwidth_control peer:openmp) at the worker's thread budget, so a
// control row at the ceiling's size reads 1.0 of its ceiling.

#include "bandwidth_control/bandwidth_control.hpp"
#include "compute_control/compute_control.hpp"
#include "tfbench/workloads/registry.hpp"

namespace tfbench::workloads {

// Sizes: n = 1024 keeps OpenBLAS within a few percent of its n = 2048 rate at a quarter of the
// time per call; 3 x 16 Mi doubles (384 MiB) is far beyond any last-level cache. Together, warm-ups
// included, under 1 s at one thread on the reference machine.
constexpr int kCeilingGemmN = 1024;
constexpr std::int64_t kCeilingTriadElements = std::int64_t{1} << 24;

Ceilings measure_ceilings(const RunContext& ctx) {
  Ceilings c;
  c.gflops = measure_dgemm_gflops(kCeilingGemmN, ctx.threads, 3);
  c.gbs = measure_triad_gbs(kCeilingTriadElements, ctx.threads, 5);
  return c;
}

}  // namespace tfbench::workloads
