// Config loading: sweeps expand as docs/configs.md says, and every kind of bad config is reported
// with file:line:column, the field and what was expected.

#include "tfbench/harness/config.hpp"
#include "fake_family.hpp"
#include "tfbench/harness/plan.hpp"
#include "tfbench/harness/runner.hpp"

#include <catch2/catch.hpp>

using namespace tfbench::harness;
using tfbench::workloads::ParamValue;

namespace {

LoadOptions fake_options(int max_threads = 4) {
  LoadOptions o;
  o.max_threads = max_threads;
  o.families = {testing::fake_family()};
  return o;
}

Config parse(const std::string& text, int max_threads = 4) {
  return parse_config(text, "test.yaml", fake_options(max_threads));
}

/// The issues a bad config produces, as printed.
std::vector<std::string> issues_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    std::vector<std::string> out;
    for (const auto& i : e.issues()) out.push_back(i.to_string());
    return out;
  }
  FAIL("the config was accepted: " << text);
  return {};
}

std::vector<std::int64_t> ints_of(const BenchmarkBlock& block, const std::string& name) {
  for (const auto& [key, values] : block.sweep) {
    if (key != name) continue;
    std::vector<std::int64_t> out;
    for (const auto& v : values) out.push_back(std::get<std::int64_t>(v));
    return out;
  }
  return {};
}

}  // namespace

TEST_CASE("lists, arithmetic and geometric ranges expand in order", "[config]") {
  const Config c = parse(R"(
benchmarks:
  - family: fake
    params:
      n: {from: 2, to: 32, step: 2}
  - family: fake
    params:
      n: {from: 64, to: 1000, times: 2}
  - family: fake
    params:
      n: [7, 3, 5]
  - family: fake
    params:
      n: {from: 1, to: 4}
)");
  REQUIRE(c.blocks.size() == 4);
  CHECK(ints_of(c.blocks[0], "n") ==
        std::vector<std::int64_t>{2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32});
  CHECK(ints_of(c.blocks[1], "n") == std::vector<std::int64_t>{64, 128, 256, 512});
  CHECK(ints_of(c.blocks[2], "n") == std::vector<std::int64_t>{7, 3, 5});
  CHECK(ints_of(c.blocks[3], "n") ==
        std::vector<std::int64_t>{1, 2, 3, 4});  // step 1 by default for integers
}

TEST_CASE("defaults fill unset parameters and every value keeps its type", "[config]") {
  const Config c =
      parse("benchmarks:\n  - family: fake\n    params: {n: 8, scale: 2, mode: slow, flag: true}\n");
  const auto points = c.blocks[0].expand();
  REQUIRE(points.size() == 1);
  CHECK(points[0].get_int("n") == 8);
  CHECK(points[0].get_double("scale") == 2.0);
  CHECK(std::holds_alternative<double>(points[0].values().at("scale")));  // an integer literal for a number
  CHECK(points[0].get_string("mode") == "slow");
  CHECK(points[0].get_bool("flag"));
  CHECK(points[0].canonical() == "flag=true,mode=slow,n=8,scale=2");

  const Config d = parse("benchmarks:\n  - family: fake\n    params: {n: 1e2}\n");
  const auto p = d.blocks[0].expand();
  CHECK(p[0].get_int("n") == 100);  // an integral float is an integer
  CHECK(p[0].get_double("scale") == 1.0);
  CHECK(p[0].get_string("mode") == "fast");
  CHECK_FALSE(p[0].get_bool("flag"));
}

TEST_CASE("the sweep is the cartesian product, first parameter by name slowest", "[config]") {
  const Config c = parse(R"(
benchmarks:
  - family: fake
    params:
      n: [1, 2]
      mode: [fast, slow]
      scale: [0.5, 1.5, 2.5]
)");
  const auto points = c.blocks[0].expand();
  REQUIRE(points.size() == 12);
  REQUIRE(c.blocks[0].point_count() == 12);
  // Names in order: flag, mode, n, scale; scale varies fastest, mode slowest.
  CHECK(points[0].canonical() == "flag=false,mode=fast,n=1,scale=0.5");
  CHECK(points[1].canonical() == "flag=false,mode=fast,n=1,scale=1.5");
  CHECK(points[3].canonical() == "flag=false,mode=fast,n=2,scale=0.5");
  CHECK(points[6].canonical() == "flag=false,mode=slow,n=1,scale=0.5");
  CHECK(points[11].canonical() == "flag=false,mode=slow,n=2,scale=2.5");
}

TEST_CASE("threads, timing settings and run-level defaults", "[config]") {
  const Config c = parse(R"(
defaults:
  threads: [1, max]
  repetitions: 7
  min_time: 0.2
  threshold_pct: 15
  seed: 42
benchmarks:
  - family: fake
    params: {n: 4}
  - family: fake
    params: {n: 4}
    threads: {from: 1, to: max, times: 2}
    repetitions: 3
    min_time: 0.01
    threshold_pct: 5
    variants: ["peer:*"]
)",
                         8);
  CHECK(c.seed == std::uint64_t{42});
  CHECK(c.blocks[0].threads == std::vector<int>{1, 8});
  CHECK(c.blocks[0].repetitions == 7);
  CHECK(c.blocks[0].min_time == 0.2);
  CHECK(c.blocks[0].threshold_pct == 15.0);
  CHECK(c.blocks[1].threads == std::vector<int>{1, 2, 4, 8});
  CHECK(c.blocks[1].repetitions == 3);
  CHECK(c.blocks[1].min_time == 0.01);
  CHECK(c.blocks[1].threshold_pct == 5.0);
  CHECK(c.blocks[1].variant_patterns == std::vector<std::string>{"peer:*"});

  const Config builtin = parse("benchmarks:\n  - family: fake\n    params: {n: 4}\n", 1);
  CHECK(builtin.blocks[0].threads == std::vector<int>{1});  // [1, max] with max = 1
  CHECK(builtin.blocks[0].repetitions == BuiltinDefaults::repetitions);
  CHECK_FALSE(builtin.blocks[0].threshold_pct.has_value());
}

TEST_CASE("malformed YAML reports where the parser stopped", "[config][errors]") {
  const auto issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: [1, 2}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].rfind("test.yaml:3:", 0) == 0);
  CHECK_THAT(issues[0], Catch::Contains("(yaml): malformed YAML"));
}

TEST_CASE("an unknown family names the families and the nearest one", "[config][errors]") {
  const auto issues = issues_of("benchmarks:\n  - family: fak\n    params: {n: 1}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:2:13: benchmarks[0].family: unknown family 'fak'; expected one of: fake (did you mean "
        "'fake'?)");
}

TEST_CASE("wrong types say what was expected", "[config][errors]") {
  auto issues = issues_of("benchmarks:\n  - family: fake\n    params:\n      n: abc\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:4:10: benchmarks[0].params.n: wrong type: expected an integer (matrix size), found 'abc'");

  issues = issues_of("benchmarks:\n  - family: fake\n    params:\n      n: 1.5\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:4:10: benchmarks[0].params.n: wrong type: expected an integer (matrix size), found '1.5'");

  issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: 2, flag: maybe}\n");
  REQUIRE(issues.size() == 1);
  CHECK(
      issues[0] ==
      "test.yaml:3:26: benchmarks[0].params.flag: wrong type: expected a boolean (a switch), found 'maybe'");

  issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: 2, mode: medium}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:3:26: benchmarks[0].params.mode: expected one of: fast, slow, found 'medium'");

  issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: 2}\n    repetitions: many\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:4:18: benchmarks[0].repetitions: expected an integer number of samples, found 'many'");
}

TEST_CASE("values out of bounds and bad ranges are rejected", "[config][errors]") {
  auto issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: 5000}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:3:17: benchmarks[0].params.n: out of range: expected integer in [1, 1000], found 5000");

  issues = issues_of("benchmarks:\n  - family: fake\n    params:\n      n: {from: 8, to: 2, step: 2}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:4:24: benchmarks[0].params.n.to: bad range: expected 'to' >= 'from' (8), found 2");

  issues = issues_of("benchmarks:\n  - family: fake\n    params:\n      n: {from: 1, to: 8, times: 1}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:4:34: benchmarks[0].params.n.times: bad range: expected a factor > 1 (an integer), found "
        "'1'");

  issues = issues_of("benchmarks:\n  - family: fake\n    params:\n      n: {from: 1, to: 8, step: 0}\n");
  REQUIRE(issues.size() == 1);
  CHECK_THAT(issues[0], Catch::StartsWith(
                            "test.yaml:4:33: benchmarks[0].params.n.step: bad range: expected a step > 0"));

  issues =
      issues_of("benchmarks:\n  - family: fake\n    params:\n      n: {from: 1, to: 8, step: 1, times: 2}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:4:10: benchmarks[0].params.n: bad range: give 'step' (arithmetic) or 'times' (geometric), "
        "not both");

  issues =
      issues_of("benchmarks:\n  - family: fake\n    params:\n      mode: {from: 1, to: 2}\n      n: 1\n");
  REQUIRE(issues.size() == 1);
  CHECK_THAT(issues[0],
             Catch::StartsWith("test.yaml:4:13: benchmarks[0].params.mode: expected a string or a list"));

  issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: 1}\n    min_time: -1\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:4:15: benchmarks[0].min_time: expected seconds per sample in (0, 3600], found -1");
}

TEST_CASE("missing fields name what is required", "[config][errors]") {
  auto issues = issues_of("benchmarks:\n  - params: {n: 1}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:2:5: benchmarks[0].family: missing field: expected a family name, one of: fake");

  issues = issues_of("benchmarks:\n  - family: fake\n    params: {scale: 2}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:3:13: benchmarks[0].params.n: missing field: required parameter, expected an integer "
        "(matrix size)");

  issues = issues_of("defaults: {repetitions: 3}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:1:1: benchmarks: missing field: expected a list of benchmark blocks (each with 'family')");

  issues = issues_of("");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] == "test.yaml:1:1: (file): expected a mapping with a 'benchmarks' list; the file is empty");
}

TEST_CASE("unknown keys are rejected with the nearest valid key", "[config][errors]") {
  auto issues = issues_of("benchmark:\n  - family: fake\n");
  REQUIRE(issues.size() == 2);
  CHECK(issues[0] ==
        "test.yaml:1:1: benchmark: unknown key; expected one of: defaults, benchmarks (did you mean "
        "'benchmarks'?)");

  issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: 1}\n    repetition: 3\n");
  REQUIRE(issues.size() == 1);
  CHECK_THAT(issues[0],
             Catch::StartsWith("test.yaml:4:5: benchmarks[0].repetition: unknown key; expected one of:"));
  CHECK_THAT(issues[0], Catch::EndsWith("(did you mean 'repetitions'?)"));

  issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: 1, scael: 2}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:3:20: benchmarks[0].params.scael: unknown parameter of family fake; expected one of: n, "
        "scale, "
        "mode, flag (did you mean 'scale'?)");

  issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: 1}\n    params: {n: 2}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] == "test.yaml:4:5: benchmarks[0].params: duplicate key: each key may appear once");
}

TEST_CASE("variant patterns, threads and spaces are checked", "[config][errors]") {
  auto issues =
      issues_of("benchmarks:\n  - family: fake\n    params: {n: 1}\n    variants: [\"peer:gamma\"]\n");
  REQUIRE(issues.size() == 1);
  CHECK_THAT(issues[0],
             Catch::StartsWith("test.yaml:4:16: benchmarks[0].variants: variant pattern 'peer:gamma' "
                               "matches no variant of fake; expected one of: engine:auto, peer:alpha"));

  issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: 1}\n    threads: [1, 0]\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:4:18: benchmarks[0].threads: expected a thread count or 'max' in [1, 4096], found 0");

  issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: 1}\n    exec_space: quantum\n");
  REQUIRE(issues.size() == 1);
  CHECK_THAT(issues[0],
             Catch::StartsWith("test.yaml:4:17: benchmarks[0].exec_space: expected an execution space "
                               "enabled in this build: serial"));
}

TEST_CASE("every problem of a file is reported, not only the first", "[config][errors]") {
  const auto issues = issues_of(R"(
benchmarks:
  - family: nope
  - family: fake
    params: {n: 0}
  - family: fake
    params: {n: 1}
    min_time: 0
)");
  REQUIRE(issues.size() == 3);
  CHECK_THAT(issues[0], Catch::StartsWith("test.yaml:3:13: benchmarks[0].family: unknown family 'nope'"));
  CHECK_THAT(issues[1], Catch::StartsWith("test.yaml:5:17: benchmarks[1].params.n: out of range"));
  CHECK_THAT(issues[2], Catch::StartsWith("test.yaml:8:15: benchmarks[2].min_time:"));
}

TEST_CASE("an unreadable file is an issue with its path", "[config][errors]") {
  try {
    load_config("/nonexistent/tfbench.yaml", fake_options());
    FAIL("loaded a missing file");
  } catch (const ConfigError& e) {
    REQUIRE(e.issues().size() == 1);
    CHECK_THAT(e.issues()[0].to_string(),
               Catch::StartsWith("/nonexistent/tfbench.yaml: (file): cannot read the file"));
  }
}

TEST_CASE("thread lists from the command line", "[config]") {
  CHECK(parse_thread_list("1,2,max", 8) == std::vector<int>{1, 2, 8});
  CHECK(parse_thread_list("max, 1", 2) == std::vector<int>{2, 1});
  CHECK(parse_thread_list("2,2", 2) == std::vector<int>{2});
  CHECK_THROWS_AS(parse_thread_list("0", 2), std::invalid_argument);
  CHECK_THROWS_AS(parse_thread_list("two", 2), std::invalid_argument);
  CHECK_THROWS_AS(parse_thread_list("", 2), std::invalid_argument);
}

TEST_CASE("the plan groups cases by worker, filters and keeps unavailable variants", "[plan]") {
  const Config c = parse(R"(
defaults: {threads: [1, 2]}
benchmarks:
  - family: fake
    params: {n: [1, 2], flag: [false, true]}
  - family: fake
    params: {n: 1}
    variants: ["peer:alpha"]
    threads: [2]
)");
  const RunPlan plan = make_plan({c}, {});
  REQUIRE(plan.workers.size() == 2);
  CHECK(plan.workers[0].threads == 1);
  CHECK(plan.workers[1].threads == 2);
  CHECK(plan.workers[0].groups.size() == 4);
  CHECK(plan.workers[0].row_count() == 12);
  const CaseGroup& g = plan.workers[0].groups[1];  // flag=false,n=2
  CHECK(g.group_id == "fake/flag=false,mode=fast,n=2,scale=1");
  CHECK(case_id(g, "peer:alpha") == "fake/flag=false,mode=fast,n=2,scale=1/peer:alpha");
  const CaseGroup& unavailable = plan.workers[0].groups[2];  // flag=true,n=1
  REQUIRE(unavailable.variants.size() == 3);
  CHECK(unavailable.variants[2].unavailable.has_value());
  // The second block repeats an existing case on the 2-thread worker: noted, not duplicated.
  CHECK(plan.workers[1].row_count() == 12);
  REQUIRE(plan.notes.size() == 1);
  CHECK_THAT(plan.notes[0], Catch::Contains("peer:alpha is defined again at test.yaml:6:13"));
  CHECK_THAT(plan.notes[0], Catch::Contains("first definition (test.yaml:4:13)"));

  RunOverrides only;
  only.filter = "n=2.*peer";
  only.threads = std::vector<int>{3};
  only.repetitions = 9;
  const RunPlan filtered = make_plan({c}, only);
  REQUIRE(filtered.workers.size() == 1);
  CHECK(filtered.workers[0].threads == 3);
  CHECK(filtered.row_count() == 4);  // n=2 x flag {false, true} x {peer:alpha, peer:beta}
  CHECK(filtered.workers[0].groups[0].repetitions == 9);

  RunOverrides bad;
  bad.filter = "([";
  CHECK_THROWS_AS(make_plan({c}, bad), std::invalid_argument);
}

namespace {

/// A family whose every parameter has a default, so that a block may leave out `params:`.
class AllDefaultsFamily final : public tfbench::workloads::Family {
 public:
  std::string_view name() const override { return "all_defaults"; }
  std::string_view description() const override { return "test family without required parameters"; }
  std::vector<tfbench::workloads::ParamSpec> parameters() const override {
    return {{"size", tfbench::workloads::ParamType::Int, "elements", ParamValue{std::int64_t{64}}}};
  }
  std::vector<tfbench::workloads::VariantInfo> variants(
      const tfbench::workloads::Params&, const tfbench::workloads::RunContext&) const override {
    return {{"peer:only", tfbench::workloads::VariantKind::Peer, "only", "", std::nullopt}};
  }
  std::unique_ptr<tfbench::workloads::Instance> instantiate(
      const tfbench::workloads::Params&, const std::string&,
      const tfbench::workloads::RunContext&) const override {
    throw tfbench::workloads::WorkloadError("not runnable");
  }
};

}  // namespace

TEST_CASE("a block without params takes the family's defaults, or names the required ones", "[config]") {
  static const AllDefaultsFamily all_defaults;
  LoadOptions options = fake_options();
  options.families.push_back(&all_defaults);
  for (const char* text :
       {"benchmarks:\n  - family: all_defaults\n", "benchmarks:\n  - family: all_defaults\n    params:\n"}) {
    const Config c = parse_config(text, "test.yaml", options);
    REQUIRE(c.blocks.size() == 1);
    CHECK(ints_of(c.blocks[0], "size") == std::vector<std::int64_t>{64});
  }
  const auto issues = issues_of("benchmarks:\n  - family: fake\n    threads: 1\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:2:5: benchmarks[0].params.n: missing field: required parameter, expected an integer "
        "(matrix size)");
}

TEST_CASE("a duplicate key is an error at every level", "[config][errors]") {
  auto issues = issues_of("benchmarks:\n  - family: fake\n    params:\n      n: 1\n      n: 2\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] == "test.yaml:5:7: benchmarks[0].params.n: duplicate key: each key may appear once");

  issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: {from: 1, to: 4, to: 8}}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] == "test.yaml:3:34: benchmarks[0].params.n.to: duplicate key: each key may appear once");

  issues = issues_of("defaults: {seed: 1, seed: 2}\nbenchmarks:\n  - family: fake\n    params: {n: 1}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] == "test.yaml:1:21: defaults.seed: duplicate key: each key may appear once");

  issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: 1}\nbenchmarks:\n  - family: fake\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] == "test.yaml:4:1: benchmarks: duplicate key: each key may appear once");
}

TEST_CASE("a directory is not read as an empty config", "[config][errors]") {
  try {
    load_config("/", fake_options());
    FAIL("loaded a directory");
  } catch (const ConfigError& e) {
    REQUIRE(e.issues().size() == 1);
    CHECK(e.issues()[0].to_string() ==
          "/: (file): cannot read the file: it is a directory, expected a YAML file");
  }
}

TEST_CASE("case time limits: config defaults and blocks, --case-timeout, and the scaled default", "[plan]") {
  const Config c = parse(R"(
defaults: {case_timeout: 30, threads: 1}
benchmarks:
  - family: fake
    params: {n: 1}
  - family: fake
    params: {n: 2}
    case_timeout: 0
  - family: fake
    params: {n: 3}
    repetitions: 100
    min_time: 1
)");
  REQUIRE(c.blocks.size() == 3);
  CHECK(c.blocks[0].case_timeout == 30.0);
  CHECK(c.blocks[1].case_timeout == 0.0);  // no limit

  const RunPlan plan = make_plan({c}, {});
  REQUIRE(plan.workers.size() == 1);
  REQUIRE(plan.workers[0].groups.size() == 3);
  CHECK(case_time_limit(plan.workers[0].groups[0]) == 30.0);
  CHECK(case_time_limit(plan.workers[0].groups[1]) == 0.0);
  CHECK(case_time_limit(plan.workers[0].groups[2]) == 30.0);  // the file's default wins over the scaled one

  RunOverrides overrides;
  overrides.case_timeout = 5.0;
  const RunPlan overridden = make_plan({c}, overrides);
  for (const auto& g : overridden.workers[0].groups) CHECK(case_time_limit(g) == 5.0);

  // Without a limit anywhere: 60 s, or 60 s per expected second of a longer case.
  const RunPlan scaled =
      make_plan({parse("benchmarks:\n  - family: fake\n    params: {n: [1, 2]}\n    min_time: "
                       "2\n    threads: 1\n  - family: fake\n    params: {n: 3}\n    "
                       "min_time: 0.01\n    threads: 1\n")},
                {});
  const auto& groups = scaled.workers[0].groups;
  REQUIRE(groups.size() == 3);
  CHECK(expected_case_seconds(groups[0]) == Approx(3 * (5 + 2.5) * 2.0));  // 3 variants, 5 samples
  CHECK(case_time_limit(groups[0]) == Approx(60.0 * 45.0));
  CHECK(case_time_limit(groups[2]) == 60.0);

  auto issues =
      issues_of("defaults: {case_timeout: -1}\nbenchmarks:\n  - family: fake\n    params: {n: 1}\n");
  REQUIRE(issues.size() == 1);
  CHECK(issues[0] ==
        "test.yaml:1:26: defaults.case_timeout: expected seconds per case (0: no limit) in [0, 1000000], "
        "found -1");
  issues = issues_of("benchmarks:\n  - family: fake\n    params: {n: 1}\n    case_timeout: soon\n");
  REQUIRE(issues.size() == 1);
  CHECK_THAT(issues[0],
             Catch::StartsWith("test.yaml:4:19: benchmarks[0].case_timeout: expected seconds per case"));
}

TEST_CASE("a run on device spaces only needs no host tuning and no host ceilings", "[config][plan]") {
  using tfbench::ExecSpaceKind;
  RunPlan plan;
  CHECK_FALSE(runs_on_host(plan));
  WorkerPlan device;
  device.space = ExecSpaceKind::Cuda;
  plan.workers.push_back(device);
  CHECK_FALSE(runs_on_host(plan));  // Auto's calibration tunes the CPU backend only
  WorkerPlan host;
  host.space = ExecSpaceKind::Serial;
  plan.workers.push_back(host);
  CHECK(runs_on_host(plan));

  RunOptions options;  // ceilings cached by default
  CHECK(options.measure_ceilings(ExecSpaceKind::OpenMP));
  CHECK(options.measure_ceilings(ExecSpaceKind::Serial));
  CHECK_FALSE(options.measure_ceilings(ExecSpaceKind::Cuda));  // a device row has no host roofline
  options.ceilings = CeilingsMode::Off;
  CHECK_FALSE(options.measure_ceilings(ExecSpaceKind::OpenMP));
}
