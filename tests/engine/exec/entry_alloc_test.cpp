// The session entry path allocates nothing (issue 4: "no allocation, no OpenMP region on the entry
// path"), counted by the replaced global operator new of this executable (storage's alloc_counter).
// Also allocation-free: a plan-cache hit with a short operation name, and a pooled scratch checkout
// served from the pool's cache.

#include <catch2/catch.hpp>

#include <memory>

#include "alloc_counter.hpp"
#include "exec_test_support.hpp"
#include "tfbench/engine/exec/backend.hpp"

using namespace tfbench;
using tfbench::testing::AllocationScope;

TEST_CASE("The allocation counter counts", "[exec][alloc]") {
  AllocationScope scope;
  auto p = std::make_unique<int>(1);
  REQUIRE(scope.count() >= 1);
}

TEST_CASE("Entering and leaving a session allocates nothing", "[exec][session][alloc]") {
  auto serial = CpuBackend::serial();
  auto test = tfbench::testing::test_backend();
  auto device = DeviceBackend::make();
  int calls = 0;
  auto enter_all = [&] {
    (void)serial.with_session([&](Session&) { ++calls; });
    (void)test.with_session([&](Session& s) { calls += s.threads() > 0; });
    (void)device.with_session([&](Session&) { ++calls; });
  };
  enter_all();  // first use of thread-locals and statics
  AllocationScope scope;
  for (int i = 0; i < 100; ++i) enter_all();
  REQUIRE(scope.count() == 0);
  REQUIRE(calls == 303);
}

TEST_CASE("A plan-cache hit and a cached scratch checkout allocate nothing", "[exec][plan][alloc]") {
  struct Plan : PreparedOp {
    int value = 7;
  };
  auto backend = tfbench::testing::test_backend();
  REQUIRE(backend
              .with_session([&](Session& s) {
                auto lookup = [&] {
                  PlanKey key = make_plan_key(s, "gemm:nn", DType::F64);
                  key.add_operand({8, 8}, {1, 8}).add_operand({8, 8}, {});
                  return s.plan_cache().get_or_prepare<Plan>(key, [] { return Plan{}; })->value;
                };
                lookup();                         // miss: prepares and inserts
                { auto warm = s.scratch(4096); }  // the block is cached on release
                AllocationScope scope;
                int total = 0;
                for (int i = 0; i < 50; ++i) {
                  total += lookup();
                  auto scratch = s.scratch(4096);
                  total += scratch.was_pool_hit() ? 1 : 0;
                }
                REQUIRE(scope.count() == 0);
                REQUIRE(total == 50 * 8);
              })
              .has_value());
}
