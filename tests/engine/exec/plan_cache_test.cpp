// Prepared operations and the plan cache (CPU part): a change of any key
// part prepares again and nothing stale is read; bounded LRU with configure/clear/stats.

#include <catch2/catch.hpp>

#include <memory>
#include <numeric>
#include <vector>

#include "exec_test_support.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/exec/plan_cache.hpp"

using namespace tfbench;

namespace {

// A prepared "strided sum": it keeps its validated layout (values, no pointers into operands) and the
// route it resolved, and is executed against data supplied per run.
struct PreparedStridedSum : PreparedOp {
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  BatchRoute route;
  std::uint64_t generation = 0;

  double run(const std::vector<double>& data) const {
    double total = 0;
    for (std::int64_t j = 0; j < shape[1]; ++j) {
      for (std::int64_t i = 0; i < shape[0]; ++i) total += data[i * strides[0] + j * strides[1]];
    }
    return total;
  }
};

struct Preparer {
  int prepared = 0;

  std::shared_ptr<const PreparedStridedSum> get(Session& s, const std::string& config, DType dtype,
                                                std::vector<std::int64_t> shape,
                                                std::vector<std::int64_t> strides) {
    PlanKey key = make_plan_key(s, config, dtype);
    key.add_operand(shape.data(), strides.data(), static_cast<int>(shape.size()));
    return s.plan_cache().get_or_prepare<PreparedStridedSum>(key, [&] {
      ++prepared;
      PreparedStridedSum plan;
      plan.shape = shape;
      plan.strides = strides;
      plan.route = resolve_batch_route(s, std::nullopt, {shape[1], shape[0], double(shape[0])},
                                       s.providers().candidates(ProviderSlot::BatchedGemm))
                       .value();
      plan.generation = s.providers().generation();
      return plan;
    });
  }
};

}  // namespace

TEST_CASE("Plan keys differ in every part and hash consistently", "[exec][plan]") {
  PlanKey base;
  base.operation = "contract:ij,jk->ik";
  base.dtype = "f64";
  base.add_operand({2, 3}, {1, 2}).add_operand({3, 4}, {});
  PlanKey same = base;
  REQUIRE(same == base);
  REQUIRE(same.hash() == base.hash());

  std::vector<PlanKey> changed(8, base);
  changed[0].operation = "contract:ij,jk->ki";
  changed[1].dtype = "f32";
  changed[2].shapes.back() = 5;
  changed[3].strides[1] = 3;
  changed[4].provider_generation += 1;
  changed[5].device.threads = 2;
  changed[6].batch_policy.thresholds.lane_min_work_ns = 1;
  changed[7].batch_policy.thresholds.check_fan_out = false;
  for (const auto& key : changed) REQUIRE(key != base);

  // Rank-prefixed operands: [2,3]+[4] differs from [2]+[3,4].
  PlanKey a, b;
  a.add_operand({2, 3}, {}).add_operand({4}, {});
  b.add_operand({2}, {}).add_operand({3, 4}, {});
  REQUIRE(a != b);
  BatchPolicy zero, negzero;
  zero.thresholds.lane_item_overhead_ns = 0.0;
  negzero.thresholds.lane_item_overhead_ns = -0.0;
  PlanKey z1, z2;
  z1.batch_policy = zero;
  z2.batch_policy = negzero;
  REQUIRE(z1 == z2);
  REQUIRE(z1.hash() == z2.hash());
}

TEST_CASE("A prepared operation is prepared again when any key part changes, and never read stale",
          "[exec][plan]") {
  auto backend = tfbench::testing::test_backend();
  const std::vector<double> data = [] {
    std::vector<double> d(24);
    std::iota(d.begin(), d.end(), 1.0);
    return d;
  }();
  Preparer p;
  REQUIRE(
      backend
          .with_session([&](Session& s) {
            auto plan = p.get(s, "sum:all", DType::F64, {2, 3}, {1, 2});
            REQUIRE(p.prepared == 1);
            REQUIRE(plan->run(data) == Approx(21));
            REQUIRE(p.get(s, "sum:all", DType::F64, {2, 3}, {1, 2}) == plan);  // hit
            REQUIRE(p.prepared == 1);

            // Each key part: configuration, dtype, shape, strides.
            REQUIRE(p.get(s, "sum:all+conj", DType::F64, {2, 3}, {1, 2}) != plan);
            REQUIRE(p.get(s, "sum:all", DType::F32, {2, 3}, {1, 2}) != plan);
            auto reshaped = p.get(s, "sum:all", DType::F64, {3, 2}, {1, 3});
            REQUIRE(reshaped->shape == std::vector<std::int64_t>{3, 2});
            REQUIRE(reshaped->run(data) == Approx(21));
            auto restrided = p.get(s, "sum:all", DType::F64, {2, 3}, {3, 6});  // every third element
            REQUIRE(restrided->run(data) == Approx(1 + 4 + 7 + 10 + 13 + 16));
            REQUIRE(p.prepared == 5);

            // Batch policy (scoped override) is part of the key.
            with_batch_policy(s, BatchPolicy{BatchStrategy::Sequential, {}}, [&](Session& scoped) {
              auto sequential = p.get(scoped, "sum:all", DType::F64, {2, 3}, {1, 2});
              REQUIRE(sequential != plan);
              REQUIRE(sequential->route.strategy == BatchStrategy::Sequential);
            });
            REQUIRE(p.prepared == 6);
            REQUIRE(p.get(s, "sum:all", DType::F64, {2, 3}, {1, 2}) == plan);  // back to the original: hit
          })
          .has_value());

  // Provider generation: a provider change prepares again, and the new plan carries the new route.
  REQUIRE(backend.set_providers(ProviderSlot::BatchedGemm, {&providers::kokkos_batched_serial}).has_value());
  REQUIRE(backend
              .with_session([&](Session& s) {
                auto plan = p.get(s, "sum:all", DType::F64, {2, 3}, {1, 2});
                REQUIRE(p.prepared == 7);
                REQUIRE(plan->generation == backend.provider_generation());
                REQUIRE(plan->route.provider == &providers::kokkos_batched_serial);
              })
              .has_value());

  // Device/domain: another backend's sessions key on their own space, memory and budget.
  const PlanKey cpu_key =
      backend.with_session([&](Session& s) { return make_plan_key(s, "sum:all", DType::F64); }).value();
  auto device = DeviceBackend::make();
  const PlanKey device_key =
      device.with_session([&](Session& s) { return make_plan_key(s, "sum:all", DType::F64); }).value();
  REQUIRE(device_key.device.memory == MemoryKind::Device);
  REQUIRE(device_key.device.space == default_device_space());
  REQUIRE(device_key.device != cpu_key.device);
}

TEST_CASE("The plan cache is a bounded LRU with configure, clear and statistics", "[exec][plan]") {
  PlanCache cache(2);
  struct Plan : PreparedOp {
    int value;
    explicit Plan(int v) : value(v) {}
  };
  auto key = [](const char* op) {
    PlanKey k;
    k.operation = op;
    return k;
  };
  int prepared = 0;
  auto get = [&](const char* op, int v) {
    return cache.get_or_prepare<Plan>(key(op), [&] {
      ++prepared;
      return Plan(v);
    });
  };
  REQUIRE(get("a", 1)->value == 1);
  REQUIRE(get("b", 2)->value == 2);
  REQUIRE(get("a", 0)->value == 1);  // hit refreshes a
  REQUIRE(get("c", 3)->value == 3);  // evicts b, the least recently used
  REQUIRE(cache.find<Plan>(key("b")) == nullptr);
  REQUIRE(cache.find<Plan>(key("a")) != nullptr);
  auto stats = cache.stats();
  REQUIRE(stats.evictions == 1);
  REQUIRE(stats.size == 2);
  REQUIRE(stats.capacity == 2);
  REQUIRE(stats.hits == 2);    // get a, find a
  REQUIRE(stats.misses == 4);  // a, b, c, find b

  // A held plan survives eviction and clear: plans are shared values.
  auto held = get("a", 0);
  cache.configure(1);
  REQUIRE(cache.stats().size == 1);
  cache.clear();
  REQUIRE(cache.stats().size == 0);
  REQUIRE(held->value == 1);
  cache.configure(0);  // caching off: every request prepares
  const int before = prepared;
  get("z", 9);
  get("z", 9);
  REQUIRE(prepared == before + 2);
  REQUIRE(PlanCache().stats().capacity == 256);
}

TEST_CASE("A failed preparation is returned, not cached", "[exec][plan]") {
  PlanCache cache;
  struct Plan : PreparedOp {};
  PlanKey k;
  k.operation = "solve";
  int attempts = 0;
  auto failing = [&]() -> Result<Plan, std::string> {
    ++attempts;
    return unexpected(std::string("singular layout"));
  };
  auto first = cache.get_or_prepare<Plan>(k, failing);
  REQUIRE_FALSE(first.has_value());
  REQUIRE(first.error() == "singular layout");
  auto second = cache.get_or_prepare<Plan>(k, failing);
  REQUIRE_FALSE(second.has_value());
  REQUIRE(attempts == 2);
  auto ok = cache.get_or_prepare<Plan>(k, []() -> Result<Plan, std::string> { return Plan{}; });
  REQUIRE(ok.has_value());
  REQUIRE(cache.find<Plan>(k) == ok.value());
}

TEST_CASE("Plans hold values: the operands they were prepared from may go away", "[exec][plan]") {
  auto backend = tfbench::testing::test_backend();
  Preparer p;
  std::shared_ptr<const PreparedStridedSum> plan;
  REQUIRE(backend
              .with_session([&](Session& s) {
                auto shape = std::make_unique<std::vector<std::int64_t>>(std::vector<std::int64_t>{2, 2});
                auto strides = std::make_unique<std::vector<std::int64_t>>(std::vector<std::int64_t>{1, 2});
                plan = p.get(s, "sum:all", DType::F64, *shape, *strides);
              })
              .has_value());
  REQUIRE(plan->run({1, 2, 3, 4}) == Approx(10));  // ASan (debug preset) would flag a borrowed pointer
}
