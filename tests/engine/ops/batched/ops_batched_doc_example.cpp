// The example quoted in docs/ops-batched.md (a CTest checks the page quotes exactly this region).

#include <catch2/catch.hpp>

// [ops-batched-example]
#include <tfbench/engine/exec/backend.hpp>
#include <tfbench/engine/ops/batched_gemm.hpp>
#include <tfbench/engine/ops/batched_solve.hpp>

#include <string>
#include <vector>

// 512 items: A_i = [[4, 1], [2, 3]] and B_i = (i + 1) * I, so A_i B_i = (i + 1) A_i, and solving
// A_i X_i = A_i B_i gives back B_i.
std::string batched_example(double& c_10_7, double& x_00_7) {
  using Batch = tfbench::Tensor<double, tfbench::DynRank, tfbench::Host>;  // results are DynRank too
  const tfbench::Index items = 512;
  std::vector<double> a(4 * items), b(4 * items);
  for (tfbench::Index i = 0; i < items; ++i) {
    const double col_major_a[] = {4, 2, 1, 3};
    for (int e = 0; e < 4; ++e) a[4 * i + e] = col_major_a[e];
    b[4 * i + 0] = b[4 * i + 3] = double(i + 1);
  }
  const Batch at = Batch::from_col_major({2, 2, items}, std::move(a));
  const Batch bt = Batch::from_col_major({2, 2, items}, std::move(b));

  tfbench::CpuBackend backend = tfbench::CpuBackend::openmp();  // Serial when one thread
  auto entered = backend.with_session([&](tfbench::Session& s) -> std::string {
    const auto av = at.view();
    const auto bv = bt.view();
    // 1. Auto: the route comes from the session's batch policy and the per-size preference.
    auto c = tfbench::ops::batched_gemm(s, av, bv);
    if (!c) return c.error().what();
    c_10_7 = c->tensor.at(1, 0, 7);  // 8 * A(1, 0) = 16

    // 2. A per-operation policy: Sequential items on the caller, tfbench's specialized kernel.
    const auto cv = c->tensor.view();
    tfbench::ops::BatchedOptions sequential;
    sequential.policy = tfbench::BatchPolicy{tfbench::BatchStrategy::Sequential, {}};
    auto x = tfbench::ops::batched_solve(s, av, cv, sequential);
    if (!x) return x.error().what();
    x_00_7 = x->tensor.at(0, 0, 7);  // B_7(0, 0) = 8

    // 3. A forced strategy without a route is a typed error, reported before anything is written.
    tfbench::ops::BatchedOptions vendor;
    vendor.policy = tfbench::BatchPolicy{tfbench::BatchStrategy::WholeBatchVendor, {}};
    auto refused = tfbench::ops::batched_gemm(s, av, bv, 1.0, vendor);
    const bool typed = !refused && refused.error().code == tfbench::ops::BatchedErrc::NoRoute;  // on host
    return tfbench::ops::describe(c->run) + " | " + tfbench::ops::describe(x->run) + " | " +
           (typed ? "vendor: no route" : "vendor ran");
  });
  return entered ? *entered : entered.error().message;
}
// [ops-batched-example]

TEST_CASE("docs/ops-batched.md example: values and routes", "[batched][docs]") {
  double c = 0, x = 0;
  const std::string routes = batched_example(c, x);
  INFO(routes);
  CHECK(c == 16.0);
  CHECK(x == Approx(8.0).epsilon(1e-14));
  CHECK(routes.find("specialized") != std::string::npos);
  CHECK(routes.find("| sequential specialized |") != std::string::npos);
  CHECK(routes.find("vendor: no route") != std::string::npos);  // a CpuBackend session: host space
}
