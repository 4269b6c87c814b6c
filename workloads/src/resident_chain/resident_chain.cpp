// Variants (Y0 and W uploaded once at set-up; each iteration restarts from Y0):
//
//   engine:resident       a DeviceBackend session; per step T = ops::einsum("ij,jk->ik", Y, W) and
//                         Y = ops::axpby(1/n, T, 0.5, Y) on Device tensors (outputs are leases of the
//                         device pool); one ops::download of the final Y
//   engine:download_each  the same chain with an ops::download of Y after every step (what code that
//                         inspects each intermediate on the host pays)
//   peer:kokkos           the same steps with Views in the default execution space's memory:
//                         KokkosBlas::gemm into T, a parallel_for for the axpby, one deep_copy to host
//
// resources().transfers: host<->device copies per iteration (engine: storage's transfer counters).
// metrics: downloads, transfers_inside_chain (0 when resident), and where the chain ran:
// device_memory_is_host (1 on host builds, whose "device" is host memory) and a one-hot
// device_space.<name> of the execution space that ran it.

#include "resident_chain/resident_chain.hpp"

#include "common/check.hpp"
#include "common/engine_backend.hpp"
#include "common/live_by_case.hpp"
#include "common/param_specs.hpp"
#include "common/random.hpp"
#include "common/variant_table.hpp"

#include "tfbench/engine/ops/einsum.hpp"
#include "tfbench/engine/ops/elementwise.hpp"
#include "tfbench/engine/ops/transfer.hpp"
#include "tfbench/engine/storage/storage.hpp"

#include <KokkosBlas3_gemm.hpp>
#include <Kokkos_Core.hpp>

#include <memory>
#include <mutex>
#include <tuple>

namespace tfbench::workloads {
namespace {

constexpr double kKeep = 0.5;

struct ChainCase {
  std::int64_t n = 128;
  std::int64_t steps = 8;
};

std::vector<double> operand(std::int64_t n, std::uint64_t seed, double scale) {
  std::vector<double> v(static_cast<std::size_t>(n * n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = scale * random_at(seed, i);
  return v;
}

/// The chain on the host in long double, computed once for the variants of a case alive at once and
/// reading Y down its columns: 16 steps of n = 512 took ~33 s of checks on the Zen 2 VM (three
/// variants, each reading Y across its columns), now ~9; n = 1024 would take 150 s a variant.
class ChainReference {
 public:
  const std::vector<double>& get(const std::vector<double>& y0, const std::vector<double>& w,
                                 const ChainCase& c) {
    std::call_once(once_, [&] { y_ = compute(y0, w, c); });
    return y_;
  }

 private:
  static std::vector<double> compute(const std::vector<double>& y0, const std::vector<double>& w,
                                     const ChainCase& c) {
    const std::size_t n = static_cast<std::size_t>(c.n);
    std::vector<long double> y(y0.begin(), y0.end()), next(n * n);
    for (std::int64_t s = 0; s < c.steps; ++s) {
      // next(:, j) = Y W(:, j) / n + keep Y(:, j), Y's columns streamed (i innermost).
      for (std::size_t j = 0; j < n; ++j) {
        long double* out = &next[j * n];
        for (std::size_t i = 0; i < n; ++i) out[i] = 0.0L;
        for (std::size_t k = 0; k < n; ++k) {
          const long double wkj = w[j * n + k];
          const long double* yk = &y[k * n];
          for (std::size_t i = 0; i < n; ++i) out[i] += yk[i] * wkj;
        }
        for (std::size_t i = 0; i < n; ++i)
          out[i] = out[i] / static_cast<long double>(n) + kKeep * y[j * n + i];
      }
      y.swap(next);
    }
    return std::vector<double>(y.begin(), y.end());
  }

  std::once_flag once_;
  std::vector<double> y_;
};

/// Shared: the inputs, the reference, the counted work and the space metrics.
class ChainBase : public Instance {
 public:
  ChainBase(const ChainCase& c, const RunContext& ctx)
      : case_(c),
        y0_(operand(c.n, derive_seed(ctx.seed, 701), 1.0)),
        w_(operand(c.n, derive_seed(ctx.seed, 702), 1.0)),
        reference_(LiveByCase<ChainReference, std::tuple<std::int64_t, std::int64_t, std::uint64_t>>::get(
            {c.n, c.steps, ctx.seed}, [] { return std::make_shared<ChainReference>(); })) {}

  CheckResult check() override {
    run();
    const std::vector<double>& want = reference_->get(y0_, w_, case_);
    return compare_outputs(result_, want, tolerance_for<double>(static_cast<double>(case_.steps * case_.n)),
                           std::to_string(case_.steps) + " chained steps against a long-double host chain");
  }

  Work work() const override {
    const double n = static_cast<double>(case_.n), s = static_cast<double>(case_.steps);
    // Every step reuses Y, W and T (and Y0 restarts it): four n x n matrices.
    return {s * (2.0 * n * n * n + 3.0 * n * n), s * 8.0 * (3.0 * n * n + 3.0 * n * n), 8.0 * 4.0 * n * n};
  }

 protected:
  static std::map<std::string, double> where_it_ran() {
    return {{"device_memory_is_host",
             std::is_same<Kokkos::DefaultExecutionSpace::memory_space, Kokkos::HostSpace>::value ? 1.0 : 0.0},
            {std::string("device_space.") + name(exec_space_kind<Kokkos::DefaultExecutionSpace>()), 1.0}};
  }

  ChainCase case_;
  std::vector<double> y0_, w_;
  std::shared_ptr<ChainReference> reference_;  // one per case: every variant checks against it
  std::vector<double> result_;                 // the final Y, on the host
};

using DeviceTensor = Tensor<double, DynRank, Device>;
using HostTensor = Tensor<double, DynRank, Host>;

class EngineChain final : public ChainBase {
 public:
  EngineChain(const ChainCase& c, const RunContext& ctx, bool download_each)
      : ChainBase(c, ctx), download_each_(download_each), backend_(DeviceBackend::make()) {
    auto ok = backend_.with_session([&](Session& s) {
      y0_dev_.emplace(ops::upload(s, HostTensor::from_col_major({c.n, c.n}, std::vector<double>(y0_))));
      w_dev_.emplace(ops::upload(s, HostTensor::from_col_major({c.n, c.n}, std::vector<double>(w_))));
    });
    if (!ok) throw_entry_error(ok.error(), name());
  }

  void run() override {
    auto ok = backend_.with_session([this](Session& s) {
      const double inv_n = 1.0 / static_cast<double>(case_.n);
      const DeviceTensor& y0 = *y0_dev_;
      DeviceTensor y = ops::copy(s, y0);  // restart from Y0
      for (std::int64_t step = 0; step < case_.steps; ++step) {
        DeviceTensor t = ops::einsum(s, "ij,jk->ik", y, *w_dev_);
        y = ops::axpby(s, inv_n, t, kKeep, y);
        if (download_each_ && step + 1 < case_.steps) last_host_.emplace(ops::download(s, y));
      }
      last_host_.emplace(ops::download(s, y));
    });
    if (!ok) throw_entry_error(ok.error(), name());
    result_.assign(last_host_->data(), last_host_->data() + last_host_->numel());
  }

  ResourceCounts resources() override {
    const TransferStats before = transfer_stats();
    const PoolStats pool_before = backend_.device_pool()->stats();
    run();
    const TransferStats d = transfer_stats() - before;
    const PoolStats pool_after = backend_.device_pool()->stats();
    ResourceCounts r;
    r.transfers = static_cast<double>(d.uploads + d.downloads);
    r.allocations = static_cast<double>(pool_after.misses - pool_before.misses);
    r.pool_hits = static_cast<double>(pool_after.hits - pool_before.hits);
    r.bytes_retained = static_cast<double>(pool_after.bytes_cached);
    return r;
  }

  std::map<std::string, double> metrics() override {
    const TransferStats before = transfer_stats();
    run();
    const TransferStats d = transfer_stats() - before;
    auto m = where_it_ran();
    m["downloads"] = static_cast<double>(d.downloads);
    m["uploads"] = static_cast<double>(d.uploads);
    m["transfers_inside_chain"] =
        static_cast<double>(d.uploads + d.downloads) - 1.0;  // all but the final one
    m["bytes_downloaded"] = static_cast<double>(d.bytes_downloaded);
    return m;
  }

 private:
  std::string name() const {
    return download_each_ ? "resident_chain engine:download_each" : "resident_chain engine:resident";
  }
  bool download_each_;
  DeviceBackend backend_;
  std::optional<DeviceTensor> y0_dev_, w_dev_;
  std::optional<HostTensor> last_host_;
};

class KokkosChain final : public ChainBase {
  using Space = Kokkos::DefaultExecutionSpace;
  using View = Kokkos::View<double**, Kokkos::LayoutLeft, Space::memory_space>;

 public:
  KokkosChain(const ChainCase& c, const RunContext& ctx)
      : ChainBase(c, ctx),
        y0_v_(Kokkos::view_alloc(std::string("tfbench::workloads::resident_chain::y0"),
                                 Kokkos::WithoutInitializing),
              c.n, c.n),
        w_v_(Kokkos::view_alloc(std::string("tfbench::workloads::resident_chain::w"),
                                Kokkos::WithoutInitializing),
             c.n, c.n),
        t_("tfbench::workloads::resident_chain::t", c.n, c.n),
        y_{View("tfbench::workloads::resident_chain::y0buf", c.n, c.n),
           View("tfbench::workloads::resident_chain::y1buf", c.n, c.n)},
        host_("tfbench::workloads::resident_chain::host", c.n, c.n) {
    Kokkos::View<const double**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> hy(
        y0_.data(), c.n, c.n),
        hw(w_.data(), c.n, c.n);
    Kokkos::deep_copy(y0_v_, hy);
    Kokkos::deep_copy(w_v_, hw);
  }

  void run() override {
    const double inv_n = 1.0 / static_cast<double>(case_.n);
    Kokkos::deep_copy(Space(), y_[0], y0_v_);
    for (std::int64_t step = 0; step < case_.steps; ++step) {
      const View y = y_[step % 2], next = y_[(step + 1) % 2], t = t_;
      KokkosBlas::gemm("N", "N", 1.0, y, w_v_, 0.0, t);
      Kokkos::parallel_for(
          "tfbench::workloads::resident_chain::axpby",
          Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>({0, 0}, {case_.n, case_.n}),
          KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
            next(i, j) = inv_n * t(i, j) + kKeep * y(i, j);
          });
    }
    Kokkos::deep_copy(host_, y_[case_.steps % 2]);
    result_.assign(host_.data(), host_.data() + host_.size());
  }

  ResourceCounts resources() override {
    ResourceCounts r;
    r.transfers = 1.0;  // the final deep_copy to the host, by construction
    return r;
  }
  std::map<std::string, double> metrics() override {
    auto m = where_it_ran();
    m["downloads"] = 1.0;
    m["transfers_inside_chain"] = 0.0;
    return m;
  }

 private:
  View y0_v_, w_v_, t_;
  View y_[2];
  Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> host_;
};

class ResidentChain final : public TableFamily {
 public:
  std::string_view name() const override { return "resident_chain"; }
  std::string_view description() const override {
    return "a chain of dependent engine operations on Device tensors (einsum + axpby per step) kept "
           "resident and downloaded once, vs downloading after each step, vs raw Kokkos Views; transfers "
           "counted, the space that ran it recorded";
  }
  std::vector<ParamSpec> parameters() const override {
    return {int_param("n", "rows = columns of Y and W", 128, 2, 8192),
            int_param("steps", "dependent steps (one einsum and one axpby each)", 8, 1, 1000)};
  }
  VariantTable table(const Params& params, const RunContext& ctx) const override {
    const ChainCase c = read(params);
    return {
        engine_row("engine:resident", [c, &ctx] { return std::make_unique<EngineChain>(c, ctx, false); }),
        engine_row("engine:download_each", [c, &ctx] { return std::make_unique<EngineChain>(c, ctx, true); }),
        peer_row("peer:kokkos", "kokkos", [c, &ctx] { return std::make_unique<KokkosChain>(c, ctx); })};
  }

 private:
  ChainCase read(const Params& params) const {
    const ParamReader p(std::string(name()), parameters(), params);
    return {p.get_int("n"), p.get_int("steps")};
  }
};

}  // namespace

const Family& resident_chain_family() {
  static const ResidentChain family;
  return family;
}

}  // namespace tfbench::workloads
