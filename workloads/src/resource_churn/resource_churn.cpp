// Each iteration performs `ops` operations; operation k produces an output of sizes[k % sizes]
// doubles (a geometric ladder from min_kib to max_kib), writes every element (value k % 7 + 1) with a
// kernel, keeps it alive for `live` operations (a ring of outputs, like the intermediates of a chain)
// and then releases it.
//
//   engine:output_lease  one session per iteration; per output Session::output_lease<double>(shape)
//                        (an uninitialized block from the backend's pool), the fill kernel on the
//                        session's space, publish() into a pooled tensor; releasing the tensor
//                        returns the block to the pool
//   peer:plain_alloc     a Kokkos::View allocated (uninitialized) per output, the same fill kernel
//                        on the same space, freed on release
//
// resources(): allocations, pool hits and bytes retained per iteration; metrics(): pool hit rate,
// allocations per operation, bytes retained and the lease counters.

#include "resource_churn/resource_churn.hpp"

#include "common/check.hpp"
#include "common/engine_backend.hpp"
#include "common/param_specs.hpp"
#include "common/variant_table.hpp"

#include "tfbench/engine/exec/leases.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <deque>

namespace tfbench::workloads {
namespace {

struct ChurnCase {
  std::vector<std::int64_t> sizes;  // elements of each output size
  std::int64_t ops = 64;
  std::int64_t live = 4;
};

double fill_value(std::int64_t k) {
  return static_cast<double>(k % 7 + 1);
}

/// data[i] = value over [0, n) on `space`, fenced.
template <class ExecSpace>
void fill(const ExecSpace& space, double* data, std::int64_t n, double value) {
  Kokkos::parallel_for(
      "tfbench::workloads::resource_churn::fill",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) { data[i] = value; });
  space.fence();
}

/// Shared driver: the ring of live outputs, the check of their contents, the counted work.
template <class Output>
class ChurnBase : public Instance {
 public:
  explicit ChurnBase(ChurnCase c) : case_(std::move(c)) {}

  CheckResult check() override {
    // Every output must hold what its kernel wrote, and nothing may stay checked out afterwards.
    double sum = 0.0, expected = 0.0;
    sum_ = &sum;
    run();
    sum_ = nullptr;
    const std::size_t nsizes = case_.sizes.size();
    for (std::int64_t k = 0; k < case_.ops; ++k)
      expected += fill_value(k) * static_cast<double>(case_.sizes[k % nsizes]);
    return compare_outputs({sum, outstanding_after_iteration()}, {expected, 0.0}, 1e-15,
                           "sum over every output's elements and outputs outstanding after an iteration",
                           1.0);
  }

  Work work() const override {
    double bytes = 0.0;
    const std::size_t nsizes = case_.sizes.size();
    for (std::int64_t k = 0; k < case_.ops; ++k) bytes += 8.0 * static_cast<double>(case_.sizes[k % nsizes]);
    // At most live + 1 outputs exist at once (pooled outputs reuse their memory): the footprint.
    const double largest = static_cast<double>(*std::max_element(case_.sizes.begin(), case_.sizes.end()));
    Work w{0.0, bytes, std::min(bytes, 8.0 * largest * static_cast<double>(case_.live + 1))};
    w.write_allocate_bytes = bytes;  // every byte is an output's, written and not read
    return w;
  }

 protected:
  /// Runs the ring with `produce(k, elements)` making output k.
  template <class Produce>
  void churn(Produce&& produce) {
    std::deque<Output> ring;
    const std::int64_t nsizes = static_cast<std::int64_t>(case_.sizes.size());
    for (std::int64_t k = 0; k < case_.ops; ++k) {
      const std::int64_t n = case_.sizes[static_cast<std::size_t>(k % nsizes)];
      ring.push_back(produce(k, n));
      if (sum_) *sum_ += host_sum(ring.back(), n);
      if (static_cast<std::int64_t>(ring.size()) > case_.live) ring.pop_front();
    }
  }
  virtual double host_sum(const Output& out, std::int64_t n) = 0;
  virtual double outstanding_after_iteration() = 0;

  ChurnCase case_;
  double* sum_ = nullptr;
};

double sum_of(const double* data, std::int64_t n) {
  double s = 0.0;
  for (std::int64_t i = 0; i < n; ++i) s += data[i];
  return s;
}

using HostTensor = Tensor<double, DynRank, Host>;

class EngineOutputLease final : public ChurnBase<HostTensor> {
 public:
  EngineOutputLease(ChurnCase c, const RunContext& ctx)
      : ChurnBase(std::move(c)), backend_(make_backend(ctx)) {}

  void run() override {
    auto ok = backend_.with_session([this](Session& s) {
      churn([&](std::int64_t k, std::int64_t n) {
        OutputLease<double> lease = s.output_lease<double>(Extents<DynRank>{n});
        s.dispatch([&](auto space) { fill(space, lease.data(), n, fill_value(k)); });
        return std::move(lease).publish_host();
      });
    });
    if (!ok) throw_entry_error(ok.error(), "resource_churn engine:output_lease");
  }

  ResourceCounts resources() override {
    return pool_resources(backend_, [this] { run(); });
  }
  std::map<std::string, double> metrics() override {
    const PoolStats before = backend_.host_pool()->stats();
    const LeaseStats leases_before = backend_.lease_stats();
    run();
    const PoolStats after = backend_.host_pool()->stats();
    const LeaseStats leases = backend_.lease_stats();
    const double hits = static_cast<double>(after.hits - before.hits);
    const double misses = static_cast<double>(after.misses - before.misses);
    const double ops = static_cast<double>(case_.ops);
    return {{"pool_hit_rate", hits / std::max(1.0, hits + misses)},
            {"allocations_per_op", misses / ops},
            {"pool_frees_per_op", static_cast<double>(after.frees - before.frees) / ops},
            {"bytes_retained", static_cast<double>(after.bytes_cached)},
            {"outputs_published_per_op",
             static_cast<double>(leases.outputs_published - leases_before.outputs_published) / ops}};
  }

 protected:
  double host_sum(const HostTensor& t, std::int64_t n) override { return sum_of(t.data(), n); }
  double outstanding_after_iteration() override {
    return static_cast<double>(backend_.host_pool()->stats().checkouts_outstanding);
  }

 private:
  CpuBackend backend_;
};

template <class ExecSpace>
class PlainAlloc final : public ChurnBase<Kokkos::View<double*, typename ExecSpace::memory_space>> {
  using View = Kokkos::View<double*, typename ExecSpace::memory_space>;

 public:
  using ChurnBase<View>::ChurnBase;

  void run() override {
    this->churn([&](std::int64_t k, std::int64_t n) {
      View v(Kokkos::view_alloc(std::string("tfbench::workloads::resource_churn::output"),
                                Kokkos::WithoutInitializing),
             n);
      fill(ExecSpace(), v.data(), n, fill_value(k));
      return v;
    });
  }
  ResourceCounts resources() override {
    ResourceCounts r;
    r.allocations = static_cast<double>(this->case_.ops);
    return r;
  }
  std::map<std::string, double> metrics() override {
    return {{"pool_hit_rate", 0.0}, {"allocations_per_op", 1.0}, {"bytes_retained", 0.0}};
  }

 protected:
  double host_sum(const View& v, std::int64_t n) override {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    return sum_of(h.data(), n);
  }
  double outstanding_after_iteration() override { return 0.0; }  // every View is gone with its ring
};

class ResourceChurn final : public TableFamily {
 public:
  std::string_view name() const override { return "resource_churn"; }
  bool host_only() const override { return true; }  // a CpuBackend, host data
  std::string_view description() const override {
    return "repeated output checkout/publish/release at changing sizes: the engine's session output "
           "leases (pooled) vs a plain allocation per output; pool hit rate, allocations per op, bytes "
           "retained";
  }
  std::vector<ParamSpec> parameters() const override {
    return {
        double_param("min_kib", "smallest output (KiB)", 4.0, 0.0625, 1 << 20),
        double_param("max_kib", "largest output (KiB)", 4096.0, 0.0625, 1 << 22),
        int_param("sizes", "distinct output sizes on a geometric ladder from min_kib to max_kib", 8, 1, 1024),
        int_param("ops", "outputs produced per iteration", 64, 1, 1e7),
        int_param("live", "outputs alive at once (released in order)", 4, 1, 4096)};
  }
  VariantTable table(const Params& params, const RunContext& ctx) const override {
    const ChurnCase c = read(params);
    return {
        engine_row("engine:output_lease", [c, &ctx] { return std::make_unique<EngineOutputLease>(c, ctx); }),
        peer_row("peer:plain_alloc", "kokkos", [c, &ctx] { return make_plain_alloc(c, ctx); })};
  }

 private:
  // The space the engine's session runs its kernels on (Serial for a one-thread budget).
  static std::unique_ptr<Instance> make_plain_alloc(const ChurnCase& c, const RunContext& ctx) {
    return dispatch_exec_space(engine_space(ctx), [&](auto space) -> std::unique_ptr<Instance> {
      return std::make_unique<PlainAlloc<decltype(space)>>(c);
    });
  }
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
