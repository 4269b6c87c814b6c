// The specialized kernel's prefetch of the next item (column blocks of packed f64 16 x 16 and 32 x 32
// items in AVX-512 builds): a per-operation choice, reported where the items have it, the same C
// bit for bit as without it, and the kernel itself unchanged by it over any range of items.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "batched_test_support.hpp"
#include "ops/batched/specialized_gemm.hpp"
#include "test_context.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/ops/batched_gemm.hpp"
#include "tfbench/engine/ops/batched_solve.hpp"

using tfbench::BatchPolicy;
using tfbench::BatchStrategy;
using tfbench::DType;
using tfbench::Host;
using tfbench::Index;
using tfbench::Rank;
using tfbench::Session;
using tfbench::Tensor;
using tfbench::ops::BatchedOptions;
using tfbench::ops::ItemProvider;

namespace {

using HostT = Tensor<double, Rank<3>, Host>;

std::vector<double> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(n);
  for (auto& x : v) x = tfbench::testing::random_value<double>(rng);
  return v;
}

HostT random_tensor(Index n, Index items, std::uint64_t seed) {
  return HostT::from_col_major({n, n, items}, random_values(std::size_t(n * n * items), seed));
}

std::vector<double> values(const HostT& t) {
  return std::vector<double>(t.data(), t.data() + t.numel());
}

/// max |C - (alpha A B + beta C0)| / max |reference| over the batch.
double gemm_error(const HostT& a, const HostT& b, const HostT& c, const std::vector<double>& c0, double alpha,
                  double beta) {
  const Index n = c.shape()[0], batch = c.shape()[2];
  double diff = 0, scale = 0;
  for (Index it = 0; it < batch; ++it)
    for (Index j = 0; j < n; ++j)
      for (Index i = 0; i < n; ++i) {
        double s = 0;
        for (Index p = 0; p < n; ++p) s += a(i, p, it) * b(p, j, it);
        const double ref = alpha * s + beta * c0[std::size_t(i + n * (j + n * it))];
        diff = std::max(diff, std::abs(c(i, j, it) - ref));
        scale = std::max(scale, std::abs(ref));
      }
  return diff / scale;
}

tfbench::CpuBackend backend_for_test() {
  tfbench::CpuBackendConfig config;
  config.space = tfbench::is_host_space(tfbench::testing::space()) ? tfbench::testing::space()
                                                                   : tfbench::ExecSpaceKind::Serial;
  auto made = tfbench::CpuBackend::create(config);
  REQUIRE(made.has_value());
  return std::move(made).value();
}

/// Whether a chunk prefetches the next item: a compile-time kernel's answer, else (runtime sizes) no.
template <class Chunk>
auto prefetches_of(const Chunk& chunk, int) -> decltype(chunk.prefetches_next()) {
  return chunk.prefetches_next();
}
template <class Chunk>
bool prefetches_of(const Chunk&, long) {
  return false;
}

}  // namespace

TEST_CASE("has_prefetching_kernel: packed f64 16 x 16 and 32 x 32 items in AVX-512 builds",
          "[batched][prefetch]") {
#if defined(TFBENCH_IMPL_COLUMN_BLOCKS_AVX512)
  CHECK(tfbench::ops::has_prefetching_kernel(DType::F64, 16));
  CHECK(tfbench::ops::has_prefetching_kernel(DType::F64, 32));
#else
  CHECK_FALSE(tfbench::ops::has_prefetching_kernel(DType::F64, 16));
  CHECK_FALSE(tfbench::ops::has_prefetching_kernel(DType::F64, 32));
#endif
  for (int n : {2, 4, 8, 12, 24}) CHECK_FALSE(tfbench::ops::has_prefetching_kernel(DType::F64, n));
  CHECK_FALSE(tfbench::ops::has_prefetching_kernel(DType::F32, 16));
}

TEST_CASE(
    "batched_gemm: the specialized kernel's prefetch is a per-operation choice where the items have it, "
    "reported, and C is the same bit for bit either way",
    "[batched][prefetch]") {
  auto backend = backend_for_test();
  REQUIRE(backend
              .with_session([&](Session& s) {
                std::vector<BatchStrategy> strategies{BatchStrategy::Sequential};
                if (s.context().can_fan_out()) strategies.push_back(BatchStrategy::OuterParallel);
                for (Index n : {8, 16, 32}) {
                  const bool prefetching = tfbench::ops::has_prefetching_kernel(DType::F64, int(n));
                  const Index items = 7;  // odd: the lanes' last items prefetch nothing beyond their own
                  auto a = random_tensor(n, items, 210 + n), b = random_tensor(n, items, 220 + n);
                  const auto c0 = random_values(std::size_t(n * n * items), 230 + n);
                  for (BatchStrategy strategy : strategies)
                    for (double beta : {0.0, 0.5}) {
                      std::optional<std::vector<double>> without;  // C of the call without prefetch
                      // Unset, then each choice, one after the other in one session: the route memo
                      // must tell the calls apart.
                      for (std::optional<bool> prefetch :
                           {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false),
                            std::optional<bool>(true)}) {
                        CAPTURE(n, tfbench::name(strategy), beta, prefetch.has_value(),
                                prefetch.value_or(false));
                        auto c = HostT::from_col_major({n, n, items}, c0);
                        BatchedOptions o;
                        o.provider = ItemProvider::Specialized;
                        o.policy = BatchPolicy{strategy, tfbench::BatchThresholds{}, nullptr};
                        o.prefetch = prefetch;
                        auto ran = tfbench::ops::batched_gemm_into(s, a, b, c, -0.75, beta, o);
                        REQUIRE(ran.has_value());
                        CHECK(gemm_error(a, b, c, c0, -0.75, beta) <= 1e-12);
                        // Unset: the built-in rule, which prefetches only batches beyond the caches.
                        const bool asked = prefetch.value_or(false);
                        CHECK(ran->prefetch ==
                              (prefetching ? std::optional<bool>(asked) : std::optional<bool>()));
                        const bool says = tfbench::ops::describe(*ran).find("+prefetch") != std::string::npos;
                        CHECK(says == (prefetching && asked));
                        if (!asked && !without) without = values(c);
                        if (without) CHECK(values(c) == *without);
                      }
                    }
                }
#if defined(TFBENCH_IMPL_STREAM_STORES)
                // Streamed C from the registers, with and without the prefetch: the same C.
                for (Index n : {16, 32}) {
                  CAPTURE(n);
                  auto a = random_tensor(n, 9, 241), b = random_tensor(n, 9, 242);
                  std::vector<std::vector<double>> out;
                  for (bool prefetch : {false, true}) {
                    auto c = tfbench::testing::aligned_items(n, 9, -1.0);
                    BatchedOptions o;
                    o.provider = ItemProvider::Specialized;
                    o.streaming_stores = true;
                    o.prefetch = prefetch;
                    auto ran = tfbench::ops::batched_gemm_into(s, a, b, c, 1.0, 0.0, o);
                    REQUIRE(ran.has_value());
                    CHECK(ran->streaming_stores == std::optional<bool>(true));
                    CHECK(ran->prefetch.value_or(false) ==
                          (prefetch && tfbench::ops::has_prefetching_kernel(DType::F64, int(n))));
                    out.push_back(values(c));
                  }
                  CHECK(out[0] == out[1]);
                  auto c = HostT::from_col_major({n, n, 9}, out[1]);
                  CHECK(gemm_error(a, b, c, std::vector<double>(out[1].size(), 0.0), 1.0, 0.0) <= 1e-12);
                }
#endif
                // A solve prefetches nothing of its own: nothing to report.
                auto a = random_tensor(16, 4, 243),
                     rhs = HostT::from_col_major({16, 1, 4}, random_values(64, 244));
                for (Index i = 0; i < 16; ++i)
                  for (Index it = 0; it < 4; ++it) a(i, i, it) += 16.0;
                auto x = HostT::from_col_major({16, 1, 4}, std::vector<double>(64, 0.0));
                BatchedOptions o;
                o.provider = ItemProvider::Specialized;
                o.prefetch = true;
                auto solved = tfbench::ops::batched_solve_into(s, a, rhs, x, o);
                REQUIRE(solved.has_value());
                CHECK_FALSE(solved->prefetch.has_value());
              })
              .has_value());
}

TEST_CASE("with_specialized_chunk hands the route's prefetch to the chunk, which runs it where it can",
          "[batched][prefetch]") {
  namespace batched = tfbench::impl::batched;
  double x[32 * 32] = {};
  for (int n : {8, 16, 32}) {
    CAPTURE(n);
    const batched::ItemBatch<const double> in{x, n, n, 1, 1, n, std::ptrdiff_t(n) * n};
    const batched::GemmBatch<double> g{
        in, in, batched::ItemBatch<double>{x, n, n, 1, 1, n, std::ptrdiff_t(n) * n}, 1.0, 0.0};
    const bool can = tfbench::ops::has_prefetching_kernel(DType::F64, n);
    CHECK(batched::specialized_prefetches(g) == can);
    for (bool asked : {false, true})
      CHECK(batched::with_specialized_chunk(g, false, false, asked, [](const auto& chunk) {
              return prefetches_of(chunk, 0);
            }) == (asked && can));
  }
}

#if defined(TFBENCH_IMPL_COLUMN_BLOCKS_AVX512)
TEMPLATE_TEST_CASE_SIG("the column blocks with the next item's prefetch compute what they compute without it",
                       "[batched][prefetch]", ((int N), N), 16, 32) {
  namespace batched = tfbench::impl::batched;
  const Index items = 6;
  auto a = random_values(std::size_t(N * N * items), 251), b = random_values(std::size_t(N * N * items), 252);
  const auto c0 = random_values(std::size_t(N * N * items), 253);
  // Every range, from one item (nothing to prefetch) to all six, with beta 0 and not.
  for (Index begin = 0; begin < items; ++begin)
    for (Index end = begin + 1; end <= items; ++end) {
      CAPTURE(begin, end);
      std::vector<double> plain = c0, ahead = c0, plain0 = c0, ahead0 = c0;
      batched::gemm_f64_column_blocks_items<N, false>(0.5, a.data(), b.data(), -1.25, plain.data(), begin,
                                                      end);
      batched::gemm_f64_column_blocks_items<N, false, false, true>(0.5, a.data(), b.data(), -1.25,
                                                                   ahead.data(), begin, end);
      CHECK(ahead == plain);
      batched::gemm_f64_column_blocks_items<N, true>(1.0, a.data(), b.data(), 0.0, plain0.data(), begin, end);
      batched::gemm_f64_column_blocks_items<N, true, false, true>(1.0, a.data(), b.data(), 0.0, ahead0.data(),
                                                                  begin, end);
      CHECK(ahead0 == plain0);
      // Items outside [begin, end) untouched.
      for (Index i = 0; i < items; ++i) {
        if (i >= begin && i < end) continue;
        const auto first = std::ptrdiff_t(i * N * N), last = first + N * N;
        CHECK(std::equal(ahead.begin() + first, ahead.begin() + last, c0.begin() + first));
      }
    }
}
#endif
