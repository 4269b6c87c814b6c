// The alternating sweep of the specialized kernels (ops/batched/sweep_order.hpp): the order a
// thread's next sweep takes, the kernels' descending paths against their ascending ones bit for bit,
// and a chunk that sweeps the other way on its next call.

#include <algorithm>
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "ops/batched/specialized_gemm.hpp"
#include "ops/batched/sweep_order.hpp"

namespace batched = tfbench::impl::batched;

namespace {

// Used by the kernels' tests below, which a build without the host vector kernels (CUDA) leaves out.
[[maybe_unused]] std::vector<double> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& x : v) x = value(rng) + (x >= 0 ? 0.5 : -0.5);  // away from zero
  return v;
}

/// Packed column-major n x n items, `count` of them, at `data`.
[[maybe_unused]] batched::ItemBatch<double> packed(double* data, int n, std::int64_t count) {
  return {data, n, n, count, 1, n, std::ptrdiff_t(n) * n};
}

}  // namespace

TEST_CASE("sweep order: for_items visits every item once, ascending or descending", "[batched][sweep]") {
  std::vector<std::int64_t> up, down;
  batched::for_items(3, 9, false, [&](std::int64_t i) { up.push_back(i); });
  batched::for_items(3, 9, true, [&](std::int64_t i) { down.push_back(i); });
  CHECK(up == std::vector<std::int64_t>{3, 4, 5, 6, 7, 8});
  CHECK(down == std::vector<std::int64_t>{8, 7, 6, 5, 4, 3});
  std::vector<std::int64_t> none;
  batched::for_items(4, 4, true, [&](std::int64_t i) { none.push_back(i); });
  CHECK(none.empty());
}

TEST_CASE("sweep order: each thread alternates, starting ascending", "[batched][sweep]") {
  // Fresh threads: the main thread may have swept already in other tests.
  auto sequence = [] {
    std::vector<bool> s;
    for (int i = 0; i < 4; ++i) s.push_back(batched::next_sweep_backward());
    return s;
  };
  std::vector<bool> first, second;
  std::thread one([&] {
    first = sequence();
    std::thread other([&] { second = sequence(); });  // its own state, whatever this one's is
    other.join();
  });
  one.join();
  CHECK(first == std::vector<bool>{false, true, false, true});
  CHECK(second == first);
}

// The kernels that sweep both ways on this host: the 512-bit ones of 2, 4 and 8 (AVX-512) and the
// 256-bit ones of 2 and 4 (AVX2, and on AVX-512 hosts the other width a route may choose).
struct Swept {
  int n;
  bool narrow;  // the 256-bit kernel
};
#if defined(TFBENCH_IMPL_PAIR_ITEMS_AVX512) && defined(TFBENCH_IMPL_COLUMN_PAIRS_4X4_AVX512) && \
    defined(TFBENCH_IMPL_COLUMNS_8X8_AVX512) && defined(TFBENCH_IMPL_SMALL_ITEMS_AVX2)
#define TFBENCH_TEST_SWEPT_KERNELS 1
constexpr Swept kSwept[] = {{2, false}, {4, false}, {8, false}, {2, true}, {4, true}};
#elif defined(TFBENCH_IMPL_SMALL_ITEMS_AVX2) && !defined(TFBENCH_IMPL_PAIR_ITEMS_AVX512)
#define TFBENCH_TEST_SWEPT_KERNELS 1
constexpr Swept kSwept[] = {{2, true}, {4, true}};
#endif

#if defined(TFBENCH_TEST_SWEPT_KERNELS)

namespace {

/// Runs one of the kernels with a descending sweep over [begin, end) into C.
void kernel(Swept k, bool beta_zero, double alpha, const double* a, const double* b, double beta, double* c,
            std::int64_t begin, std::int64_t end, bool backward) {
  const int n = k.n;
  auto run = [&](auto zero) {
    constexpr bool Z = decltype(zero)::value;
    if (k.narrow) {
      if (n == 2) batched::gemm_small_f64_avx2_items<2, Z>(alpha, a, b, beta, c, begin, end, backward);
      if (n == 4) batched::gemm_small_f64_avx2_items<4, Z>(alpha, a, b, beta, c, begin, end, backward);
      if (n == 8) batched::gemm_small_f64_avx2_items<8, Z>(alpha, a, b, beta, c, begin, end, backward);
      return;
    }
#if defined(TFBENCH_IMPL_PAIR_ITEMS_AVX512)
    if (n == 2) batched::gemm_2x2_f64_pairs<Z>(alpha, a, b, beta, c, begin, end, backward);
    if (n == 4) batched::gemm_4x4_f64_column_pairs<Z>(alpha, a, b, beta, c, begin, end, backward);
    if (n == 8) batched::gemm_8x8_f64_columns<Z>(alpha, a, b, beta, c, begin, end, backward);
#endif
  };
  if (beta_zero) {
    run(std::true_type{});
  } else {
    run(std::false_type{});
  }
}

}  // namespace

TEST_CASE("sweep order: the swept kernels give the same C descending as ascending", "[batched][sweep]") {
  const std::int64_t count = 19;
  for (const Swept k : kSwept) {
    const int n = k.n;
    const std::size_t size = std::size_t(n) * n;
    const auto a = random_values(size * count, 1), b = random_values(size * count, 2);
    const auto c0 = random_values(size * count, 3);
    // An odd range inside the batch (AVX-512 runs 2 x 2 items two at a time; the odd one is the last), an
    // even one and a single item.
    for (auto [begin, end] : {std::pair<std::int64_t, std::int64_t>{1, 18}, {0, 19}, {2, 18}, {5, 6}})
      for (double alpha : {1.0, -1.5})
        for (double beta : {0.0, 0.25}) {
          CAPTURE(n, k.narrow, begin, end, alpha, beta);
          auto up = c0, down = c0;
          kernel(k, beta == 0.0, alpha, a.data(), b.data(), beta, up.data(), begin, end, false);
          kernel(k, beta == 0.0, alpha, a.data(), b.data(), beta, down.data(), begin, end, true);
          CHECK(down == up);  // bit for bit
          // Items outside the range untouched, inside it changed.
          for (std::int64_t i = 0; i < count; ++i) {
            const bool inside = i >= begin && i < end;
            CAPTURE(i);
            CHECK((up[std::size_t(i) * size] == c0[std::size_t(i) * size]) == !inside);
          }
        }
  }
}

namespace {

/// Three calls of a specialized chunk on a fresh thread (whose first sweep ascends) over `count`
/// items of n x n whose C_i is A_(i + 1): each item reads what another writes, so the order shows
/// in the result. B is the identity, so that the values stay bounded however long the batch.
/// (Operands alias here only to observe the order; the public operations reject such batches.)
struct ObservedOrder {
  std::vector<double> ascending, descending;
  std::vector<std::vector<double>> calls;
};

ObservedOrder observe_order(Swept k, std::int64_t count) {
  const int n = k.n;
  const std::size_t size = std::size_t(n) * n;
  ObservedOrder o;
  const auto a0 = random_values(size * std::size_t(count + 1), 4);
  std::vector<double> b(size * std::size_t(count), 0.0);
  for (std::int64_t i = 0; i < count; ++i)
    for (int d = 0; d < n; ++d) b[std::size_t(i) * size + std::size_t(d) * (n + 1)] = 1.0;
  auto expected = [&](bool backward) {
    auto ac = a0;
    kernel(k, true, 1.0, ac.data(), b.data(), 0.0, ac.data() + size, 0, count, backward);
    return ac;
  };
  o.ascending = expected(false);
  o.descending = expected(true);
  std::thread fresh([&] {
    for (int call = 0; call < 3; ++call) {
      auto ac = a0;
      batched::GemmBatch<double> g{packed(ac.data(), n, count), packed(b.data(), n, count),
                                   packed(ac.data() + size, n, count), 1.0, 0.0};
      auto run = [&](auto size_tag) {
        constexpr int N = decltype(size_tag)::value;
        const batched::FixedGemmChunk<double, N, N, N, batched::ItemLayout::Packed, true> chunk{g, false,
                                                                                                k.narrow};
        REQUIRE(chunk.runs_256bit() == k.narrow);
        chunk(0, 0, count);
      };
      if (n == 2) run(std::integral_constant<int, 2>{});
      if (n == 4) run(std::integral_constant<int, 4>{});
      if (n == 8) run(std::integral_constant<int, 8>{});
      o.calls.push_back(ac);
    }
  });
  fresh.join();
  return o;
}

/// Which A_j each slot 1..count of C holds after one sweep of the aliased batch of observe_order:
/// the kernel runs `group` consecutive items an iteration, reading their A before writing their C.
/// Ascending one at a time copies A_0 into every slot; descending shifts each item up by one.
std::vector<std::int64_t> sources(std::int64_t count, std::int64_t group, bool backward) {
  std::vector<std::int64_t> slot(std::size_t(count) + 1);  // slot s holds A_(slot[s])
  for (std::int64_t s = 0; s <= count; ++s) slot[std::size_t(s)] = s;
  const std::int64_t groups = (count + group - 1) / group;
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t first = (backward ? groups - 1 - g : g) * group;
    const std::int64_t last = std::min(first + group, count);
    std::vector<std::int64_t> read(slot.begin() + first, slot.begin() + last);
    for (std::int64_t i = first; i < last; ++i) slot[std::size_t(i) + 1] = read[std::size_t(i - first)];
  }
  return std::vector<std::int64_t>(slot.begin() + 1, slot.end());
}

}  // namespace

TEST_CASE("sweep order: a specialized chunk sweeps the other way on its next call", "[batched][sweep]") {
  for (const Swept k : kSwept) {
    const int n = k.n;
    CAPTURE(n, k.narrow);
    const std::int64_t count = 9;
    const auto o = observe_order(k, count);
    REQUIRE(o.ascending != o.descending);
    // With B the identity and C_i = A_(i + 1), the result shows the order of the sweep, down to the
    // group of items a kernel runs an iteration (the 512-bit 2 x 2 kernel runs two); any other order
    // leaves another pattern.
    const std::int64_t group = n == 2 && !k.narrow ? 2 : 1;
    const std::size_t size = std::size_t(n) * n;
    const auto a0 = random_values(size * std::size_t(count + 1), 4);
    const auto up = sources(count, group, false), down = sources(count, group, true);
    for (std::int64_t k = 1; k <= count; ++k) {
      CAPTURE(k);
      const long at = long(std::size_t(k) * size);
      CHECK(std::equal(o.ascending.begin() + at, o.ascending.begin() + at + long(size),
                       a0.begin() + long(std::size_t(up[std::size_t(k - 1)]) * size)));
      CHECK(std::equal(o.descending.begin() + at, o.descending.begin() + at + long(size),
                       a0.begin() + long(std::size_t(down[std::size_t(k - 1)]) * size)));
    }
    CHECK(o.calls[0] == o.ascending);
    CHECK(o.calls[1] == o.descending);
    CHECK(o.calls[2] == o.ascending);
  }
}

TEST_CASE("sweep order: a batch that streams from memory always ascends", "[batched][sweep]") {
  // Descending from DRAM ran 8-15% slower (tune, 2026-12-05, EPYC VM): no cache keeps what the last
  // call left of such a batch.
  for (const Swept k : kSwept) {
    const int n = k.n;
    CAPTURE(n, k.narrow);
    const std::int64_t count =
        std::int64_t(batched::kStreamingBatchBytes / (3.0 * n * n * sizeof(double))) + 1;  // just beyond
    const auto o = observe_order(k, count);
    REQUIRE(o.ascending != o.descending);
    for (const auto& call : o.calls) CHECK(call == o.ascending);
  }
}

TEST_CASE("sweep order: the 256-bit 8 x 8 kernel always ascends", "[batched][sweep]") {
  // Swept both ways it was 1.03-1.11x rather than 1.08-1.16x libxsmm (small_items_avx2.hpp).
  const auto o = observe_order(Swept{8, true}, 9);
  REQUIRE(o.ascending != o.descending);
  for (const auto& call : o.calls) CHECK(call == o.ascending);
}

#endif
