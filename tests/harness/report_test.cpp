// `tfbench report`: every row shows its spread (p5 .. p95 and cv), rows above the cv threshold are
// marked noisy and counted in a warning, in the plain and the Markdown format.

#include "tfbench/harness/report.hpp"
#include "result_fixtures.hpp"
#include "tfbench/harness/rows.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

namespace tfbench::harness {
namespace {

/// The report line of a variant (the first line naming it).
std::string line_of(const std::string& report, const std::string& variant) {
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);) {
    if (line.find(" " + variant + " ") != std::string::npos) return line;
  }
  return "";
}

ResultsFile file_with_quiet_and_noisy_rows() {
  RunData run;
  run.info = test::info("r1");
  // cv 0.7% and 27%; p5 .. p95 0.992 .. 1.009 ms and 0.76 .. 1.44 ms.
  run.results = {test::result("quiet", {1.0e-3, 1.01e-3, 0.99e-3, 1.0e-3, 1.005e-3}),
                 test::result("shaky", {1.0e-3, 1.5e-3, 0.7e-3, 1.2e-3, 1.0e-3})};
  derive_case_fields(run.results, nullptr);
  ResultsFile file;
  file.path = "x.h5";
  file.schema_version = 1;
  file.runs.push_back(std::move(run));
  return file;
}

TEST_CASE("the 90% interval interpolates between order statistics as numpy.percentile does", "[report]") {
  const SampleInterval i = interval_90({5.0, 1.0, 3.0, 2.0, 4.0});
  CHECK(i.low == Catch::Detail::Approx(1.2));
  CHECK(i.high == Catch::Detail::Approx(4.8));
  const SampleInterval one = interval_90({2.0});
  CHECK(one.low == 2.0);
  CHECK(one.high == 2.0);
  CHECK(std::isnan(interval_90({}).low));
}

TEST_CASE("report shows every row's spread and marks rows above the cv threshold noisy", "[report]") {
  const ResultsFile file = file_with_quiet_and_noisy_rows();
  REQUIRE(file.runs[0].results[0].cv < 0.05);
  REQUIRE(file.runs[0].results[1].cv > 0.05);
  for (bool markdown : {false, true}) {
    CAPTURE(markdown);
    std::ostringstream out;
    print_report(file, out, ReportOptions{markdown, 0.05});
    const std::string report = out.str();
    const std::string quiet = line_of(report, "quiet"), shaky = line_of(report, "shaky");
    CHECK(report.find("p5 .. p95") != std::string::npos);
    CHECK(quiet.find("0.992 .. 1.01 ms") != std::string::npos);
    CHECK(quiet.find("0.7%") != std::string::npos);
    CHECK(quiet.find("noisy") == std::string::npos);
    CHECK(shaky.find("0.76 .. 1.44 ms") != std::string::npos);
    CHECK(shaky.find("27% noisy") != std::string::npos);
    CHECK(report.find("1 of 2 measured row(s) are noisy (cv above 5.0%") != std::string::npos);
    CHECK(report.find(markdown ? "**Warning:**" : "warning:") != std::string::npos);
    CHECK(report.find('\r') == std::string::npos);
  }
}

TEST_CASE("report names the tuning Auto followed and an ISA mismatch the run was allowed", "[report]") {
  ResultsFile file = file_with_quiet_and_noisy_rows();
  std::ostringstream plain;
  print_report(file, plain, ReportOptions{false, 0.05});
  CHECK(plain.str().find("Auto: built-in preference (no tuning file)") != std::string::npos);
  CHECK(plain.str().find("ISA MISMATCH") == std::string::npos);
  file.runs[0].info.tuning_file = "/cache/tuning/0123.json";
  file.runs[0].info.tuning_sha256 = std::string(64, 'a');
  file.runs[0].info.isa_mismatch = "avx512f (TFBENCH_ALLOW_ISA_MISMATCH=1)";
  std::ostringstream tuned;
  print_report(file, tuned, ReportOptions{false, 0.05});
  CHECK(tuned.str().find("Auto: tuning /cache/tuning/0123.json (sha256 aaaaaaaaaaaa)") != std::string::npos);
  CHECK(tuned.str().find("ISA MISMATCH: the build requires extensions this host lacks: avx512f") !=
        std::string::npos);
}

TEST_CASE("a higher --noisy-cv marks nothing and prints no warning", "[report]") {
  std::ostringstream out;
  print_report(file_with_quiet_and_noisy_rows(), out, ReportOptions{false, 0.5});
  CHECK(out.str().find("noisy") == std::string::npos);
  CHECK(line_of(out.str(), "shaky").find("27%") != std::string::npos);
}

TEST_CASE("rows that are not ok are never noisy and show no spread", "[report]") {
  ResultRow r = test::result("skipped", {});
  r.status = RowStatus::Skipped;
  r.cv = 0.9;
  CHECK_FALSE(is_noisy(r, 0.05));
}

}  // namespace
}  // namespace tfbench::harness
