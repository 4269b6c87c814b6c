#pragma once
// The parent <-> worker protocol. The parent writes one JSON job to the worker's stdin; the worker
// answers with one JSON message per line on its message pipe:
//   {"msg":"hello", ...verified counts...}   after initialization and verification
//   {"msg":"ceilings","ceilings":{...},"seconds":..}   (seconds 0: reused, not measured)
//   {"msg":"begin","case":i,"variant":v,"phase":"check"|"time"|"collect"}   before the work it names
//   {"msg":"rows","case":i,"rows":[...]}   every variant of case i, when the case is finished: one
//                                          ResultRow each, its columns as in the file, plus "samples"
//   {"msg":"done"}
// Each struct below has one to_json/from_json pair (mostly NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE): every
// field is required when reading, so a message missing one is malformed, not silently defaulted.
// A NaN (ceilings not measured, a check that computed NaN) travels as null; parse_message reads every
// null back as NaN, since no field of the protocol is ever null otherwise.

#include "tfbench/engine/core/exec_space.hpp"
#include "tfbench/harness/json.hpp"
#include "tfbench/harness/results.hpp"
#include "tfbench/workloads/family.hpp"
#include "tfbench/workloads/registry.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The serializers of types from other namespaces sit in those namespaces, where nlohmann's ADL
// looks for them.
namespace tfbench {
void to_json(harness::Json& json, ExecSpaceKind kind);
void from_json(const harness::Json& json, ExecSpaceKind& kind);  // its name, as `name()` writes it
}  // namespace tfbench

namespace tfbench::workloads {
/// An object of the parameters with their types: 4, 4.0, true and "4" stay apart.
void to_json(harness::Json& json, const Params& params);
void from_json(const harness::Json& json, Params& params);
/// Every ceiling with its samples' best, median and worst, the cache sizes and the threads; an
/// unmeasured value is null (NaN), read back as NaN here too (the cache file has no parse_message).
void to_json(harness::Json& json, const Ceilings& ceilings);
void from_json(const harness::Json& json, Ceilings& ceilings);
/// {"name","kind","provider","strategy","available","why"}: a variant as a worker decided it.
void to_json(harness::Json& json, const VariantInfo& variant);
void from_json(const harness::Json& json, VariantInfo& variant);
}  // namespace tfbench::workloads

namespace tfbench::harness {
/// A result row as the "rows" message carries it: one member per column of the results table
/// (results/schema.cpp), named as there, and "samples". Reading requires every column.
void to_json(Json& json, const ResultRow& row);
void from_json(const Json& json, ResultRow& row);
}  // namespace tfbench::harness

namespace tfbench::harness::impl {

struct JobCase {
  std::size_t index = 0;  // the case's position in the parent's worker plan
  std::string family;
  workloads::Params params;
  std::string group_id;
  /// The variants to run, as the worker's dry query decided them (variant_query.hpp): one marked
  /// unavailable is recorded `skipped` with its reason, the others are built and measured.
  std::vector<workloads::VariantInfo> variants;
  int repetitions = 1;
  double min_time = 0.01;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(JobCase, index, family, params, group_id, variants, repetitions, min_time)

struct WorkerJob {
  ExecSpaceKind space = ExecSpaceKind::Serial;
  int threads = 1;
  std::uint64_t seed = 1;
  bool verify_only = false;                     // `tfbench info`: verify and exit
  std::optional<workloads::Ceilings> ceilings;  // reuse (a restarted worker); else measure
  /// A worker of several threads: the machine's cached one-thread ceilings, whose ceiling of one
  /// thread's bound it measures beside each row (ceilings_beside.hpp); none: not measured.
  std::optional<workloads::Ceilings> one_thread_ceilings;
  bool measure_ceilings = true;  // false: no ceilings (fractions of ceiling stay NaN)
  std::vector<JobCase> cases;
};
// Written by hand for its optional members: no "ceilings" (or "one_thread_ceilings") member means none.
void to_json(Json& json, const WorkerJob& job);
void from_json(const Json& json, WorkerJob& job);

/// What the worker reports about itself after initialization.
struct Hello {
  std::int64_t pid = 0;
  std::string exec_space;
  std::int64_t threads = 0, kokkos_threads = 0, blas_threads_requested = 0, blas_threads = 0,
               affinity_cpus = 0;
  std::string omp_proc_bind, omp_places;
  std::string binding = "off";  // ThreadBinding::text (environment.hpp)
  std::string blas_core;        // the kernels OpenBLAS loaded in the worker (openblas_get_corename)
  std::string device;           // the accelerator of a device space (device_description), else empty
  bool verified = false;
  std::string why;  // what failed verification
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Hello, pid, exec_space, threads, kokkos_threads, blas_threads_requested,
                                   blas_threads, affinity_cpus, omp_proc_bind, omp_places, binding, blas_core,
                                   device, verified, why)

/// `body` as a message of kind `msg` ({"msg": msg, ...body}).
Json message(const char* msg, Json body = Json::object());

/// One job or message line. Throws Json::parse_error on text that is not JSON; reads null as NaN.
Json parse_message(std::string_view text);

}  // namespace tfbench::harness::impl
