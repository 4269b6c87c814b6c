#pragma once
// The contract between the harness and a workload family. A family turns one point of its parameter
// sweep into variants (the engine under each strategy, its peers, controls); each variant is
// instantiated on fresh random data, checked against a reference, then timed by the harness.
// Nothing here knows YAML, HDF5 or Google Benchmark.

#include "tfbench/engine/core/exec_space.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace tfbench::workloads {

using ParamValue = std::variant<std::int64_t, double, bool, std::string>;

enum class ParamType { Int, Double, Bool, String };
const char* name(ParamType type);

/// One parameter a family accepts: what `tfbench validate` checks a config against.
struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Int;
  std::string description;
  std::optional<ParamValue> default_value;  // absent: the parameter is required
  std::vector<std::string> choices;         // allowed values of a String parameter (empty: any)
  std::optional<double> min;                // inclusive bounds of a numeric parameter
  std::optional<double> max;
};

/// The concrete parameters of one case, ordered by name so that ids are stable.
class Params {
 public:
  Params() = default;
  explicit Params(std::map<std::string, ParamValue> values) : values_(std::move(values)) {}

  void set(const std::string& key, ParamValue value) { values_[key] = std::move(value); }
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  std::int64_t get_int(const std::string& key) const;
  double get_double(const std::string& key) const;  // an Int parameter converts
  bool get_bool(const std::string& key) const;
  const std::string& get_string(const std::string& key) const;
  const std::map<std::string, ParamValue>& values() const { return values_; }
  /// "k1=v1,k2=v2" in key order; the parameter part of a case id.
  std::string canonical() const;

 private:
  const ParamValue& at(const std::string& key) const;
  std::map<std::string, ParamValue> values_;
};

std::string to_string(const ParamValue& value);

enum class VariantKind { Engine, Peer, Control };
const char* name(VariantKind kind);

/// One way of doing a case's work. Variants of one case do the same work on the same sizes, so
/// their times can be read as ratios.
struct VariantInfo {
  std::string name;  // unique within the case, e.g. "engine:auto", "peer:libxsmm"
  VariantKind kind = VariantKind::Engine;
  std::string provider;  // library doing the work: "tfbench", "kokkos", "libxsmm", "eigen", ...
  std::string strategy;  // batch strategy of an engine variant ("auto", ...), else empty
  /// Set when this variant cannot run here (peer not installed, no route on this space): the
  /// harness records it as skipped with this reason instead of dropping it.
  std::optional<std::string> unavailable;
};

/// Which peak a variant's flops are bounded by (the roofline's compute ceiling).
enum class FlopPrecision { F64, F32 };

/// The peak an element of `element_size` bytes is bounded by: 4 is single precision, else double.
inline FlopPrecision flop_precision_of(std::size_t element_size) {
  return element_size == 4 ? FlopPrecision::F32 : FlopPrecision::F64;
}

/// Work done by one iteration, for rates. Zero means "not meaningful for this variant".
struct Work {
  double flops = 0.0;
  double bytes = 0.0;  // bytes the algorithm must move (reads + writes of operands)
  /// Distinct bytes one iteration touches (its footprint), which decides the memory level of the
  /// roofline; 0: `bytes` (an iteration that touches each byte once).
  double working_set_bytes = 0.0;
  FlopPrecision precision = FlopPrecision::F64;
  /// The part of `bytes` stored into lines the iteration does not read first, through the caches
  /// (not streamed past them): from DRAM a cache reads each such line before it is written
  /// (write-allocate), so at the DRAM level the memory moves these bytes twice. 0: none, or stores
  /// that stream (non-temporal) or update what was read.
  double write_allocate_bytes = 0.0;
};

/// Resource use per iteration, counted apart from latency.
struct ResourceCounts {
  double allocations = 0.0;     // heap/device allocations
  double pool_hits = 0.0;       // checkouts served from a pool
  double transfers = 0.0;       // host<->device copies
  double bytes_retained = 0.0;  // bytes a pool keeps cached after the iteration
};

struct CheckResult {
  bool passed = false;
  double max_rel_error = 0.0;  // max |x - ref| / max(|ref|, tiny) over the checked output
  double tolerance = 0.0;
  std::string message;  // why it failed, or what was compared
};

/// Where and how an instance runs; fixed per worker process.
struct RunContext {
  ExecSpaceKind space = ExecSpaceKind::Serial;  // the Kokkos space the engine variants use
  int threads = 1;                              // the thread budget of this worker
  std::uint64_t seed = 1;                       // seed of the fresh random inputs
};

/// A variant prepared for one case: inputs allocated and filled with random non-zero data.
class Instance {
 public:
  virtual ~Instance() = default;
  /// Runs once on the prepared data and compares with a reference. Called before any timing.
  virtual CheckResult check() = 0;
  /// One timed iteration. All work, device work included, is complete when this returns.
  virtual void run() = 0;
  virtual Work work() const = 0;
  /// Resource use of one iteration (measured by the instance around extra runs, not timed).
  virtual ResourceCounts resources() { return {}; }
  /// Family-specific numbers recorded with the result (plan-cache hits, tape entries, ...).
  virtual std::map<std::string, double> metrics() { return {}; }
  /// Set by a variant that times itself (a peer running in another process, e.g. NumPy): the
  /// seconds its last run() took by its own clock, excluding the round trip to it. The harness
  /// uses this in place of its own clock around run(); empty (the default): the harness's clock.
  virtual std::optional<double> self_timed_seconds() const { return std::nullopt; }
};

/// Thrown by a family for a case it cannot build (bad parameter combination, no route).
class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual std::vector<ParamSpec> parameters() const = 0;
  /// Whether every variant runs on the host (a CpuBackend, host libraries, host data): on a device
  /// space all its variants are unavailable.
  virtual bool host_only() const { return false; }
  /// Every variant of a case, those unavailable here included (with their reason).
  virtual std::vector<VariantInfo> variants(const Params& params, const RunContext& ctx) const = 0;
  /// variants() of those whose name `wanted` accepts, in the same order; the others are not asked
  /// whether they can run (a Python peer's answer starts its interpreter, a torch import).
  virtual std::vector<VariantInfo> selected_variants(
      const Params& params, const RunContext& ctx,
      const std::function<bool(const std::string&)>& wanted) const {
    std::vector<VariantInfo> all = variants(params, ctx), out;
    for (VariantInfo& v : all)
      if (wanted(v.name)) out.push_back(std::move(v));
    return out;
  }
  /// The names of variants(), asking none of them whether it can run.
  virtual std::vector<std::string> variant_names(const Params& params, const RunContext& ctx) const {
    std::vector<std::string> names;
    for (const VariantInfo& v : variants(params, ctx)) names.push_back(v.name);
    return names;
  }
  /// Builds one available variant. Throws WorkloadError on a case it cannot build.
  virtual std::unique_ptr<Instance> instantiate(const Params& params, const std::string& variant,
                                                const RunContext& ctx) const = 0;
};

}  // namespace tfbench::workloads
