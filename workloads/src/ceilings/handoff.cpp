#include "ceilings/handoff.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace tfbench::workloads::impl {
namespace {

/// Seconds of `trips` round trips of one counter between threads 0 and 1 of the current region:
/// thread 0 stores an odd value and waits for the next even one, thread 1 answers each odd value.
/// Every thread of the region calls it; the others only meet the barriers.
double ping_pong(std::atomic<std::int64_t>& line, std::int64_t trips) {
  using Clock = std::chrono::steady_clock;
  const int me = omp_get_thread_num();
  const bool pair = omp_get_num_threads() >= 2;  // a team of one has nobody to answer
  Clock::time_point t0;
#pragma omp barrier
  if (me == 0 && pair) {
    t0 = Clock::now();
    for (std::int64_t i = 0; i < trips; ++i) {
      line.store(2 * i + 1, std::memory_order_release);
      while (line.load(std::memory_order_acquire) != 2 * i + 2) {
      }
    }
  } else if (me == 1) {
    for (std::int64_t i = 0; i < trips; ++i) {
      while (line.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      line.store(2 * i + 2, std::memory_order_release);
    }
  }
  const double seconds = me == 0 && pair ? std::chrono::duration<double>(Clock::now() - t0).count() : 0.0;
#pragma omp barrier
  return seconds;
}

}  // namespace

double time_round_trips(int threads, std::atomic<std::int64_t>& line, std::int64_t trips) {
  double seconds = 0.0;
#pragma omp parallel num_threads(threads)
  {
    const double s = ping_pong(line, trips);
    if (omp_get_thread_num() == 0) {
      seconds = s;
      line.store(0, std::memory_order_relaxed);  // ping_pong's last barrier: thread 1 is done with it
    }
  }
  return seconds;
}

std::int64_t round_trips_for(int threads, std::atomic<std::int64_t>& line, double seconds) {
  // Short, because with fewer CPUs than threads each trip waits for the scheduler (milliseconds).
  constexpr std::int64_t kWarmup = 100;
  const double warmup_s = time_round_trips(threads, line, kWarmup);
  if (!(warmup_s > 0)) return 0;  // the runtime gave one thread: nothing crossed to another core
  return std::max<std::int64_t>(kWarmup, static_cast<std::int64_t>(kWarmup * seconds / warmup_s));
}

std::vector<double> sample_handoff_rate(int threads, int samples, double min_sample_s) {
  std::vector<double> rates;
  if (threads < 2) return rates;
  alignas(64) std::atomic<std::int64_t> line{0};
  const std::int64_t trips = round_trips_for(threads, line, min_sample_s);
  if (trips == 0) return rates;
  for (int s = 0; s < samples; ++s) {
    const double seconds = time_round_trips(threads, line, trips);
    if (seconds > 0) rates.push_back(static_cast<double>(trips) / seconds);
  }
  return rates;
}

}  // namespace tfbench::workloads::impl
