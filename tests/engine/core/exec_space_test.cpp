#include "tfbench/engine/core/exec_space.hpp"
#include "tfbench/engine/core/kokkos_runtime.hpp"

#include <catch2/catch.hpp>

#include "test_context.hpp"

namespace {
// A functor, not a KOKKOS_LAMBDA: CUDA rejects an extended lambda inside a generic lambda.
struct AddIndex {
  KOKKOS_INLINE_FUNCTION void operator()(const int i, double& acc) const { acc += i; }
};
}  // namespace

TEST_CASE("Execution space names round-trip", "[core][space]") {
  for (auto kind : tfbench::enabled_exec_spaces()) {
    REQUIRE(tfbench::parse_exec_space(tfbench::name(kind)) == kind);
  }
  REQUIRE_FALSE(tfbench::parse_exec_space("quantum").has_value());
}

TEST_CASE("The test space runs a Kokkos kernel with its thread count", "[core][space]") {
  const int n = 1000;
  const double sum = tfbench::testing::with_space([&](auto space) {
    using Space = decltype(space);
    double total = 0.0;
    Kokkos::parallel_reduce("tfbench::tests::sum", Kokkos::RangePolicy<Space>(space, 0, n), AddIndex{},
                            total);
    REQUIRE(tfbench::exec_space_kind<Space>() == tfbench::testing::space());
    return total;
  });
  REQUIRE(sum == Approx(n * (n - 1) / 2.0));
  if (tfbench::testing::space() == tfbench::ExecSpaceKind::OpenMP) {
    REQUIRE(tfbench::concurrency(tfbench::ExecSpaceKind::OpenMP) == tfbench::testing::threads());
  }
}

TEST_CASE("A device space names its accelerator for the result file, a host space nothing", "[core][space]") {
  for (auto kind : tfbench::enabled_exec_spaces()) {
    const std::string device = tfbench::device_description(kind);
    if (tfbench::is_host_space(kind)) {
      CHECK(device.empty());
    } else {
      // "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB, PCI ..., driver 13.0, runtime 13.0)"
      CHECK_THAT(device,
                 Catch::Contains(" (sm_") && Catch::Contains(" SMs, ") && Catch::Contains(", driver "));
    }
  }
}
