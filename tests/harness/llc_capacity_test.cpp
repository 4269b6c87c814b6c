// The measured LLC capacity's cache file (read back only for the machine and report it was measured
// for) and $TFBENCH_LLC_BYTES's check.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "provenance/llc_capacity.hpp"

using namespace tfbench;
using namespace tfbench::harness;
using namespace tfbench::harness::impl;

namespace {

workloads::DetectedCaches reported_508() {
  workloads::DetectedCaches c;
  c.sizes = {48.0 * 1024, 1024.0 * 1024, 508.0 * 1024 * 1024};
  c.source = c.llc_source = "cpuid";
  c.reported_llc_bytes = c.sizes.llc_bytes;
  return c;
}

}  // namespace

TEST_CASE("LLC probe file: read back for its key only", "[llc]") {
  const std::string path = "/tmp/tfbench-llc-test-" + std::to_string(getpid()) + ".json";
  std::remove(path.c_str());
  const Json key = llc_probe_key(reported_508());
  const double now = unix_now();
  CHECK_FALSE(read_llc_probe(path, key, now).has_value());  // absent

  store_llc_probe(path, key, 64.0 * 1024 * 1024, Json::array({Json{{"bytes", 2097152.0}, {"gbs", 43.6}}}),
                  Json(), now);
  const auto back = read_llc_probe(path, key, now);
  REQUIRE(back.has_value());
  CHECK(back->llc_bytes == 64.0 * 1024 * 1024);
  CHECK_FALSE(back->provisional);
  CHECK(read_llc_probe(path, key, now + 365 * 86400.0).has_value());  // a quiet host's: for good

  // Another report (a resized VM, another CPU) is measured again.
  workloads::DetectedCaches other = reported_508();
  other.reported_llc_bytes = 32.0 * 1024 * 1024;
  CHECK_FALSE(read_llc_probe(path, llc_probe_key(other), now).has_value());
  CHECK(llc_probe_path(key) != llc_probe_path(llc_probe_key(other)));

  // A sweep that saw no end is kept too (0: the report stands), so it is not measured every run.
  store_llc_probe(path, key, 0, Json::array(), Json(), now);
  REQUIRE(read_llc_probe(path, key, now).has_value());
  CHECK(read_llc_probe(path, key, now)->llc_bytes == 0.0);

  std::ofstream(path) << "{ not json";
  CHECK_FALSE(read_llc_probe(path, key, now).has_value());
  std::remove(path.c_str());
}

TEST_CASE("LLC probe file: a busy host's sweep is kept for a while, then measured again", "[llc]") {
  // Not keeping it at all had every process of a parallel ctest measure its own LLC (a different one
  // each time), and a run's second invocation missed the first one's ceilings file.
  const std::string path = "/tmp/tfbench-llc-busy-" + std::to_string(getpid()) + ".json";
  const Json key = llc_probe_key(reported_508());
  const double then = unix_now();
  store_llc_probe(path, key, 77.0 * 1024 * 1024, Json::array(), Json{{"other", 0.48}, {"steal", 0.0}}, then);
  const auto soon = read_llc_probe(path, key, then + 60);
  REQUIRE(soon.has_value());
  CHECK(soon->llc_bytes == 77.0 * 1024 * 1024);
  CHECK(soon->provisional);
  CHECK_FALSE(read_llc_probe(path, key, then + kProvisionalLlcSeconds + 1).has_value());
  std::remove(path.c_str());
}

TEST_CASE("TFBENCH_LLC_BYTES: a byte count, or an error that says what it expected", "[llc]") {
  setenv("TFBENCH_LLC_BYTES", "32 megs", 1);
  std::ostringstream log;
  try {
    settle_llc_capacity(log);
    FAIL("accepted '32 megs'");
  } catch (const std::runtime_error& error) {
    const std::string what = error.what();
    CHECK(what.find("TFBENCH_LLC_BYTES='32 megs'") != std::string::npos);
    CHECK(what.find("32M") != std::string::npos);
  }
  setenv("TFBENCH_LLC_BYTES", "32M", 1);
  CHECK_NOTHROW(settle_llc_capacity(log));
  CHECK(log.str().empty());  // the user's value is taken as it is: nothing measured
  unsetenv("TFBENCH_LLC_BYTES");
}
