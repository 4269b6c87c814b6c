// The run's time estimate and its progress output: the estimate follows the plan's settings, the
// time left scales by what the finished part took, and a non-terminal output never rewrites a line.

#include "run/progress.hpp"
#include "tfbench/harness/plan.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <sstream>
#include <thread>

namespace tfbench::harness {
namespace {

workloads::VariantInfo variant(const std::string& name, std::optional<std::string> unavailable = {}) {
  workloads::VariantInfo v;
  v.name = name;
  v.unavailable = std::move(unavailable);
  return v;
}

/// Two thread configurations, each with one case of two runnable variants and one skipped.
RunPlan synthetic_plan() {
  RunPlan plan;
  for (int threads : {1, 2}) {
    WorkerPlan w;
    w.threads = threads;
    CaseGroup g;
    g.group_id = "fake/n=1";
    g.repetitions = 5;
    g.min_time = 0.1;
    g.variants = {variant("a"), variant("b"), variant("c", "no route here")};
    w.groups.push_back(g);
    plan.workers.push_back(w);
  }
  return plan;
}

TEST_CASE(
    "the estimate is repetitions x min_time and calibration per runnable row, one more per case and "
    "reference of the ceilings beside it, plus the workers",
    "[estimate]") {
  const EstimateCosts costs;
  const RunEstimate e = estimate_run(synthetic_plan(), true, costs);
  CHECK(e.ceilings_measured == 2);
  CHECK(e.workers == 2);
  CHECK(e.measured == 4);
  CHECK(e.skipped == 2);
  // 4 x ((5 + 2.5) x 0.1 s + set-up) + 2 skipped rows.
  CHECK(e.rows_s == Catch::Detail::Approx(4 * (0.75 + costs.row_setup_s) + 2 * costs.skipped_row_s));
  CHECK(e.workers_s == Catch::Detail::Approx(2 * (costs.worker_start_s + costs.ceilings_s)));
  // One case per configuration, each timing a ceiling beside its rows like one more row; at two
  // threads the handoff and one thread's ceiling too.
  CHECK(e.beside_s == Catch::Detail::Approx((1 + 3) * (0.75 + costs.row_setup_s)));
  CHECK(e.total_s() == Catch::Detail::Approx(e.rows_s + e.beside_s + e.workers_s));
  const RunEstimate no_ceilings = estimate_run(synthetic_plan(), false, costs);
  CHECK(no_ceilings.workers_s == Catch::Detail::Approx(2 * costs.worker_start_s));
  CHECK(no_ceilings.beside_s == 0.0);
  CHECK(describe(no_ceilings).find("beside") == std::string::npos);
  CHECK(describe(e).rfind("about 16.2", 0) == 0);  // 3.04 s of rows, 3.04 beside, 2 x (0.05 + 5) of workers
  CHECK(describe(e).find("; the ceilings beside them: 3.04 s;") != std::string::npos);
  CHECK(describe(e).find("2 worker start(s) with ceilings") != std::string::npos);
  // Cached ceilings cost nothing: here the 1-thread configuration's are in the cache.
  const RunEstimate cached = estimate_run(
      synthetic_plan(), [](const WorkerPlan& w) { return w.threads != 1; }, true, costs);
  CHECK(cached.ceilings_measured == 1);
  CHECK(cached.workers_s == Catch::Detail::Approx(2 * costs.worker_start_s + costs.ceilings_s));
  CHECK(describe(cached).find("2 worker start(s), 1 measuring ceilings, the others cached") !=
        std::string::npos);
  const RunEstimate all_cached = estimate_run(
      synthetic_plan(), [](const WorkerPlan&) { return false; }, true, costs);
  CHECK(all_cached.workers_s == Catch::Detail::Approx(2 * costs.worker_start_s));
  CHECK(describe(all_cached).find("2 worker start(s), ceilings cached:") != std::string::npos);
  CHECK(describe(no_ceilings).find("2 worker start(s):") != std::string::npos);
  CHECK(describe(e).find("4 row(s) to measure") != std::string::npos);
  CHECK(describe(e).find("2 skipped") != std::string::npos);
}

TEST_CASE("durations read as people say them", "[estimate]") {
  CHECK(format_duration(0.85) == "850 ms");
  CHECK(format_duration(42.0) == "42 s");
  CHECK(format_duration(200.0) == "3 min 20 s");
  CHECK(format_duration(7500.0) == "2 h 05 min");
}

ResultRow finished(const std::string& variant) {
  ResultRow r;
  r.case_id = "fake/n=1/" + variant;
  r.variant = variant;
  r.status = RowStatus::Skipped;
  r.error = "not here";
  return r;
}

TEST_CASE("output that is not a terminal gets plain progress lines and no carriage return", "[progress]") {
  std::ostringstream out;
  impl::Progress progress(out, nullptr, 3, 10.0, 0.0);  // a progress line after every row
  progress.note("worker 1: threads=1 openmp");
  progress.activity("threads=1 openmp fake/n=1/a (timing)");
  progress.done(finished("a"), 1.0);
  progress.done(finished("b"), 1.0);
  progress.tick(true);
  progress.done(finished("c"), 1.0);
  progress.finish();
  const std::string text = out.str();
  CHECK(text.find('\r') == std::string::npos);
  CHECK(text.find("\033[") == std::string::npos);
  CHECK(text.find("[1/3] fake/n=1/a") != std::string::npos);
  CHECK(text.find("progress: 1 of 3 rows in ") != std::string::npos);
  CHECK(text.find("progress: 2 of 3 rows in ") != std::string::npos);
  CHECK(text.find(" left\n") != std::string::npos);
  CHECK(text.find("progress: 3 of 3") == std::string::npos);  // finished: the summary follows
}

TEST_CASE("on a terminal the status line is rewritten on its own stream, rows stay plain", "[progress]") {
  std::ostringstream out, status;
  impl::Progress progress(out, &status, 2, 10.0);
  progress.activity("threads=1 openmp fake/n=1/a (timing)");
  progress.done(finished("a"), 1.0);
  progress.finish();
  CHECK(out.str().find('\r') == std::string::npos);
  CHECK(out.str().find("progress:") == std::string::npos);
  CHECK(status.str().find("\r\033[K") != std::string::npos);
  CHECK(status.str().find("case 2 of 2") != std::string::npos);
  CHECK(status.str().find(" left") != std::string::npos);
}

TEST_CASE("the time left is the estimate, then scales by how long the finished part took", "[progress]") {
  std::ostringstream out;
  impl::Progress progress(out, nullptr, 4, 100.0);
  CHECK(progress.remaining() <= 100.0);
  CHECK(progress.remaining() > 99.0);
  progress.worker_ready(50.0);
  // Half the estimate done in (much) less than its 50 s: the other half takes as little.
  const double left = progress.remaining();
  const double after = progress.elapsed();
  CHECK(left > 0.0);
  CHECK(left <= after);
  progress.done(finished("a"), 10.0);
  const double left_now = progress.remaining();
  CHECK(left_now <= progress.elapsed() * 40.0 / 60.0);
}

TEST_CASE("a slow finished part scales the time left by at most 4x (a case killed at its limit)",
          "[progress]") {
  std::ostringstream out;
  impl::Progress progress(out, nullptr, 4, 0.004);
  progress.worker_ready(0.001);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // 1 ms of the estimate took >= 50 ms: unclamped, 3 ms left would read as >= 150 ms.
  CHECK(progress.remaining() <= 4.0 * 0.003 + 1e-9);
  CHECK(progress.remaining() >= 0.003);
}

TEST_CASE("a row timed while other work took more than a tenth of the CPUs says so", "[progress]") {
  auto ok = [](const std::string& variant, const std::string& metrics) {
    ResultRow r = finished(variant);
    r.status = RowStatus::Ok;
    r.error.clear();
    r.median_s = 1e-3;
    r.metrics = metrics;
    return r;
  };
  std::ostringstream out;
  impl::Progress progress(out, nullptr, 4, 10.0);
  progress.done(ok("quiet", R"({"host.other_cpu":0.02,"host.steal":0.01})"), 1.0);
  progress.done(ok("busy", R"({"host.other_cpu":0.35,"host.steal":0.01,"route.lanes":2})"), 1.0);
  progress.done(ok("stolen", R"({"host.other_cpu":0.0,"host.steal":0.2})"), 1.0);
  progress.done(ok("unmeasured", "{}"), 1.0);
  const std::string text = out.str();
  const auto line = [&](const std::string& variant) {
    const auto at = text.find("fake/n=1/" + variant);
    return text.substr(at, text.find('\n', at) - at);
  };
  CHECK(line("quiet").find("busy host") == std::string::npos);
  CHECK(line("busy").find("on a busy host (other work 35% of the worker's CPUs, steal 1") !=
        std::string::npos);
  CHECK(line("stolen").find("steal 20") != std::string::npos);
  CHECK(line("unmeasured").find("busy host") == std::string::npos);
  CHECK(line("busy").find(", ok") != std::string::npos);
}

}  // namespace
}  // namespace tfbench::harness
