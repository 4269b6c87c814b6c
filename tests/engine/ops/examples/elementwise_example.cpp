// Elementwise operations, reductions and permutes (docs/ops-tensor.md).
#include <stdexcept>

#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/ops/ops.hpp"

void elementwise_example() {
  using namespace tfbench;
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::runtime_error(what);
  };
  CpuBackend backend = CpuBackend::openmp();  // the whole OpenMP pool (Serial when that is one thread)
  auto a = Tensor<double, DynRank, Host>::from_row_major({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = Tensor<double, DynRank, Host>::from_row_major({2, 3}, {10, 20, 30, 40, 50, 60});

  auto entered = backend.with_session([&](Session& s) {
    // Allocating calls return the first operand's rank and representation (here Host).
    Tensor<double, DynRank, Host> c = ops::axpby(s, 2.0, a, -1.0, b);  // 2a - b
    require(c.at(1, 2) == -48, "axpby");

    // Any view works: the transpose of b is read in place, nothing is copied first.
    auto bt = b.view().permute({1, 0});  // [3, 2]
    auto sums = ops::sum(s, bt, {1});    // row sums of b^T = column sums of b
    require(sums.rank() == 1 && sums.at(0) == 50, "sum over an axis");

    // Result dtypes follow the operation: comparisons give bool.
    auto greater = ops::compare(s, ops::CompareOp::Gt, c, a);
    require(!greater.at(0, 0) && greater.numel() == 6, "compare");

    // _into overwrites a destination of any injective layout without reading it; a failed
    // validation throws ops::OpError and leaves it untouched.
    auto t = Tensor<double, DynRank, Host>::zeros({3, 2});
    ops::permute_into(s, t, a, {1, 0});
    require(t.at(2, 1) == 6, "permute_into");
    try {
      ops::add_into(s, t, a, b);  // [3, 2] destination for [2, 3] operands
      require(false, "validation");
    } catch (const ops::OpError& e) {
      require(e.code() == ops::OpErrorCode::ShapeMismatch && t.at(2, 1) == 6, "destination untouched");
    }
  });
  require(entered.has_value(), "session entry");
}
