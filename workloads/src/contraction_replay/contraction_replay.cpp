#include "contraction_replay/contraction_replay.hpp"

#include "common/param_specs.hpp"
#include "contraction_replay/replay_peers.hpp"

namespace tfbench::workloads {
namespace {

using namespace contraction_replay;

class ContractionReplay final : public Family {
 public:
  std::string_view name() const override { return "contraction_replay"; }
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
  std::vector<VariantInfo> variants(const Params& params, const RunContext&) const override {
    (void)read(params);
    return {{"engine:eager", VariantKind::Engine, "tfbench", "", std::nullopt},
            {"engine:cached", VariantKind::Engine, "tfbench", "", std::nullopt},
            {"engine:prepared", VariantKind::Engine, "tfbench", "", std::nullopt},
            {"peer:permute_gemm", VariantKind::Peer, "openblas", "", std::nullopt}};
  }
  std::unique_ptr<Instance> instantiate(const Params& params, const std::string& variant,
                                        const RunContext& ctx) const override {
    const StreamSpec spec = read(params);
    if (variant == "peer:permute_gemm") return make_permute_gemm(spec, ctx);
    if (variant.rfind("engine:", 0) == 0) return make_engine_replay(spec, ctx, variant);
    throw WorkloadError("contraction_replay has no variant '" + variant + "'");
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
