// A deliberately corrupted result fails check(): with the test-only output fault armed, one output
// element is perturbed after the variant produced it, and every available variant must reject it.

#include <catch2/catch.hpp>

#include "small_cases.hpp"
#include "test_context.hpp"
#include "tfbench/workloads/registry.hpp"
#include "tfbench/workloads/testing.hpp"

using namespace tfbench::workloads;

TEST_CASE("every available variant fails its check on a corrupted output", "[workloads]") {
  const RunContext ctx = test::context_of_test();
  for (const auto& [family_name, cases] : test::small_cases()) {
    const Family* family = find_family(family_name);
    REQUIRE(family != nullptr);
    const Params& params = cases.front();
    for (const VariantInfo& v : family->variants(params, ctx)) {
      if (v.unavailable) continue;
      INFO(family_name << " " << params.canonical() << " " << v.name);
      auto instance = family->instantiate(params, v.name, ctx);
      CheckResult corrupted;
      {
        testing::ScopedOutputFault fault;
        CHECK(testing::output_fault_armed());
        corrupted = instance->check();
      }
      INFO(corrupted.message);
      CHECK_FALSE(corrupted.passed);
      CHECK(corrupted.max_rel_error > corrupted.tolerance);
      // The same instance passes again once the fault is gone: the perturbation was the check's.
      CHECK_FALSE(testing::output_fault_armed());
      CHECK(instance->check().passed);
    }
  }
}
