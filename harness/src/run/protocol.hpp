#pragma once
// The parent <-> worker protocol. The parent writes one JSON job to the worker's stdin; the worker
// answers with one JSON message per line on its message pipe:
//   {"msg":"hello", ...verified counts...}   after initialization and verification
//   {"msg":"ceilings","gflops":..,"gbs":..,"seconds":..}
//   {"msg":"begin","case":i,"variant":v,"phase":"check"|"time"|"collect"}   before the work it names
//   {"msg":"rows","case":i,"rows":[...]}   every variant of case i, when the case is finished
//   {"msg":"done"}

#include "tfbench/engine/core/exec_space.hpp"
#include "tfbench/harness/json.hpp"
#include "tfbench/workloads/family.hpp"
#include "tfbench/workloads/registry.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfbench::harness::impl {

struct JobCase {
  std::size_t index = 0;  // the case's position in the parent's worker plan
  std::string family;
  workloads::Params params;
  std::string group_id;
  std::vector<std::string> variants;
  int repetitions = 1;
  double min_time = 0.01;
};

struct WorkerJob {
  ExecSpaceKind space = ExecSpaceKind::Serial;
  int threads = 1;
  std::uint64_t seed = 1;
  bool verify_only = false;                     // `tfbench info`: verify and exit
  std::optional<workloads::Ceilings> ceilings;  // reuse (a restarted worker); else measure
  bool measure_ceilings = true;                 // false: no ceilings (fractions of ceiling stay NaN)
  std::vector<JobCase> cases;
};

Json to_json(const workloads::Params& params);
workloads::Params params_from_json(const Json& json);
Json to_json(const WorkerJob& job);
WorkerJob job_from_json(const Json& json);

/// What the worker reports about itself after initialization.
struct Hello {
  std::int64_t pid = 0;
  std::string exec_space;
  std::int64_t threads = 0, kokkos_threads = 0, blas_threads_requested = 0, blas_threads = 0,
               affinity_cpus = 0;
  std::string omp_proc_bind, omp_places;
  bool verified = false;
  std::string why;  // what failed verification
};
Json to_json(const Hello& hello);
Hello hello_from_json(const Json& json);

/// One variant's outcome as the worker measured it; the parent derives the statistics.
struct VariantOutcome {
  std::string variant, variant_kind, provider, strategy;
  std::string status = "ok", error;
  std::vector<double> samples;  // seconds per run, one per repetition
  std::int64_t iterations = 0;  // runs per sample
  double flops = 0, bytes = 0;
  double allocations = 0, pool_hits = 0, transfers = 0, bytes_retained = 0;
  double max_rel_error = 0, tolerance = 0;
  Json metrics = Json::object();
  double overhead_s = 0;
};
Json to_json(const VariantOutcome& outcome);
VariantOutcome outcome_from_json(const Json& json);

}  // namespace tfbench::harness::impl
