// Each iteration performs `ops` operations; operation k produces an output of sizes[k % sizes]
// doubles (a geometric ladder from min_kib to max_kib), written in full, kept alive for `live`
// operations (a ring of outputs, like the intermediates of a chain) and then released.
//
//   engine:pooled       Tensor<double, Device>::zeros(shape, pool): checkout from the instance's
//                       DevicePool, zero-filled, published as a pooled tensor; release returns the
//                       block to the pool
//   engine:plain        Tensor<double, Device>::zeros(exec, shape): a fresh Kokkos allocation each time
//   peer:kokkos_view    Kokkos::View<double*>(label, n): allocate + zero-fill, free on release
//
// All three fill with a kernel on the default device execution space, so they differ only in where
// the memory comes from. resources(): allocations, pool hits and bytes retained per iteration.

#include "resource_churn/resource_churn.hpp"

#include "common/check.hpp"
#include "common/param_specs.hpp"

#include "tfbench/engine/storage/storage.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <deque>

namespace tfbench::workloads {
namespace {

struct ChurnCase {
  std::vector<std::int64_t> sizes;  // elements of each output size
  std::int64_t ops = 64;
  std::int64_t live = 4;
};

using DeviceTensor = Tensor<double, DynRank, Device>;

/// Shared driver: `produce(k, elements)` returns an output holder; the ring keeps `live` of them.
template <class Output>
class ChurnBase : public Instance {
 public:
  explicit ChurnBase(ChurnCase c) : case_(std::move(c)) {}

  CheckResult check() override {
    // Every output must come back zero-filled, and nothing may stay checked out after an iteration.
    double sum = 0.0;
    sum_ = &sum;
    run();
    sum_ = nullptr;
    const double outstanding = outstanding_after_iteration();
    return compare_outputs({sum, outstanding}, {0.0, 0.0}, 0.0,
                           "sum over every output element (zero-filled) and outputs outstanding after an "
                           "iteration",
                           1.0);
  }

  void run() override {
    std::deque<Output> ring;
    const std::int64_t nsizes = static_cast<std::int64_t>(case_.sizes.size());
    for (std::int64_t k = 0; k < case_.ops; ++k) {
      ring.push_back(produce(case_.sizes[static_cast<std::size_t>(k % nsizes)]));
      if (sum_) *sum_ += sum_of(ring.back());
      if (static_cast<std::int64_t>(ring.size()) > case_.live) ring.pop_front();
    }
  }

  Work work() const override {
    double bytes = 0.0;
    const std::size_t nsizes = case_.sizes.size();
    for (std::int64_t k = 0; k < case_.ops; ++k) bytes += 8.0 * static_cast<double>(case_.sizes[k % nsizes]);
    return {0.0, bytes};
  }

 protected:
  virtual Output produce(std::int64_t elements) = 0;
  virtual double sum_of(const Output& out) = 0;
  virtual double outstanding_after_iteration() { return 0.0; }
  ChurnCase case_;
  double* sum_ = nullptr;
};

double sum_device(const double* data, std::int64_t n) {
  double s = 0.0;
  Kokkos::parallel_reduce(
      "tfbench::workloads::resource_churn::sum",
      Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::IndexType<std::int64_t>>(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, double& acc) { acc += data[i] < 0.0 ? -data[i] : data[i]; }, s);
  return s;
}

class EnginePooled final : public ChurnBase<DeviceTensor> {
 public:
  explicit EnginePooled(ChurnCase c) : ChurnBase(std::move(c)), pool_(DevicePool::create()) {}

  ResourceCounts resources() override {
    const PoolStats before = pool_->stats();
    run();
    const PoolStats after = pool_->stats();
    ResourceCounts r;
    r.allocations = static_cast<double>(after.misses - before.misses);
    r.pool_hits = static_cast<double>(after.hits - before.hits);
    r.bytes_retained = static_cast<double>(after.bytes_cached);
    return r;
  }
  std::map<std::string, double> metrics() override {
    const PoolStats before = pool_->stats();
    run();
    const PoolStats after = pool_->stats();
    const double hits = static_cast<double>(after.hits - before.hits);
    const double misses = static_cast<double>(after.misses - before.misses);
    return {{"pool_hit_rate", hits / std::max(1.0, hits + misses)},
            {"allocations_per_op", misses / static_cast<double>(case_.ops)},
            {"bytes_retained", static_cast<double>(after.bytes_cached)},
            {"pool_frees_per_op",
             static_cast<double>(after.frees - before.frees) / static_cast<double>(case_.ops)}};
  }

 protected:
  DeviceTensor produce(std::int64_t elements) override { return DeviceTensor::zeros({elements}, pool_); }
  double sum_of(const DeviceTensor& t) override { return sum_device(t.view().base(), t.numel()); }
  double outstanding_after_iteration() override {
    return static_cast<double>(pool_->stats().checkouts_outstanding);
  }

 private:
  std::shared_ptr<DevicePool> pool_;
};

class EnginePlain final : public ChurnBase<DeviceTensor> {
 public:
  using ChurnBase::ChurnBase;
  ResourceCounts resources() override {
    ResourceCounts r;
    r.allocations = static_cast<double>(case_.ops);
    return r;
  }
  std::map<std::string, double> metrics() override {
    return {{"pool_hit_rate", 0.0}, {"allocations_per_op", 1.0}, {"bytes_retained", 0.0}};
  }

 protected:
  DeviceTensor produce(std::int64_t elements) override {
    return DeviceTensor::zeros(Kokkos::DefaultExecutionSpace(), {elements});
  }
  double sum_of(const DeviceTensor& t) override { return sum_device(t.view().base(), t.numel()); }
};

using PlainView = Kokkos::View<double*, Kokkos::DefaultExecutionSpace::memory_space>;

class KokkosViewAlloc final : public ChurnBase<PlainView> {
 public:
  using ChurnBase::ChurnBase;
  ResourceCounts resources() override {
    ResourceCounts r;
    r.allocations = static_cast<double>(case_.ops);
    return r;
  }
  std::map<std::string, double> metrics() override {
    return {{"pool_hit_rate", 0.0}, {"allocations_per_op", 1.0}, {"bytes_retained", 0.0}};
  }

 protected:
  PlainView produce(std::int64_t elements) override {
    PlainView v("tfbench::workloads::resource_churn::output", elements);
    Kokkos::DefaultExecutionSpace().fence();
    return v;
  }
  double sum_of(const PlainView& v) override {
    return sum_device(v.data(), static_cast<std::int64_t>(v.extent(0)));
  }
};

class ResourceChurn final : public Family {
 public:
  std::string_view name() const override { return "resource_churn"; }
  std::string_view description() const override {
    return "repeated output checkout/publish/release at changing sizes: engine pooled outputs vs plain "
           "engine allocations vs plain Kokkos Views; pool hit rate, allocations per op, bytes retained";
  }
  std::vector<ParamSpec> parameters() const override {
    return {
        double_param("min_kib", "smallest output (KiB)", 4.0, 0.0625, 1 << 20),
        double_param("max_kib", "largest output (KiB)", 4096.0, 0.0625, 1 << 22),
        int_param("sizes", "distinct output sizes on a geometric ladder from min_kib to max_kib", 8, 1, 1024),
        int_param("ops", "outputs produced per iteration", 64, 1, 1e7),
        int_param("live", "outputs alive at once (released in order)", 4, 1, 4096)};
  }
  std::vector<VariantInfo> variants(const Params& params, const RunContext&) const override {
    (void)read(params);
    return {{"engine:pooled", VariantKind::Engine, "tfbench", "", std::nullopt},
            {"engine:plain", VariantKind::Engine, "tfbench", "", std::nullopt},
            {"peer:kokkos_view", VariantKind::Peer, "kokkos", "", std::nullopt}};
  }
  std::unique_ptr<Instance> instantiate(const Params& params, const std::string& variant,
                                        const RunContext&) const override {
    ChurnCase c = read(params);
    if (variant == "engine:pooled") return std::make_unique<EnginePooled>(std::move(c));
    if (variant == "engine:plain") return std::make_unique<EnginePlain>(std::move(c));
    if (variant == "peer:kokkos_view") return std::make_unique<KokkosViewAlloc>(std::move(c));
    throw WorkloadError("resource_churn has no variant '" + variant + "'");
  }

 private:
  ChurnCase read(const Params& params) const {
    const ParamReader p(std::string(name()), parameters(), params);
    const double lo = p.get_double("min_kib"), hi = p.get_double("max_kib");
    if (hi < lo)
      throw WorkloadError("resource_churn: max_kib (" + std::to_string(hi) + ") < min_kib (" +
                          std::to_string(lo) + ")");
    ChurnCase c;
    const std::int64_t n = p.get_int("sizes");
    for (std::int64_t k = 0; k < n; ++k) {
      const double kib =
          n == 1 ? lo : lo * std::pow(hi / lo, static_cast<double>(k) / static_cast<double>(n - 1));
      c.sizes.push_back(std::max<std::int64_t>(1, static_cast<std::int64_t>(kib * 1024.0 / 8.0)));
    }
    c.ops = p.get_int("ops");
    c.live = p.get_int("live");
    return c;
  }
};

}  // namespace

const Family& resource_churn_family() {
  static const ResourceChurn family;
  return family;
}

}  // namespace tfbench::workloads
