// The ceilings measured again in a case's own rounds (ceilings.hpp, bandwidth_reference,
// peak_reference and handoff_reference): a level's two kernels over the ceiling's working set, the
// faster one kept, the FMA chains, or the round trips of a cache line; each timed like the ceiling
// (between barriers, a run repeating its passes for kCacheSampleSeconds, one pass from DRAM).

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>

#include "ceilings/fma_peak.hpp"
#include "ceilings/handoff.hpp"
#include "ceilings/level_bandwidth.hpp"
#include "ceilings/reference_instance.hpp"
#include "tfbench/workloads/ceilings.hpp"

namespace tfbench::workloads {
namespace {

/// Warm-up samples per kernel when choosing between the two.
constexpr int kChoiceSamples = 3;

struct SizedPasses {
  std::unique_ptr<impl::BandwidthPasses> passes;
  std::int64_t per_run = 1;
  double best_gbs = 0.0;
};

SizedPasses sized(impl::BandwidthKernel kernel, double working_set_bytes, int threads, double min_run_s) {
  SizedPasses s;
  s.passes = std::make_unique<impl::BandwidthPasses>(kernel, working_set_bytes, threads);
  s.per_run = s.passes->passes_for(min_run_s);
  for (int i = 0; i < kChoiceSamples; ++i) {
    const double gbs = s.passes->sample_gbs(s.per_run);
    if (std::isfinite(gbs)) s.best_gbs = std::max(s.best_gbs, gbs);
  }
  return s;
}

class BandwidthReference final : public impl::ReferenceInstance {
 public:
  BandwidthReference(double working_set_bytes, int threads, double min_run_s)
      : working_set_bytes_(working_set_bytes) {
    // The ceiling keeps the higher of the two kernels; so does its reference (the triad is the faster
    // in L1, the in-place kernel from the L2 out, where the triad's stores read their lines first).
    SizedPasses triad = sized(impl::BandwidthKernel::Triad, working_set_bytes, threads, min_run_s);
    SizedPasses in_place = sized(impl::BandwidthKernel::InPlace, working_set_bytes, threads, min_run_s);
    kept_ = std::move(in_place.best_gbs >= triad.best_gbs ? in_place : triad);
  }
  Work work() const override {
    Work w;
    w.bytes = kept_.passes->bytes_per_pass() * static_cast<double>(kept_.per_run);
    w.working_set_bytes = working_set_bytes_;
    return w;
  }

 private:
  double timed_run() override { return kept_.passes->time(kept_.per_run); }

  double working_set_bytes_;
  SizedPasses kept_;
};

class HandoffRounds final : public impl::ReferenceInstance {
 public:
  explicit HandoffRounds(int threads) : threads_(threads) {
    trips_ = impl::round_trips_for(threads, line_, impl::kCacheSampleSeconds);
  }
  std::int64_t trips() const { return trips_; }
  Work work() const override { return {}; }

 private:
  double timed_run() override { return impl::time_round_trips(threads_, line_, trips_); }

  int threads_;
  alignas(64) std::atomic<std::int64_t> line_{0};
  std::int64_t trips_ = 0;
};

}  // namespace

std::unique_ptr<Instance> bandwidth_reference(ops::MemoryLevel level, double working_set_bytes, int threads) {
  const double min_run_s = level == ops::MemoryLevel::DRAM ? 0.0 : impl::kCacheSampleSeconds;
  return std::make_unique<BandwidthReference>(working_set_bytes, threads, min_run_s);
}

std::unique_ptr<Instance> peak_reference(FlopPrecision precision, int threads) {
  return impl::fma_reference(threads, precision, impl::kCacheSampleSeconds);
}

HandoffReference handoff_reference(int threads) {
  HandoffReference r;
  if (threads < 2) return r;
  auto rounds = std::make_unique<HandoffRounds>(threads);
  if (rounds->trips() == 0) return r;
  r.round_trips_per_run = static_cast<double>(rounds->trips());
  r.instance = std::move(rounds);
  return r;
}

}  // namespace tfbench::workloads
