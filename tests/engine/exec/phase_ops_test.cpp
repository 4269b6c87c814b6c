// Engine operations inside phase lanes: every operation family runs on PhaseLane::session() and
// matches a single-threaded session; the held root session is parked for the whole phase (a typed
// error from a lane and from the driver, usable again once the phase returns).
// Catch2 assertions are not thread-safe: lanes record, the test thread asserts.

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "exec_test_support.hpp"
#include "tfbench/engine/exec/phase.hpp"
#include "tfbench/engine/ops/batched_gemm.hpp"
#include "tfbench/engine/ops/ops.hpp"

using namespace tfbench;
using tfbench::testing::test_backend;
using LaneResult = Result<void, std::string>;

namespace {

using Dyn = Tensor<double, DynRank, Host>;
using Batch = Tensor<double, Rank<3>, Host>;

std::vector<double> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

template <class Tn>
std::vector<double> values(const Tn& t) {
  const auto s = t.as_slice();
  return std::vector<double>(s.begin(), s.end());
}

// What one lane computes, through the engine's own operations only.
struct FamilyResults {
  std::vector<double> einsum, tensordot, permute, reshaped_sum, sum, batched;
  bool batched_sequential = false;  // a lane is a sequential context: its items run in the lane
};

struct Operands {
  Dyn a = Dyn::from_col_major({6, 4}, random_values(24, 11));
  Dyn b = Dyn::from_col_major({4, 5}, random_values(20, 12));
  Batch ba = Batch::from_col_major({3, 3, 8}, random_values(72, 13));
  Batch bb = Batch::from_col_major({3, 2, 8}, random_values(48, 14));
};

FamilyResults run_families(Session& s, const Operands& x) {
  FamilyResults r;
  r.einsum = values(ops::einsum(s, "ik,kj->ij", x.a, x.b));
  r.tensordot = values(ops::tensordot(s, x.a, x.b, 1));
  auto transposed = ops::permute(s, x.a, {1, 0});
  r.permute = values(transposed);
  const Index flat[] = {24};
  auto reshaped = std::move(transposed).reshape(Span<const Index>(flat, 1));
  if (!reshaped) throw std::runtime_error("reshape failed");
  r.reshaped_sum = values(ops::sum(s, reshaped.value(), {0}));
  r.sum = values(ops::sum(s, x.a, {1}));
  auto gemm = ops::batched_gemm(s, x.ba, x.bb);
  if (!gemm) throw std::runtime_error("batched_gemm: " + gemm.error().what());
  r.batched = values(gemm->tensor);
  r.batched_sequential = gemm->run.strategy == BatchStrategy::Sequential && gemm->run.lanes == 1;
  return r;
}

bool close(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::abs(got[i] - want[i]) > 1e-12 * (1 + std::abs(want[i]))) return false;
  return true;
}

}  // namespace

TEST_CASE("phase_lanes_run_engine_operation_families", "[exec][phase]") {
  const Operands x;
  auto single = CpuBackend::serial();
  const FamilyResults reference = single.with_session([&](Session& s) { return run_families(s, x); }).value();
  REQUIRE(reference.einsum.size() == 30);

  auto backend = test_backend();
  auto held = backend.hold();
  REQUIRE(held.ok());
  std::vector<FamilyResults> lanes(static_cast<std::size_t>(backend.context().threads));
  std::vector<std::string> failures(lanes.size());
  auto result = held.phase([&](Phase& p) {
    return p.run([&](std::size_t lane, PhaseLane& l) -> LaneResult {
      try {
        lanes[lane] = run_families(l.session(), x);
      } catch (const std::exception& e) {
        failures[lane] = e.what();
      }
      return {};
    });
  });
  REQUIRE(result.has_value());
  REQUIRE(result->has_value());
  for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
    INFO("lane " << lane);
    REQUIRE(failures[lane].empty());
    CHECK(close(lanes[lane].einsum, reference.einsum));
    CHECK(close(lanes[lane].tensordot, reference.einsum));  // one contracted axis: the same product
    CHECK(close(lanes[lane].permute, reference.permute));
    CHECK(close(lanes[lane].reshaped_sum, reference.reshaped_sum));
    CHECK(close(lanes[lane].sum, reference.sum));
    CHECK(close(lanes[lane].batched, reference.batched));
    CHECK(lanes[lane].batched_sequential);
  }
}

TEST_CASE("phase_parks_the_root_session_for_lanes_and_driver", "[exec][phase]") {
  const Operands x;
  auto backend = test_backend();
  auto held = backend.hold();
  REQUIRE(held.ok());
  Session& root = held.session();
  REQUIRE_FALSE(root.parked());
  const double expected = ops::sum_all(root, x.a).as_slice()[0];

  auto op_refused = [&] {
    try {
      (void)ops::sum_all(root, x.a);
    } catch (const ops::OpError& e) {
      return e.code() == ops::OpErrorCode::SessionParked;
    }
    return false;
  };
  auto batched_refused = [&] {
    auto r = ops::batched_gemm(root, x.ba, x.bb);
    return !r.has_value() && r.error().code == ops::BatchedErrc::SessionParked;
  };
  bool driver_parked = false, driver_op = false, driver_batched = false;
  std::vector<int> lane_op(static_cast<std::size_t>(backend.context().threads), 0), lane_batched(lane_op),
      lane_own(lane_op);
  auto result = held.phase([&](Phase& p) {
    driver_parked = root.parked();
    driver_op = op_refused();
    driver_batched = batched_refused();
    return p.run([&](std::size_t lane, PhaseLane& l) -> LaneResult {
      lane_op[lane] = op_refused();
      lane_batched[lane] = batched_refused();
      lane_own[lane] = !l.session().parked() && ops::sum_all(l.session(), x.a).as_slice()[0] == expected;
      return {};
    });
  });
  REQUIRE(result.has_value());
  REQUIRE(result->has_value());
  CHECK(driver_parked);
  CHECK(driver_op);
  CHECK(driver_batched);
  for (std::size_t lane = 0; lane < lane_op.size(); ++lane) {
    INFO("lane " << lane);
    CHECK(lane_op[lane] == 1);
    CHECK(lane_batched[lane] == 1);
    CHECK(lane_own[lane] == 1);
  }
  // After the phase the root works again.
  REQUIRE_FALSE(root.parked());
  CHECK(ops::sum_all(root, x.a).as_slice()[0] == expected);
  CHECK(held.with_session([&](Session& s) { return ops::batched_gemm(s, x.ba, x.bb).has_value(); }).value());
}
