// Eager reverse-mode AD (docs/ad.md).
#include <cmath>
#include <stdexcept>

#include "tfbench/engine/ad/ad.hpp"
#include "tfbench/engine/exec/backend.hpp"

void ad_example() {
  using namespace tfbench;
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::runtime_error(what);
  };
  CpuBackend backend = CpuBackend::openmp();
  auto tensor = [](std::vector<double> row_major) {
    return Tensor<double, DynRank, Host>::from_row_major({2, 2}, row_major).into_dynamic();
  };
  auto x = ad::Var<double>::leaf(tensor({1, 2, 3, 4}));  // tracked: gradients accumulate in x.grad()
  ad::Var<double> w(tensor({1, 0, 0, 2}));               // a constant: never tracked

  auto entered = backend.with_session([&](Session& s) {
    // loss = sum((x w) * (x w)); d loss / d x = 2 (x w) w^T
    auto y = ad::einsum(s, "ik,kj->ij", x, w);
    auto loss = ad::sum_all(s, ad::multiply(s, y, y));
    ad::backward(s, loss);  // the whole sweep runs in this session
    auto g = x.grad()->view().into_host().value();
    require(g.at(0, 0) == 2 && g.at(0, 1) == 16 && g.at(1, 1) == 32, "gradient");

    // A second backward adds to the first (zero_grad() forgets it).
    ad::backward(s, loss);
    require(x.grad()->view().into_host().value().at(0, 1) == 32, "accumulation");

    // Under no_grad nothing is recorded: the result is untracked and no node is created.
    const auto nodes = ad::tape_stats().nodes_created;
    {
      ad::NoGradGuard no_grad;
      require(!ad::multiply(s, x, x).tracked(), "no_grad");
    }
    require(ad::tape_stats().nodes_created == nodes, "no tape state");

    // A dense solve and its gradient: d/db sum(A^-1 b) = A^-T 1.
    auto b = ad::Var<double>::leaf(Tensor<double, DynRank, Host>::from_col_major({2}, {1, 1}).into_dynamic());
    ad::backward(s, ad::sum_all(s, ad::solve(s, w, b)));
    auto gb = b.grad()->view().into_host().value();
    require(std::fabs(gb.at(0) - 1.0) < 1e-15 && std::fabs(gb.at(1) - 0.5) < 1e-15, "solve gradient");
  });
  require(entered.has_value(), "session entry");
}
