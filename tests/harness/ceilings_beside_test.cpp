// The worker's ceilings beside a case (run/ceilings_beside.hpp): which rows get a reference, that
// rows naming the same ceiling share one, and that a reference measures like the ceiling.

#include <catch2/catch.hpp>

#include "run/ceilings_beside.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

namespace {

using tfbench::harness::impl::BesideKind;
using tfbench::harness::impl::best_round_rate;
using tfbench::harness::impl::plan_ceilings_beside;
using tfbench::harness::impl::record_beside;
using tfbench::harness::impl::round_rates;
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
  c.fma_f64 = {10.0, 10.0, 10.0, 5, 0};  // GFLOP/s
  c.gemm_f64 = {8.0, 8.0, 8.0, 5, 0};
  c.settle_peaks();  // the FMA chains set the f64 peak
  c.level(MemoryLevel::L1) = {100.0, 100.0, 100.0, 5, 16e3};
  c.level(MemoryLevel::L2) = {50.0, 50.0, 50.0, 5, 256e3};
  c.level(MemoryLevel::LLC) = {20.0, 20.0, 20.0, 5, 2e6};
  c.level(MemoryLevel::DRAM) = {5.0, 5.0, 5.0, 5, 4e6};
  c.caches = {32e3, 512e3, 4e6};
  c.threads = 1;
  return c;
}

}  // namespace

TEST_CASE("Ceilings beside: one reference per ceiling that bounds a row", "[beside][roofline]") {
  std::vector<std::unique_ptr<Instance>> instances;
  instances.push_back(std::make_unique<WorkOnly>(work(1e6, 8e6, 8e6)));      // DRAM, AI 0.125: memory-bound
  instances.push_back(std::make_unique<WorkOnly>(work(0.0, 8e6, 8e6)));      // DRAM, bytes only: the same one
  instances.push_back(std::make_unique<WorkOnly>(work(1e9, 8e6, 8e6)));      // AI 125: the f64 peak
  instances.push_back(std::make_unique<WorkOnly>(work(1e3, 100e3, 100e3)));  // L2
  instances.push_back(std::make_unique<WorkOnly>(work(1e6, 0.0, 0.0)));      // flops only: the peak again
  const auto plan = plan_ceilings_beside(instances, small_ceilings());
  REQUIRE(plan.references.size() == 3);
  CHECK(plan.reference_of_instance == std::vector<int>{0, 0, 1, 2, 1});
  CHECK(plan.kinds ==
        std::vector<BesideKind>{BesideKind::Bandwidth, BesideKind::Peak, BesideKind::Bandwidth});
  // Each reference runs like its ceiling and times itself between barriers.
  for (const auto& reference : plan.references) {
    CHECK(reference->check().passed);
    reference->run();
    REQUIRE(reference->self_timed_seconds().has_value());
    CHECK(*reference->self_timed_seconds() > 0.0);
  }
  CHECK(plan.references[0]->work().working_set_bytes == 4e6);
  CHECK(plan.references[2]->work().working_set_bytes == 256e3);
  // A DRAM run is one pass: 16 or 24 bytes per element of the kernel over the working set.
  const double dram_bytes = plan.references[0]->work().bytes;
  CHECK((dram_bytes == Catch::Detail::Approx(4e6 * 16 / 8) || dram_bytes == Catch::Detail::Approx(4e6)));
  CHECK(plan.references[1]->work().flops > 0);
  CHECK(plan.references[1]->work().bytes == 0);
  // A peak the GEMM set is not re-measured by the FMA chains (they would read below it).
  Ceilings gemm_peak = small_ceilings();
  gemm_peak.gemm_f64.best = 20.0;
  gemm_peak.settle_peaks();
  const auto by_gemm = plan_ceilings_beside(instances, gemm_peak);
  CHECK(by_gemm.reference_of_instance == std::vector<int>{0, 0, -1, 1, -1});
  // Unmeasured ceilings (threads 0): no reference.
  CHECK(plan_ceilings_beside(instances, Ceilings{}).references.empty());
}

TEST_CASE("Ceilings beside: the fastest round", "[beside][roofline]") {
  CHECK(best_round_rate({2.0, 1.0, 4.0}, 4e9) == Catch::Detail::Approx(4.0));
  CHECK(best_round_rate({0.0, -1.0, 2.0}, 4e9) == Catch::Detail::Approx(2.0));
  CHECK(std::isnan(best_round_rate({}, 4e9)));
  CHECK(std::isnan(best_round_rate({1.0}, 0.0)));
  const std::vector<double> rounds = round_rates({2.0, 0.0, 4.0}, 4e9);
  REQUIRE(rounds.size() == 3);
  CHECK(rounds[0] == Catch::Detail::Approx(2.0));
  CHECK(std::isnan(rounds[1]));
  CHECK(rounds[2] == Catch::Detail::Approx(1.0));
}

TEST_CASE("Ceilings beside: a worker of several threads measures its handoff beside the bounded rows",
          "[beside][roofline]") {
  std::vector<std::unique_ptr<Instance>> instances;
  instances.push_back(std::make_unique<WorkOnly>(work(1e3, 100e3, 100e3)));  // L2
  instances.push_back(std::make_unique<WorkOnly>(work(0.0, 0.0, 0.0)));      // no work: no bound
  instances.push_back(std::make_unique<WorkOnly>(work(1e9, 8e6, 8e6)));      // the peak
  Ceilings two = small_ceilings();
  two.threads = 2;
  two.handoff = {2e6, 2e6, 2e6, 5, 0};  // round trips per second
  const auto plan = plan_ceilings_beside(instances, two);
  REQUIRE(plan.handoff == 2);  // after the L2's and the peak's references
  REQUIRE(plan.references.size() == 3);
  CHECK(plan.kinds.back() == BesideKind::Handoff);
  CHECK(plan.bounded == std::vector<bool>{true, false, true});
  const double trips = plan.work_per_run.back();
  CHECK(trips >= 100);
  auto& handoff = *plan.references.back();
  CHECK(handoff.check().passed);
  handoff.run();
  REQUIRE(handoff.self_timed_seconds().has_value());
  CHECK(*handoff.self_timed_seconds() > 0.0);
  CHECK(handoff.work().flops == 0);
  CHECK(handoff.work().bytes == 0);
  // A row records the best round as one round trip's microseconds; an unbounded row records none.
  const std::vector<std::vector<double>> samples = {{1e-3}, {2e-3}, {trips * 0.5e-6, trips * 0.4e-6}};
  const auto samples_of = [&](std::size_t r) -> const std::vector<double>& { return samples[r]; };
  tfbench::harness::ResultRow bounded, unbounded;
  record_beside(bounded, plan, 0, samples_of);
  record_beside(unbounded, plan, 1, samples_of);
  CHECK(bounded.handoff_beside_us == Catch::Detail::Approx(0.4));
  CHECK(std::isfinite(bounded.bandwidth_beside_gbs));
  CHECK(std::isnan(unbounded.handoff_beside_us));
  // ... and every round's, for the parent to pair with the row's samples.
  REQUIRE(bounded.beside_rounds.handoff_us.size() == 2);
  CHECK(bounded.beside_rounds.handoff_us[0] == Catch::Detail::Approx(0.5));
  CHECK(bounded.beside_rounds.handoff_us[1] == Catch::Detail::Approx(0.4));
  CHECK(bounded.beside_rounds.bandwidth_gbs.size() == 1);
  CHECK(bounded.beside_rounds.peak_gflops.empty());
  CHECK(unbounded.beside_rounds.handoff_us.empty());
  // One thread, or no handoff cached: nothing to hand over, no reference.
  CHECK(plan_ceilings_beside(instances, small_ceilings()).handoff == -1);
  two.handoff = {};
  CHECK(plan_ceilings_beside(instances, two).handoff == -1);
}

TEST_CASE("Ceilings beside: a worker of several threads measures one thread's ceiling beside its rows",
          "[beside][roofline]") {
  // The two threads' ceilings: twice one thread's, caches twice as large (per-core caches), and a
  // handoff. 48 KB of bytes then live in one thread's L2 and the two threads' L1.
  std::vector<std::unique_ptr<Instance>> instances;
  instances.push_back(std::make_unique<WorkOnly>(work(1e3, 48e3, 48e3)));  // 1 thread: L2; 2: L1
  instances.push_back(std::make_unique<WorkOnly>(work(0.0, 0.0, 0.0)));    // no work: no bound
  instances.push_back(std::make_unique<WorkOnly>(work(1e9, 8e6, 8e6)));    // the peak at either
  instances.push_back(std::make_unique<WorkOnly>(work(2e3, 40e3, 40e3)));  // the first's levels again
  const Ceilings one = small_ceilings();
  Ceilings two = small_ceilings();
  two.threads = 2;
  two.caches = {64e3, 1024e3, 4e6};
  two.handoff = {2e6, 2e6, 2e6, 5, 0};
  const auto plan = plan_ceilings_beside(instances, two, &one);
  // Two threads' L1 and peak, one thread's L2 and peak (shared by the rows naming them), the handoff.
  REQUIRE(plan.references.size() == 5);
  CHECK(plan.reference_of_instance == std::vector<int>{0, -1, 2, 0});
  CHECK(plan.one_thread_reference_of_instance == std::vector<int>{1, -1, 3, 1});
  CHECK(plan.kinds == std::vector<BesideKind>{BesideKind::Bandwidth, BesideKind::Bandwidth, BesideKind::Peak,
                                              BesideKind::Peak, BesideKind::Handoff});
  CHECK(plan.references[0]->work().working_set_bytes == 16e3);   // two threads' L1 ceiling
  CHECK(plan.references[1]->work().working_set_bytes == 256e3);  // one thread's L2 ceiling
  // Each runs on its own threads and times itself.
  for (int r : {1, 3}) {
    auto& reference = *plan.references[static_cast<std::size_t>(r)];
    CHECK(reference.check().passed);
    reference.run();
    REQUIRE(reference.self_timed_seconds().has_value());
  }
  // A row records one thread's best round apart from its threads'.
  const std::vector<std::vector<double>> samples = {{16e3 / 100e9}, {256e3 / 40e9, 256e3 / 45e9}, {}, {}, {}};
  const auto samples_of = [&](std::size_t r) -> const std::vector<double>& { return samples[r]; };
  tfbench::harness::ResultRow row;
  record_beside(row, plan, 0, samples_of);
  CHECK(std::isfinite(row.bandwidth_beside_gbs));
  CHECK(std::isfinite(row.bandwidth_beside_1t_gbs));
  CHECK(std::isnan(row.peak_beside_1t_gflops));
  // Without one thread's ceilings, without a handoff (nothing competes with one thread), or at one
  // thread: no reference of one thread's.
  const auto none = [](const auto& p) {
    return std::all_of(p.one_thread_reference_of_instance.begin(), p.one_thread_reference_of_instance.end(),
                       [](int r) { return r == -1; });
  };
  CHECK(none(plan_ceilings_beside(instances, two)));
  CHECK(none(plan_ceilings_beside(instances, one, &one)));
  // Where one thread's GEMM outran its FMA chains, the peak it set is not measured beside (the FMA
  // chains would read below it); its bandwidths still are.
  Ceilings gemm_one = one;
  gemm_one.gemm_f64.best = 2 * one.fma_f64.best;
  gemm_one.settle_peaks();
  REQUIRE(gemm_one.peak_source(false) == "gemm");
  CHECK(plan_ceilings_beside(instances, two, &gemm_one).one_thread_reference_of_instance ==
        std::vector<int>{1, -1, -1, 1});
  two.handoff = {};
  CHECK(none(plan_ceilings_beside(instances, two, &one)));
}
