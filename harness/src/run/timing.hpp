#pragma once
// Timing through Google Benchmark: a calibration pass per variant picks the iteration count for
// min_time (and doubles as warm-up); then `repetitions` rounds, each running every variant of the
// case once in a fresh random order (A B C, C A B, ...), so that drift of the machine hits all
// variants alike. Manual time: fences before reading the clock on both sides of the timed runs.
// Around each round's sample the host's load is read (host_load.hpp), outside the timed batches.

#include "tfbench/workloads/family.hpp"
#include "tfbench/workloads/host_load.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tfbench::harness::impl {

struct TimedVariant {
  workloads::Instance* instance = nullptr;
  double delay_us = 0.0;           // fault injection: busy-wait after every run
  std::function<void()> on_start;  // called before each Google Benchmark run of this variant

  // Results.
  std::int64_t runs_per_sample = 0;  // instance runs per sample
  std::vector<double> samples;       // seconds per run, one per round
  std::string error;                 // set when a run threw; the variant is dropped from later rounds
  double calibration_s = 0.0;        // wall time of the calibration pass
  workloads::HostLoad host_load;     // what else ran on the worker's CPUs during the samples
};

struct TimingSettings {
  int repetitions = 5;
  double min_time = 0.05;
  std::uint64_t shuffle_seed = 1;
};

void time_interleaved(std::vector<TimedVariant>& variants, const TimingSettings& settings);

}  // namespace tfbench::harness::impl
