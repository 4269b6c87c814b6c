// Work counted per iteration for known sizes (flops and bytes are what rates are computed from).

#include <catch2/catch.hpp>

#include "small_cases.hpp"
#include "test_context.hpp"
#include "tfbench/workloads/registry.hpp"

using namespace tfbench::workloads;
using P = std::map<std::string, ParamValue>;

namespace {
Work work_of(const std::string& family, const Params& params, const std::string& variant) {
  const Family* f = find_family(family);
  REQUIRE(f);
  return f->instantiate(params, variant, test::context_of_test())->work();
}
}  // namespace

TEST_CASE("packed_small counts 2 n^3 flops and three n x n operands per item", "[workloads]") {
  const Params p(P{{"n", std::int64_t{4}}, {"batch", std::int64_t{10}}});
  for (const char* v : {"peer:openblas", "peer:kokkosbatched"}) {
    const Work w = work_of("packed_small", p, v);
    CHECK(w.flops == Approx(2.0 * 64 * 10));
    CHECK(w.bytes == Approx(3.0 * 16 * 10 * 8));
  }
  // Strided items move the same data (padding is not touched); float32 halves the bytes.
  const Params strided(P{{"n", std::int64_t{4}},
                         {"batch", std::int64_t{10}},
                         {"layout", std::string("strided")},
                         {"dtype", std::string("float32")}});
  const Work w = work_of("packed_small", strided, "peer:openblas");
  CHECK(w.flops == Approx(2.0 * 64 * 10));
  CHECK(w.bytes == Approx(3.0 * 16 * 10 * 4));
}

TEST_CASE("packed_small derives the batch from a working set", "[workloads]") {
  // 3 operands of 8x8 doubles = 1536 bytes per item: 1 MiB holds 682 items.
  const Params p(P{{"n", std::int64_t{8}}, {"working_set_mib", 1.0}});
  const Work w = work_of("packed_small", p, "peer:openblas");
  CHECK(w.flops == Approx(2.0 * 512 * 682));
}

TEST_CASE("bandwidth_control counts the STREAM triad", "[workloads]") {
  const Params p(P{{"elements", std::int64_t{4096}}});
  const Work w = work_of("bandwidth_control", p, "peer:openmp");
  CHECK(w.flops == Approx(2.0 * 4096));
  CHECK(w.bytes == Approx(24.0 * 4096));
}

TEST_CASE("batched_solve counts LAPACK's getrf + getrs flops", "[workloads]") {
  // n = 4: getrf 2*64/3 - 16/2 + 20/6 = 38; getrs with 2 right-hand sides 2 * (32 - 4) = 56.
  const Params p(P{{"n", std::int64_t{4}}, {"nrhs", std::int64_t{2}}, {"batch", std::int64_t{10}}});
  for (const char* v : {"peer:lapack", "peer:kokkosbatched"}) {
    const Work w = work_of("batched_solve", p, v);
    CHECK(w.flops == Approx((38.0 + 56.0) * 10));
    CHECK(w.bytes == Approx((16.0 + 2 * 8.0) * 10 * 8));
  }
}

TEST_CASE("compute_control counts 2 m n k flops", "[workloads]") {
  const Params p(P{{"n", std::int64_t{40}}, {"m", std::int64_t{30}}, {"k", std::int64_t{20}}});
  const Work w = work_of("compute_control", p, "peer:openblas");
  CHECK(w.flops == Approx(2.0 * 30 * 40 * 20));
  CHECK(w.bytes == Approx((30.0 * 20 + 20.0 * 40 + 30.0 * 40) * 8));
}
