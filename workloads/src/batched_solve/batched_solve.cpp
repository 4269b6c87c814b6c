#include "batched_solve/batched_solve.hpp"

#include "batched_solve/solve_peers.hpp"
#include "common/engine_backend.hpp"
#include "common/variant_table.hpp"
#include "peers/numpy_runner.hpp"
#include "peers/torch_row.hpp"

namespace tfbench::workloads {
namespace {

using namespace batched_solve;

class BatchedSolve final : public TableFamily {
 public:
  std::string_view name() const override { return "batched_solve"; }
  std::string_view description() const override {
    return "batched LU + solve X_i = A_i^-1 B_i (n = 2..32, nrhs >= 1, diagonally dominant A): the engine "
           "under each batch strategy against a LAPACK gesv (getrf + getrs) loop, raw KokkosBatched LU + "
           "SolveLU "
           "and NumPy";
  }
  std::vector<ParamSpec> parameters() const override { return solve_params(); }

  VariantTable table(const Params& params, const RunContext& ctx) const override {
    const SolveShape s = solve_shape(ParamReader(std::string(name()), parameters(), params));
    return s.element_size == 8 ? typed_table<double>(s, ctx) : typed_table<float>(s, ctx);
  }

 private:
  template <class T>
  static VariantTable typed_table(const SolveShape& s, const RunContext& ctx) {
    VariantTable t =
        engine_strategy_rows([s, &ctx](const EngineStrategy& e) { return engine_solve_refusal(s, ctx, e); },
                             [s, &ctx](const EngineStrategy& e) { return make_engine_solve<T>(s, ctx, e); });
    t.push_back(peer_row("peer:kokkosbatched", "kokkosbatched",
                         [s, &ctx] { return make_kokkos_batched_solve<T>(s, ctx); }));
    // A CUDA-only peer is a variant of CUDA builds only: host builds' rows stay as they were.
    if (build_has_cublas()) {
      t.push_back(peer_row(
          "peer:cublas", "cublas", [s, &ctx] { return make_cublas_solve<T>(s, ctx); },
          [&ctx] { return cublas_solve_unavailable(ctx); }));
    }
    t.push_back(peer_row("peer:lapack", "lapack", [s, &ctx] { return make_lapack_loop<T>(s, ctx); }));
    t.push_back(peer_row(
        "peer:numpy", "numpy", [s, &ctx] { return make_numpy_solve<T>(s, ctx); },
        [] { return NumpyRunner::get().unavailable(); }));
    t.push_back(torch_row([s, &ctx] { return make_torch_solve<T>(s, ctx); }, ctx.space));
    return t;
  }
};

}  // namespace

const Family& batched_solve_family() {
  static const BatchedSolve family;
  return family;
}

}  // namespace tfbench::workloads
