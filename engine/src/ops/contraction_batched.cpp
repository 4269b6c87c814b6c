// The GEMM steps of contractions, through the batched concern: one large GEMM (its KokkosBlas::gemm
// path, which takes column-major operands with a leading dimension and row-major ones in place), or
// for batch labels one batched GEMM whose route (strategy, lanes, item provider) the session's batch
// policy resolves exactly as for ops::batched_gemm.

#include <algorithm>
#include <string>

#include "batched/facade_support.hpp"
#include "batched/large_gemm.hpp"
#include "tfbench/engine/ops/impl/einsum_program.hpp"
#include "tfbench/engine/ops/impl/kernels.hpp"

namespace tfbench::impl {
namespace {

template <class T>
batched::ItemBatch<T> item_batch(T* data, index_t rows, index_t cols, index_t count, const MatrixForm& f,
                                 index_t bs) {
  return {data, static_cast<int>(rows), static_cast<int>(cols), count, f.rs, f.cs, bs};
}

}  // namespace

template <class T>
void large_gemm(const ExecTarget& target, index_t m, index_t n, index_t k, const T* a, const MatrixForm& af,
                const T* b, const MatrixForm& bf, T* c, const MatrixForm& cf) {
  dispatch_exec_space(kernel_space(target, m * n * k), [&](auto space) {
    batched::execute_large_gemm(space, T(1), item_batch<const T>(a, m, k, 1, af, 0),
                                item_batch<const T>(b, k, n, 1, bf, 0), T(0),
                                item_batch<T>(c, m, n, 1, cf, 0));
  });
}

template <class T>
void batched_gemm_items(Session& session, index_t m, index_t n, index_t k, index_t count, const T* a,
                        const MatrixForm& af, index_t bs_a, const T* b, const MatrixForm& bf, index_t bs_b,
                        T* c, const MatrixForm& cf, index_t bs_c) {
  const batched::GemmBatch<T> g{item_batch<const T>(a, m, k, count, af, bs_a),
                                item_batch<const T>(b, k, n, count, bf, bs_b),
                                item_batch<T>(c, m, n, count, cf, bs_c), T(1), T(0)};
  const BatchProblem problem{count, std::max({m, n, k}), double(m) * double(n) * double(k)};
  session.dispatch([&](auto space) {
    using Space = decltype(space);
    batched::Applicable applicable{};
    for (ops::ItemProvider p :
         {ops::ItemProvider::Specialized, ops::ItemProvider::Libxsmm, ops::ItemProvider::KokkosBatched,
          ops::ItemProvider::Blas, ops::ItemProvider::VendorBatched})
      applicable[batched::index_of(p)] = batched::gemm_provider_applies<Space>(p, g);
    auto selected = batched::select_route(
        session, ops::BatchedOptions{}, ops::BatchedFamily::Gemm, problem, batched::is_host_space<Space>(),
        dtype_of<T>(), batched::streaming_batch(g), batched::operand_bytes(g), applicable, "ops::einsum");
    if (!selected)
      throw ops::OpError(ops::OpErrorCode::Unsupported, "ops::einsum",
                         "no batched GEMM route for the batch labels: " + selected.error().message);
    batched::execute_gemm(space, selected->items_route(), g);
  });
}

#define TFBENCH_OPS_CONTRACTION_GEMM_INSTANTIATE(T)                                                         \
  template void large_gemm<T>(const ExecTarget&, index_t, index_t, index_t, const T*, const MatrixForm&,    \
                              const T*, const MatrixForm&, T*, const MatrixForm&);                          \
  template void batched_gemm_items<T>(Session&, index_t, index_t, index_t, index_t, const T*,               \
                                      const MatrixForm&, index_t, const T*, const MatrixForm&, index_t, T*, \
                                      const MatrixForm&, index_t);
TFBENCH_OPS_CONTRACTION_GEMM_INSTANTIATE(float)
TFBENCH_OPS_CONTRACTION_GEMM_INSTANTIATE(double)
TFBENCH_OPS_CONTRACTION_GEMM_INSTANTIATE(Kokkos::complex<double>)

}  // namespace tfbench::impl
