#include "contraction_replay/contraction_replay.hpp"

#include "common/param_specs.hpp"
#include "common/variant_table.hpp"
#include "contraction_replay/replay_peers.hpp"

namespace tfbench::workloads {
namespace {

using namespace contraction_replay;

class ContractionReplay final : public TableFamily {
 public:
  std::string_view name() const override { return "contraction_replay"; }
  bool host_only() const override { return true; }  // a CpuBackend, host data
  std::string_view description() const override {
    return "contractions whose shapes and layouts change from call to call (binary ijk,jkl->il in every "
           "axis order; N-ary matrix chains with transposed operands), driven by fixed, mixed or fresh "
           "key streams: the engine's eager einsum, einsums planned through the plan cache and prepared "
           "replays against raw GEMM after a manual permute";
  }
  std::vector<ParamSpec> parameters() const override {
    return {string_param("kind", "binary: ijk,jkl->il family; nary: ij,jk,kl->il family", "binary",
                         {"binary", "nary"}),
            string_param("keys", "fixed: one key; mixed: mixed_keys keys cycled; fresh: never a recent key",
                         "mixed", {"fixed", "mixed", "fresh"}),
            int_param("size", "base extent of the labels", 16, 2, 512),
            int_param("calls", "contractions per iteration", 16, 1, 1e6),
            int_param("mixed_keys", "keys a mixed stream cycles through", 4, 1, 64)};
  }
  VariantTable table(const Params& params, const RunContext& ctx) const override {
    const StreamSpec c = read(params);
    return {
        engine_row("engine:eager", [c, &ctx] { return make_engine_replay(c, ctx, ReplayMode::Eager); }),
        engine_row("engine:cached", [c, &ctx] { return make_engine_replay(c, ctx, ReplayMode::Cached); }),
        engine_row("engine:prepared", [c, &ctx] { return make_engine_replay(c, ctx, ReplayMode::Prepared); }),
        peer_row("peer:permute_gemm", "openblas", [c, &ctx] { return make_permute_gemm(c, ctx); })};
  }

 private:
  StreamSpec read(const Params& params) const {
    const ParamReader p(std::string(name()), parameters(), params);
    StreamSpec s;
    s.kind = p.get_string("kind");
    const std::string keys = p.get_string("keys");
    s.keys = keys == "fixed" ? StreamKind::Fixed : keys == "mixed" ? StreamKind::Mixed : StreamKind::Fresh;
    s.size = p.get_int("size");
    s.calls = p.get_int("calls");
    s.mixed_keys = p.get_int("mixed_keys");
    return s;
  }
};

}  // namespace

const Family& contraction_replay_family() {
  static const ContractionReplay family;
  return family;
}

}  // namespace tfbench::workloads
