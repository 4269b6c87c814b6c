// op=chain: chain_length dependent elementwise operations z_k = 0.5 z_{k-1} + 0.25 y (z_0 from x)
// over `elements` doubles, ping-ponging between two outputs:
//
//   engine:one_session        ops::axpby_into chain_length times inside one with_session
//   engine:separate_sessions  each ops::axpby_into in its own with_session
//   peer:raw_kernels          the same chain_length Kokkos parallel_for calls on the space the
//                             engine's context runs on (Serial at one thread), no engine
//
// The ratio one_session / raw_kernels is what the engine's operation boundary costs (target <= 1.1x);
// separate_sessions adds the session entries.

#include "common/check.hpp"
#include "common/engine_backend.hpp"
#include "common/random.hpp"
#include "common/staggered_slab.hpp"
#include "session_overhead/entry.hpp"

#include "tfbench/engine/ops/elementwise.hpp"
#include "tfbench/engine/storage/storage.hpp"

#include <Kokkos_Core.hpp>

namespace tfbench::workloads::session_overhead {
namespace {

constexpr double kA = 0.5, kB = 0.25;

using HostTensor = Tensor<double, DynRank, Host>;

HostTensor random_tensor(const StaggeredSlab<double>& slab, std::size_t k, std::int64_t n,
                         std::uint64_t seed) {
  HostTensor t = slab.tensor(k);
  for (std::int64_t i = 0; i < n; ++i) t.data()[i] = random_at(seed, static_cast<std::uint64_t>(i));
  return t;
}

/// x, y and the two outputs of every variant in one staggered slab (common/staggered_slab.hpp): the
/// variants' kernels stream from the same relative placement.
class ChainBase : public Instance {
 public:
  ChainBase(const OverheadCase& c, const RunContext& ctx)
      : n_(c.elements),
        length_(c.chain_length),
        slab_(4, static_cast<std::size_t>(c.elements)),
        x_(random_tensor(slab_, 0, c.elements, derive_seed(ctx.seed, 411))),
        y_(random_tensor(slab_, 1, c.elements, derive_seed(ctx.seed, 412))),
        z_{slab_.tensor(2), slab_.tensor(3)} {}

  CheckResult check() override {
    run();
    std::vector<double> ref(x_.data(), x_.data() + n_);
    for (std::int64_t k = 0; k < length_; ++k)
      for (std::int64_t i = 0; i < n_; ++i) ref[i] = kA * ref[i] + kB * y_.data()[i];
    const double* out = result().data();
    return compare_outputs(std::vector<double>(out, out + n_), ref, 1e-14,
                           std::to_string(length_) + " chained axpby against a host loop");
  }
  Work work() const override {
    const double ops = static_cast<double>(length_) * static_cast<double>(n_);
    // Each step reads its input and writes its output (not read first: write-allocate); the chain
    // lives in x and the two z.
    Work w{3.0 * ops, 24.0 * ops, 24.0 * static_cast<double>(n_)};
    w.write_allocate_bytes = 8.0 * ops;
    return w;
  }

 protected:
  /// Output of step k (0-based) and its input.
  HostTensor& out_of(std::int64_t k) { return z_[k % 2]; }
  const HostTensor& in_of(std::int64_t k) const { return k == 0 ? x_ : z_[(k - 1) % 2]; }
  const HostTensor& result() const { return z_[(length_ - 1) % 2]; }

  std::int64_t n_, length_;
  StaggeredSlab<double> slab_;
  HostTensor x_, y_;
  HostTensor z_[2];
};

class OneSession final : public ChainBase {
 public:
  OneSession(const OverheadCase& c, const RunContext& ctx) : ChainBase(c, ctx), backend_(make_backend(ctx)) {}
  void run() override {
    auto ok = backend_.with_session([this](Session& s) {
      for (std::int64_t k = 0; k < length_; ++k) ops::axpby_into(s, out_of(k), kA, in_of(k), kB, y_);
    });
    if (!ok) throw_entry_error(ok.error(), "session_overhead engine:one_session");
  }

 private:
  CpuBackend backend_;
};

class SeparateSessions final : public ChainBase {
 public:
  SeparateSessions(const OverheadCase& c, const RunContext& ctx)
      : ChainBase(c, ctx), backend_(make_backend(ctx)) {}
  void run() override {
    for (std::int64_t k = 0; k < length_; ++k) {
      auto ok =
          backend_.with_session([&](Session& s) { ops::axpby_into(s, out_of(k), kA, in_of(k), kB, y_); });
      if (!ok) throw_entry_error(ok.error(), "session_overhead engine:separate_sessions");
    }
  }

 private:
  CpuBackend backend_;
};

template <class ExecSpace>
class RawKernels final : public ChainBase {
 public:
  using ChainBase::ChainBase;
  void run() override {
    const double* y = y_.data();
    for (std::int64_t k = 0; k < length_; ++k) {
      const double* in = in_of(k).data();
      double* out = out_of(k).data();
      Kokkos::parallel_for(
          "tfbench::workloads::session_overhead::raw_axpby",
          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, n_),
          KOKKOS_LAMBDA(const std::int64_t i) { out[i] = kA * in[i] + kB * y[i]; });
    }
  }
};

}  // namespace

VariantTable chain_table(const OverheadCase& c, const RunContext& ctx) {
  return {engine_row("engine:one_session", [c, &ctx] { return std::make_unique<OneSession>(c, ctx); }),
          engine_row("engine:separate_sessions",
                     [c, &ctx] { return std::make_unique<SeparateSessions>(c, ctx); }),
          peer_row("peer:raw_kernels", "kokkos", [c, &ctx] {
            return dispatch_exec_space(engine_space(ctx), [&](auto s) -> std::unique_ptr<Instance> {
              return std::make_unique<RawKernels<decltype(s)>>(c, ctx);
            });
          })};
}

}  // namespace tfbench::workloads::session_overhead
