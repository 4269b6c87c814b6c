// The cache-level triad's defences against a descheduled thread (ceilings/level_bandwidth.hpp): the
// pass count of a sample comes from the fastest warm-up pass, and a level whose samples spread is
// measured again, keeping the attempt with the best median.

#include <catch2/catch.hpp>

#include "ceilings/fma_peak.hpp"
#include "ceilings/level_bandwidth.hpp"

#include <vector>

namespace {

using tfbench::workloads::Ceiling;
using tfbench::workloads::impl::measure_with_retries;
using tfbench::workloads::impl::passes_for_sample;

Ceiling ceiling(double best, double median) {
  Ceiling c;
  c.best = best;
  c.median = median;
  c.worst = median;
  c.samples = 5;
  return c;
}

}  // namespace

TEST_CASE("A sample's passes come from the fastest warm-up pass", "[ceilings]") {
  // An L1 pass takes about a microsecond; one warm-up stalled by 8 ms (a time slice) must not make
  // every sample a single pass.
  CHECK(passes_for_sample({8e-3, 1e-6, 1.2e-6}, 5e-3) == 5000);
  CHECK(passes_for_sample({1e-6, 8e-3, 2e-6}, 5e-3) == 5000);
  CHECK(passes_for_sample({0.01}, 5e-3) == 1);  // a DRAM pass longer than a sample: one pass
  CHECK(passes_for_sample({}, 5e-3) == 1);
  CHECK(passes_for_sample({0.0, -1.0}, 5e-3) == 1);
}

TEST_CASE("A level whose samples spread is measured again; the best median is kept", "[ceilings]") {
  std::vector<Ceiling> attempts{ceiling(16, 0.006), ceiling(480, 470), ceiling(300, 290)};
  std::size_t next = 0;
  const auto measure = [&] { return attempts[next++]; };
  const Ceiling kept = measure_with_retries(measure, 0.3, 3);
  CHECK(next == 2);  // the second attempt's median is within 30% of its best: no third
  CHECK(kept.median == 470);

  attempts = {ceiling(100, 10), ceiling(100, 20), ceiling(100, 15)};
  next = 0;
  CHECK(measure_with_retries(measure, 0.3, 3).median == 20);  // all noisy: the best median
  CHECK(next == 3);

  attempts = {ceiling(100, 95)};
  next = 0;
  CHECK(measure_with_retries(measure, 0.3, 3).median == 95);  // a quiet first attempt stands
  CHECK(next == 1);
}

TEST_CASE("The FMA peak: one positive sample per request, at 1 and 2 threads", "[ceilings]") {
  using tfbench::workloads::FlopPrecision;
  for (int threads : {1, 2}) {
    for (FlopPrecision p : {FlopPrecision::F64, FlopPrecision::F32}) {
      const auto gflops = tfbench::workloads::impl::sample_fma_gflops(threads, 3, p, 1e-3);
      REQUIRE(gflops.size() == 3);
      for (double g : gflops) CHECK(g > 0);
    }
  }
#if defined(__AVX512F__) && !defined(__CUDACC__)
  CHECK(tfbench::workloads::impl::fma_vector_bytes() == 64);
#elif defined(__AVX__) && !defined(__CUDACC__)
  CHECK(tfbench::workloads::impl::fma_vector_bytes() == 32);
#endif
}
