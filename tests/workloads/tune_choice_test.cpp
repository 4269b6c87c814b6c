// How `tfbench tune` picks a class's choice from its interleaved rounds: by each candidate's best
// round. On the 2-core VM a burst of interference over 3 of 5 rounds of an outer-parallel candidate
// made its median slower than the sequential one it is twice as fast as, and the tuning sent a
// 2-thread batch to one thread.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tfbench/workloads/tuning.hpp"

using tfbench::BatchStrategy;
using tfbench::ops::ItemProvider;
using tfbench::workloads::choose_fastest;
using tfbench::workloads::drop_slow_candidates;
using tfbench::workloads::steady_seconds_per_call;
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
  candidates[1].streaming_stores = true;
  CHECK(candidates[1].label() == "libxsmm+prefetch+nt-stores/outer-parallel");
  candidates[1].streaming_stores = false;  // regular stores chosen explicitly: the plain label
  CHECK(candidates[1].label() == "libxsmm+prefetch/outer-parallel");
  TuneCandidate narrow{ItemProvider::Specialized, BatchStrategy::Sequential, nan, 0, ""};
  narrow.narrow_vectors = true;  // the specialized kernel's 256-bit width
  CHECK(narrow.label() == "specialized+256-bit/sequential");
  CHECK(narrow.choice().narrow_vectors == std::optional<bool>(true));

  // An older file's candidates have no best round: their median decides.
  TuneCandidate old{ItemProvider::Specialized, BatchStrategy::Sequential, 2e-6, 0, ""};
  CHECK(old.decisive_s() == 2e-6);

  // Nothing ran: no choice.
  std::vector<TuneCandidate> none = {{ItemProvider::Blas, BatchStrategy::ProviderItems, nan, 0, "no route"}};
  CHECK_FALSE(choose_fastest(none, {{}}).has_value());
}

TEST_CASE("tune: streaming stores must win beyond their spread over the same route's regular stores",
          "[tuning]") {
  const double nan = std::nan("");
  auto candidates = [nan] {
    return std::vector<TuneCandidate>{
        {ItemProvider::Libxsmm, BatchStrategy::OuterParallel, nan, 0, "", true, 0, true},
        {ItemProvider::Libxsmm, BatchStrategy::OuterParallel, nan, 0, "", true, 0, false},
        {ItemProvider::Specialized, BatchStrategy::OuterParallel, nan, 0, "", std::nullopt, 0, false},
    };
  };
  // The tune of 2026-12-05 (n = 16 from DRAM, two threads): streaming stores 4.12 ms best, 4.25
  // median; regular 4.20 best. The run an hour later took 5.25 ms with them, 4.47 without.
  std::vector<TuneCandidate> tied = candidates();
  const auto regular =
      choose_fastest(tied, {{4.12e-3, 4.25e-3, 4.40e-3}, {4.20e-3, 4.42e-3, 4.50e-3}, {6e-3}});
  REQUIRE(regular.has_value());
  CHECK(regular->provider == ItemProvider::Libxsmm);
  CHECK_FALSE(regular->streaming_stores.value_or(false));
  CHECK(regular->prefetch == true);
  // Beyond the spread (the twin's best above the streaming route's median): streaming stores stand.
  std::vector<TuneCandidate> apart = candidates();
  const auto streaming =
      choose_fastest(apart, {{3.60e-3, 3.70e-3, 3.80e-3}, {4.20e-3, 4.42e-3, 4.50e-3}, {6e-3}});
  REQUIRE(streaming.has_value());
  CHECK(streaming->streaming_stores == true);
  // Set aside in a tie, streaming stores leave the choice to every other candidate, not to their
  // twin alone: run g's class of n = 16 at 2 MiB, two threads (Zen 2, 2026-12-05), where the twin of
  // the fastest round (prefetch off) had the slowest median of the four (46.1 us against 41.0).
  std::vector<TuneCandidate> run_g = {
      {ItemProvider::Libxsmm, BatchStrategy::OuterParallel, nan, 0, "", true, 0, true},
      {ItemProvider::Libxsmm, BatchStrategy::OuterParallel, nan, 0, "", true, 0, false},
      {ItemProvider::Libxsmm, BatchStrategy::OuterParallel, nan, 0, "", false, 0, true},
      {ItemProvider::Libxsmm, BatchStrategy::OuterParallel, nan, 0, "", false, 0, false},
  };
  const auto g = choose_fastest(run_g, {{40.45e-6, 41.02e-6, 41.5e-6},
                                        {41.79e-6, 43.22e-6, 44.0e-6},
                                        {40.24e-6, 43.73e-6, 44.5e-6},
                                        {43.63e-6, 46.1e-6, 47.0e-6}});
  REQUIRE(g.has_value());
  CHECK(g->prefetch == true);
  CHECK(g->streaming_stores == true);
  // Only the twin counts: another provider as fast as the median does not undo the choice.
  std::vector<TuneCandidate> other = candidates();
  const auto still =
      choose_fastest(other, {{3.60e-3, 3.70e-3, 3.80e-3}, {4.20e-3, 4.42e-3, 4.50e-3}, {3.65e-3}});
  REQUIRE(still.has_value());
  CHECK(still->streaming_stores == true);
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

TEST_CASE("tune: the L2's classes include its top octave and the LLC's its bottom one", "[tuning]") {
  using tfbench::ops::MemoryLevel;
  using tfbench::workloads::target_bytes;
  // The Xeon's caches at two threads: two 2 MiB L2s, one 105 MiB LLC.
  const tfbench::ops::CacheSizes one_core{48.0 * 1024, 2.0 * 1048576, 105.0 * 1048576};
  const auto caches = tfbench::ops::caches_for_threads(one_core, 2);
  const double dram = 256.0 * 1048576;
  const std::vector<double> l2 = target_bytes(MemoryLevel::L2, caches, dram, 3);
  REQUIRE(l2.size() == 3);  // two ladder sizes (a range of 40x: one per factor of 8), then the edge
  CHECK(std::is_sorted(l2.begin(), l2.end()));
  CHECK(l2.front() > caches.l1_bytes);
  CHECK(l2[1] < caches.l2_bytes / 2);         // the ladder stops at its last part's middle ...
  CHECK(l2.back() > caches.l2_bytes / 2);     // ... the edge is in the top octave
  CHECK(l2.back() < 0.75 * caches.l2_bytes);  // (capacity / sqrt 2)
  // The 512-item 16 x 16 f64 batch (3 MiB) at two threads is nearest the edge, not the ladder's top.
  CHECK(std::abs(std::log(3.0 * 1048576 / l2.back())) < std::log(1.1));
  // One size per level means the level's middle only.
  const std::vector<double> one = target_bytes(MemoryLevel::L2, caches, dram, 1);
  REQUIRE(one.size() == 1);
  CHECK(one[0] == Approx(std::sqrt(caches.l1_bytes * caches.l2_bytes)));
  CHECK(target_bytes(MemoryLevel::LLC, caches, dram, 1).size() == 1);
  // The LLC: its bottom octave (the two L2s x sqrt 2, where operands have just left them), then the
  // ladder (a range of 26x: two sizes); not its top octave.
  const std::vector<double> llc = target_bytes(MemoryLevel::LLC, caches, dram, 3);
  REQUIRE(llc.size() == 3);
  CHECK(std::is_sorted(llc.begin(), llc.end()));
  CHECK(llc.front() == Approx(caches.l2_bytes * std::sqrt(2.0)));
  CHECK(llc[1] > 1.5 * llc.front());
  CHECK(llc.back() < caches.llc_bytes / 2);
  // One thread: the 512-item 16 x 16 f64 batch (3 MiB) is nearest the LLC's bottom class (2.83 MiB).
  const std::vector<double> llc1 = target_bytes(MemoryLevel::LLC, one_core, dram, 3);
  CHECK(std::abs(std::log(3.0 * 1048576 / llc1.front())) < std::log(1.1));
  CHECK(target_bytes(MemoryLevel::L1, caches, dram, 3) == std::vector<double>{caches.l1_bytes / 2});
  CHECK(target_bytes(MemoryLevel::DRAM, caches, dram, 3) == std::vector<double>{dram});
  // A narrow L2 (4x its L1): the ladder's one size is within 1.5x of the edge, no edge class is added.
  const tfbench::ops::CacheSizes narrow{64.0 * 1024, 256.0 * 1024, 8.0 * 1048576};
  CHECK(target_bytes(MemoryLevel::L2, narrow, dram, 3).size() == 1);
  // The Zen 2 VM's (16x): the ladder's last size is the L2's half, 1.41x below the edge; a range
  // this wide still gets a class in its top octave.
  const tfbench::ops::CacheSizes zen2{32.0 * 1024, 512.0 * 1024, 16.0 * 1048576};
  const std::vector<double> wide = target_bytes(MemoryLevel::L2, zen2, dram, 3);
  REQUIRE(wide.size() == 3);
  CHECK(wide[1] == Approx(zen2.l2_bytes / 2));
  CHECK(wide.back() == Approx(zen2.l2_bytes / std::sqrt(2.0)));
  // A full tune measures the LLC's top octave too (capacity / sqrt 2): the 512-item 32 x 32 f64 batch
  // (12 MiB) is nearest it there, where libxsmm's streaming stores begin to pay, and nearest the
  // ladder's last size (6.7 MiB, where they do not) without it.
  const std::vector<double> llc_full = target_bytes(MemoryLevel::LLC, zen2, dram, 3, true);
  const std::vector<double> llc_quick = target_bytes(MemoryLevel::LLC, zen2, dram, 3);
  REQUIRE(llc_full.size() == llc_quick.size() + 1);
  CHECK(std::equal(llc_quick.begin(), llc_quick.end(), llc_full.begin()));
  CHECK(llc_full.back() == Approx(zen2.llc_bytes / std::sqrt(2.0)));
  const double batch_32 = 3.0 * 32 * 32 * 8 * 512;
  const auto nearest = [&](const std::vector<double>& sizes) {
    return *std::min_element(sizes.begin(), sizes.end(), [&](double x, double y) {
      return std::abs(std::log(batch_32 / x)) < std::abs(std::log(batch_32 / y));
    });
  };
  CHECK(nearest(llc_full) == Approx(zen2.llc_bytes / std::sqrt(2.0)));
  CHECK(nearest(llc_quick) < 0.5 * zen2.llc_bytes);
  // Not where the ladder already reaches the top octave, nor with one size per level.
  CHECK(target_bytes(MemoryLevel::LLC, zen2, dram, 1, true).size() == 1);
}

TEST_CASE(
    "tune: a class measured on a busy host is measured again, at once and after the other classes, "
    "and marked when it stays busy",
    "[tuning]") {
  tfbench::workloads::TuneOptions o;
  o.space = tfbench::ExecSpaceKind::Serial;
  o.threads = 1;
  o.item_dims = {4};
  o.levels = {tfbench::ops::MemoryLevel::L1};
  o.dtypes = {tfbench::DType::F64};
  o.solve = false;
  o.rounds = 1;
  o.min_time_s = 1e-4;
  o.caches = tfbench::workloads::detect_cache_sizes();
  std::vector<std::string> lines;
  const auto progress = [&](const std::string& line) { lines.push_back(line); };

  o.busy_share = -1.0;  // every attempt counts as busy
  o.busy_retries = 1;
  const auto busy = tfbench::workloads::tune_batched(o, progress);
  REQUIRE_FALSE(busy.empty());
  for (const auto& r : busy) {
    // The first and one retry, then both again once every other class is measured: a burst of other
    // work spans retries seconds apart.
    CHECK(r.attempts == 4);
    CHECK(r.busy_host);
    CHECK(r.choice.has_value());  // still measured and recorded: the file keeps it, Auto does not use it
  }
  REQUIRE(lines.size() == 2 * busy.size());  // a line per class, and one per class measured again
  CHECK(lines[0].find("(host still busy: other work") != std::string::npos);
  CHECK(lines[0].find("2 attempts, not used by Auto)") != std::string::npos);
  CHECK(lines.back().find("4 attempts, not used by Auto) [measured again after the other classes]") !=
        std::string::npos);

  o.busy_share = 2.0;  // no load is above 200%: one attempt
  lines.clear();
  const auto quiet = tfbench::workloads::tune_batched(o, progress);
  REQUIRE(quiet.size() == busy.size());
  for (const auto& r : quiet) {
    CHECK(r.attempts == 1);
    CHECK_FALSE(r.busy_host);
  }
  CHECK(lines.size() == quiet.size());  // nothing measured again
  CHECK(lines[0].find("host") == std::string::npos);
}

TEST_CASE("tune: a sample times the candidate's repeated calls, not the call after another candidate's",
          "[tuning]") {
  // With no minimum time: the untimed call, then one timed. The first call alone would time the
  // transition from the previous candidate (streaming stores read 11% faster that way and 13%
  // slower in the run).
  int calls = 0;
  const double s = steady_seconds_per_call([&] { ++calls; }, 0.0);
  CHECK(calls == 2);
  CHECK(s >= 0.0);
  // Then calls repeat until the minimum time passed.
  calls = 0;
  steady_seconds_per_call([&] { ++calls; }, 1e-3);
  CHECK(calls >= 3);
}

TEST_CASE("tune: the specialized kernel is measured with and without its prefetch where the items have one",
          "[tuning]") {
  using tfbench::ops::BatchedFamily;
  using tfbench::ops::MemoryLevel;
  using tfbench::workloads::candidates_of;
  const auto specialized = [](const std::vector<TuneCandidate>& all) {
    std::vector<TuneCandidate> out;
    for (const TuneCandidate& c : all)
      if (c.provider == ItemProvider::Specialized) out.push_back(c);
    return out;
  };
  // 16 x 16 f64 items from DRAM at two threads: each strategy and store with the prefetch off and on,
  // each said explicitly (unset, a route would take the built-in rule and measure one of them twice).
  const auto with = specialized(candidates_of(BatchedFamily::Gemm, 2, MemoryLevel::DRAM, false, true));
  CHECK(with.size() == 8);
  for (bool prefetch : {false, true})
    for (bool stream : {false, true})
      for (BatchStrategy strategy : {BatchStrategy::Sequential, BatchStrategy::OuterParallel}) {
        CAPTURE(prefetch, stream, tfbench::name(strategy));
        CHECK(std::count_if(with.begin(), with.end(), [&](const TuneCandidate& c) {
                return c.prefetch == std::optional<bool>(prefetch) &&
                       c.streaming_stores == std::optional<bool>(stream) && c.strategy == strategy;
              }) == 1);
      }
  TuneCandidate ahead = with.back();
  CHECK(ahead.label() == "specialized+prefetch+nt-stores/outer-parallel");
  // Items without a prefetching kernel: the specialized candidates leave the prefetch unset.
  const auto without = specialized(candidates_of(BatchedFamily::Gemm, 2, MemoryLevel::DRAM, false, false));
  CHECK(without.size() == 4);
  CHECK(std::all_of(without.begin(), without.end(), [](const TuneCandidate& c) { return !c.prefetch; }));
  // A solve's specialized candidates: no prefetch, no stores.
  const auto solve = specialized(candidates_of(BatchedFamily::Solve, 1, MemoryLevel::L2, false, false));
  REQUIRE(solve.size() == 1);
  CHECK_FALSE(solve[0].prefetch.has_value());
}
