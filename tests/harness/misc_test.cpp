// The worker protocol and its JSON, fault-injection rules and derived row fields.

#include "run/protocol.hpp"
#include "tfbench/harness/fault_inject.hpp"
#include "tfbench/harness/rows.hpp"
#include "tfbench/harness/sha256.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace tfbench::harness;

TEST_CASE("parameters survive the worker protocol with their types", "[protocol]") {
  tfbench::workloads::Params p;
  p.set("n", std::int64_t{4});
  p.set("x", 2.0);
  p.set("flag", true);
  p.set("mode", std::string("fast"));
  // The `params` column: keys in std::map order, 2.0 stays a double. Files written before nlohmann
  // hold this same text.
  const std::string text = dump_json(Json(p));
  CHECK(text == R"({"flag":true,"mode":"fast","n":4,"x":2.0})");
  CHECK(impl::parse_message(text).get<tfbench::workloads::Params>().values() == p.values());
  CHECK_THROWS_WITH(impl::parse_message(R"({"n":[1]})").get<tfbench::workloads::Params>(),
                    Catch::Contains("parameter 'n' has no scalar value"));

  impl::WorkerJob job;
  job.space = tfbench::ExecSpaceKind::Serial;
  job.threads = 3;
  job.seed = 99;
  tfbench::workloads::Ceilings ceilings;
  ceilings.peak_f64.best = 10.0;
  ceilings.level(tfbench::ops::MemoryLevel::DRAM) = {20.0, 19.0, 18.0, 5, 1e9};
  ceilings.caches = {48e3, 2e6, 3e8};
  ceilings.threads = 3;
  job.ceilings = ceilings;
  tfbench::workloads::Ceilings one_thread = ceilings;
  one_thread.threads = 1;
  one_thread.peak_f64.best = 4.0;
  job.one_thread_ceilings = one_thread;
  impl::JobCase c;
  c.index = 7;
  c.family = "fake";
  c.params = p;
  c.group_id = "fake/x";
  tfbench::workloads::VariantInfo a, b;
  a.name = "engine:auto";
  a.provider = "tfbench";
  a.strategy = "auto";
  b.name = "peer:none";
  b.kind = tfbench::workloads::VariantKind::Peer;
  b.provider = "none";
  b.unavailable = "not installed";
  c.variants = {a, b};
  c.repetitions = 4;
  c.min_time = 0.25;
  job.cases.push_back(c);
  const auto j2 = impl::parse_message(dump_json(Json(job))).get<impl::WorkerJob>();
  CHECK(j2.space == tfbench::ExecSpaceKind::Serial);
  CHECK(j2.threads == 3);
  CHECK(j2.seed == 99);
  REQUIRE(j2.ceilings);
  CHECK(j2.ceilings->gbs() == 20.0);
  CHECK(j2.ceilings->level(tfbench::ops::MemoryLevel::DRAM).worst == 18.0);
  CHECK(j2.ceilings->caches.l2_bytes == 2e6);
  CHECK(j2.ceilings->threads == 3);
  CHECK(std::isnan(j2.ceilings->peak_f32.best));  // not measured: null in the job, NaN again
  REQUIRE(j2.one_thread_ceilings);
  CHECK(j2.one_thread_ceilings->threads == 1);
  CHECK(j2.one_thread_ceilings->peak_f64.best == 4.0);
  REQUIRE(j2.cases.size() == 1);
  CHECK(j2.cases[0].index == 7);
  CHECK(j2.cases[0].params.values() == p.values());
  // The variants travel with the facts the worker's dry query decided: nothing is decided again.
  const auto facts = [](const tfbench::workloads::VariantInfo& v) {
    return std::make_tuple(v.name, v.kind, v.provider, v.strategy, v.unavailable);
  };
  REQUIRE(j2.cases[0].variants.size() == 2);
  CHECK(facts(j2.cases[0].variants[0]) == facts(a));
  CHECK(facts(j2.cases[0].variants[1]) == facts(b));
  Json odd = Json(b);
  odd["kind"] = "wizard";
  CHECK_THROWS_WITH(odd.get<tfbench::workloads::VariantInfo>(),
                    Catch::Contains("unknown variant kind 'wizard'"));
  CHECK(j2.cases[0].min_time == 0.25);

  // No ceilings: the members are left out and come back as none, not as NaN ceilings.
  job.ceilings.reset();
  job.one_thread_ceilings.reset();
  const Json without = Json(job);
  CHECK_FALSE(without.contains("ceilings"));
  CHECK_FALSE(without.contains("one_thread_ceilings"));
  CHECK_FALSE(impl::parse_message(dump_json(without)).get<impl::WorkerJob>().ceilings);
  CHECK_FALSE(impl::parse_message(dump_json(without)).get<impl::WorkerJob>().one_thread_ceilings);
  CHECK_THROWS_WITH(impl::parse_message(R"({"space":"nowhere"})").at("space").get<tfbench::ExecSpaceKind>(),
                    Catch::Contains("unknown execution space 'nowhere'"));
}

TEST_CASE("worker messages: NaN survives as null, every field is required", "[protocol]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Ceilings not measured are NaN; so is the error of a check that computed NaN.
  const std::string ceilings =
      dump_json(impl::message("ceilings", {{"gflops", nan}, {"gbs", 2.5}, {"seconds", 0.0}}));
  CHECK(ceilings == R"({"gbs":2.5,"gflops":null,"msg":"ceilings","seconds":0.0})");
  const Json back = impl::parse_message(ceilings);
  CHECK(std::isnan(back.at("gflops").get<double>()));
  CHECK(back.at("gbs").get<double>() == 2.5);
  // Ceilings that were never measured travel as nulls and read back as NaN, in a message or not.
  const Json none = Json(tfbench::workloads::Ceilings{});
  CHECK(none.at("peak_f64").at("best").is_null());
  CHECK(std::isnan(none.get<tfbench::workloads::Ceilings>().gflops()));

  ResultRow o;
  o.variant = "engine:auto";
  o.status = RowStatus::CheckFailed;
  o.error = std::string("bad byte \xff here");  // not UTF-8: written anyway (U+FFFD)
  o.samples = {1e-5, 0.125};
  o.iterations = 3;
  o.max_rel_error = nan;
  o.metrics = dump_json(Json(std::map<std::string, double>{{"ratio", 1.5}, {"count", 2.0}}));
  const std::string rows = dump_json(impl::message("rows", {{"case", 4}, {"rows", {o}}}));
  const auto outcomes = impl::parse_message(rows).at("rows").get<std::vector<ResultRow>>();
  REQUIRE(outcomes.size() == 1);
  CHECK(outcomes[0].status == RowStatus::CheckFailed);
  CHECK(outcomes[0].error == "bad byte \xef\xbf\xbd here");
  CHECK(outcomes[0].samples == o.samples);
  CHECK(outcomes[0].iterations == 3);
  CHECK(std::isnan(outcomes[0].max_rel_error));
  CHECK(outcomes[0].metrics == R"({"count":2.0,"ratio":1.5})");  // the `metrics` column
  CHECK(outcomes[0].beside_rounds.bandwidth_gbs.empty());        // nothing measured beside: none sent
  // What the worker measured beside the row round by round reaches the parent, a round's NaN as NaN.
  o.beside_rounds.bandwidth_gbs = {60.0, nan};
  o.beside_rounds.handoff_us = {0.07, 0.45};
  const auto paired = impl::parse_message(dump_json(impl::message("rows", {{"case", 4}, {"rows", {o}}})))
                          .at("rows")
                          .get<std::vector<ResultRow>>();
  REQUIRE(paired[0].beside_rounds.bandwidth_gbs.size() == 2);
  CHECK(paired[0].beside_rounds.bandwidth_gbs[0] == 60.0);
  CHECK(std::isnan(paired[0].beside_rounds.bandwidth_gbs[1]));
  CHECK(paired[0].beside_rounds.handoff_us == o.beside_rounds.handoff_us);
  CHECK(paired[0].beside_rounds.peak_gflops.empty());
  // The row travels with the columns of the file, by their names; each is required, and a status
  // must be one the file format knows.
  Json wire = impl::parse_message(rows).at("rows").at(0);
  CHECK(wire.at("status") == "check_failed");
  CHECK(wire.contains("case_timeout_s"));
  wire["status"] = "exploded";
  CHECK_THROWS_WITH(wire.get<ResultRow>(), Catch::Contains("unknown status 'exploded'"));
  wire.erase("status");
  CHECK_THROWS_WITH(wire.get<ResultRow>(), Catch::Contains("key 'status' not found"));

  // Malformed lines throw nlohmann's exceptions, which the supervisor reports and skips.
  CHECK_THROWS_AS(impl::parse_message("{\"msg\":"), Json::parse_error);
  CHECK_THROWS_AS(impl::parse_message("NaN"), Json::parse_error);
  Json hello = impl::message("hello", impl::Hello{});
  hello.erase("why");
  CHECK_THROWS_WITH(hello.get<impl::Hello>(), Catch::Contains("key 'why' not found"));
  hello["why"] = 3;
  CHECK_THROWS_AS(hello.get<impl::Hello>(), Json::type_error);
}

TEST_CASE("fault-injection rules", "[fault]") {
  const FaultPlan plan = FaultPlan::parse("crash:fam/n=1,m=2/peer:*;delay:*/engine:auto:250;abort:other/*");
  REQUIRE(plan.rules().size() == 3);
  CHECK(plan.fault_before("fam/n=1,m=2/peer:x") == FaultPlan::Kind::Crash);
  CHECK(plan.fault_before("fam/n=1,m=2/engine:auto") == std::nullopt);
  CHECK(plan.fault_before("other/x") == FaultPlan::Kind::Abort);
  CHECK(plan.delay_us("fam/n=1/engine:auto") == 250.0);
  CHECK(plan.delay_us("fam/n=1/peer:x") == 0.0);
  CHECK(FaultPlan::parse("").empty());
  CHECK_THROWS_AS(FaultPlan::parse("explode:*"), std::invalid_argument);
  CHECK_THROWS_AS(FaultPlan::parse("delay:*"), std::invalid_argument);
  CHECK_THROWS_AS(FaultPlan::parse("delay:*:-5"), std::invalid_argument);
  CHECK_THROWS_AS(FaultPlan::parse("crash:"), std::invalid_argument);
}

TEST_CASE("derived fields: statistics, rates, ceilings and the fastest peer", "[rows]") {
  auto make = [](const std::string& variant, const std::string& kind, std::vector<double> samples) {
    ResultRow r;
    r.group_id = "f/n=1";
    r.case_id = r.group_id + "/" + variant;
    r.variant = variant;
    r.variant_kind = kind;
    r.status = RowStatus::Ok;
    r.samples = std::move(samples);
    r.flops = 2e9;
    r.bytes = 4e9;
    return r;
  };
  std::vector<ResultRow> rows = {make("engine", "engine", {1.0, 1.0, 1.0}),
                                 make("peer:a", "peer", {2.0, 2.0}), make("peer:b", "peer", {0.5, 0.5}),
                                 make("peer:c", "peer", {0.1})};
  rows[3].status = RowStatus::CheckFailed;  // a failed peer is never the fastest
  tfbench::workloads::Ceilings ceilings;
  ceilings.peak_f64.best = 4.0;
  ceilings.level(tfbench::ops::MemoryLevel::DRAM).best = 2.0;
  ceilings.caches = {32e3, 1e6, 8e6};
  ceilings.threads = 1;
  derive_case_fields(rows, &ceilings);
  CHECK(rows[0].median_s == 1.0);
  CHECK(rows[0].gflops == Catch::Detail::Approx(2.0));
  CHECK(rows[0].gbs == Catch::Detail::Approx(4.0));
  CHECK(rows[0].frac_compute_ceiling == Catch::Detail::Approx(0.5));
  CHECK(rows[0].frac_bandwidth_ceiling == Catch::Detail::Approx(2.0));
  CHECK(rows[0].fastest_peer == "peer:b");
  CHECK(rows[0].speedup_vs_fastest_peer == Catch::Detail::Approx(0.5));
  CHECK(rows[2].speedup_vs_fastest_peer == Catch::Detail::Approx(1.0));
  CHECK(rows[1].repetitions == 2);
  CHECK(std::isnan(rows[3].median_s));
  CHECK(std::isnan(rows[3].speedup_vs_fastest_peer));
  const HeadlineRate rate = headline_rate(rows[0]);
  CHECK(rate.unit == "GB/s");  // closer to its ceiling than the flops
  CHECK(format_rate(rate) == "4 GB/s (200% of the DRAM bandwidth)");
  CHECK(rows[0].memory_level == "dram");  // no working set reported: the bytes are the footprint
  CHECK(rows[0].roofline_ceiling == "bw_dram");
  CHECK(rows[0].roofline_fraction == Catch::Detail::Approx(2.0));
  CHECK(rows[0].arithmetic_intensity == Catch::Detail::Approx(0.5));
}

namespace {
/// An ok engine row of one sample with the work and footprint the roofline is derived from.
ResultRow roofline_row(double median_s, double flops, double bytes, double working_set,
                       const char* precision = "f64", const char* space = "serial") {
  ResultRow r;
  r.group_id = "f/n=1";
  r.variant = "engine:auto";
  r.variant_kind = "engine";
  r.exec_space = space;
  r.status = RowStatus::Ok;
  r.samples = {median_s};
  r.flops = flops;
  r.bytes = bytes;
  r.working_set_bytes = working_set;
  r.precision = precision;
  return r;
}

/// One thread's ceilings at every level: peaks 4 (f64) and 8 (f32) GFLOP/s, L1 100, L2 50, LLC 20
/// and DRAM 2 GB/s; caches of 32 kB, 1 MB and 8 MB.
tfbench::workloads::Ceilings four_levels() {
  using tfbench::ops::MemoryLevel;
  tfbench::workloads::Ceilings c;
  c.peak_f64.best = 4.0;
  c.peak_f32.best = 8.0;
  c.level(MemoryLevel::L1).best = 100.0;
  c.level(MemoryLevel::L2).best = 50.0;
  c.level(MemoryLevel::LLC).best = 20.0;
  c.level(MemoryLevel::DRAM).best = 2.0;
  c.caches = {32e3, 1e6, 8e6};
  c.threads = 1;
  return c;
}
}  // namespace

TEST_CASE("derive_case_fields: each row against the ceiling of its own memory level", "[rows][roofline]") {
  tfbench::workloads::Ceilings c = four_levels();
  // bytes is traffic: a cache-resident working set is streamed many times.
  auto row = [](double working_set, const char* precision, const char* space = "serial") {
    return roofline_row(1.0, 2e9, 4e9, working_set, precision, space);
  };
  std::vector<ResultRow> rows = {row(16e3, "f64"), row(48e3, "f64"), row(16e3, "f32"), row(600e3, "f64"),
                                 row(16e3, "f64", "cuda")};
  rows[3].flops = 0.1e9;  // AI 0.025: the L2's 50 GB/s bounds it, not the peak
  derive_case_fields(rows, &c);
  // In L1, at 100 GB/s, 4 GB take 0.04 s: the f64 peak (0.5 s for 2 GFLOP) binds. The old single
  // DRAM ceiling would have said 200% of the bandwidth.
  CHECK(rows[0].memory_level == "l1");
  CHECK(rows[0].roofline_ceiling == "peak_f64");
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(0.5));
  CHECK(rows[0].roofline_fraction == Catch::Detail::Approx(0.5));
  CHECK(rows[0].frac_bandwidth_ceiling == Catch::Detail::Approx(0.04));
  CHECK(format_rate(headline_rate(rows[0])) == "2 GFLOP/s (50% of the f64 peak)");
  CHECK(rows[1].memory_level == "l2");  // 48 kB: past one core's L1
  CHECK(rows[2].roofline_ceiling == "peak_f32");
  CHECK(rows[2].roofline_fraction == Catch::Detail::Approx(0.25));
  CHECK(rows[2].frac_compute_ceiling == Catch::Detail::Approx(0.25));
  CHECK(rows[3].memory_level == "l2");
  CHECK(rows[3].roofline_ceiling == "bw_l2");
  CHECK(rows[3].roofline_bound_s == Catch::Detail::Approx(0.08));
  CHECK(format_rate(headline_rate(rows[3])) == "4 GB/s (8.0% of the L2 bandwidth)");
  // The ceilings are the host's: a device row gets no roofline.
  CHECK(rows[4].roofline_ceiling.empty());
  CHECK(std::isnan(rows[4].roofline_fraction));
  // Two threads have two L1s: the 48 kB working set is in L1 there.
  c.threads = 2;
  std::vector<ResultRow> two = {row(48e3, "f64")};
  derive_case_fields(two, &c);
  CHECK(two[0].memory_level == "l1");
  // No ceilings: intensity only.
  std::vector<ResultRow> none = {row(16e3, "f64")};
  derive_case_fields(none, nullptr);
  CHECK(none[0].arithmetic_intensity == Catch::Detail::Approx(0.5));
  CHECK(none[0].memory_level.empty());
  CHECK(std::isnan(none[0].roofline_fraction));
}

TEST_CASE("derive_case_fields: a working set lives where its cache's bandwidth holds, not to its capacity",
          "[rows][roofline]") {
  using tfbench::ops::MemoryLevel;
  tfbench::workloads::Ceilings c = four_levels();
  c.level(MemoryLevel::L1).working_set_bytes = 16e3;  // measured at half the 32 kB L1
  auto level_of = [&c](double working_set) {
    std::vector<ResultRow> rows = {roofline_row(1.0, 2e9, 4e9, working_set)};
    derive_case_fields(rows, &c);
    return rows[0].memory_level;
  };
  CHECK(level_of(30e3) == "l1");  // no edges measured (an older file): the capacity decides
  // The L1's bandwidth toward its capacity: 95 and 90 GB/s at 20 and 24 kB, then the L2's rate. It
  // falls through sqrt(100 x 50) = 70.7 GB/s at 24e3 x (28 / 24)^(ln(90 / 70.7) / ln(90 / 40)) = 25.1 kB.
  c.cache_edges[0] = {
      {95, 94, 93, 5, 20e3}, {90, 89, 88, 5, 24e3}, {40, 39, 38, 5, 28e3}, {35, 34, 33, 5, 32e3}};
  CHECK(c.resident_bytes(MemoryLevel::L1) == Catch::Detail::Approx(25.13e3).epsilon(1e-3));
  CHECK(level_of(25e3) == "l1");
  CHECK(level_of(30e3) == "l2");
  CHECK(level_of(32e3) == "l2");  // the capacity itself, filled: not held
  // An edge that holds the level's rate to the capacity: the capacity.
  c.cache_edges[0] = {{95, 94, 93, 5, 20e3}, {90, 89, 88, 5, 32e3}};
  CHECK(c.resident_bytes(MemoryLevel::L1) == 32e3);
  CHECK(level_of(30e3) == "l1");
  CHECK(c.resident_bytes(MemoryLevel::LLC) == 8e6);  // the LLC's end is measured otherwise (llc_probe)
}

TEST_CASE(
    "derive_case_fields: a multi-threaded worker's bound is one thread's or its threads' plus a handoff",
    "[rows][roofline]") {
  // Two threads: twice one thread's L1 bandwidth and peak, and a cache line's round trip of 1 us.
  tfbench::workloads::Ceilings one = four_levels(), two = four_levels();
  two.threads = 2;
  two.peak_f64.best = 8.0;
  two.level(tfbench::ops::MemoryLevel::L1).best = 200.0;
  two.handoff.best = 1e6;  // round trips per second
  // 1.6 MB moved in L1, no flops: 16 us at one thread, 8 us at two, 9 us with the handoff.
  auto small = [] {
    ResultRow r = roofline_row(20e-6, 0.0, 1.6e6, 16e3);
    r.threads = 2;
    return r;
  };
  // 400 MB moved in L1: 4 ms at one thread, 2 ms + 1 us at two.
  auto large = [] {
    ResultRow r = roofline_row(4e-3, 0.0, 400e6, 16e3);
    r.threads = 2;
    return r;
  };
  std::vector<ResultRow> rows = {small(), large()};
  derive_case_fields(rows, &two, &one);
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(9e-6));  // 2 threads + handoff beat 1
  CHECK(rows[0].roofline_threads == 2);
  CHECK(rows[1].roofline_bound_s == Catch::Detail::Approx(2e-3 + 1e-6));
  CHECK(rows[1].roofline_threads == 2);
  // A round trip of 10 us: no region of two threads finishes the small row before one thread could.
  two.handoff.best = 1e5;
  rows = {small(), large()};
  derive_case_fields(rows, &two, &one);
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(16e-6));
  CHECK(rows[0].roofline_threads == 1);
  CHECK(rows[0].roofline_ceiling == "bw_l1");
  CHECK(rows[0].roofline_fraction == Catch::Detail::Approx(0.8));
  CHECK(format_rate(headline_rate(rows[0])) == "80 GB/s (80% of the L1 bandwidth of one thread)");
  CHECK(rows[1].roofline_bound_s == Catch::Detail::Approx(2e-3 + 10e-6));
  // The handoff measured beside the row stands for the cached one: the hypervisor moves the vCPUs
  // closer or apart for minutes at a time (0.06 or 0.46 us on the EPYC VM).
  rows = {small(), large()};
  rows[0].handoff_beside_us = rows[1].handoff_beside_us = 1.0;
  derive_case_fields(rows, &two, &one);
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(9e-6));
  CHECK(rows[0].roofline_threads == 2);
  CHECK(rows[1].roofline_bound_s == Catch::Detail::Approx(2e-3 + 1e-6));
  two.handoff.best = 1e6;
  rows = {small()};
  rows[0].handoff_beside_us = 10.0;
  derive_case_fields(rows, &two, &one);
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(16e-6));
  CHECK(rows[0].roofline_threads == 1);
  // One thread's ceiling measured beside the row stands for the cached one in one thread's bound, as
  // the two threads' do in theirs: a slower minute's 80 GB/s holds the row to 20 us, not 16 (two
  // threads with a handoff of 15 us: 23 us).
  rows = {small()};
  rows[0].handoff_beside_us = 15.0;
  rows[0].bandwidth_beside_1t_gbs = 80.0;
  derive_case_fields(rows, &two, &one);
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(20e-6));
  CHECK(rows[0].roofline_threads == 1);
  CHECK(rows[0].roofline_fraction == Catch::Detail::Approx(1.0));
  // ... and where it is slow enough, two threads plus the handoff bound the row more tightly.
  rows = {small()};
  rows[0].handoff_beside_us = 15.0;
  rows[0].bandwidth_beside_1t_gbs = 50.0;  // 32 us at one thread
  derive_case_fields(rows, &two, &one);
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(23e-6));
  CHECK(rows[0].roofline_threads == 2);
  // Without one thread's ceilings, or without a handoff, the two threads' bound alone, as before.
  rows = {small()};
  derive_case_fields(rows, &two, nullptr);
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(8e-6));
  two.handoff = {};
  rows = {small()};
  derive_case_fields(rows, &two, &one);
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(8e-6));
  CHECK(rows[0].roofline_threads == 2);
}

TEST_CASE("derive_case_fields: each round against the ceilings measured beside it in that round",
          "[rows][roofline]") {
  // 1 GB from DRAM. The host gave 2 GB/s in two rounds and 1 GB/s in three (the EPYC VM's two threads
  // read 57-62 GB/s of DRAM in some rounds of a case and 104-121 in others), and the row ran at the
  // bandwidth of each round: every round at its bound.
  const tfbench::workloads::Ceilings c = four_levels();
  auto dram_row = [] {
    ResultRow r = roofline_row(1.0, 0.0, 1e9, 1e9);
    r.samples = {1.0, 0.5, 1.0, 0.5, 1.0};
    r.write_allocate_bytes = 0.0;
    r.bandwidth_beside_gbs = 2.0;  // the best round
    return r;
  };
  std::vector<ResultRow> rows = {dram_row()};
  rows[0].beside_rounds.bandwidth_gbs = {1.0, 2.0, 1.0, 2.0, 1.0};
  derive_case_fields(rows, &c);
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(0.5));   // the best round's bound, as before
  CHECK(rows[0].roofline_fraction == Catch::Detail::Approx(1.0));  // the best round over the median: 0.5
  CHECK(rows[0].roofline_fraction_lo == Catch::Detail::Approx(1.0));
  CHECK(rows[0].roofline_fraction_hi == Catch::Detail::Approx(1.0));
  // A round without its measurement takes the best round's (2 GB/s: its 1 s sample reads 0.5).
  rows = {dram_row()};
  rows[0].beside_rounds.bandwidth_gbs = {1.0, 2.0, std::nan(""), 2.0, 1.0};
  derive_case_fields(rows, &c);
  CHECK(rows[0].roofline_fraction == Catch::Detail::Approx(1.0));
  CHECK(rows[0].roofline_fraction_lo == Catch::Detail::Approx(0.5));
  // Rounds that do not line up with the samples: the best round's bound over the median, the samples'
  // interval through it.
  rows = {dram_row()};
  rows[0].beside_rounds.bandwidth_gbs = {1.0, 2.0};
  derive_case_fields(rows, &c);
  CHECK(rows[0].roofline_fraction == Catch::Detail::Approx(0.5));
  CHECK(rows[0].roofline_fraction_lo == Catch::Detail::Approx(0.5));
  CHECK(rows[0].roofline_fraction_hi == Catch::Detail::Approx(1.0));
  // Two threads: each round's handoff beside it joins that round's bound.
  tfbench::workloads::Ceilings one = four_levels(), two = four_levels();
  two.threads = 2;
  two.level(tfbench::ops::MemoryLevel::L1).best = 200.0;
  two.handoff.best = 1e6;
  ResultRow small = roofline_row(20e-6, 0.0, 1.6e6, 16e3);  // 8 us at two threads plus the handoff
  small.threads = 2;
  small.samples = {9e-6, 18e-6, 9e-6};
  small.handoff_beside_us = 1.0;
  small.beside_rounds.handoff_us = {1.0, 10.0, 1.0};  // the second round: one thread's 16 us binds
  rows = {small};
  derive_case_fields(rows, &two, &one);
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(9e-6));
  CHECK(rows[0].roofline_fraction == Catch::Detail::Approx(1.0));  // 9/9, 16/18, 9/9
  CHECK(rows[0].roofline_fraction_lo == Catch::Detail::Approx(16.0 / 18.0));
}

TEST_CASE("derive_case_fields: from DRAM the stores that allocate their lines move twice, in a cache once",
          "[rows][roofline]") {
  // A triad's shape: 3 GB read and written, 1 GB of it stored into lines nobody read first.
  using tfbench::ops::MemoryLevel;
  tfbench::workloads::Ceilings c;
  c.peak_f64.best = 1000.0;  // every row here is bandwidth-bound
  c.level(MemoryLevel::L2).best = 50.0;
  c.level(MemoryLevel::DRAM).best = 2.0;
  c.caches = {32e3, 1e6, 8e6};
  c.threads = 1;
  auto row = [](double working_set, double write_allocate) {
    ResultRow r = roofline_row(4.0, 1e9, 3e9, working_set);
    r.write_allocate_bytes = write_allocate;
    return r;
  };
  std::vector<ResultRow> rows = {row(3e9, 1e9), row(3e9, 0.0), row(3e9, tfbench::harness::kNaN),
                                 row(600e3, 1e9)};
  derive_case_fields(rows, &c);
  CHECK(rows[0].memory_level == "dram");
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(2.0));  // 4 GB at 2 GB/s
  CHECK(rows[0].roofline_fraction == Catch::Detail::Approx(0.5));
  CHECK(rows[0].arithmetic_intensity == Catch::Detail::Approx(0.25));   // flops over the 4 GB moved
  CHECK(rows[0].frac_bandwidth_ceiling == Catch::Detail::Approx(0.5));  // 1 GB/s moved of 2
  CHECK(rows[0].gbs == Catch::Detail::Approx(0.75));                    // the algorithm's 3 GB
  // Stores that stream past the caches (0), or a file of an older writer (NaN): counted once.
  CHECK(rows[1].roofline_bound_s == Catch::Detail::Approx(1.5));
  CHECK(rows[1].arithmetic_intensity == Catch::Detail::Approx(1.0 / 3.0));
  CHECK(rows[2].roofline_bound_s == Catch::Detail::Approx(1.5));
  // In the L2 the stored lines stay cached from one run to the next.
  CHECK(rows[3].memory_level == "l2");
  CHECK(rows[3].roofline_bound_s == Catch::Detail::Approx(3e9 / 50e9));
  CHECK(rows[3].arithmetic_intensity == Catch::Detail::Approx(1.0 / 3.0));
}

TEST_CASE("derive_case_fields: an LLC row against the LLC bandwidth measured nearest its working set",
          "[rows][roofline]") {
  // A 300 MiB shared L3: the level's triad at 24 MiB reads 25 GB/s, at 130 MiB 13 GB/s. A 256 MiB
  // batch is LLC by capacity and streams at nearly the DRAM's rate; held to 25 GB/s it read 0.42.
  using tfbench::ops::MemoryLevel;
  tfbench::workloads::Ceilings c;
  c.peak_f64.best = 1000.0;  // far above: every row here is bandwidth-bound
  c.level(MemoryLevel::L1) = {400.0, 390.0, 380.0, 5, 24e3};
  c.level(MemoryLevel::L2) = {100.0, 95.0, 90.0, 5, 1e6};
  c.level(MemoryLevel::LLC) = {25.0, 24.0, 23.0, 5, 24.0 * 1048576};
  c.level(MemoryLevel::DRAM) = {10.0, 9.5, 9.0, 5, 1.2e9};
  c.llc_sizes = {{30.0, 29.0, 28.0, 5, 4.6 * 1048576}, {13.0, 12.5, 12.0, 5, 130.0 * 1048576}};
  c.caches = {48e3, 2e6, 300.0 * 1048576};
  c.threads = 1;
  auto row = [](double working_set) { return roofline_row(1.0, 1e9, 2.6e9, working_set); };  // 2.6 GB/s
  std::vector<ResultRow> rows = {row(256.0 * 1048576), row(20.0 * 1048576), row(3.0 * 1048576), row(1e6)};
  derive_case_fields(rows, &c);
  for (const auto& r : rows) CHECK(r.memory_level == (&r == &rows[3] ? "l2" : "llc"));
  CHECK(rows[0].roofline_ceiling == "bw_llc");
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(0.2));  // 2.6 GB at 13 GB/s
  CHECK(rows[0].frac_bandwidth_ceiling == Catch::Detail::Approx(0.2));
  CHECK(rows[1].roofline_bound_s == Catch::Detail::Approx(2.6 / 25.0));   // nearest: the level's 24 MiB
  CHECK(rows[2].roofline_bound_s == Catch::Detail::Approx(2.6 / 30.0));   // nearest: 4.6 MiB
  CHECK(rows[3].roofline_bound_s == Catch::Detail::Approx(2.6 / 100.0));  // L2: the ladder is the LLC's
  // An unmeasured size on the ladder is never chosen.
  c.llc_sizes[1].best = std::nan("");
  std::vector<ResultRow> again = {row(256.0 * 1048576)};
  derive_case_fields(again, &c);
  CHECK(again[0].roofline_bound_s == Catch::Detail::Approx(2.6 / 25.0));
}

TEST_CASE("derive_case_fields: a row's bound uses the ceilings measured beside it", "[rows][roofline]") {
  // The DRAM ceiling cached at 2 GB/s; the host delivered 1 GB/s in the row's rounds: the row ran at
  // that rate, all the level gave it, and reads 1.0 of its bound, not 0.5.
  tfbench::workloads::Ceilings c = four_levels();
  std::vector<ResultRow> rows = {roofline_row(4.0, 1e8, 4e9, 4e9), roofline_row(4.0, 1e8, 4e9, 4e9),
                                 roofline_row(4.0, 8e9, 4e9, 4e9)};
  rows[0].bandwidth_beside_gbs = 1.0;
  rows[2].bandwidth_beside_gbs = 0.5;  // 8 s of traffic: past the peak's 2 s
  derive_case_fields(rows, &c);
  CHECK(rows[0].roofline_ceiling == "bw_dram");
  CHECK(rows[0].roofline_bound_s == Catch::Detail::Approx(4.0));
  CHECK(rows[0].roofline_fraction == Catch::Detail::Approx(1.0));
  CHECK(rows[0].frac_bandwidth_ceiling == Catch::Detail::Approx(0.5));  // still of the cached ceiling
  CHECK(format_rate(headline_rate(rows[0])) == "1 GB/s (100% of the DRAM bandwidth beside it)");
  CHECK(format_rate(headline_rate(rows[1])) == "1 GB/s (50% of the DRAM bandwidth)");
  CHECK(rows[1].roofline_bound_s == Catch::Detail::Approx(2.0));  // none measured: the ceiling
  CHECK(rows[2].roofline_ceiling == "bw_dram");
  CHECK(rows[2].roofline_bound_s == Catch::Detail::Approx(8.0));
  // A compute-bound row against the peak measured beside it: 2 GFLOP/s where 4 were cached.
  std::vector<ResultRow> compute = {roofline_row(4.0, 8e9, 1e6, 1e6), roofline_row(4.0, 8e9, 1e6, 1e6)};
  compute[0].peak_beside_gflops = 2.0;
  derive_case_fields(compute, &c);
  CHECK(compute[0].roofline_ceiling == "peak_f64");
  CHECK(compute[0].roofline_bound_s == Catch::Detail::Approx(4.0));
  CHECK(compute[0].frac_compute_ceiling == Catch::Detail::Approx(0.5));  // of the cached peak
  CHECK(format_rate(headline_rate(compute[0])) == "2 GFLOP/s (100% of the f64 peak beside it)");
  CHECK(compute[1].roofline_bound_s == Catch::Detail::Approx(2.0));
}

TEST_CASE("sha256 matches the FIPS 180-4 examples", "[sha256]") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("row statuses have one spelling, the file's", "[results]") {
  const std::vector<std::pair<RowStatus, std::string>> spelled = {{RowStatus::Ok, "ok"},
                                                                  {RowStatus::Skipped, "skipped"},
                                                                  {RowStatus::CheckFailed, "check_failed"},
                                                                  {RowStatus::Error, "error"},
                                                                  {RowStatus::Crashed, "crashed"},
                                                                  {RowStatus::TimedOut, "timed_out"},
                                                                  {RowStatus::Interrupted, "interrupted"}};
  for (const auto& [status, text] : spelled) {
    CHECK(name(status) == text);
    CHECK(parse_row_status(text) == status);
  }
  CHECK(std::string(name(RowStatus::Unknown)).empty());
  CHECK_FALSE(parse_row_status(""));
  CHECK_FALSE(parse_row_status("OK"));
  // The failures that make `tfbench run` exit 1 and compare call a formerly ok row a regression.
  for (RowStatus s : {RowStatus::CheckFailed, RowStatus::Error, RowStatus::Crashed, RowStatus::TimedOut})
    CHECK(is_failure(s));
  for (RowStatus s : {RowStatus::Ok, RowStatus::Skipped, RowStatus::Interrupted, RowStatus::Unknown})
    CHECK_FALSE(is_failure(s));
}
