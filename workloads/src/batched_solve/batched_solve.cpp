#include "batched_solve/batched_solve.hpp"

#include "batched_solve/solve_peers.hpp"
#include "common/engine_backend.hpp"
#include "peers/numpy_runner.hpp"

namespace tfbench::workloads {
namespace {

using namespace batched_solve;

class BatchedSolve final : public Family {
 public:
  std::string_view name() const override { return "batched_solve"; }
  std::string_view description() const override {
    return "batched LU + solve X_i = A_i^-1 B_i (n = 2..32, nrhs >= 1, diagonally dominant A): the engine "
           "under each batch strategy against a LAPACK gesv (getrf + getrs) loop, raw KokkosBatched LU + "
           "SolveLU "
           "and NumPy";
  }
  std::vector<ParamSpec> parameters() const override { return solve_params(); }

  std::vector<VariantInfo> variants(const Params& params, const RunContext& ctx) const override {
    const SolveShape s = solve_shape(ParamReader(std::string(name()), parameters(), params));
    std::vector<VariantInfo> out;
    for (const EngineStrategy& e : engine_strategies()) {
      out.push_back({e.variant, VariantKind::Engine, "tfbench",
                     e.strategy ? tfbench::name(*e.strategy) : "auto", engine_solve_refusal(s, ctx, e)});
    }
    out.push_back({"peer:kokkosbatched", VariantKind::Peer, "kokkosbatched", "", std::nullopt});
    // A CUDA-only peer is a variant of CUDA builds only: host builds' rows stay as they were.
    if (build_has_cublas()) {
      out.push_back({"peer:cublas", VariantKind::Peer, "cublas", "", cublas_solve_unavailable(ctx)});
    }
    out.push_back({"peer:lapack", VariantKind::Peer, "lapack", "", std::nullopt});
    out.push_back({"peer:numpy", VariantKind::Peer, "numpy", "", NumpyRunner::get().unavailable()});
    out.push_back({"peer:torch", VariantKind::Peer, TorchRunner::get().provider(), "",
                   TorchRunner::get().unavailable()});
    return out;
  }

  std::unique_ptr<Instance> instantiate(const Params& params, const std::string& variant,
                                        const RunContext& ctx) const override {
    const SolveShape s = solve_shape(ParamReader(std::string(name()), parameters(), params));
    if (s.element_size == 8) return make<double>(s, variant, ctx);
    return make<float>(s, variant, ctx);
  }

 private:
  template <class T>
  std::unique_ptr<Instance> make(const SolveShape& s, const std::string& variant,
                                 const RunContext& ctx) const {
    if (const EngineStrategy* e = find_engine_strategy(variant)) return make_engine_solve<T>(s, ctx, *e);
    if (variant == "peer:kokkosbatched") return make_kokkos_batched_solve<T>(s, ctx);
    if (variant == "peer:cublas") return make_cublas_solve<T>(s, ctx);
    if (variant == "peer:lapack") return make_lapack_loop<T>(s, ctx);
    if (variant == "peer:numpy") return make_numpy_solve<T>(s, ctx);
    if (variant == "peer:torch") return make_torch_solve<T>(s, ctx);
    throw WorkloadError("batched_solve has no variant '" + variant + "'");
  }
};

}  // namespace

const Family& batched_solve_family() {
  static const BatchedSolve family;
  return family;
}

}  // namespace tfbench::workloads
