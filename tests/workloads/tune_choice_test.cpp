// How `tfbench tune` picks a class's choice from its interleaved rounds: by each candidate's best
// round. On the 2-core VM a burst of interference over 3 of 5 rounds of an outer-parallel candidate
// made its median slower than the sequential one it is twice as fast as, and the tuning sent a
// 2-thread batch to one thread.

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "tfbench/workloads/tuning.hpp"

using tfbench::BatchStrategy;
using tfbench::ops::ItemProvider;
using tfbench::workloads::choose_fastest;
using tfbench::workloads::drop_slow_candidates;
using tfbench::workloads::TuneCandidate;

TEST_CASE("tune: the fastest round decides, not a median that interference moved", "[tuning]") {
  const double nan = std::nan("");
  std::vector<TuneCandidate> candidates = {
      {ItemProvider::Libxsmm, BatchStrategy::Sequential, nan, 0, "", false},
      {ItemProvider::Libxsmm, BatchStrategy::OuterParallel, nan, 0, "", false},
      {ItemProvider::Blas, BatchStrategy::ProviderItems, nan, 0, "failed its check"},
  };
  // Sequential: 1.0 ms every round. Outer-parallel: 0.52 ms, but the other vCPU was taken in three
  // of the five rounds. The skipped candidate's (impossible) samples must not count.
  const std::vector<std::vector<double>> samples = {
      {1.00e-3, 1.01e-3, 0.99e-3, 1.02e-3, 1.00e-3},
      {0.52e-3, 1.40e-3, 1.45e-3, 0.53e-3, 1.38e-3},
      {0.1e-3},
  };
  const auto choice = choose_fastest(candidates, samples);
  REQUIRE(choice.has_value());
  CHECK(choice->strategy == BatchStrategy::OuterParallel);
  CHECK(candidates[1].best_s == 0.52e-3);
  CHECK(candidates[1].median_s == 1.38e-3);  // still recorded: the spread is part of the record
  CHECK(candidates[0].median_s == 1.00e-3);
  CHECK(candidates[1].decisive_s() == 0.52e-3);
  CHECK(candidates[2].best_s == 0);  // skipped: not timed
  CHECK(candidates[1].label() == "libxsmm/outer-parallel");
  candidates[1].prefetch = true;
  CHECK(candidates[1].label() == "libxsmm+prefetch/outer-parallel");

  // An older file's candidates have no best round: their median decides.
  TuneCandidate old{ItemProvider::Specialized, BatchStrategy::Sequential, 2e-6, 0, ""};
  CHECK(old.decisive_s() == 2e-6);

  // Nothing ran: no choice.
  std::vector<TuneCandidate> none = {{ItemProvider::Blas, BatchStrategy::ProviderItems, nan, 0, "no route"}};
  CHECK_FALSE(choose_fastest(none, {{}}).has_value());
}

TEST_CASE("tune: a candidate is dropped as 3x slower only by its better of two rounds", "[tuning]") {
  const double nan = std::nan("");
  std::vector<TuneCandidate> candidates = {
      {ItemProvider::Libxsmm, BatchStrategy::Sequential, nan, 0, "", false},
      {ItemProvider::Libxsmm, BatchStrategy::OuterParallel, nan, 0, "", false},
      {ItemProvider::Blas, BatchStrategy::ProviderItems, nan, 0, ""},
  };
  // The fan-out's first round hit interference (4x its time); its second is the fastest of all. The
  // per-item BLAS loop is over 3x in both.
  const std::vector<std::vector<double>> samples = {{1.0e-3, 1.0e-3}, {4.0e-3, 0.55e-3}, {3.5e-3, 3.4e-3}};
  drop_slow_candidates(candidates, samples);
  CHECK(candidates[0].skipped.empty());
  CHECK(candidates[1].skipped.empty());
  CHECK(candidates[2].skipped.find("over 3x the fastest in its best of the first 2 rounds") == 0);
  CHECK(candidates[2].best_s == 3.4e-3);
  const auto choice = choose_fastest(candidates, samples);
  REQUIRE(choice.has_value());
  CHECK(choice->strategy == BatchStrategy::OuterParallel);
}
