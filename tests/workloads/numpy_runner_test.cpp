// The NumPy runner: protocol round trips, thread setting verified, and unavailability with reasons.

#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "peers/numpy_runner.hpp"
#include "small_cases.hpp"
#include "test_context.hpp"
#include "tfbench/workloads/registry.hpp"

using namespace tfbench::workloads;

TEST_CASE("a missing interpreter or script makes the NumPy peer unavailable with a reason", "[workloads]") {
  NumpyRunner no_python("/nonexistent/python3", TFBENCH_SOURCE_DIR "/scripts/numpy_peer.py");
  const auto why = no_python.unavailable();
  REQUIRE(why);
  CHECK_THAT(*why, Catch::Contains("/nonexistent/python3"));

  NumpyRunner no_script("/usr/bin/python3", "/nonexistent/numpy_peer.py");
  const auto why2 = no_script.unavailable();
  REQUIRE(why2);
  CHECK_THAT(*why2, Catch::Contains("/nonexistent/numpy_peer.py"));
}

TEST_CASE("the NumPy runner answers, sets and verifies its BLAS threads", "[workloads]") {
  auto& runner = NumpyRunner::get();
  if (const auto why = runner.unavailable()) {
    WARN("NumPy unavailable: " << *why);
    return;
  }
  const NumpyInfo info = runner.info();
  CHECK_FALSE(info.numpy_version.empty());
  CHECK(runner.set_threads(1) == 1);
  CHECK_THROWS_WITH(runner.request("bogus"), Catch::Contains("unknown command"));
  // The runner stays usable after an error reply.
  CHECK(runner.set_threads(1) == 1);
}

namespace {
/// This process's mappings of NumPy operand files, `named` ones (the file still has its name) or
/// unlinked ones. Scoped to this process: a global count of /dev/shm raced with the NumPy peers of
/// test binaries running beside this one (ctest -j), whose files came and went between two counts.
int mapped_operand_files(bool named) {
  std::ifstream maps("/proc/self/maps");
  int n = 0;
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/tfbench-numpy-") == std::string::npos) continue;
    n += (line.find("(deleted)") == std::string::npos) == named;
  }
  return n;
}
}  // namespace

TEST_CASE("NumPy operand files leave no name behind once Python mapped them", "[workloads]") {
  if (NumpyRunner::get().unavailable()) return;
  using P = std::map<std::string, ParamValue>;
  auto numpy = find_family("packed_small")
                   ->instantiate(Params(P{{"n", std::int64_t{3}}, {"batch", std::int64_t{5}}}), "peer:numpy",
                                 test::context_of_test());
  CHECK(mapped_operand_files(false) >= 1);  // the operands stay mapped ...
  CHECK(mapped_operand_files(true) == 0);   // ... under no name
  CHECK(numpy->check().passed);
  numpy->run();
  REQUIRE(numpy->self_timed_seconds().has_value());
  CHECK(*numpy->self_timed_seconds() > 0.0);
}

TEST_CASE("a peer without an instantiation for its size says why", "[workloads]") {
  using P = std::map<std::string, ParamValue>;
  const Family* packed = find_family("packed_small");
  REQUIRE(packed);
  const Params p(P{{"n", std::int64_t{31}}, {"batch", std::int64_t{4}}});
  bool seen = false;
  for (const auto& v : packed->variants(p, test::context_of_test())) {
    if (v.name != "peer:eigen") continue;
    seen = true;
    REQUIRE(v.unavailable);
    CHECK_THAT(*v.unavailable, Catch::Contains("n = 31"));
  }
  CHECK(seen);
  CHECK_THROWS_AS(packed->instantiate(p, "peer:eigen", test::context_of_test()), WorkloadError);
}
