#include "packed_small/packed_small.hpp"

#include "common/engine_backend.hpp"
#include "common/variant_table.hpp"
#include "packed_small/gemm_peers.hpp"
#include "peers/torch_row.hpp"

namespace tfbench::workloads {
namespace {

using namespace packed_small;

class PackedSmall final : public TableFamily {
 public:
  std::string_view name() const override { return "packed_small"; }
  std::string_view description() const override {
    return "batched small GEMM C_i = A_i B_i (n = 2..32), packed or strided items, from cache-resident "
           "batches to working sets beyond the last-level cache; the engine under every batch strategy "
           "against raw KokkosBatched, an OpenBLAS per-item loop, libxsmm, Eigen fixed-size and NumPy";
  }
  std::vector<ParamSpec> parameters() const override { return gemm_batch_params(); }

  VariantTable table(const Params& params, const RunContext& ctx) const override {
    const GemmBatchShape s = gemm_batch_shape(ParamReader(std::string(name()), parameters(), params));
    return s.element_size == 8 ? typed_table<double>(s, ctx) : typed_table<float>(s, ctx);
  }

 private:
  template <class T>
  static VariantTable typed_table(const GemmBatchShape& s, const RunContext& ctx) {
    VariantTable t =
        engine_strategy_rows([s, &ctx](const EngineStrategy& e) { return engine_gemm_refusal(s, ctx, e); },
                             [s, &ctx](const EngineStrategy& e) { return make_engine_gemm<T>(s, ctx, e); });
    t.push_back(peer_row("peer:kokkosbatched", "kokkosbatched",
                         [s, &ctx] { return make_kokkos_batched<T>(s, ctx); }));
    // A CUDA-only peer is a variant of CUDA builds only: host builds' rows stay as they were.
    if (build_has_cublas()) {
      t.push_back(peer_row(
          "peer:cublas", "cublas", [s, &ctx] { return make_cublas<T>(s, ctx); },
          [&ctx] { return cublas_unavailable(ctx); }));
    }
    t.push_back(peer_row("peer:openblas", "openblas", [s, &ctx] { return make_blas_loop<T>(s, ctx); }));
    t.push_back(peer_row(
        "peer:libxsmm", "libxsmm", [s, &ctx] { return make_libxsmm<T>(s, ctx); },
        [s] { return libxsmm_unavailable(s); }));
    t.push_back(peer_row(
        "peer:eigen", "eigen", [s, &ctx] { return make_eigen<T>(s, ctx); },
        [s] { return eigen_unavailable(s); }));
    t.push_back(peer_row(
        "peer:numpy", "numpy", [s, &ctx] { return make_numpy<T>(s, ctx); },
        [] { return numpy_unavailable(); }));
    t.push_back(torch_row([s, &ctx] { return make_torch<T>(s, ctx); }, ctx.space));
    return t;
  }
};

}  // namespace

const Family& packed_small_family() {
  static const PackedSmall family;
  return family;
}

}  // namespace tfbench::workloads
