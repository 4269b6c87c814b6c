// `tfbench export` on files of known content: CSV cells and header, params and metrics as
// columns, Google Benchmark entries and aggregates with runs pooled, and the output file written
// whole or not at all. The formats as other tools read them are tested in tests/scripts/.

#include "tfbench/harness/export.hpp"
#include "result_fixtures.hpp"
#include "tfbench/harness/stats.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tfbench::harness;
using namespace tfbench::harness::test;
using Catch::Contains;
using nlohmann::json;

namespace {

ResultsFile two_runs() {
  ResultsFile f;
  f.path = "in.h5";
  f.schema_version = 1;
  for (const char* id : {"run-1", "run-2"}) {
    RunData run;
    run.info = info(id);
    run.info.cpu_model = "Intel(R) Xeon(R) CPU E5-2650 v4 @ 2.20GHz";
    run.info.build_type = "Release";
    ResultRow a = result("peer:a", {1e-3, 2e-3, 4e-3});
    a.params = "{\"n\":1,\"layout\":\"packed\"}";
    a.error = "";
    ResultRow b = result("peer:b", {});
    b.status = RowStatus::Crashed;
    b.error = "signal 11, \"SIGSEGV\"";
    b.params = "{\"n\":1,\"extra\":true}";
    b.metrics = "{}";
    run.results = {a, b};
    f.runs.push_back(run);
  }
  return f;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string csv(const ResultsFile& f) {
  std::ostringstream out;
  export_csv(f, out);
  return out.str();
}

json gbench(const ResultsFile& f, const std::string& unit = "ns") {
  std::ostringstream out;
  export_gbench(f, unit, out);
  return json::parse(out.str());
}

/// The index of `name` in a CSV header line (no quoted commas in headers).
std::size_t column(const std::string& header, const std::string& name) {
  std::size_t index = 0, at = 0;
  while (true) {
    const std::size_t end = header.find(',', at);
    if (header.substr(at, end - at) == name) return index;
    if (end == std::string::npos) FAIL("no column " << name << " in " << header);
    at = end + 1;
    ++index;
  }
}

}  // namespace

TEST_CASE("csv: one row per result row, params and metrics as columns, units in the header", "[export]") {
  const auto rows = lines(csv(two_runs()));
  REQUIRE(rows.size() == 5);  // header + 2 runs x 2 rows
  const std::string& header = rows[0];
  CHECK_THAT(header, Catch::StartsWith("run_id,case_id,"));
  CHECK_THAT(header, Contains(",median_s [s],") && Contains(",gbs [GB/s],") && Contains(",cv,"));
  CHECK_THAT(header, Contains(",param.n,param.layout,param.extra,") && Contains(",metric.hits,"));
  CHECK_THAT(header, !Contains(",params,") && !Contains(",metrics,"));
  CHECK(column(header, "param.n") < column(header, "exec_space"));  // where params was
  // Row 1: run-1's ok row; its layout is text, its missing param an empty cell, NaN an empty cell.
  CHECK_THAT(rows[1], Catch::StartsWith("run-1,fake/n=1/peer:a,"));
  CHECK_THAT(rows[1], Contains(",1,packed,,") && Contains(",1.5,"));  // n, layout, extra; median 1.5
  // Row 2: a crashed row; its error quoted as RFC 4180 says, its extra param true.
  CHECK_THAT(rows[2], Contains(",\"signal 11, \"\"SIGSEGV\"\"\",") && Contains(",1,,true,"));
  CHECK_THAT(rows[3], Catch::StartsWith("run-2,"));
}

TEST_CASE("csv: a row whose params is not a JSON object is refused, naming it", "[export]") {
  ResultsFile f = two_runs();
  f.runs[1].results[0].params = "n=1";
  CHECK_THROWS_AS(csv(f), ExportError);
  CHECK_THROWS_WITH(csv(f),
                    Contains("run run-2, row 0 (fake/n=1/peer:a) params") && Contains("not a JSON object"));
}

TEST_CASE("csv and json: bare NaN and Infinity metrics of older files read as empty / null", "[export]") {
  ResultsFile f = two_runs();
  f.runs[0].results[0].metrics = "{\"hits\":NaN,\"peak\":Infinity,\"low\":-Infinity,\"note\":\"NaN\"}";
  const auto rows = lines(csv(f));
  REQUIRE(rows.size() == 5);
  const std::size_t hits = column(rows[0], "metric.hits");
  CHECK(column(rows[0], "metric.peak") > 0);
  std::vector<std::string> cells;
  std::istringstream in(rows[1]);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  REQUIRE(cells.size() > hits);
  CHECK(cells[hits].empty());
  std::ostringstream out;
  export_json(f, out);
  const json whole = json::parse(out.str());
  const json& metrics = whole["runs"][0]["results"][0]["metrics"];
  CHECK(metrics["hits"].is_null());
  CHECK(metrics["low"].is_null());
  CHECK(metrics["note"] == "NaN");  // inside a string it stays text
}

TEST_CASE("gbench: the ok rows of every run pooled into one instance with aggregates", "[export][gbench]") {
  const json doc = gbench(two_runs());
  const json& b = doc.at("benchmarks");
  REQUIRE(b.size() == 6 + 4);  // 2 runs x 3 samples of peer:a; the crashed peer:b is left out
  const std::string name = "fake/n=1/peer:a/threads:2/space:openmp";
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(b[i]["name"] == name);
    CHECK(b[i]["run_name"] == name);
    CHECK(b[i]["run_type"] == "iteration");
    CHECK(b[i]["repetitions"] == 6);
    CHECK(b[i]["repetition_index"] == i);
    CHECK(b[i]["threads"] == 2);
    CHECK(b[i]["time_unit"] == "ns");
    CHECK(b[i]["family_index"] == 0);
    CHECK(b[i]["per_family_instance_index"] == 0);
  }
  CHECK(b[2]["real_time"].get<double>() == Approx(4e6));
  CHECK(b[2]["cpu_time"] == b[2]["real_time"]);
  const SampleStats s = summarize({1e-3, 2e-3, 4e-3, 1e-3, 2e-3, 4e-3});
  const std::vector<std::pair<const char*, double>> aggregates = {
      {"mean", s.mean * 1e9}, {"median", s.median * 1e9}, {"stddev", s.stddev * 1e9}, {"cv", s.cv}};
  for (std::size_t k = 0; k < aggregates.size(); ++k) {
    const json& e = b[6 + k];
    INFO(aggregates[k].first);
    CHECK(e["name"] == name + "_" + aggregates[k].first);
    CHECK(e["run_name"] == name);
    CHECK(e["run_type"] == "aggregate");
    CHECK(e["aggregate_name"] == aggregates[k].first);
    CHECK(e["aggregate_unit"] == (k == 3 ? "percentage" : "time"));
    CHECK(e["iterations"] == 6);
    CHECK_FALSE(e.contains("repetition_index"));
    CHECK(e["real_time"].get<double>() == Approx(aggregates[k].second));
  }
  const json& c = doc.at("context");
  CHECK(c["date"] == "2026-01-02T03:04:05+00:00");
  CHECK(c["host_name"] == "node-7");
  CHECK(c["executable"] == "tfbench");
  CHECK(c["num_cpus"] == 2);
  CHECK(c["mhz_per_cpu"] == 2200);
  CHECK(c["library_build_type"] == "release");
  CHECK(c["json_schema_version"] == 1);
  CHECK(c["tfbench_runs"] == "run-1;run-2");
}

TEST_CASE("gbench: the executable is argv[0] of the run's command line, quoted or not", "[export][gbench]") {
  ResultsFile f = two_runs();
  f.runs[0].info.command_line = "'/opt/my tools/tfbench' run 'a b.yaml'";
  CHECK(gbench(f)["context"]["executable"] == "/opt/my tools/tfbench");
  f.runs[0].info.cpu_model = "AMD EPYC 7B13";
  CHECK(gbench(f)["context"]["mhz_per_cpu"] == 0);
}

TEST_CASE("gbench: one time unit for every entry, as asked", "[export][gbench]") {
  const json ms = gbench(two_runs(), "ms");
  CHECK(ms["benchmarks"][0]["time_unit"] == "ms");
  CHECK(ms["benchmarks"][0]["real_time"].get<double>() == Approx(1.0));
  CHECK(ms["benchmarks"][9]["real_time"] == gbench(two_runs())["benchmarks"][9]["real_time"]);  // cv has none
  CHECK_THROWS_AS(gbench(two_runs(), "min"), ExportError);
}

TEST_CASE("gbench: families numbered in order, instances within each", "[export][gbench]") {
  ResultsFile f = two_runs();
  f.runs.resize(1);
  ResultRow other = result("peer:z", {1.0, 2.0});
  other.family = "other";
  other.case_id = "other/n=1/peer:z";
  ResultRow third = result("peer:c", {1.0});  // one sample: no aggregates
  f.runs[0].results = {f.runs[0].results[0], other, third};
  const json b = gbench(f)["benchmarks"];
  REQUIRE(b.size() == 3 + 4 + 1 + 2 + 4);
  CHECK(b[7]["name"] == "fake/n=1/peer:c/threads:2/space:openmp");  // fake's second instance first
  CHECK(b[7]["family_index"] == 0);
  CHECK(b[7]["per_family_instance_index"] == 1);
  CHECK(b[8]["family_index"] == 1);
  CHECK(b[8]["per_family_instance_index"] == 0);
}

TEST_CASE("export to a file: replaced whole, never the input, not over a file unless asked", "[export]") {
  TempDir dir;
  ResultsFile f = two_runs();
  f.path = dir.file("in.h5");
  std::ofstream(f.path) << "input";
  const ExportOptions options{ExportFormat::Csv, "ns"};
  const std::string out = dir.file("sub/out.csv");
  export_to_file(f, options, out, false);
  std::ostringstream expected;
  export_results(f, options, expected);
  std::ifstream in(out);
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == expected.str());
  CHECK_THROWS_WITH(export_to_file(f, options, out, false), Contains("exists (--overwrite replaces it)"));
  CHECK_NOTHROW(export_to_file(f, options, out, true));
  CHECK_THROWS_WITH(export_to_file(f, options, f.path, true), Contains("is the input file"));
  std::ifstream input(f.path);
  CHECK(std::string(std::istreambuf_iterator<char>(input), {}) == "input");
  // A failed export writes nothing.
  f.runs[0].results[0].metrics = "[1]";
  CHECK_THROWS_AS(export_to_file(f, options, dir.file("bad.csv"), false), ExportError);
  CHECK_FALSE(std::filesystem::exists(dir.file("bad.csv")));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path / "sub"))
    CHECK_THAT(entry.path().string(), !Contains(".tmp-"));
}

TEST_CASE("export formats by name", "[export]") {
  CHECK(parse_export_format("gbench") == ExportFormat::Gbench);
  CHECK(parse_export_format("markdown") == ExportFormat::Markdown);
  CHECK_FALSE(parse_export_format("xml"));
}
