// The cache-level triad's defences against a descheduled thread (ceilings/level_bandwidth.hpp): the
// pass count of a sample comes from the fastest warm-up pass, and a level whose samples spread is
// measured again, keeping the attempt with the best median.

#include <catch2/catch.hpp>

#include "ceilings/fma_peak.hpp"
#include "ceilings/handoff.hpp"
#include "ceilings/level_bandwidth.hpp"

#include <cmath>
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

TEST_CASE("The handoff: positive round-trip rates at 2 threads, none at 1", "[ceilings]") {
  using tfbench::workloads::impl::sample_handoff_rate;
  CHECK(sample_handoff_rate(1, 3, 1e-3).empty());  // nobody to hand over to
  const auto rates = sample_handoff_rate(2, 3, 1e-3);
  REQUIRE(rates.size() == 3);
  // A round trip between two cores takes tens of nanoseconds to microseconds; one answered by the
  // same thread (a broken exchange) would read billions per second, one never answered would hang.
  for (double r : rates) {
    CHECK(r > 100.0);
    CHECK(r < 1e9);
  }
}

TEST_CASE("A level's bandwidth is the higher of the triad and the in-place kernel", "[ceilings]") {
  using tfbench::workloads::impl::BandwidthKernel;
  using tfbench::workloads::impl::higher_of_kernels;
  // Beyond the L2 on the Xeon: the triad's stores read their lines first (write-allocate), and rows
  // streaming their stores past the caches ran at 1.2-1.29 of a triad-only DRAM ceiling.
  std::vector<BandwidthKernel> asked;
  const auto dram = [&](BandwidthKernel k) {
    asked.push_back(k);
    return k == BandwidthKernel::Triad ? ceiling(10.9, 10.5) : ceiling(17.3, 17.0);
  };
  CHECK(higher_of_kernels(dram).best == 17.3);
  CHECK(asked == std::vector<BandwidthKernel>{BandwidthKernel::Triad, BandwidthKernel::InPlace});
  // In L1 the triad is the faster kernel and stays the ceiling.
  const auto l1 = [](BandwidthKernel k) {
    return k == BandwidthKernel::Triad ? ceiling(138, 130) : ceiling(94, 90);
  };
  CHECK(higher_of_kernels(l1).best == 138);
  // A kernel that measured nothing never wins.
  const auto one_failed = [](BandwidthKernel k) {
    return k == BandwidthKernel::Triad ? Ceiling{} : ceiling(5, 5);
  };
  CHECK(higher_of_kernels(one_failed).best == 5);
}

TEST_CASE("Both bandwidth kernels: one positive sample per request, at 1 and 2 threads", "[ceilings]") {
  using tfbench::workloads::impl::BandwidthKernel;
  for (int threads : {1, 2}) {
    for (BandwidthKernel k : {BandwidthKernel::Triad, BandwidthKernel::InPlace}) {
      const auto gbs = tfbench::workloads::impl::sample_bandwidth(k, 48.0 * 1024, threads, 3, 1e-4);
      REQUIRE(gbs.size() == 3);
      for (double g : gbs) CHECK((g > 0 && std::isfinite(g)));
    }
  }
}
