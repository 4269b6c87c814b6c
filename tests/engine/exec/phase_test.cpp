// The phase lease: one test per property of its contract (docs/sessions.md, Phases). Lanes run on
// the context's own OpenMP threads; a one-thread context runs one inline lane on the caller.
// Catch2 assertions are not thread-safe: lanes and helper threads record, the test thread asserts.

#include <catch2/catch.hpp>

#include <dirent.h>
#include <omp.h>
#include <Kokkos_Core.hpp>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "exec_test_support.hpp"
#include "omp_region.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/exec/outer_lanes.hpp"
#include "tfbench/engine/exec/phase.hpp"

using namespace tfbench;
using tfbench::testing::eventually;
using tfbench::testing::test_backend;
using LaneResult = Result<void, std::string>;

namespace {

// The thread is one the Kokkos OpenMP pool owns: its initializing thread, or a worker that Kokkos
// numbered at initialization (other threads keep hardware id 0).
bool on_kokkos_pool_thread() {
#if defined(KOKKOS_ENABLE_OPENMP)
  return Kokkos::OpenMP::impl_is_initialized() || Kokkos::OpenMP::impl_hardware_thread_id() != 0;
#else
  return false;
#endif
}

int process_threads() {
  int count = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (dirent* entry = readdir(dir)) count += entry->d_name[0] != '.' ? 1 : 0;
    closedir(dir);
  }
  return count;
}

// Sum of (i % 97) over [first, last) on the lane's own space: exact in double.
double lane_sum(Session& session, std::int64_t first, std::int64_t last) {
  return tfbench::testing::with_host_space(session, [&](auto space) {
    double sum = 0;
    Kokkos::parallel_reduce(
        "tfbench::tests::exec::phase_sum", Kokkos::RangePolicy<decltype(space)>(space, first, last),
        [](std::int64_t i, double& acc) { acc += double(i % 97); }, sum);
    return sum;
  });
}

double reference_sum(std::int64_t n) {
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i) sum += double(i % 97);
  return sum;
}

}  // namespace

TEST_CASE("phase_runs_every_lane_and_matches_a_single_threaded_result", "[exec][phase]") {
  auto backend = test_backend();
  auto held = backend.hold();
  REQUIRE(held.ok());
  const std::int64_t n = 200000;
  const auto caller = std::this_thread::get_id();
  std::vector<double> partial;
  std::vector<int> runs;
  std::vector<std::thread::id> ids;
  std::vector<int> on_pool;
  auto result = held.phase([&](Phase& phase) {
    const std::size_t lanes = phase.lanes();
    partial.assign(lanes, 0);
    runs.assign(lanes, 0);
    ids.assign(lanes, std::thread::id());
    on_pool.assign(lanes, 0);
    return phase.run([&](std::size_t lane, PhaseLane& l) -> LaneResult {
      ++runs[lane];
      ids[lane] = std::this_thread::get_id();
      on_pool[lane] = lanes == 1 ? ids[lane] == caller : (omp_get_level() == 1 && on_kokkos_pool_thread());
      const auto range = lane_item_range(static_cast<int>(lane), static_cast<int>(lanes), n);
      partial[lane] = lane_sum(l.session(), range.first, range.second);
      return {};
    });
  });
  REQUIRE(result.has_value());
  REQUIRE(result->has_value());
  REQUIRE(partial.size() == static_cast<std::size_t>(backend.context().threads));
  double total = 0;
  for (double p : partial) total += p;
  REQUIRE(total == reference_sum(n));
  for (int r : runs) REQUIRE(r == 1);
  for (int p : on_pool) REQUIRE(p == 1);
  REQUIRE(std::set<std::thread::id>(ids.begin(), ids.end()).size() == ids.size());
}

TEST_CASE("phase_on_a_one_worker_context_runs_one_lane_on_the_caller", "[exec][phase]") {
  auto backend = CpuBackend::serial();
  auto held = backend.hold();
  REQUIRE(held.ok());
  const int threads_before = process_threads();
  std::thread::id lane_thread;
  int level = -1;
  ExecutionContext lane_context;
  std::size_t lanes = 0;
  auto result = held.phase([&](Phase& phase) {
    lanes = phase.lanes();
    return phase.run([&](std::size_t, PhaseLane& l) -> LaneResult {
      lane_thread = std::this_thread::get_id();
      level = omp_get_level();
      lane_context = l.session().context();
      return {};
    });
  });
  REQUIRE(result.value().has_value());
  REQUIRE(lanes == 1);
  REQUIRE(lane_thread == std::this_thread::get_id());
  REQUIRE(level == 0);  // no parallel region
  REQUIRE(process_threads() == threads_before);
  REQUIRE(lane_context.threads == 1);
  REQUIRE(lane_context.outer_active);
  REQUIRE(held.with_session([](Session& s) { return s.threads(); }).value() == 1);
}

TEST_CASE("phase_rejects_a_caller_inside_its_own_pool", "[exec][phase]") {
  const int pool = tfbench::testing::openmp_pool();
  if (pool < 2) {
    WARN("one OpenMP thread: a one-thread context has no pool to be inside of");
    return;
  }
  auto backend = CpuBackend::openmp();
  auto held = backend.hold();
  REQUIRE(held.ok());
  std::atomic<int> rejected{0}, phases_run{0};
  const int team = tfbench::testing::run_omp_region(pool, [&](int) {
    auto r = held.phase([&](Phase&) { ++phases_run; });
    if (!r && r.error().kind == PhaseErrorKind::WorkerOfTargetPool) ++rejected;
  });
  REQUIRE(team == pool);
  REQUIRE(rejected.load() == team);
  REQUIRE(phases_run.load() == 0);
  REQUIRE(held.phase([](Phase& p) { return p.lanes(); }).value() == static_cast<std::size_t>(pool));
}

TEST_CASE("phase_runs_from_a_foreign_pool_worker", "[exec][phase]") {
  // A worker of a foreign std::thread pool and a worker of a foreign OpenMP team (started from another
  // thread, so it is not the Kokkos pool) both drive a phase on a one-thread context.
  std::atomic<int> admitted{0}, lanes_on_worker{0};
  auto drive = [&] {
    auto backend = CpuBackend::serial();
    auto held = backend.hold();
    if (!held.ok()) return;
    const auto me = std::this_thread::get_id();
    auto r = held.phase([&](Phase& phase) {
      return phase.run([&](std::size_t, PhaseLane&) -> LaneResult {
        if (std::this_thread::get_id() == me) ++lanes_on_worker;
        return {};
      });
    });
    if (r && r->has_value()) ++admitted;
  };
  std::thread pool_worker(drive);
  pool_worker.join();
  std::atomic<int> foreign_team{0};
  std::thread foreign([&] {
    foreign_team = tfbench::testing::run_omp_region(2, [&](int t) {
      if (t == 1) drive();
    });
  });
  foreign.join();
  REQUIRE(foreign_team.load() == 2);
  REQUIRE(admitted.load() == 2);
  REQUIRE(lanes_on_worker.load() == 2);

  // A multi-thread context belongs to the Kokkos pool. Kokkos 3.4 drives it only from the thread that
  // initialized it: holding it elsewhere is a typed executor error, not a hang. Kokkos 4 forks it from
  // any thread outside a parallel region: held there, a phase runs every lane.
  if (tfbench::testing::openmp_pool() >= 2) {
    auto pool_backend = CpuBackend::openmp();
    std::optional<SessionEntryErrorKind> kind;
    std::atomic<int> pool_lanes{0};
    bool pool_phase_ran = false;
    std::thread([&] {
      auto held = pool_backend.hold();
      if (!held.ok()) {
        kind = held.error().kind;
        return;
      }
      auto r = held.phase([&](Phase& p) {
        return p.run([&](std::size_t, PhaseLane&) -> LaneResult {
          ++pool_lanes;
          return {};
        });
      });
      pool_phase_ran = r && r->has_value();
    }).join();
#if KOKKOS_VERSION >= 40000
    REQUIRE_FALSE(kind);
    REQUIRE(pool_phase_ran);
    REQUIRE(pool_lanes.load() == pool_backend.context().threads);
#else
    REQUIRE(kind == SessionEntryErrorKind::Executor);
    REQUIRE(pool_lanes.load() == 0);
#endif
  }
}

TEST_CASE("phase_reports_one_lane_error_after_joining_and_cancels_peers", "[exec][phase]") {
  auto backend = test_backend();
  auto held = backend.hold();
  std::atomic<int> finished{0}, saw_cancel{0}, started{0};
  int finished_at_return = -1;
  std::size_t lanes = 0;
  auto result = held.phase([&](Phase& phase) {
    lanes = phase.lanes();
    auto r = phase.run([&](std::size_t lane, PhaseLane& l) -> LaneResult {
      // Fail only once every peer runs: a peer that arrives after cancellation skips its entry.
      ++started;
      eventually([&] { return started.load() == static_cast<int>(phase.lanes()); });
      if (lane == 0 || lane + 1 == phase.lanes()) {
        ++finished;
        return unexpected("lane " + std::to_string(lane) + " failed");
      }
      if (eventually([&] { return l.cancelled(); })) ++saw_cancel;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ++finished;
      return {};
    });
    finished_at_return = finished.load();
    return r;
  });
  REQUIRE(result.has_value());
  REQUIRE_FALSE(result->has_value());
  REQUIRE(result->error().is_lane());
  const std::string& message = result->error().lane_error();
  REQUIRE((message == "lane 0 failed" || message == "lane " + std::to_string(lanes - 1) + " failed"));
  REQUIRE(finished_at_return == static_cast<int>(lanes));  // joined before returning
  REQUIRE(saw_cancel.load() == static_cast<int>(lanes > 2 ? lanes - 2 : 0));
}

TEST_CASE("phase_joins_every_lane_before_a_lane_panic_surfaces", "[exec][phase]") {
  auto backend = test_backend();
  auto held = backend.hold();
  std::atomic<int> peers_finished{0}, started{0};
  int peers_at_catch = -1;
  std::size_t lanes = 0;
  try {
    (void)held.phase([&](Phase& phase) {
      lanes = phase.lanes();
      return phase.run([&](std::size_t lane, PhaseLane& l) -> LaneResult {
        ++started;
        eventually([&] { return started.load() == static_cast<int>(phase.lanes()); });
        if (lane == 0) throw std::runtime_error("lane 0 panicked");
        eventually([&] { return l.cancelled(); });
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        ++peers_finished;
        return {};
      });
    });
  } catch (const std::runtime_error& e) {
    peers_at_catch = peers_finished.load();
    REQUIRE(std::string(e.what()) == "lane 0 panicked");
  }
  REQUIRE(peers_at_catch == static_cast<int>(lanes) - 1);
  // The session survives the caught unwind.
  REQUIRE(held.with_session([](Session& s) { return lane_sum(s, 0, 1000); }).value() == reference_sum(1000));
  REQUIRE(held.phase([](Phase& p) { return p.run([](std::size_t, PhaseLane&) -> LaneResult { return {}; }); })
              .value()
              .has_value());
}

TEST_CASE("session_failures_take_precedence_over_lane_errors", "[exec][phase]") {
  auto backend = test_backend();
  {
    auto held = backend.hold();
    std::atomic<int> started{0};
    auto result = held.phase([&](Phase& phase) {
      return phase.run([&](std::size_t lane, PhaseLane& l) -> LaneResult {
        ++started;
        eventually([&] { return started.load() == static_cast<int>(phase.lanes()); });
        if (lane + 1 == phase.lanes()) l.session().poison("lane found its scratch corrupted (test)");
        return unexpected(std::string("ordinary lane error"));
      });
    });
    REQUIRE(result.has_value());
    REQUIRE(result->error().is_session());
    REQUIRE(result->error().session_error().kind == SessionEntryErrorKind::ResourcePoisoned);
    // Poisoned resources refuse the held session too, before the callback.
    REQUIRE(held.with_session([](Session&) {}).error().kind == SessionEntryErrorKind::ResourcePoisoned);
  }
  REQUIRE(backend.reset().has_value());
  // A clean run is Ok.
  auto held = backend.hold();
  REQUIRE(held.phase([](Phase& p) { return p.run([](std::size_t, PhaseLane&) -> LaneResult { return {}; }); })
              .value()
              .has_value());
}

TEST_CASE("phase_repeats_on_the_same_lease_after_a_failure", "[exec][phase]") {
  auto backend = test_backend();
  auto held = backend.hold();
  std::atomic<int> second_run_lanes{0};
  auto result = held.phase([&](Phase& phase) {
    auto first =
        phase.run([](std::size_t, PhaseLane&) -> LaneResult { return unexpected(std::string("no")); });
    auto second = phase.run([&](std::size_t, PhaseLane& l) -> LaneResult {
      if (l.cancelled()) return unexpected(std::string("stale cancel flag"));
      ++second_run_lanes;
      return {};
    });
    return !first.has_value() && second.has_value();
  });
  REQUIRE(result.value());
  REQUIRE(second_run_lanes.load() == backend.context().threads);
}

TEST_CASE("phase_leaves_the_session_usable_after_a_caught_lane_failure", "[exec][phase]") {
  auto backend = test_backend();
  auto held = backend.hold();
  auto failed = held.phase([](Phase& p) {
    return p.run(
        [](std::size_t, PhaseLane&) -> LaneResult { return unexpected(std::string("lane failed")); });
  });
  REQUIRE(failed.has_value());
  REQUIRE_FALSE(failed->has_value());
  REQUIRE(held.with_session([](Session& s) { return lane_sum(s, 0, 5000); }).value() == reference_sum(5000));
  std::atomic<int> lanes_run{0};
  REQUIRE(held.phase([&](Phase& p) {
                return p.run([&](std::size_t, PhaseLane&) -> LaneResult {
                  ++lanes_run;
                  return {};
                });
              })
              .value()
              .has_value());
  REQUIRE(lanes_run.load() == backend.context().threads);
}

TEST_CASE("unrelated_owner_is_rejected_while_lanes_run", "[exec][phase]") {
  auto backend = test_backend();
  auto unrelated = tfbench::testing::backend_on(CpuSet::allowed(), Admission::CallerManaged);
  auto held = backend.hold();
  std::optional<SessionEntryErrorKind> unrelated_entry;
  bool unrelated_ran = false;
  std::vector<double> sums;
  auto result = held.phase([&](Phase& phase) {
    sums.assign(phase.lanes(), 0);
    return phase.run([&](std::size_t lane, PhaseLane& l) -> LaneResult {
      if (lane == 0) {
        std::thread([&] {
          auto entry = unrelated.with_session([&](Session&) { unrelated_ran = true; });
          if (!entry) unrelated_entry = entry.error().kind;
        }).join();
      }
      sums[lane] = lane_sum(l.session(), 0, 10000);  // inherited child work succeeds
      return {};
    });
  });
  REQUIRE(result.value().has_value());
  REQUIRE(unrelated_entry == SessionEntryErrorKind::Contended);
  REQUIRE_FALSE(unrelated_ran);
  for (double s : sums) REQUIRE(s == reference_sum(10000));
}

TEST_CASE("phase_lease_is_neither_send_nor_sync", "[exec][phase]") {
  static_assert(!std::is_copy_constructible<Phase>::value && !std::is_move_constructible<Phase>::value, "");
  static_assert(!std::is_copy_assignable<Phase>::value && !std::is_move_assignable<Phase>::value, "");
  static_assert(
      !std::is_copy_constructible<HeldSession>::value && !std::is_move_constructible<HeldSession>::value, "");
  static_assert(
      !std::is_copy_constructible<PhaseLane>::value && !std::is_move_constructible<PhaseLane>::value, "");
  // C++ cannot forbid sharing a reference, so the lease checks its thread at run time.
  auto backend = test_backend();
  auto held = backend.hold();
  std::optional<SessionEntryErrorKind> run_elsewhere, held_elsewhere;
  std::optional<PhaseErrorKind> phase_elsewhere;
  std::atomic<int> lanes_run{0};
  REQUIRE(held.phase([&](Phase& phase) {
                std::thread([&] {
                  auto r = phase.run([&](std::size_t, PhaseLane&) -> LaneResult {
                    ++lanes_run;
                    return {};
                  });
                  if (!r && r.error().is_session()) run_elsewhere = r.error().session_error().kind;
                  auto p = held.phase([](Phase&) {});
                  if (!p) phase_elsewhere = p.error().kind;
                  auto w = held.with_session([](Session&) {});
                  if (!w) held_elsewhere = w.error().kind;
                }).join();
              })
              .has_value());
  REQUIRE(run_elsewhere == SessionEntryErrorKind::IncompatibleContext);
  REQUIRE(phase_elsewhere == PhaseErrorKind::WrongThread);
  REQUIRE(held_elsewhere == SessionEntryErrorKind::IncompatibleContext);
  REQUIRE(lanes_run.load() == 0);
}

TEST_CASE("phase_with_empty_and_skewed_lanes_completes", "[exec][phase]") {
  auto backend = test_backend();
  auto held = backend.hold();
  const int lanes = backend.context().threads;
  // Fewer items than lanes: every lane runs, the unclaimed ones find an empty queue.
  std::atomic<int> next{0}, processed{0}, lanes_run{0}, empty_lanes{0};
  const int few = lanes - 1;
  auto pull = [&](int items, std::vector<double>& out, Session& s) {
    int mine = 0;
    for (int i; (i = next.fetch_add(1)) < items; ++mine) {
      const std::int64_t size = i == 0 ? 64 * 2000 : 2000;  // item 0 is 64x larger than its peers
      out[static_cast<std::size_t>(i)] = lane_sum(s, 0, size);
      ++processed;
    }
    return mine;
  };
  std::vector<double> out_few(static_cast<std::size_t>(std::max(few, 1)), 0), out_skewed(lanes + 3, 0);
  auto result = held.phase([&](Phase& phase) {
    auto empty = phase.run([&](std::size_t, PhaseLane& l) -> LaneResult {
      ++lanes_run;
      if (pull(few, out_few, l.session()) == 0) ++empty_lanes;
      return {};
    });
    const bool first_ok =
        empty.has_value() && lanes_run.load() == lanes && processed.load() == few && empty_lanes.load() >= 1;
    next = 0;
    processed = 0;
    auto skewed = phase.run([&](std::size_t, PhaseLane& l) -> LaneResult {
      pull(lanes + 3, out_skewed, l.session());
      return {};
    });
    return first_ok && skewed.has_value() && processed.load() == lanes + 3;
  });
  REQUIRE(result.value());
  REQUIRE(out_skewed[0] == reference_sum(64 * 2000));
  for (int i = 1; i < lanes + 3; ++i) REQUIRE(out_skewed[static_cast<std::size_t>(i)] == reference_sum(2000));
}

TEST_CASE("phase_bounds_concurrent_lane_execution_by_the_thread_budget", "[exec][phase]") {
  auto backend = test_backend();
  auto held = backend.hold();
  const int budget = backend.context().threads;
  std::atomic<int> active{0}, max_active{0}, arrived{0}, on_pool{0};
  auto result = held.phase([&](Phase& phase) {
    return phase.run([&](std::size_t, PhaseLane& l) -> LaneResult {
      const int now = ++active;
      int seen = max_active.load();
      while (now > seen && !max_active.compare_exchange_weak(seen, now)) {
      }
      ++arrived;
      eventually([&] { return arrived.load() == budget; }, 5.0);  // all lanes run at once
      if (budget == 1 || on_kokkos_pool_thread()) ++on_pool;
      const double s = lane_sum(l.session(), 0, 20000);
      --active;
      return s == reference_sum(20000) ? LaneResult() : LaneResult(unexpected(std::string("wrong sum")));
    });
  });
  REQUIRE(result.value().has_value());
  REQUIRE(max_active.load() == budget);
  REQUIRE(on_pool.load() == budget);
}

TEST_CASE("phase_run_from_inside_its_own_lane_is_rejected_on_every_context_size", "[exec][phase]") {
  // On a one-thread context the lane runs inline on the holding thread; a run from inside it must be
  // refused exactly as on a pool (no nested phase, at most one child session per worker).
  auto check = [](CpuBackend& backend) {
    auto held = backend.hold();
    REQUIRE(held.ok());
    std::atomic<int> inner_lanes{0}, outer_lanes{0};
    std::vector<std::optional<SessionEntryErrorKind>> entry(
        static_cast<std::size_t>(backend.context().threads));
    auto result = held.phase([&](Phase& p) {
      return p.run([&](std::size_t lane, PhaseLane&) -> LaneResult {
        ++outer_lanes;
        auto inner = p.run([&](std::size_t, PhaseLane&) -> LaneResult {
          ++inner_lanes;
          return {};
        });
        if (!inner && inner.error().is_session()) entry[lane] = inner.error().session_error().kind;
        return {};
      });
    });
    REQUIRE(result.has_value());
    REQUIRE(result->has_value());
    REQUIRE(inner_lanes.load() == 0);
    REQUIRE(outer_lanes.load() == backend.context().threads);
    for (const auto& e : entry) REQUIRE(e == SessionEntryErrorKind::IncompatibleContext);
    // The phase still works afterwards.
    REQUIRE(
        held.phase([](Phase& p) { return p.run([](std::size_t, PhaseLane&) -> LaneResult { return {}; }); })
            .value()
            .has_value());
  };
  auto serial = CpuBackend::serial();
  check(serial);
  auto configured = test_backend();
  check(configured);
}
