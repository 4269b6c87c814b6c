// The tuning file: written and read back, its key checked against this machine and build (a file
// from another CPU or build is refused with the field that differs), bad files named with their field.

#include <catch2/catch.hpp>

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run/environment.hpp"
#include "tfbench/harness/json.hpp"
#include "tune/tune_run.hpp"
#include "tune/tuning_file.hpp"

using namespace tfbench;
using namespace tfbench::harness::tune;

namespace {

std::string temp_path(const char* name) {
  return std::string("/tmp/tfbench-tuning-test-") + std::to_string(getpid()) + "-" + name;
}

TuningFile sample_file() {
  TuningFile file;
  file.key = current_key();
  file.created_utc = "2026-12-02T00:00:00Z";
  file.command_line = "tfbench tune";
  workloads::TuneClassResult measured;
  measured.cls = {ops::BatchedFamily::Gemm, DType::F64, 8, ops::MemoryLevel::L2, 1};
  measured.items = 209;
  measured.operand_bytes = 321024;
  measured.candidates = {{ops::ItemProvider::Specialized, BatchStrategy::Sequential, 1.4e-5, 1e-16, ""},
                         {ops::ItemProvider::Libxsmm, BatchStrategy::Sequential, 6.5e-6, 2e-16, "", false},
                         {ops::ItemProvider::Libxsmm, BatchStrategy::Sequential, 7.1e-6, 2e-16, "", true},
                         {ops::ItemProvider::Blas, BatchStrategy::ProviderItems, std::nan(""), std::nan(""),
                          "over 3x the fastest in the first round"},
                         {ops::ItemProvider::Libxsmm, BatchStrategy::Sequential, 5.9e-6, 2e-16, "", false}};
  measured.candidates[4].streaming_stores = true;
  measured.choice = ops::TuningChoice{ops::ItemProvider::Libxsmm, BatchStrategy::Sequential, false, true};
  measured.candidates[1].best_s = 6.1e-6;  // the best round decides; the others' are not known here
  workloads::TuneClassResult none;
  none.cls = {ops::BatchedFamily::Solve, DType::F64, 4, ops::MemoryLevel::L1, 1};
  // The same class in f32, where another provider won: Auto must take each dtype's own answer.
  workloads::TuneClassResult single = measured;
  single.cls.dtype = DType::F32;
  single.operand_bytes = single.cls.working_set_bytes = 160512;
  single.choice = ops::TuningChoice{ops::ItemProvider::Specialized, BatchStrategy::Sequential};
  single.candidates[0].narrow_vectors = true;  // the 256-bit kernel won the f32 class
  single.choice->narrow_vectors = true;
  file.classes = {measured, none, single};
  // The contraction crossover at one and two threads; the second measured on a busy host.
  workloads::ContractionCrossover one;
  one.threads = 1;
  one.direct_max_muladds = 216;
  one.points = {{6, 216, 1.6e-6, 1.7e-6, 1e-16}, {8, 512, 2.5e-6, 1.7e-6, 2e-16}};
  workloads::ContractionCrossover two = one;
  two.threads = 2;
  two.direct_max_muladds = 4096;
  two.busy_host = true;
  file.contraction = {one, two};
  return file;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("tuning file: round trip, and the classes with a choice reach the engine", "[tuning]") {
  const std::string path = temp_path("roundtrip.json");
  write_tuning_file(path, sample_file());
  const TuningFile back = read_tuning_file(path);
  REQUIRE(back.classes.size() == 3);
  CHECK(back.classes[2].cls.dtype == DType::F32);
  CHECK_FALSE(key_mismatch(back.key, current_key()).has_value());
  const auto& c = back.classes[0];
  CHECK(c.cls.item_dim == 8);
  CHECK(c.cls.level == ops::MemoryLevel::L2);
  CHECK(c.cls.working_set_bytes == 321024);           // where in its level it was measured: the lookup's size
  CHECK(back.classes[1].cls.working_set_bytes == 0);  // not known: anywhere in its level
  REQUIRE(c.choice.has_value());
  CHECK(c.choice->provider == ops::ItemProvider::Libxsmm);
  CHECK(c.choice->strategy == BatchStrategy::Sequential);
  CHECK(c.choice->prefetch == std::optional<bool>(false));         // libxsmm without prefetching won
  CHECK(c.choice->streaming_stores == std::optional<bool>(true));  // ... storing C past the caches
  CHECK(c.candidates[4].streaming_stores == std::optional<bool>(true));
  CHECK_FALSE(c.candidates[1].streaming_stores.has_value());  // null: the built-in rule
  CHECK_FALSE(c.candidates[0].prefetch.has_value());          // not a libxsmm candidate
  CHECK(c.candidates[1].prefetch == std::optional<bool>(false));
  CHECK(c.candidates[2].prefetch == std::optional<bool>(true));
  CHECK(c.candidates[1].best_s == 6.1e-6);
  CHECK_FALSE(c.candidates[0].narrow_vectors.has_value());  // null: the built-in width
  CHECK_FALSE(c.choice->narrow_vectors.has_value());
  CHECK(back.classes[2].candidates[0].narrow_vectors == std::optional<bool>(true));
  CHECK(back.classes[2].choice->narrow_vectors == std::optional<bool>(true));
  CHECK(std::isnan(c.candidates[2].best_s));      // null: not known
  CHECK(c.candidates[2].decisive_s() == 7.1e-6);  // then the median
  CHECK(std::isnan(c.candidates[3].median_s));    // null in the file, NaN again
  CHECK(c.candidates[3].skipped == "over 3x the fastest in the first round");
  CHECK_FALSE(back.classes[1].choice.has_value());
  REQUIRE(back.contraction.size() == 2);
  CHECK(back.contraction[0].threads == 1);
  CHECK(back.contraction[0].direct_max_muladds == 216);
  REQUIRE(back.contraction[0].points.size() == 2);
  CHECK(back.contraction[0].points[1].n == 8);
  CHECK(back.contraction[0].points[1].gemm_s == 1.7e-6);
  CHECK(back.contraction[1].busy_host);

  const LoadedTuning loaded = load_tuning(path);
  REQUIRE(loaded.tuning);
  CHECK(loaded.refusal.empty());
  CHECK(loaded.sha256.size() == 64);
  CHECK(loaded.tuning->id() == loaded.sha256);
  CHECK(loaded.tuning->size() == 2);  // the class without a choice is not offered to Auto
  const double l2_bytes = std::sqrt(back.key.caches.l1_bytes * back.key.caches.l2_bytes);
  const auto choice = loaded.tuning->lookup(ops::BatchedFamily::Gemm, DType::F64, 8, l2_bytes, 1);
  if (back.key.caches.l1_bytes > 0) {
    REQUIRE(choice.has_value());
    CHECK(choice->provider == ops::ItemProvider::Libxsmm);
    CHECK(choice->prefetch == std::optional<bool>(false));
    CHECK(choice->streaming_stores == std::optional<bool>(true));
    const auto f32 = loaded.tuning->lookup(ops::BatchedFamily::Gemm, DType::F32, 8, l2_bytes / 2, 1);
    REQUIRE(f32.has_value());
    CHECK(f32->provider == ops::ItemProvider::Specialized);
    CHECK(f32->narrow_vectors == std::optional<bool>(true));
    CHECK_FALSE(loaded.tuning->lookup(ops::BatchedFamily::Gemm, DType::C128, 8, l2_bytes, 1).has_value());
  }
  // The crossover reaches the engine; the one measured on a busy host does not (two threads fall back
  // to the one-thread measurement).
  CHECK(loaded.tuning->direct_contraction_muladds(1) == std::optional<double>(216));
  CHECK(loaded.tuning->direct_contraction_muladds(2) == std::optional<double>(216));
  CHECK(decision_table(back).find("contraction f64  1T  direct up to 216 multiply-adds per item") !=
        std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("tuning file: another CPU or build is refused with the field that differs", "[tuning]") {
  const TuningKey here = current_key();
  TuningKey other = here;
  other.cpu_model = "Another CPU 9000";
  const auto why = key_mismatch(other, here);
  REQUIRE(why.has_value());
  CHECK(why->find("cpu_model") == 0);
  CHECK(why->find("Another CPU 9000") != std::string::npos);
  other = here;
  other.git_revision = "0000000";
  REQUIRE(key_mismatch(other, here).has_value());
  CHECK(key_mismatch(other, here)->find("git_revision") == 0);
  other = here;
  other.caches.llc_bytes += 1;
  CHECK(key_mismatch(other, here)->find("llc_bytes") == 0);
  // Outer lanes pay or not by the runtime's fork-join: a file measured on another runtime is refused,
  // and so is one written before the runtime was part of the key (it read back as "").
  CHECK_FALSE(here.openmp_runtime.empty());
  other = here;
  other.openmp_runtime = "/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0";
  CHECK(key_mismatch(other, here)->find("openmp_runtime") == 0);
  TuningFile file_before = sample_file();
  const std::string before_path = temp_path("before-openmp-key.json");
  write_tuning_file(before_path, file_before);
  harness::Json older;
  std::ifstream(before_path) >> older;
  REQUIRE(older.at("key").contains("openmp_runtime"));
  older["key"].erase("openmp_runtime");
  std::ofstream(before_path) << older.dump();
  const LoadedTuning before = load_tuning(before_path);
  CHECK_FALSE(before.tuning);
  CHECK(before.refusal.find("(openmp_runtime") != std::string::npos);
  std::remove(before_path.c_str());

  TuningFile file = sample_file();
  file.key.online_cpus += 64;
  const std::string path = temp_path("foreign.json");
  write_tuning_file(path, file);
  const LoadedTuning loaded = load_tuning(path);
  CHECK_FALSE(loaded.tuning);
  CHECK(loaded.refusal.find("another machine or build (online_cpus") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("tuning file: the host's load per class; a class still busy after its retries is not used",
          "[tuning]") {
  const std::string path = temp_path("busy.json");
  TuningFile file = sample_file();
  file.classes[0].host_other_cpu = 0.04;
  file.classes[0].host_steal = 0.01;
  file.classes[0].attempts = 2;           // busy once, quiet the second time: used
  file.classes[2].host_other_cpu = 0.45;  // the f32 class: busy after its retries
  file.classes[2].host_steal = 0.0;
  file.classes[2].attempts = 3;
  file.classes[2].busy_host = true;
  write_tuning_file(path, file);
  const TuningFile back = read_tuning_file(path);
  CHECK(back.classes[0].host_other_cpu == 0.04);
  CHECK(back.classes[0].host_steal == 0.01);
  CHECK(back.classes[0].attempts == 2);
  CHECK_FALSE(back.classes[0].busy_host);
  CHECK(std::isnan(back.classes[1].host_other_cpu));  // too short to tell: null, NaN again
  CHECK(back.classes[2].busy_host);
  CHECK(back.classes[2].attempts == 3);

  const LoadedTuning loaded = load_tuning(path);
  REQUIRE(loaded.tuning);
  CHECK(loaded.tuning->size() == 1);  // the busy f32 class is kept in the file, not offered to Auto
  const double l2_bytes = std::sqrt(back.key.caches.l1_bytes * back.key.caches.l2_bytes);
  if (back.key.caches.l1_bytes > 0) {
    CHECK(loaded.tuning->lookup(ops::BatchedFamily::Gemm, DType::F64, 8, l2_bytes, 1).has_value());
    CHECK_FALSE(loaded.tuning->lookup(ops::BatchedFamily::Gemm, DType::F32, 8, l2_bytes / 2, 1).has_value());
  }
  CHECK(decision_table(back).find("(busy host, not used) specialized") != std::string::npos);

  // A file written before the load was recorded has no "host": nothing known, nothing busy.
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  for (auto at = text.find("\"host\": {"); at != std::string::npos; at = text.find("\"host\": {")) {
    const auto comma = text.rfind(',', at), close = text.find('}', at);  // the object has no nested one
    text.erase(comma, close + 1 - comma);
  }
  write_text(path, text);
  const TuningFile older = read_tuning_file(path);
  CHECK(older.classes[2].attempts == 1);
  CHECK_FALSE(older.classes[2].busy_host);
  CHECK(std::isnan(older.classes[2].host_steal));
  CHECK(load_tuning(path).tuning->size() == 2);
  std::remove(path.c_str());
}

TEST_CASE("tuning file: bad files are named with the path and the field", "[tuning]") {
  const std::string path = temp_path("bad.json");
  write_text(path, "{\"format\": \"something-else\", \"version\": 1}");
  try {
    read_tuning_file(path);
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find(path + ": format") == 0);
  }
  write_text(path, "not json");
  CHECK_FALSE(load_tuning(path).tuning);
  CHECK(load_tuning(path).refusal.find(path + ": not a tuning file") == 0);

  // One field of one class made wrong: the error names the class index and the field.
  const auto error_with = [&](const std::string& from, const std::string& to) {
    write_tuning_file(path, sample_file());
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    write_text(path, text.replace(at, from.size(), to));
    try {
      read_tuning_file(path);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_with("\"l2\"", "\"l9\"") == path + ": classes[0]: level 'l9' (expected l1, l2, llc, dram)");
  CHECK(error_with("321024", "-1") == path + ": classes[0]: operand_bytes must be >= 0 (0: not known)");
  CHECK(error_with("\"prefetch\": false", "\"prefetch\": 1") ==
        path + ": classes[0]: prefetch must be true, false or null");
  CHECK(error_with("\"streaming_stores\": true", "\"streaming_stores\": \"yes\"") ==
        path + ": classes[0]: streaming_stores must be true, false or null");
  CHECK(error_with("\"attempts\": 1", "\"attempts\": 0") ==
        path + ": classes[0]: host.attempts must be >= 1");
  CHECK(error_with("\"direct_max_muladds\": 216", "\"direct_max_muladds\": -1") ==
        path + ": contraction[0]: direct_max_muladds: expected a finite number >= 0");
  // A version 3 file (before the contraction crossover was measured) is refused with both versions.
  const std::string v3 = error_with("\"version\": 4", "\"version\": 3");
  CHECK(v3 == path + ": version 3 (this tfbench reads version 4)");
  CHECK(load_tuning(temp_path("missing.json")).refusal.find("no tuning file") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("tuning file: the default place honours TFBENCH_TUNING_DIR and is named by the key", "[tuning]") {
  const TuningKey here = current_key();
  setenv("TFBENCH_TUNING_DIR", "/some/shared/dir", 1);
  const std::string path = default_tuning_path(here);
  CHECK(path.rfind("/some/shared/dir/", 0) == 0);
  TuningKey other = here;
  other.cpu_model += " (other node type)";
  CHECK(default_tuning_path(other) != path);
  unsetenv("TFBENCH_TUNING_DIR");
}

TEST_CASE("a run worker gets the run's checked tuning file, never one its parent inherited", "[tuning]") {
  setenv(kTuningFileVariable, "/stale/inherited.json", 1);
  auto has = [](const std::vector<std::string>& env, const std::string& entry) {
    return std::find(env.begin(), env.end(), entry) != env.end();
  };
  auto mentions = [](const std::vector<std::string>& env) {
    return std::any_of(env.begin(), env.end(), [](const std::string& e) {
      return e.rfind(std::string(kTuningFileVariable) + "=", 0) == 0;
    });
  };
  harness::impl::WorkerEnvironmentOptions options;
  CHECK_FALSE(mentions(harness::impl::worker_environment(options)));
  options.tuning_file = "/cache/tuning/checked.json";
  const auto env = harness::impl::worker_environment(options);
  CHECK(has(env, std::string(kTuningFileVariable) + "=/cache/tuning/checked.json"));
  CHECK_FALSE(has(env, std::string(kTuningFileVariable) + "=/stale/inherited.json"));
  unsetenv(kTuningFileVariable);
}

TEST_CASE("tune --quick, the bounded first-use calibration, leaves out the LLC's top octave", "[tuning]") {
  tfbench::harness::tune::TuneRequest request;
  std::ostringstream err;
  REQUIRE(tfbench::harness::tune::parse_request("1", "2,32", "gemm", "l1,l2,llc,dram", "f64", request, err));
  CHECK(request.llc_top_octave);  // a full tune measures it
  tfbench::harness::tune::make_quick(request);
  CHECK_FALSE(request.llc_top_octave);
  CHECK(request.levels.size() == 3);  // and no DRAM class, as before
}
