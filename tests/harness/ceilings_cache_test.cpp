// The per-machine ceilings cache: an entry per thread configuration, reused only for this machine
// and build (the field that differs is named), a broken file reported and replaced.

#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "provenance/blas_core.hpp"
#include "run/ceilings_cache.hpp"
#include "run/protocol.hpp"
#include "tfbench/harness/system_info.hpp"

using namespace tfbench;
using namespace tfbench::harness;
using namespace tfbench::harness::impl;

namespace {

std::string temp_path(const char* name) {
  return std::string("/tmp/tfbench-ceilings-test-") + std::to_string(getpid()) + "-" + name;
}

workloads::Ceilings sample(double peak, int threads) {
  workloads::Ceilings c;
  c.peak_f64 = {peak, peak * 0.9, peak * 0.8, 5, 3 * 8.0 * 1024 * 1024};
  c.level(ops::MemoryLevel::L2) = {50.0, 48.0, 47.0, 5, 1e6};
  c.llc_sizes = {{30.0, 29.0, 28.0, 5, 4.6e6}, {13.0, 12.5, 12.0, 5, 1.3e8}};
  c.cache_edges[1] = {{45.0, 44.0, 43.0, 5, 1.25e6}, {20.0, 19.0, 18.0, 5, 2e6}};
  c.caches = {48e3, 2e6, 3e8};
  c.threads = threads;
  return c;  // peak_f32 and the other levels stay unmeasured (NaN)
}

}  // namespace

TEST_CASE("ceilings cache: an entry per thread configuration, read back as written", "[ceilings]") {
  const std::string path = temp_path("roundtrip.json");
  std::remove(path.c_str());
  const Json key = ceilings_cache_key();
  std::string why;
  CHECK_FALSE(read_cached_ceilings(path, key, {1, true}, why));
  CHECK_THAT(why, Catch::Contains("absent"));

  store_cached_ceilings(path, key, {1, true}, {sample(40.0, 1), "2026-12-02T03:00:00Z"});
  workloads::Ceilings two_threads = sample(75.0, 2);
  two_threads.handoff = {2.1e6, 2.0e6, 1.9e6, 5, 0};  // round trips per second
  store_cached_ceilings(path, key, {2, true}, {two_threads, "2026-12-02T03:00:01Z"});
  store_cached_ceilings(path, key, {1, true}, {sample(42.0, 1), "2026-12-02T03:00:02Z"});  // replaces

  const auto one = read_cached_ceilings(path, key, {1, true}, why);
  REQUIRE(one);
  CHECK(one->ceilings.gflops() == 42.0);
  CHECK(one->ceilings.peak_f64.worst == Approx(42.0 * 0.8));
  CHECK(one->ceilings.level(ops::MemoryLevel::L2).best == 50.0);
  CHECK(one->ceilings.caches.l2_bytes == 2e6);
  REQUIRE(one->ceilings.llc_sizes.size() == 2);  // the LLC ladder survives the cache
  CHECK(one->ceilings.llc_sizes[1].best == 13.0);
  CHECK(one->ceilings.llc_sizes[1].working_set_bytes == 1.3e8);
  CHECK(one->ceilings.cache_edges[0].empty());  // the L2's edge survives the cache, L1 had none
  REQUIRE(one->ceilings.cache_edges[1].size() == 2);
  CHECK(one->ceilings.cache_edges[1][1].best == 20.0);
  CHECK(one->ceilings.cache_edges[1][1].working_set_bytes == 2e6);
  CHECK(std::isnan(one->ceilings.peak_f32.best));
  CHECK(one->measured_utc == "2026-12-02T03:00:02Z");
  const auto two = read_cached_ceilings(path, key, {2, true}, why);
  REQUIRE(two);
  CHECK(two->ceilings.gflops() == 75.0);
  CHECK(two->ceilings.handoff.median == 2.0e6);  // the handoff survives the cache
  CHECK(two->ceilings.handoff_seconds() == Approx(1 / 2.1e6));
  CHECK_FALSE(one->ceilings.handoff.measured());  // one thread hands nothing over
  // Unpinned workers are another configuration: not in the file yet, and no complaint.
  CHECK_FALSE(read_cached_ceilings(path, key, {2, false}, why));
  CHECK(why.empty());
  std::remove(path.c_str());
}

TEST_CASE("ceilings cache: another machine's or build's file is not reused", "[ceilings]") {
  const std::string path = temp_path("foreign.json");
  Json foreign = ceilings_cache_key();
  foreign["cpu_model"] = "Imaginary CPU 9000";
  store_cached_ceilings(path, foreign, {1, true}, {sample(40.0, 1), "2026-12-02T03:00:00Z"});
  std::string why;
  CHECK_FALSE(read_cached_ceilings(path, ceilings_cache_key(), {1, true}, why));
  CHECK_THAT(why, Catch::Contains("another machine or build") && Catch::Contains("cpu_model") &&
                      Catch::Contains("Imaginary CPU 9000"));
  // Storing this machine's entry replaces the foreign file instead of mixing the two.
  store_cached_ceilings(path, ceilings_cache_key(), {1, true}, {sample(41.0, 1), "2026-12-02T03:00:01Z"});
  const auto back = read_cached_ceilings(path, ceilings_cache_key(), {1, true}, why);
  REQUIRE(back);
  CHECK(back->ceilings.gflops() == 41.0);
  std::remove(path.c_str());
}

TEST_CASE("ceilings cache: ceilings measured under another huge page mode are not reused", "[ceilings]") {
  // The page size moves the memory ceilings (a one-thread DRAM triad on the Xeon VM: 17.5 GB/s on
  // 4 KiB pages, 23.1 on huge pages): a file of the machine's other mode is measured again.
  const std::string path = temp_path("thp.json");
  Json other = ceilings_cache_key();
  REQUIRE(other.contains("transparent_hugepage"));
  CHECK(other["transparent_hugepage"] == transparent_hugepage_mode());
  other["transparent_hugepage"] = other["transparent_hugepage"] == "never" ? "always" : "never";
  store_cached_ceilings(path, other, {1, true}, {sample(40.0, 1), "2026-12-02T03:00:00Z"});
  std::string why;
  CHECK_FALSE(read_cached_ceilings(path, ceilings_cache_key(), {1, true}, why));
  CHECK_THAT(why, Catch::Contains("transparent_hugepage"));
  std::remove(path.c_str());
}

TEST_CASE("the transparent huge page mode is the bracketed word of the sysfs list", "[ceilings]") {
  CHECK(bracketed_choice("always [madvise] never") == "madvise");
  CHECK(bracketed_choice("[always] madvise never\n") == "always");
  CHECK(bracketed_choice("always madvise never") == "");
  CHECK(bracketed_choice("[]") == "");
  CHECK(bracketed_choice("") == "");
}

TEST_CASE("ceilings cache: a broken file is named and replaced", "[ceilings]") {
  const std::string path = temp_path("broken.json");
  std::ofstream(path) << "{\"format\": \"tfbench-ceilings\", \"version\": 1, \"key\": ";
  std::string why;
  CHECK_FALSE(read_cached_ceilings(path, ceilings_cache_key(), {1, true}, why));
  CHECK_THAT(why, Catch::Contains(path) && Catch::Contains("unreadable"));
  store_cached_ceilings(path, ceilings_cache_key(), {1, true}, {sample(40.0, 1), "2026-12-02T03:00:00Z"});
  CHECK(read_cached_ceilings(path, ceilings_cache_key(), {1, true}, why));
  std::remove(path.c_str());
}

TEST_CASE("ceilings cache: its place follows TFBENCH_CEILINGS_DIR", "[ceilings]") {
  const Json key = ceilings_cache_key();
  setenv("TFBENCH_CEILINGS_DIR", "/tmp/tfbench-ceilings-dir", 1);
  const std::string path = default_ceilings_cache_path(key);
  CHECK(path.rfind("/tmp/tfbench-ceilings-dir/", 0) == 0);
  unsetenv("TFBENCH_CEILINGS_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  CHECK(default_ceilings_cache_path(key).rfind("/tmp/xdg/tfbench/ceilings/", 0) == 0);
  unsetenv("XDG_CACHE_HOME");
  Json other = key;
  other["build_flags"] = "-O0";
  CHECK(default_ceilings_cache_path(other) != default_ceilings_cache_path(key));  // builds never collide
}

TEST_CASE("ceilings: the noisiest one is named when its samples spread too far", "[ceilings]") {
  workloads::Ceilings c = sample(40.0, 1);
  c.level(ops::MemoryLevel::L2).worst = 20.0;  // one slow sample is routine
  CHECK(workloads::noisy_ceiling(c, 0.3).empty());
  c.level(ops::MemoryLevel::L2).median = 20.0;  // half of them slow is not
  CHECK(workloads::noisy_ceiling(c, 0.3) == "l2 bandwidth: median sample 60% below the best");
}

TEST_CASE("ceilings: a measurement lower than the cached one names each ceiling it fell short on",
          "[ceilings]") {
  const workloads::Ceilings earlier = sample(60.0, 1);
  workloads::Ceilings now = sample(57.0, 1);  // 5%: within the margin
  CHECK(workloads::lower_ceilings(earlier, now, 0.1).empty());
  now.peak_f64.best = 45.0;
  now.llc_sizes[1].best = 9.1;  // the ladder's point near the LLC's capacity
  CHECK(workloads::lower_ceilings(earlier, now, 0.1) ==
        "f64 peak 25% lower, llc bandwidth at 124 MiB 30% lower");
  // Another ladder: best_of takes `now` whole, so no ceiling is named as kept from the cache (the
  // peaks were named before, though the rows were not taken against the cached ones).
  now.llc_sizes[1].working_set_bytes = 2.6e8;
  CHECK_FALSE(workloads::combinable(earlier, now));
  CHECK(workloads::lower_ceilings(earlier, now, 0.1).empty());
  CHECK(workloads::best_of(earlier, now).gflops() == 45.0);
  CHECK(workloads::lower_ceilings(now, now, 0.1).empty());
}

TEST_CASE("OpenBLAS's fallback to SSE-era kernels is corrected to the host's instruction set",
          "[ceilings][blas]") {
  // A core of the AVX era or later is OpenBLAS's own good choice: never overridden.
  for (const char* core : {"SkylakeX", "Haswell", "Zen", "SapphireRapids", "Cooperlake"})
    CHECK(openblas_core_correction(core).empty());
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const std::string expected = avx512 ? "SkylakeX" : avx2 ? "Haswell" : "";
  for (const char* core : {"Prescott", "prescott", "Nehalem", "Core2", "Unknown"})
    CHECK(openblas_core_correction(core) == expected);
}

TEST_CASE("ceilings: measuring again keeps the best of each ceiling", "[ceilings]") {
  workloads::Ceilings earlier = sample(60.0, 1), now = sample(45.0, 1);  // the host was slower now
  now.level(ops::MemoryLevel::L2) = {70.0, 69.0, 68.0, 5, 1e6};          // but not for the L2
  now.llc_sizes[1].best = 14.0;
  now.cache_edges[1][1].best = 22.0;
  now.peak_f32.best = 100.0;  // earlier: not measured
  earlier.handoff.best = 2e6;
  now.handoff.best = 1.5e6;  // a slower round trip: the earlier one is what the machine does
  const workloads::Ceilings best = workloads::best_of(earlier, now);
  CHECK(best.gflops() == 60.0);
  CHECK(best.peak_f64.median == Approx(54.0));  // the earlier measurement whole, not a mix of two
  CHECK(best.level(ops::MemoryLevel::L2).best == 70.0);
  CHECK(best.llc_sizes[0].best == 30.0);
  CHECK(best.llc_sizes[1].best == 14.0);
  CHECK(best.cache_edges[1][0].best == 45.0);  // per edge point, like the ladder
  CHECK(best.cache_edges[1][1].best == 22.0);
  CHECK(best.peak_f32.best == 100.0);
  CHECK(best.handoff.best == 2e6);
  // Sized differently (another thread count, other caches or ladder): the new measurement whole.
  workloads::Ceilings other = sample(80.0, 2);
  CHECK(workloads::best_of(other, now).gflops() == 45.0);
  other = sample(80.0, 1);
  other.llc_sizes.pop_back();
  CHECK(workloads::best_of(other, now).gflops() == 45.0);
  other = sample(80.0, 1);
  other.cache_edges[1].pop_back();
  CHECK_FALSE(workloads::combinable(other, now));
}

TEST_CASE("ceilings: the peak is the higher of the FMA and the GEMM measurement, both kept", "[ceilings]") {
  // OpenBLAS on Haswell kernels (OPENBLAS_CORETYPE from the environment) on an AVX-512 core: its
  // dgemm read 34.8 GFLOP/s while libxsmm's batches ran at 42.4, 1.22 of a GEMM "peak".
  workloads::Ceilings c = sample(0.0, 1);
  c.gemm_f64 = {34.8, 33.0, 31.0, 5, 1e8};
  c.fma_f64 = {64.9, 64.0, 60.0, 5, 0};
  c.gemm_f32 = {80.0, 79.0, 78.0, 5, 5e7};  // f32: no FMA measurement (an older worker)
  c.settle_peaks();
  CHECK(c.gflops() == 64.9);
  CHECK(c.peak_source(false) == "fma");
  CHECK(c.peak_f32.best == 80.0);
  CHECK(c.peak_source(true) == "gemm");
  // Through the worker protocol and the cache: both measurements survive, and a file written before
  // the FMA peaks reads its peaks as the GEMM's.
  const auto back = Json::parse(dump_json(Json(c))).get<workloads::Ceilings>();
  CHECK(back.fma_f64.best == 64.9);
  CHECK(back.gemm_f64.best == 34.8);
  CHECK(back.gflops() == 64.9);
  Json old = Json(c);
  for (const char* key : {"fma_f64", "fma_f32", "gemm_f64", "gemm_f32"}) old.erase(key);
  const auto older = old.get<workloads::Ceilings>();
  CHECK(older.gemm_f64.best == 64.9);  // its peak, which was the GEMM's then
  CHECK_FALSE(older.fma_f64.measured());
  // best_of combines each measurement on its own.
  workloads::Ceilings now = c;
  now.fma_f64.best = 50.0;
  now.gemm_f64.best = 36.0;
  now.settle_peaks();
  const workloads::Ceilings best = workloads::best_of(c, now);
  CHECK(best.fma_f64.best == 64.9);
  CHECK(best.gemm_f64.best == 36.0);
  CHECK(best.gflops() == 64.9);
}
