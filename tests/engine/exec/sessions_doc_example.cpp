// The example quoted in docs/sessions.md (a CTest checks the page quotes exactly this region).

#include <catch2/catch.hpp>

// [sessions-example]
#include <Kokkos_Core.hpp>

#include <tfbench/engine/exec/backend.hpp>
#include <tfbench/engine/exec/batch_policy.hpp>
#include <tfbench/engine/exec/phase.hpp>

#include <numeric>
#include <string>
#include <vector>

// The kernel body is a functor: a KOKKOS_LAMBDA inside dispatch's generic lambda does not compile
// for CUDA (an extended lambda cannot live in a generic lambda).
struct AddIndex {
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& acc) const { acc += double(i); }
};

// Sum of i over [first, last) on whatever space the session runs (Serial for one thread).
double range_sum(tfbench::Session& session, std::int64_t first, std::int64_t last) {
  return session.dispatch([&](auto space) {
    double sum = 0;
    Kokkos::parallel_reduce("tfbench::docs::range_sum",
                            Kokkos::RangePolicy<decltype(space)>(space, first, last), AddIndex{}, sum);
    return sum;
  });
}

double sessions_example() {
  // A backend over Kokkos OpenMP with the whole pool as its budget (Serial when that is one thread).
  tfbench::CpuBackend backend = tfbench::CpuBackend::openmp();

  // 1. A session: typed admission errors come back before the callback runs.
  auto entered = backend.with_session([](tfbench::Session& s) {
    // 2. Batch policy: a scoped override, restored when the scope ends (also on exceptions).
    return tfbench::with_batch_policy(
        s, {tfbench::BatchStrategy::Sequential, {}}, [](tfbench::Session& scoped) {
          auto route =
              tfbench::resolve_batch_route(scoped, std::nullopt, {256, 8, 512},
                                           scoped.providers().candidates(tfbench::ProviderSlot::BatchedGemm));
          return route ? range_sum(scoped, 0, 100) : -1.0;  // 4950
        });
  });
  if (!entered) return -1;  // entered.error().kind says why (Reentered, Contended, ...)

  // 3. A phase: one lane per thread of the budget, each with its own child session.
  auto held = backend.hold();
  if (!held) return -1;
  std::vector<double> partial(static_cast<std::size_t>(backend.context().threads), 0.0);
  auto phased = held.phase([&](tfbench::Phase& phase) {
    return phase.run([&](std::size_t lane, tfbench::PhaseLane& l) -> tfbench::Result<void, std::string> {
      const auto range =
          tfbench::lane_item_range(static_cast<int>(lane), static_cast<int>(phase.lanes()), 1000);
      partial[lane] = range_sum(l.session(), range.first, range.second);  // lane-private output
      return {};
    });
  });
  if (!phased || !*phased) return -1;
  // Publish only after the run joined successfully.
  return *entered + std::accumulate(partial.begin(), partial.end(), 0.0);  // 4950 + 499500
}
// [sessions-example]

TEST_CASE("The sessions.md example runs and computes its values", "[exec][docs]") {
  REQUIRE(sessions_example() == 4950.0 + 499500.0);
}
