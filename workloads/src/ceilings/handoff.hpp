#pragma once
// The least time a parallel region can spend handing work to another core and hearing back: one
// cache line's round trip between two threads of the worker (thread 0 writes, thread 1 sees it and
// answers, thread 0 sees the answer). Any region of more than one thread pays at least this much on
// top of its work (the start must reach a second core and its end come back), whatever runtime opens
// it, so the roofline of a multi-threaded worker adds it to the bound of the work spread over the
// threads (ceilings.hpp, roofline_bound). On the 2-core EPYC VM (2026-12-04) a round trip took
// 0.46-0.52 us and libgomp's empty `omp parallel` of 2 threads 2.4-3.0 us.

#include <atomic>
#include <cstdint>
#include <vector>

namespace tfbench::workloads::impl {

/// Round trips per second of each of `samples` samples between threads 0 and 1 of one OpenMP region
/// of `threads` (>= 2) threads, a sample repeating the round trip for at least `min_sample_s`.
std::vector<double> sample_handoff_rate(int threads, int samples, double min_sample_s);

/// Seconds of `trips` round trips of `line` (0 before, 0 after) between threads 0 and 1 of one
/// OpenMP region of `threads` threads, timed by thread 0 between barriers (not the region's fork and
/// join); 0 where the runtime gave the region one thread.
double time_round_trips(int threads, std::atomic<std::int64_t>& line, std::int64_t trips);

/// The round trips that take about `seconds` at `threads`, from a warm-up of 100 (at least 100);
/// 0 where the runtime gives a region one thread.
std::int64_t round_trips_for(int threads, std::atomic<std::int64_t>& line, double seconds);

}  // namespace tfbench::workloads::impl
