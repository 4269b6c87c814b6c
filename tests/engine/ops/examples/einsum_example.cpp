// Contractions: einsum, tensordot and prepared replay (docs/ops-tensor.md).
#include <cmath>
#include <stdexcept>

#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/ops/ops.hpp"

void einsum_example() {
  using namespace tfbench;
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::runtime_error(what);
  };
  CpuBackend backend = CpuBackend::openmp();
  auto a = Tensor<double, DynRank, Host>::from_row_major({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = Tensor<double, DynRank, Host>::from_row_major({3, 2}, {1, 0, 0, 1, 1, 1});

  auto entered = backend.with_session([&](Session& s) {
    // Binary einsum: at most one GEMM; operands already in a usable order are borrowed.
    auto c = ops::einsum(s, "ik,kj->ij", a, b);  // [[4, 5], [10, 11]]
    require(c.at(0, 0) == 4 && c.at(1, 1) == 11, "matrix product");

    // A transposed view is borrowed too (BLAS reads it transposed); so is a padded one.
    auto ct = ops::einsum(s, "ki,jk->ij", a.view().permute({1, 0}), b.view().permute({1, 0}));
    require(ct.at(1, 0) == 10, "transposed operands");

    // All labels batch labels: an elementwise product, no GEMM (see ops::contraction_stats()).
    ops::reset_contraction_stats();
    auto hadamard = ops::einsum(s, "ij,ij->ij", a, a);
    require(hadamard.at(1, 2) == 36 && ops::contraction_stats().all_batch == 1, "all-batch route");

    // N operands: a greedy pairwise path, smallest intermediate first. Tensordot is an einsum.
    auto chain = ops::einsum(s, "ij,jk,kl->il", a, b, c);
    auto td = ops::tensordot(s, a, b, {1}, {0});
    require(td.at(1, 0) == 10 && chain.rank() == 2, "tensordot and N-ary");

    // Prepared once, replayed on fresh data with the same layouts; a new layout re-prepares.
    auto prepared = ops::prepare_einsum(s, "ik,kj->ij", a, b);
    auto a2 = Tensor<double, DynRank, Host>::from_row_major({2, 3}, {0, 0, 1, 0, 1, 0});
    auto replay = prepared.run(s, a2, b);
    require(replay.at(0, 1) == 1 && prepared.preparations() == 1, "replay");
    prepared.run(s, a2.view().reshape({3, 2}).permute({1, 0}), b);  // same shape, other strides
    require(prepared.preparations() == 2, "re-prepared for new strides");
  });
  require(entered.has_value(), "session entry");
}
