#include "run/timing.hpp"

#include "tfbench/workloads/helper_processes.hpp"

#include <benchmark/benchmark.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

namespace tfbench::harness::impl {
namespace {

using Clock = std::chrono::steady_clock;

/// One timed batch should last at least this long, so that the two clock reads around it (tens
/// of nanoseconds) stay below 0.5% of what they measure even for sub-microsecond operations.
constexpr double kMinBatchSeconds = 20e-6;
constexpr std::int64_t kMaxBatch = std::int64_t{1} << 20;
/// The longest the next variant waits for a Python peer's runner to go quiet (wait_until_idle;
/// OpenBLAS spins 2^28 cycles by default, about 0.1 s here).
constexpr double kHelperSettleSeconds = 0.5;
/// Calibration targets this share of min_time, then extrapolates the iteration count.
constexpr double kCalibrationShare = 0.25;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void busy_wait(double microseconds) {
  const auto until = Clock::now() + std::chrono::duration<double, std::micro>(microseconds);
  while (Clock::now() < until) {
  }
}

/// Collects the per-run reports of Google Benchmark; aggregates are not produced (1 repetition
/// per registration) and not wanted: every raw sample is kept.
class CollectingReporter final : public benchmark::BenchmarkReporter {
 public:
  struct Sample {
    std::int64_t iterations = 0;
    double seconds = 0.0;  // manual time accumulated over the iterations
    bool error = false;
    std::string message;
  };

  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      samples[run.run_name.function_name] =
          Sample{static_cast<std::int64_t>(run.iterations), run.real_accumulated_time, run.error_occurred,
                 run.error_message};
    }
  }
  std::map<std::string, Sample> samples;
};

/// `batch` runs of the instance, fenced on both sides before the clock is read. Returns their
/// seconds: by our clock, or by the instance's own when it times itself (a peer in another
/// process); the fault-injection delay counts either way.
double timed_batch(TimedVariant* v, std::int64_t batch) {
  Kokkos::fence();
  const auto t0 = Clock::now();
  double self_timed = 0.0;
  bool timed_by_instance = false;
  for (std::int64_t k = 0; k < batch; ++k) {
    v->instance->run();
    if (const auto s = v->instance->self_timed_seconds()) {
      timed_by_instance = true;
      self_timed += *s;
    }
    if (v->delay_us > 0) busy_wait(v->delay_us);
  }
  Kokkos::fence();
  const double wall = seconds_since(t0);
  return timed_by_instance ? self_timed + static_cast<double>(batch) * v->delay_us * 1e-6 : wall;
}

std::optional<workloads::CpuTicks> ticks_now() {
  return workloads::read_cpu_ticks(CpuSet::allowed(), workloads::helper_processes());
}

/// The body Google Benchmark runs: each of its iterations is one timed batch. A round's sample
/// (`load` set) also adds the host's load over its iterations.
void timed_body(benchmark::State& state, TimedVariant* v, std::int64_t batch, bool load) {
  if (v->on_start) v->on_start();
  try {
    const auto before = load ? ticks_now() : std::nullopt;
    for (auto _ : state) state.SetIterationTime(timed_batch(v, batch));
    // A peer in another process times itself: its helper's time is its own, not interference.
    const bool in_helper = v->instance->self_timed_seconds().has_value();
    if (load) v->host_load.add(before, ticks_now(), in_helper);
    // ... and its BLAS threads may spin on after it: the next variant starts once they are quiet.
    if (in_helper) workloads::wait_until_idle(workloads::helper_processes(), kHelperSettleSeconds);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  } catch (...) {
    state.SkipWithError("unknown exception");
  }
}

std::string bench_name(std::size_t index) {
  return "tfbench/" + std::to_string(index);
}

/// Runs of one instance per timed batch, from the fastest of a few single runs.
std::int64_t pick_batch(TimedVariant& v) {
  double best = 1e300;
  for (int i = 0; i < 3; ++i) {
    best = std::min(best, timed_batch(&v, 1));
    if (best > 1e-3) break;  // long runs: one is enough and the rest would be wasted time
  }
  if (best >= kMinBatchSeconds) return 1;
  return std::min<std::int64_t>(
      kMaxBatch, static_cast<std::int64_t>(std::ceil(kMinBatchSeconds / std::max(best, 1e-9))));
}

}  // namespace

void time_interleaved(std::vector<TimedVariant>& variants, const TimingSettings& settings) {
  std::vector<std::int64_t> batch(variants.size(), 1), iterations(variants.size(), 1);
  std::vector<std::size_t> live;

  // Calibration (and warm-up): Google Benchmark grows the iteration count until a quarter of
  // min_time is reached (its search costs about twice its target; a quarter keeps calibration
  // near one min_time per variant); each sample then uses the count that takes about min_time.
  for (std::size_t i = 0; i < variants.size(); ++i) {
    TimedVariant& v = variants[i];
    const auto t0 = Clock::now();
    try {
      if (v.on_start) v.on_start();
      batch[i] = pick_batch(v);
    } catch (const std::exception& e) {
      v.error = e.what();
      continue;
    }
    benchmark::ClearRegisteredBenchmarks();
    benchmark::RegisterBenchmark(bench_name(i).c_str(), timed_body, &v, batch[i], false)
        ->MinTime(settings.min_time * kCalibrationShare)
        ->Repetitions(1)
        ->UseManualTime();
    CollectingReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    v.calibration_s = seconds_since(t0);
    const auto it = reporter.samples.find(bench_name(i));
    if (it == reporter.samples.end() || it->second.error) {
      v.error = it == reporter.samples.end() ? "Google Benchmark reported nothing" : it->second.message;
      continue;
    }
    const double per_iteration =
        it->second.seconds / static_cast<double>(std::max<std::int64_t>(1, it->second.iterations));
    iterations[i] =
        std::max<std::int64_t>(1, std::llround(settings.min_time / std::max(per_iteration, 1e-12)));
    v.runs_per_sample = iterations[i] * batch[i];
    live.push_back(i);
  }

  std::mt19937_64 rng(settings.shuffle_seed);
  for (int round = 0; round < settings.repetitions && !live.empty(); ++round) {
    std::vector<std::size_t> order = live;
    std::shuffle(order.begin(), order.end(), rng);
    benchmark::ClearRegisteredBenchmarks();
    for (std::size_t i : order) {
      benchmark::RegisterBenchmark(bench_name(i).c_str(), timed_body, &variants[i], batch[i], true)
          ->Iterations(iterations[i])
          ->Repetitions(1)
          ->UseManualTime();
    }
    CollectingReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    std::vector<std::size_t> still_live;
    for (std::size_t i : live) {
      const auto it = reporter.samples.find(bench_name(i));
      if (it == reporter.samples.end() || it->second.error) {
        variants[i].error =
            it == reporter.samples.end() ? "Google Benchmark reported nothing" : it->second.message;
        continue;
      }
      const double runs = static_cast<double>(it->second.iterations) * static_cast<double>(batch[i]);
      variants[i].samples.push_back(it->second.seconds / runs);
      still_live.push_back(i);
    }
    live = std::move(still_live);
  }
  benchmark::ClearRegisteredBenchmarks();
}

}  // namespace tfbench::harness::impl
