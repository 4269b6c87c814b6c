#pragma once
// The OpenMP fan-out of the per-item peers: at one thread a plain loop (no parallel region to pay
// for), else a static `omp parallel for` over the items on the worker's thread budget.

#include <cstdint>

namespace tfbench::workloads {

template <class F>
void fan_out(int threads, std::int64_t count, F&& item) {
  if (threads <= 1) {
    for (std::int64_t i = 0; i < count; ++i) item(i);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < count; ++i) item(i);
}

}  // namespace tfbench::workloads
