// The engine's variants of contraction_replay, one session per iteration on a CpuBackend like the
// worker's; operands are Host views over the shared input buffers in each key's layout:
//
//   engine:eager     ops::einsum_into(s, out, spec, a, b[, c]) every call: parsed and planned per call
//   engine:cached    ops::prepare_einsum(...) through the backend's plan cache, then run_into: a hit
//                    skips planning (fixed and mixed streams), a fresh stream misses every time
//   engine:prepared  one PreparedEinsum per key made (and replayed once) at set-up, replayed with
//                    run_into
//
// metrics(): plan-cache hits and misses per call, and the routes the contractions took
// (ops::contraction_stats: GEMMs, direct kernels, operands borrowed or packed) per call.

#include "common/engine_backend.hpp"
#include "contraction_replay/replay_peers.hpp"

#include "tfbench/engine/ops/einsum.hpp"
#include "tfbench/engine/ops/prepared.hpp"

namespace tfbench::workloads::contraction_replay {
namespace {

using View = TensorView<double, DynRank, Host>;
using ViewMut = TensorViewMut<double, DynRank, Host>;

struct Layout {
  std::vector<Index> shape, strides;
};

Layout compact(const OperandKey& op) {
  Layout l;
  Index stride = 1;
  for (std::int64_t e : op.shape) {
    l.shape.push_back(e);
    l.strides.push_back(stride);
    stride *= e;
  }
  return l;
}

class EngineReplay final : public ReplayBase {
 public:
  using Mode = ReplayMode;

  EngineReplay(const StreamSpec& spec, const RunContext& ctx, Mode mode)
      : ReplayBase(spec, ctx), mode_(mode), backend_(make_backend(ctx)) {
    for (const auto& k : keys_) {
      KeyLayouts kl;
      kl.spec = k.spec();
      for (const auto& in : k.inputs) kl.inputs.push_back(compact(in));
      kl.output = compact(k.output);
      layouts_.push_back(std::move(kl));
    }
    if (mode_ == Mode::Prepared) {
      auto ok = backend_.with_session([this](Session& s) {
        for (std::size_t q = 0; q < keys_.size(); ++q) {
          with_operands(q, [&](ViewMut& out, const auto&... in) {
            prepared_.push_back(ops::prepare_einsum(s, layouts_[q].spec, in...));
            // One replay at set-up: a plan the first replay re-keys (e.g. to the destination's
            // explicit strides) is settled before timing (preparations_per_key reports it).
            prepared_.back().run_into(s, out, in...);
          });
        }
      });
      if (!ok) throw_entry_error(ok.error(), "contraction_replay engine:prepared");
    }
  }

  void run() override {
    auto ok = backend_.with_session([this](Session& s) {
      for (std::int64_t c = 0; c < spec_.calls; ++c) {
        call_in(s, cursor_);
        cursor_ = (cursor_ + 1) % keys_.size();
      }
    });
    if (!ok) throw_entry_error(ok.error(), "contraction_replay " + variant());
  }

  std::map<std::string, double> metrics() override {
    const PlanCacheStats before = backend_.plan_cache().stats();
    const ops::ContractionStats routes_before = ops::contraction_stats();
    run();
    const PlanCacheStats after = backend_.plan_cache().stats();
    const ops::ContractionStats routes = ops::contraction_stats();
    const double calls = static_cast<double>(spec_.calls);
    auto per_call = [&](std::uint64_t a, std::uint64_t b) { return static_cast<double>(a - b) / calls; };
    std::map<std::string, double> m = {
        {"plan_cache_hits_per_call", per_call(after.hits, before.hits)},
        {"plan_cache_misses_per_call", per_call(after.misses, before.misses)},
        {"distinct_keys", static_cast<double>(keys_.size())},
        {"route.gemm_per_call",
         per_call(routes.gemm + routes.batched_gemm, routes_before.gemm + routes_before.batched_gemm)},
        {"route.direct_per_call", per_call(routes.direct, routes_before.direct)},
        {"route.borrowed_operands_per_call",
         per_call(routes.borrowed_operands, routes_before.borrowed_operands)},
        {"route.packed_operands_per_call", per_call(routes.packed_operands, routes_before.packed_operands)}};
    if (mode_ == Mode::Prepared) {
      double preparations = 0.0;
      for (const auto& p : prepared_) preparations += static_cast<double>(p.preparations());
      m["preparations_per_key"] = preparations / static_cast<double>(prepared_.size());
    }
    return m;
  }

 protected:
  void call(std::size_t q) override {
    auto ok = backend_.with_session([&](Session& s) { call_in(s, q); });
    if (!ok) throw_entry_error(ok.error(), "contraction_replay " + variant());
  }

 private:
  struct KeyLayouts {
    std::string spec;
    std::vector<Layout> inputs;
    Layout output;
  };

  std::string variant() const {
    return mode_ == Mode::Eager    ? "engine:eager"
           : mode_ == Mode::Cached ? "engine:cached"
                                   : "engine:prepared";
  }

  /// f(out, in0, in1[, in2]) with Host views of key q over the buffers.
  template <class F>
  void with_operands(std::size_t q, F&& f) {
    const KeyLayouts& kl = layouts_[q];
    auto view = [&](std::size_t i) {
      const Layout& l = kl.inputs[i];
      return View::from_host_span(Span<const double>(in_[i].data(), in_[i].size()),
                                  Span<const Index>(l.shape.data(), l.shape.size()),
                                  Span<const Index>(l.strides.data(), l.strides.size()));
    };
    ViewMut out =
        ViewMut::from_host_span(Span<double>(out_.data(), out_.size()),
                                Span<const Index>(kl.output.shape.data(), kl.output.shape.size()),
                                Span<const Index>(kl.output.strides.data(), kl.output.strides.size()));
    const View a = view(0), b = view(1);
    if (kl.inputs.size() == 2) {
      f(out, a, b);
    } else {
      const View c = view(2);
      f(out, a, b, c);
    }
  }

  void call_in(Session& s, std::size_t q) {
    with_operands(q, [&](ViewMut& out, const auto&... in) {
      switch (mode_) {
        case Mode::Eager:
          ops::einsum_into(s, out, layouts_[q].spec, in...);
          break;
        case Mode::Cached: {
          auto p = ops::prepare_einsum(s, layouts_[q].spec, in...);
          p.run_into(s, out, in...);
          break;
        }
        case Mode::Prepared:
          prepared_[q].run_into(s, out, in...);
          break;
      }
    });
  }

  Mode mode_;
  CpuBackend backend_;
  std::vector<KeyLayouts> layouts_;
  std::vector<ops::PreparedEinsum> prepared_;
};

}  // namespace

std::unique_ptr<Instance> make_engine_replay(const StreamSpec& spec, const RunContext& ctx, ReplayMode mode) {
  return std::make_unique<EngineReplay>(spec, ctx, mode);
}

}  // namespace tfbench::workloads::contraction_replay
