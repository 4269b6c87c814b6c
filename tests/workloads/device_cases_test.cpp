// Cases on a device space: the engine runs on that space whatever the host thread count, engine
// variants place their operands in Device tensors of a DeviceBackend session, and the CUDA-only
// peers are variants of CUDA builds only. On host builds Device memory is host memory, so the
// placement path runs here too; on a CUDA build with a GPU the family checks run it on the device.

#include <catch2/catch.hpp>

#include "common/engine_backend.hpp"
#include "common/operand_placement.hpp"
#include "small_cases.hpp"
#include "test_context.hpp"
#include "tfbench/engine/ops/batched_gemm.hpp"
#include "tfbench/workloads/registry.hpp"

#include <algorithm>
#include <vector>

using namespace tfbench;
using namespace tfbench::workloads;

TEST_CASE("a one-thread case runs on Serial only when its space is a host space", "[workloads]") {
  RunContext host;
  host.space = ExecSpaceKind::OpenMP;
  host.threads = 1;
  if (is_enabled(ExecSpaceKind::Serial)) CHECK(engine_space(host) == ExecSpaceKind::Serial);
  CHECK_FALSE(on_device(host));
  RunContext device = host;
  device.space = ExecSpaceKind::Cuda;  // the decision needs no CUDA build: one host thread drives it
  CHECK(engine_space(device) == ExecSpaceKind::Cuda);
  CHECK(on_device(device));
}

TEST_CASE("device placement uploads operands once and the engine computes on Device tensors", "[workloads]") {
  using Placement = DevicePlacement<double>;
  DeviceBackend backend = Placement::backend(test::context_of_test());
  const Index n = 3, batch = 2;
  std::vector<double> a(n * n * batch), b(n * n * batch);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = 0.5 + 0.01 * static_cast<double>(i);
    b[i] = 1.5 - 0.02 * static_cast<double>(i);
  }
  using HostTensor = Tensor<double, DynRank, Host>;
  const TransferStats before = transfer_stats();
  auto da = Placement::place(backend, HostTensor::from_col_major({n, n, batch}, a));
  auto db = Placement::place(backend, HostTensor::from_col_major({n, n, batch}, b));
  auto dc = Placement::place(backend, HostTensor::zeros({n, n, batch}));
  CHECK((transfer_stats() - before).uploads == 3);

  const TransferStats before_run = transfer_stats();
  auto ran = backend.with_session([&](Session& s) { return ops::batched_gemm_into(s, da, db, dc); });
  REQUIRE(ran);
  REQUIRE(*ran);
  CHECK((transfer_stats() - before_run).uploads + (transfer_stats() - before_run).downloads == 0);

  const std::vector<double> c = Placement::to_host(backend, dc);
  REQUIRE(c.size() == a.size());
  for (Index item = 0; item < batch; ++item) {
    for (Index j = 0; j < n; ++j) {
      for (Index i = 0; i < n; ++i) {
        double ref = 0.0;
        for (Index k = 0; k < n; ++k) ref += a[item * n * n + k * n + i] * b[item * n * n + j * n + k];
        CHECK(c[item * n * n + j * n + i] == Approx(ref).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("CUDA-only peers are variants of CUDA builds only", "[workloads]") {
  const RunContext ctx = test::context_of_test();
  auto names_of = [&](const char* family, const Params& params) {
    std::vector<std::string> names;
    for (const auto& v : find_family(family)->variants(params, ctx)) names.push_back(v.name);
    return names;
  };
  auto has = [](const std::vector<std::string>& names, const char* name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  const auto gemm = names_of("packed_small", Params({{"n", std::int64_t{4}}, {"batch", std::int64_t{8}}}));
  const auto solve = names_of("batched_solve", Params({{"n", std::int64_t{4}}, {"batch", std::int64_t{8}}}));
  CHECK(has(gemm, "peer:cublas") == build_has_cublas());
  CHECK(has(solve, "peer:cublas") == build_has_cublas());
  for (const auto& v : find_family("packed_small")
                           ->variants(Params({{"n", std::int64_t{4}}, {"batch", std::int64_t{8}}}), ctx)) {
    // On a host case of a CUDA build the cuBLAS peer is skipped with its reason, never run.
    if (v.name == "peer:cublas" && !on_device(ctx)) CHECK(v.unavailable.has_value());
  }
}
