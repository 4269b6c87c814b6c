// JSON, fault-injection rules, derived row fields and the worker protocol.

#include "run/protocol.hpp"
#include "tfbench/harness/fault_inject.hpp"
#include "tfbench/harness/json.hpp"
#include "tfbench/harness/rows.hpp"
#include "tfbench/harness/sha256.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace tfbench::harness;

TEST_CASE("JSON keeps integers, doubles and text apart", "[json]") {
  Json j = Json::object();
  j.set("i", 3);
  j.set("d", 3.0);
  j.set("nan", std::numeric_limits<double>::quiet_NaN());
  j.set("s", "a \"quoted\"\n\tline ✓");
  j.set("list", Json(Json::Array{1, 2.5, true, nullptr}));
  const std::string text = j.dump();
  CHECK(text ==
        "{\"i\":3,\"d\":3.0,\"nan\":NaN,\"s\":\"a \\\"quoted\\\"\\n\\tline ✓\",\"list\":[1,2.5,true,null]}");
  const Json back = Json::parse(text);
  CHECK(back.at("i").type() == Json::Type::Int);
  CHECK(back.at("d").type() == Json::Type::Double);
  CHECK(std::isnan(back.at("nan").as_double()));
  CHECK(back.at("s").as_string() == "a \"quoted\"\n\tline ✓");
  CHECK(back.at("list").as_array().size() == 4);
  CHECK(j.dump(true).find("NaN") == std::string::npos);  // strict JSON writes null
  CHECK(Json::parse("\"\\u00e9\\ud83d\\ude00\"").as_string() == "é😀");
  CHECK(Json::parse(" [ -1 , 1e3 ] ").as_array()[1].as_double() == 1000.0);
  CHECK_THROWS_AS(Json::parse("{\"a\":}"), JsonError);
  CHECK_THROWS_AS(Json::parse("[1,2"), JsonError);
  CHECK_THROWS_AS(Json::parse("1 2"), JsonError);
  CHECK_THROWS_WITH(back.at("missing"), Catch::Contains("missing member 'missing'"));
}

TEST_CASE("parameters survive the worker protocol with their types", "[protocol]") {
  tfbench::workloads::Params p;
  p.set("n", std::int64_t{4});
  p.set("x", 2.0);
  p.set("flag", true);
  p.set("mode", std::string("fast"));
  const auto back = impl::params_from_json(Json::parse(impl::to_json(p).dump()));
  CHECK(back.values() == p.values());

  impl::WorkerJob job;
  job.space = tfbench::ExecSpaceKind::Serial;
  job.threads = 3;
  job.seed = 99;
  job.ceilings = tfbench::workloads::Ceilings{10.0, 20.0};
  impl::JobCase c;
  c.index = 7;
  c.family = "fake";
  c.params = p;
  c.group_id = "fake/x";
  c.variants = {"a", "b"};
  c.repetitions = 4;
  c.min_time = 0.25;
  job.cases.push_back(c);
  const impl::WorkerJob j2 = impl::job_from_json(Json::parse(impl::to_json(job).dump()));
  CHECK(j2.threads == 3);
  CHECK(j2.seed == 99);
  REQUIRE(j2.ceilings);
  CHECK(j2.ceilings->gbs == 20.0);
  REQUIRE(j2.cases.size() == 1);
  CHECK(j2.cases[0].index == 7);
  CHECK(j2.cases[0].variants == c.variants);
  CHECK(j2.cases[0].min_time == 0.25);
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
    r.status = "ok";
    r.samples = std::move(samples);
    r.flops = 2e9;
    r.bytes = 4e9;
    return r;
  };
  std::vector<ResultRow> rows = {make("engine", "engine", {1.0, 1.0, 1.0}),
                                 make("peer:a", "peer", {2.0, 2.0}), make("peer:b", "peer", {0.5, 0.5}),
                                 make("peer:c", "peer", {0.1})};
  rows[3].status = "check_failed";  // a failed peer is never the fastest
  derive_case_fields(rows, 4.0, 2.0);
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
  CHECK(format_rate(rate) == "4 GB/s (200% of ceiling)");
}

TEST_CASE("sha256 matches the FIPS 180-4 examples", "[sha256]") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
