#include "packed_small/packed_small.hpp"

#include "common/engine_backend.hpp"
#include "packed_small/gemm_peers.hpp"

namespace tfbench::workloads {
namespace {

using namespace packed_small;

class PackedSmall final : public Family {
 public:
  std::string_view name() const override { return "packed_small"; }
  std::string_view description() const override {
    return "batched small GEMM C_i = A_i B_i (n = 2..32), packed or strided items, from cache-resident "
           "batches to working sets beyond the last-level cache; the engine under every batch strategy "
           "against raw KokkosBatched, an OpenBLAS per-item loop, libxsmm, Eigen fixed-size and NumPy";
  }
  std::vector<ParamSpec> parameters() const override { return gemm_batch_params(); }

  std::vector<VariantInfo> variants(const Params& params, const RunContext& ctx) const override {
    const GemmBatchShape s = gemm_batch_shape(ParamReader(std::string(name()), parameters(), params));
    std::vector<VariantInfo> out;
    for (const EngineStrategy& e : engine_strategies()) {
      out.push_back({e.variant, VariantKind::Engine, "tfbench",
                     e.strategy ? tfbench::name(*e.strategy) : "auto", engine_gemm_refusal(s, ctx, e)});
    }
    out.push_back({"peer:kokkosbatched", VariantKind::Peer, "kokkosbatched", "", std::nullopt});
    // A CUDA-only peer is a variant of CUDA builds only: host builds' rows stay as they were.
    if (build_has_cublas())
      out.push_back({"peer:cublas", VariantKind::Peer, "cublas", "", cublas_unavailable(ctx)});
    out.push_back({"peer:openblas", VariantKind::Peer, "openblas", "", std::nullopt});
    out.push_back({"peer:libxsmm", VariantKind::Peer, "libxsmm", "", libxsmm_unavailable(s)});
    out.push_back({"peer:eigen", VariantKind::Peer, "eigen", "", eigen_unavailable(s)});
    out.push_back({"peer:numpy", VariantKind::Peer, "numpy", "", numpy_unavailable()});
    out.push_back({"peer:torch", VariantKind::Peer, TorchRunner::get().provider(), "",
                   TorchRunner::get().unavailable()});
    return out;
  }

  std::unique_ptr<Instance> instantiate(const Params& params, const std::string& variant,
                                        const RunContext& ctx) const override {
    const GemmBatchShape s = gemm_batch_shape(ParamReader(std::string(name()), parameters(), params));
    if (s.element_size == 8) return make<double>(s, variant, ctx);
    return make<float>(s, variant, ctx);
  }

 private:
  template <class T>
  std::unique_ptr<Instance> make(const GemmBatchShape& s, const std::string& variant,
                                 const RunContext& ctx) const {
    if (const EngineStrategy* e = find_engine_strategy(variant)) return make_engine_gemm<T>(s, ctx, *e);
    if (variant == "peer:kokkosbatched") return make_kokkos_batched<T>(s, ctx);
    if (variant == "peer:cublas") return make_cublas<T>(s, ctx);
    if (variant == "peer:openblas") return make_blas_loop<T>(s, ctx);
    if (variant == "peer:libxsmm") return make_libxsmm<T>(s, ctx);
    if (variant == "peer:eigen") return make_eigen<T>(s, ctx);
    if (variant == "peer:numpy") return make_numpy<T>(s, ctx);
    if (variant == "peer:torch") return make_torch<T>(s, ctx);
    throw WorkloadError("packed_small has no variant '" + variant + "'");
  }
};

}  // namespace

const Family& packed_small_family() {
  static const PackedSmall family;
  return family;
}

}  // namespace tfbench::workloads
