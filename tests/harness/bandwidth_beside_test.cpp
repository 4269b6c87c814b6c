// The worker's bandwidth beside a case (run/bandwidth_beside.hpp): which rows get a reference, that
// rows naming the same ceiling share one, and that a reference measures its level like the ceiling.

#include <catch2/catch.hpp>

#include "run/bandwidth_beside.hpp"

#include <cmath>
#include <memory>
#include <vector>

namespace {

using tfbench::harness::impl::best_round_gbs;
using tfbench::harness::impl::plan_bandwidth_beside;
using tfbench::ops::MemoryLevel;
using tfbench::workloads::Ceilings;
using tfbench::workloads::Instance;
using tfbench::workloads::Work;

/// A variant that only reports its work.
class WorkOnly final : public Instance {
 public:
  explicit WorkOnly(Work w) : work_(w) {}
  tfbench::workloads::CheckResult check() override { return {true, 0.0, 0.0, ""}; }
  void run() override {}
  Work work() const override { return work_; }

 private:
  Work work_;
};

Work work(double flops, double bytes, double working_set) {
  Work w;
  w.flops = flops;
  w.bytes = bytes;
  w.working_set_bytes = working_set;
  return w;
}

/// Ceilings whose levels' working sets are small enough for a test to allocate.
Ceilings small_ceilings() {
  Ceilings c;
  c.peak_f64 = {10.0, 10.0, 10.0, 5, 0};  // GFLOP/s
  c.level(MemoryLevel::L1) = {100.0, 100.0, 100.0, 5, 16e3};
  c.level(MemoryLevel::L2) = {50.0, 50.0, 50.0, 5, 256e3};
  c.level(MemoryLevel::LLC) = {20.0, 20.0, 20.0, 5, 2e6};
  c.level(MemoryLevel::DRAM) = {5.0, 5.0, 5.0, 5, 4e6};
  c.caches = {32e3, 512e3, 4e6};
  c.threads = 1;
  return c;
}

}  // namespace

TEST_CASE("Bandwidth beside: one reference per ceiling among the memory-bound rows", "[beside][roofline]") {
  std::vector<std::unique_ptr<Instance>> instances;
  instances.push_back(std::make_unique<WorkOnly>(work(1e6, 8e6, 8e6)));      // DRAM, AI 0.125: memory-bound
  instances.push_back(std::make_unique<WorkOnly>(work(0.0, 8e6, 8e6)));      // DRAM, bytes only: the same one
  instances.push_back(std::make_unique<WorkOnly>(work(1e9, 8e6, 8e6)));      // AI 125: compute-bound, none
  instances.push_back(std::make_unique<WorkOnly>(work(1e3, 100e3, 100e3)));  // L2
  instances.push_back(std::make_unique<WorkOnly>(work(1e6, 0.0, 0.0)));      // no bytes: none
  const auto plan = plan_bandwidth_beside(instances, small_ceilings());
  REQUIRE(plan.references.size() == 2);
  CHECK(plan.reference_of_instance == std::vector<int>{0, 0, -1, 1, -1});
  // Each reference streams its ceiling's working set and times itself between barriers.
  for (const auto& reference : plan.references) {
    CHECK(reference->check().passed);
    reference->run();
    REQUIRE(reference->self_timed_seconds().has_value());
    CHECK(*reference->self_timed_seconds() > 0.0);
  }
  CHECK(plan.references[0]->work().working_set_bytes == 4e6);
  CHECK(plan.references[1]->work().working_set_bytes == 256e3);
  // A DRAM run is one pass: 16 or 24 bytes per element of the kernel over the working set.
  const double dram_bytes = plan.references[0]->work().bytes;
  CHECK((dram_bytes == Catch::Detail::Approx(4e6 * 16 / 8) || dram_bytes == Catch::Detail::Approx(4e6)));
  // Unmeasured ceilings (threads 0): no reference.
  CHECK(plan_bandwidth_beside(instances, Ceilings{}).references.empty());
}

TEST_CASE("Bandwidth beside: the fastest round", "[beside][roofline]") {
  CHECK(best_round_gbs({2.0, 1.0, 4.0}, 4e9) == Catch::Detail::Approx(4.0));
  CHECK(best_round_gbs({0.0, -1.0, 2.0}, 4e9) == Catch::Detail::Approx(2.0));
  CHECK(std::isnan(best_round_gbs({}, 4e9)));
  CHECK(std::isnan(best_round_gbs({1.0}, 0.0)));
}
