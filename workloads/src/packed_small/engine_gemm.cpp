// engine:<strategy>: ops::batched_gemm_into on Host tensors of a CpuBackend session like the worker's
// (its space and thread budget), or, on a device space, on Device tensors of a DeviceBackend session
// (uploaded once at set-up, downloaded only by the check), with the strategy forced per operation or
// left to the backend's Auto. Packed items are the owners themselves ([n, n, batch]); strided items a strided
// view (strides 1, ld, ld n) of a padded [ld, n, batch] owner. On the host the owners adopt the case's
// operands, which the host peers run on too (case_operands.hpp). The route a run took is in the metrics.

#include "common/engine_backend.hpp"
#include "common/engine_route.hpp"
#include "common/live_by_case.hpp"
#include "common/operand_placement.hpp"
#include "common/operand_tensor.hpp"
#include "packed_small/case_operands.hpp"
#include "packed_small/gemm_peers.hpp"

#include "tfbench/engine/ops/batched_gemm.hpp"
#include "tfbench/engine/storage/storage.hpp"

#include <cstdint>
#include <memory>
#include <type_traits>

namespace tfbench::workloads::packed_small {
namespace {

template <class T>
using HostTensor = Tensor<T, DynRank, Host>;

/// An owner adopting the same 64-byte aligned, thread-first-touched memory the peers use, operand
/// `k` at the page offset every variant's operand k has (operand_page_offset): operands at a 16-byte
/// malloc alignment split every 32-byte load of an 8 x 8 item across cache lines (measured 0.85x of
/// the same kernel on aligned items over 256 MiB).
template <class T>
HostTensor<T> padded_batch(const GemmBatchShape& s, std::uint64_t seed, int threads, bool fill,
                           std::size_t k) {
  HostTensor<T> t = operand_tensor<T>({s.ld, s.n, s.batch}, threads, k);
  if (fill) fill_operand(t.data(), s, seed, threads);
  return t;
}

/// An owner of the [ld, n, batch] operand in `buffer`, which outlives it (the instance holds both).
template <class T>
HostTensor<T> adopt(const GemmBatchShape& s, AlignedBuffer<T>& buffer) {
  return HostTensor<T>::from_managed({s.ld, s.n, s.batch}, buffer.data(), [](T*, Index) {});
}

/// The [n, n, batch] items of a padded owner (the owner itself when packed), in its memory.
template <class T, class Rep>
TensorView<T, DynRank, Rep> items(const Tensor<T, DynRank, Rep>& t, const GemmBatchShape& s) {
  const Index shape[] = {s.n, s.n, s.batch};
  const Index strides[] = {1, s.ld, s.stride};
  return t.strided_view(Span<const Index>(shape, 3), Span<const Index>(strides, 3));
}
template <class T, class Rep>
TensorViewMut<T, DynRank, Rep> items_mut(Tensor<T, DynRank, Rep>& t, const GemmBatchShape& s) {
  const Index shape[] = {s.n, s.n, s.batch};
  const Index strides[] = {1, s.ld, s.stride};
  return t.strided_view_mut(Span<const Index>(shape, 3), Span<const Index>(strides, 3));
}

template <class T, class Rep>
Result<ops::BatchRun, ops::BatchedError> run_gemm(Session& session, const GemmBatchShape& s,
                                                  const Tensor<T, DynRank, Rep>& a,
                                                  const Tensor<T, DynRank, Rep>& b,
                                                  Tensor<T, DynRank, Rep>& c,
                                                  const ops::BatchedOptions& options) {
  // Packed items are the owners, passed as they are (a caller has no view to build); strided items
  // are views made per call, as a caller passing a sub-block of its storage would (their validation
  // is part of the measured call).
  if (s.packed) return ops::batched_gemm_into(session, a, b, c, 1.0, 0.0, options);
  const auto av = items(a, s);
  const auto bv = items(b, s);
  auto cv = items_mut(c, s);
  return ops::batched_gemm_into(session, av, bv, cv, 1.0, 0.0, options);
}

template <class T, class Operands>
class EngineGemm final : public Instance {
 public:
  EngineGemm(const GemmBatchShape& s, const RunContext& ctx, const EngineStrategy& strategy)
      : shape_(s),
        seeds_(gemm_batch_seeds(ctx.seed)),
        variant_(strategy.variant),
        options_(batched_options(strategy)),
        backend_(Operands::backend(ctx)),
        operands_(kOnHost ? case_operands<T>(s, seeds_, ctx.threads) : nullptr),
        a_(Operands::place(backend_, host_operand(0, seeds_.a, ctx.threads))),
        b_(Operands::place(backend_, host_operand(1, seeds_.b, ctx.threads))),
        c_(Operands::place(backend_, host_operand(2, 0, ctx.threads))) {}

  CheckResult check() override {
    run();
    const std::vector<T> c = Operands::to_host(backend_, c_);
    return check_gemm_batch<T>(shape_, seeds_,
                               [&](std::int64_t i, int r, int col) { return c[shape_.offset(i, r, col)]; });
  }

  void run() override {
    auto ran =
        backend_.with_session([this](Session& s) { return run_gemm(s, shape_, a_, b_, c_, options_); });
    if (!ran) throw_entry_error(ran.error(), "packed_small " + variant_);
    if (!*ran) throw WorkloadError("packed_small " + variant_ + ": " + ran->error().what());
    last_ = ran->value();
    fan_outs_.add(last_);
  }

  /// After a run: whether the route it took stored C with non-temporal stores.
  Work work() const override { return gemm_batch_work(shape_, last_.streaming_stores.value_or(false)); }

  ResourceCounts resources() override {
    return pool_resources(backend_, [this] { run(); });
  }

  std::map<std::string, double> metrics() override {
    auto m = route_metrics(last_);
    fan_outs_.add_metric(m);
    if (operands_) m.merge(shared_by_metric(operands_));
    return m;
  }

 private:
  static constexpr bool kOnHost = std::is_same_v<Operands, HostPlacement<T>>;

  /// Operand k (A, B, C): on the host the case's, adopted; for a device the host copy to upload,
  /// in memory of its own placed alike.
  HostTensor<T> host_operand(int k, std::uint64_t seed, int threads) {
    if (operands_) return adopt(shape_, k == 0 ? operands_->a : k == 1 ? operands_->b : operands_->c);
    return padded_batch<T>(shape_, seed, threads, k != 2, static_cast<std::size_t>(k));
  }

  GemmBatchShape shape_;
  GemmBatchSeeds seeds_;
  std::string variant_;
  ops::BatchedOptions options_;
  typename Operands::Backend backend_;
  std::shared_ptr<CaseOperands<T>> operands_;  // before the owners that adopt its memory
  typename Operands::Owner a_, b_, c_;
  ops::BatchRun last_;
  FanOutTally fan_outs_;
};

/// The case's item shape and layout on a two-item batch, run once in `session`.
template <class T, class Operands>
Result<ops::BatchRun, ops::BatchedError> tiny_gemm(Session& session, const GemmBatchShape& s,
                                                   const ops::BatchedOptions& options) {
  GemmBatchShape tiny = s;
  tiny.batch = 2;
  auto place = [&](HostTensor<T> host) { return Operands::place(session, std::move(host)); };
  auto a = place(padded_batch<T>(tiny, 1, 1, true, 0)), b = place(padded_batch<T>(tiny, 2, 1, true, 1)),
       c = place(padded_batch<T>(tiny, 0, 1, false, 2));
  return run_gemm(session, tiny, a, b, c, options);
}

}  // namespace

template <class T>
std::unique_ptr<Instance> make_engine_gemm(const GemmBatchShape& s, const RunContext& ctx,
                                           const EngineStrategy& strategy) {
  if (on_device(ctx)) return std::make_unique<EngineGemm<T, DevicePlacement<T>>>(s, ctx, strategy);
  return std::make_unique<EngineGemm<T, HostPlacement<T>>>(s, ctx, strategy);
}
template std::unique_ptr<Instance> make_engine_gemm<double>(const GemmBatchShape&, const RunContext&,
                                                            const EngineStrategy&);
template std::unique_ptr<Instance> make_engine_gemm<float>(const GemmBatchShape&, const RunContext&,
                                                           const EngineStrategy&);

std::optional<std::string> engine_gemm_refusal(const GemmBatchShape& s, const RunContext& ctx,
                                               const EngineStrategy& strategy) {
  const std::string key = "packed_small|" + strategy.variant + "|" + std::to_string(s.n) + "|" +
                          std::to_string(s.ld) + "|" + std::to_string(s.element_size);
  const bool device = on_device(ctx);
  return engine_refusal(key, ctx, [&](Session& session) {
    const auto options = batched_options(strategy);
    if (s.element_size == 4) {
      return device ? tiny_gemm<float, DevicePlacement<float>>(session, s, options)
                    : tiny_gemm<float, HostPlacement<float>>(session, s, options);
    }
    return device ? tiny_gemm<double, DevicePlacement<double>>(session, s, options)
                  : tiny_gemm<double, HostPlacement<double>>(session, s, options);
  });
}

}  // namespace tfbench::workloads::packed_small
