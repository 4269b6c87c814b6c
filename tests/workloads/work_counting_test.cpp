// Work counted per iteration for known sizes (flops and bytes are what rates are computed from).

#include <catch2/catch.hpp>

#include "contraction_replay/key_stream.hpp"
#include "small_cases.hpp"
#include "test_context.hpp"
#include "tfbench/workloads/registry.hpp"

#include <set>

using namespace tfbench::workloads;
using P = std::map<std::string, ParamValue>;

// Whether the engine's specialized kernel can stream C (its condition, specialized_gemm.hpp): the
// tests build with the engine's -march; CUDA builds compile the intrinsics out.
#if defined(__AVX__) && !defined(__CUDACC__) && !defined(__HIPCC__)
constexpr bool kEngineStreamsC = true;
#else
constexpr bool kEngineStreamsC = false;
#endif

namespace {
Work work_of(const std::string& family, const Params& params, const std::string& variant) {
  const Family* f = find_family(family);
  REQUIRE(f);
  return f->instantiate(params, variant, test::context_for(*f))->work();
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

TEST_CASE("packed_small: C is write-allocate traffic unless the route streamed it past the caches",
          "[workloads][roofline]") {
  // Every variant writes C = A B without reading C: from DRAM its lines are read before they are
  // written, so the roofline counts them twice (docs/results-format.md, write_allocate_bytes).
  const Params small(P{{"n", std::int64_t{4}}, {"batch", std::int64_t{10}}});
  for (const char* v : {"peer:openblas", "peer:kokkosbatched"})
    CHECK(work_of("packed_small", small, v).write_allocate_bytes == Approx(16.0 * 10 * 8));
  const Family* f = find_family("packed_small");
  REQUIRE(f);
  // The engine says what its last run did: in the L2 the specialized kernel stores C as usual; past
  // it (4 MiB of operands) with non-temporal stores, and then C moves once.
  auto engine = f->instantiate(small, "engine:sequential", test::context_of_test());
  engine->run();
  CHECK(engine->metrics().at("route.streaming_stores") == 0.0);
  CHECK(engine->work().write_allocate_bytes == Approx(16.0 * 10 * 8));
  const Params streaming(P{{"n", std::int64_t{4}}, {"working_set_mib", 4.0}});
  auto streamed = f->instantiate(streaming, "engine:sequential", test::context_of_test());
  streamed->run();
  REQUIRE(streamed->metrics().at("route.streaming_stores") == (kEngineStreamsC ? 1.0 : 0.0));
  const Work w = streamed->work();
  CHECK(w.bytes > 0.0);
  if (kEngineStreamsC) {
    CHECK(w.write_allocate_bytes == 0.0);
  } else {
    CHECK(w.write_allocate_bytes == Approx(w.bytes / 3.0));  // C, one of the three operands
  }
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
  CHECK(w.write_allocate_bytes == Approx(8.0 * 4096));  // a[i] is written, never read
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

TEST_CASE("resource_churn counts the bytes its outputs write", "[workloads]") {
  // Sizes 8 KiB and 32 KiB alternate: 4 ops write 2 * (1024 + 4096) doubles.
  const Params p(
      P{{"min_kib", 8.0}, {"max_kib", 32.0}, {"sizes", std::int64_t{2}}, {"ops", std::int64_t{4}}});
  const Work w = work_of("resource_churn", p, "engine:output_lease");
  CHECK(w.flops == 0.0);
  CHECK(w.bytes == Approx(8.0 * 2 * (1024 + 4096)));
}

TEST_CASE("resource_churn's pool serves repeated sizes from its cache", "[workloads]") {
  const Params p(P{{"min_kib", 4.0},
                   {"max_kib", 64.0},
                   {"sizes", std::int64_t{3}},
                   {"ops", std::int64_t{30}},
                   {"live", std::int64_t{2}}});
  const Family* f = find_family("resource_churn");
  auto pooled = f->instantiate(p, "engine:output_lease", test::context_for(*f));
  REQUIRE(pooled->check().passed);  // warms the pool
  const ResourceCounts r = pooled->resources();
  CHECK(r.allocations == 0.0);
  CHECK(r.pool_hits == 30.0);
  CHECK(r.bytes_retained > 0.0);
  CHECK(pooled->metrics().at("pool_hit_rate") == 1.0);
  auto plain = f->instantiate(p, "peer:plain_alloc", test::context_for(*f));
  CHECK(plain->resources().allocations == 30.0);
}

TEST_CASE("session_overhead counts no work for empty entries and the axpy for phases", "[workloads]") {
  const Work empty =
      work_of("session_overhead", Params(P{{"op", std::string("empty")}}), "engine:with_session");
  CHECK(empty.flops == 0.0);
  CHECK(empty.bytes == 0.0);
  const Params phase(P{{"op", std::string("phase")}, {"elements", std::int64_t{100}}});
  for (const char* v : {"engine:phase", "peer:parallel_for"}) {
    const Work w = work_of("session_overhead", phase, v);
    CHECK(w.flops == 200.0);
    CHECK(w.bytes == 2400.0);
  }
}

TEST_CASE("contraction_replay counts the cheapest path of each key", "[workloads]") {
  // A fixed binary stream: one key with extents i = j = l = 4, k = 2 (all deltas of key 0 vary, so
  // read the key from the table): 2 * i j k l flops per call.
  const Params p(P{{"kind", std::string("binary")},
                   {"keys", std::string("fixed")},
                   {"size", std::int64_t{4}},
                   {"calls", std::int64_t{3}}});
  const auto key = tfbench::workloads::contraction_replay::key_table("binary", 4).front();
  const double ijkl = key.muladds();
  const Work w = work_of("contraction_replay", p, "peer:permute_gemm");
  CHECK(w.flops == Approx(3 * 2.0 * ijkl));
  const double elements = key.inputs[0].elements() + key.inputs[1].elements() + key.output.elements();
  CHECK(w.bytes == Approx(3 * 8.0 * elements));
}

TEST_CASE("contraction_replay key tables cover every layout and outlast the plan cache", "[workloads]") {
  using tfbench::workloads::contraction_replay::key_table;
  const auto binary = key_table("binary", 8);
  const auto nary = key_table("nary", 8);
  CHECK(binary.size() == 648);
  CHECK(nary.size() == 1296);
  std::set<std::string> specs;
  for (const auto& k : binary) specs.insert(k.spec());
  CHECK(specs.size() == 72);  // 6 x 6 axis orders x 2 output orders
  // Neighbours in a stream differ (the table is shuffled, not grouped by layout).
  CHECK(binary[0].spec() + std::to_string(binary[0].muladds()) !=
        binary[1].spec() + std::to_string(binary[1].muladds()));
}

TEST_CASE("ad counts the forward and the backward pass", "[workloads]") {
  // chain n = 4, depth 2: forward 2 GEMMs (2 * 2 * 64) + product and sum (2 * 16) = 288 flops;
  // backward: dZ (16) + 2 GEMMs per step (2 * 4 * 64) = 528.
  const Params fwd(P{{"kind", std::string("chain")},
                     {"pass", std::string("forward")},
                     {"n", std::int64_t{4}},
                     {"depth", std::int64_t{2}}});
  CHECK(work_of("ad", fwd, "peer:blas").flops == Approx(288.0));
  const Params both(P{{"kind", std::string("chain")}, {"n", std::int64_t{4}}, {"depth", std::int64_t{2}}});
  CHECK(work_of("ad", both, "peer:blas").flops == Approx(288.0 + 528.0));
}

TEST_CASE("resident_chain keeps its chain resident and counts every transfer", "[workloads]") {
  const Params p(P{{"n", std::int64_t{8}}, {"steps", std::int64_t{4}}});
  const Work w = work_of("resident_chain", p, "engine:resident");
  CHECK(w.flops == Approx(4 * (2.0 * 512 + 3.0 * 64)));
  const Family* f = find_family("resident_chain");
  auto resident = f->instantiate(p, "engine:resident", test::context_of_test());
  REQUIRE(resident->check().passed);
  CHECK(resident->resources().transfers == 1.0);  // the final download only
  CHECK(resident->metrics().at("transfers_inside_chain") == 0.0);
  auto each = f->instantiate(p, "engine:download_each", test::context_of_test());
  REQUIRE(each->check().passed);
  CHECK(each->resources().transfers == 4.0);
  CHECK(each->metrics().at("transfers_inside_chain") == 3.0);
}

TEST_CASE("ad's tape records one node per operation and none under no_grad", "[workloads]") {
  const Params p(P{{"kind", std::string("chain")},
                   {"pass", std::string("forward")},
                   {"n", std::int64_t{6}},
                   {"depth", std::int64_t{3}}});
  const Family* f = find_family("ad");
  auto tape = f->instantiate(p, "engine:tape", test::context_for(*f));
  const auto m = tape->metrics();
  CHECK(m.at("tape_nodes_per_forward") == 5.0);  // 3 einsums, the multiply, the sum
  CHECK(m.at("backward_over_forward") > 0.0);
  CHECK(m.at("metric_rounds") >= 31.0);  // at least 31 rounds, and until 0.2 s passed
  auto no_grad = f->instantiate(p, "engine:no_grad", test::context_for(*f));
  CHECK(no_grad->metrics().at("tape_nodes_per_forward") == 0.0);
}
