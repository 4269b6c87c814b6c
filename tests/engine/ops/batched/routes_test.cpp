// Every batched GEMM and solve provider, under every execution mode, against plain references on
// random non-zero data, for packed and strided item layouts, on the test's execution space.

#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "batched_test_support.hpp"
#include "ops/batched/batched_exec.hpp"
#include "ops/batched/host_providers.hpp"
#include "ops/batched/run_lanes.hpp"
#include "test_context.hpp"
#include "tfbench/engine/exec/batch_policy.hpp"

using tfbench::ops::ItemProvider;
using tfbench::testing::TestBatch;
using tfbench::testing::TestLayout;
namespace batched = tfbench::impl::batched;

// A batch of T reads as a batch of const T and as nothing else (the conversion is a template: it must
// not offer another element type, nor a batch of const T one to its own type).
static_assert(std::is_convertible<batched::ItemBatch<double>, batched::ItemBatch<const double>>::value);
static_assert(!std::is_convertible<batched::ItemBatch<double>, batched::ItemBatch<const float>>::value);
static_assert(!std::is_convertible<batched::ItemBatch<const double>, batched::ItemBatch<double>>::value);

namespace {

const ItemProvider all_providers[] = {ItemProvider::Specialized, ItemProvider::Libxsmm,
                                      ItemProvider::KokkosBatched, ItemProvider::Blas,
                                      ItemProvider::VendorBatched};
const TestLayout all_layouts[] = {TestLayout::Packed, TestLayout::Padded, TestLayout::Interleaved,
                                  TestLayout::RowMajor, TestLayout::Reversed};

/// The routes a test runs each applicable provider along.
/// With `lanes`, sequential providers also run in 3 lanes (an OpenMP region each: the sweeps run lanes
/// on a subset only, an oversubscribed 2-core machine pays milliseconds per region).
std::vector<batched::ItemsRoute> routes_for(ItemProvider p, bool lanes = true) {
  using batched::RouteMode;
  if (p == ItemProvider::Blas) return {{RouteMode::ProviderItems, 1, p}};
  if (p == ItemProvider::VendorBatched) return {{RouteMode::WholeBatchVendor, 1, p}};
  if (!lanes) return {{RouteMode::Sequential, 1, p}, {RouteMode::ProviderItems, 1, p}};
  return {{RouteMode::Sequential, 1, p}, {RouteMode::OuterParallel, 3, p}, {RouteMode::ProviderItems, 1, p}};
}

template <class T>
void check_gemm_all_routes(int m, int n, int k, std::int64_t count, TestLayout layout, T alpha, T beta,
                           bool lanes = true) {
  tfbench::testing::with_space([&](auto space) {
    using Space = decltype(space);
    using Mem = typename Space::memory_space;
    std::mt19937_64 rng(1000 + m * 31 + n * 7 + k);
    TestBatch<T, Mem> a(m, k, count, layout, "a"), b(k, n, count, layout, "b"), c0(m, n, count, layout, "c0");
    a.fill_random(rng);
    b.fill_random(rng);
    c0.fill_random(rng);
    // Reference in double (complex<double>) precision from the same inputs.
    std::vector<std::complex<double>> ref(std::size_t(m) * n * count);
    auto cd = [](const auto& v) {
      if constexpr (std::is_same<std::decay_t<decltype(v)>,
                                 Kokkos::complex<tfbench::testing::real_t<T>>>::value) {
        return std::complex<double>(v.real(), v.imag());
      } else {
        return std::complex<double>(static_cast<double>(v), 0.0);
      }
    };
    for (std::int64_t it = 0; it < count; ++it)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
          std::complex<double> s = 0;
          for (int p = 0; p < k; ++p) s += cd(a.at(i, p, it)) * cd(b.at(p, j, it));
          ref[i + std::size_t(j) * m + std::size_t(it) * m * n] =
              cd(alpha) * s + cd(beta) * cd(c0.at(i, j, it));
        }
    int ran = 0;
    for (ItemProvider provider : all_providers) {
      for (const auto& route : routes_for(provider, lanes)) {
        TestBatch<T, Mem> c(m, n, count, layout, "c");
        if (beta == T(0)) {
          c.fill(T(std::numeric_limits<tfbench::testing::real_t<T>>::quiet_NaN()));  // beta 0 never reads C
        } else {
          Kokkos::deep_copy(c.storage, c0.storage);
          c.download();
        }
        batched::GemmBatch<T> g{a.batch, b.batch, c.batch, alpha, beta};
        if (!batched::gemm_provider_applies<Space>(provider, g)) continue;
        batched::execute_gemm(space, route, g);
        Kokkos::fence();
        c.download();
        double diff = 0, scale = 0;
        for (std::int64_t it = 0; it < count; ++it)
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i) {
              const auto r = ref[i + std::size_t(j) * m + std::size_t(it) * m * n];
              diff = std::max(diff, std::abs(cd(c.at(i, j, it)) - r));
              if (!(std::abs(cd(c.at(i, j, it))) < 1e300)) diff = INFINITY;
              scale = std::max(scale, std::abs(r));
            }
        INFO("provider " << tfbench::ops::name(provider) << " mode " << int(route.mode) << " layout "
                         << tfbench::testing::layout_name(layout) << " m n k " << m << " " << n << " " << k);
        CHECK(diff / scale <= tfbench::testing::tolerance<T>());
        ++ran;
      }
    }
    CHECK(ran >= (lanes ? 3 : 2));  // at least the specialized routes ran
  });
}

}  // namespace

TEMPLATE_TEST_CASE("batched gemm: every provider and route matches the triple-loop reference",
                   "[batched][gemm]", double, float, Kokkos::complex<double>) {
  using T = TestType;
  const std::vector<std::tuple<int, int, int>> shapes = {
      {1, 1, 1},    {2, 2, 2}, {3, 3, 3},    {4, 4, 4},    {5, 5, 5},    {6, 6, 6},
      {7, 7, 7},    {8, 8, 8}, {12, 12, 12}, {16, 16, 16}, {24, 24, 24}, {32, 32, 32},
      {33, 33, 33}, {3, 5, 7}, {8, 2, 16},   {17, 9, 4}};
  const std::vector<std::pair<T, T>> scalars = {{T(1), T(0)}, {T(1), T(1)}, {T(-0.75), T(0.5)}};
  for (TestLayout layout : all_layouts)
    for (const auto& [m, n, k] : shapes)
      for (std::size_t s = 0; s < scalars.size(); ++s)
        check_gemm_all_routes<T>(m, n, k, 7, layout, scalars[s].first, scalars[s].second, s == 0);
}

TEST_CASE("batched gemm: empty and single-item batches, more lanes than items", "[batched][gemm]") {
  check_gemm_all_routes<double>(4, 4, 4, 1, TestLayout::Packed, 1.0, 0.0);
  check_gemm_all_routes<double>(4, 4, 4, 2, TestLayout::Padded, 2.0, 1.0);
  tfbench::testing::with_space([&](auto space) {
    using Mem = typename decltype(space)::memory_space;
    TestBatch<double, Mem> a(4, 4, 0, TestLayout::Packed, "a"), c(4, 4, 0, TestLayout::Packed, "c");
    batched::GemmBatch<double> g{a.batch, a.batch, c.batch, 1.0, 0.0};
    batched::execute_gemm(space, {batched::RouteMode::OuterParallel, 4, ItemProvider::Specialized}, g);
  });
}

#if defined(KOKKOS_ENABLE_OPENMP)
namespace {

std::mutex g_label_mutex;
std::vector<std::string> g_labels;

void record_label(const char* name, std::uint32_t, std::uint64_t*) {
  std::lock_guard<std::mutex> lock(g_label_mutex);
  g_labels.emplace_back(name);
}

/// Per lane of one run_lanes call on Kokkos::OpenMP: how often it ran, its chunk, the OpenMP level
/// and team size it ran at.
struct LaneRecord {
  std::vector<std::atomic<int>> runs;
  std::vector<std::int64_t> begin, end;
  std::vector<int> level, team;
  explicit LaneRecord(int lanes) : runs(lanes), begin(lanes), end(lanes), level(lanes), team(lanes) {}
};

/// The chunk functor: a named type, not a local lambda, since run_lanes wraps it in a KOKKOS_LAMBDA
/// and nvcc rejects a function-local type inside an extended lambda.
struct RecordChunk {
  LaneRecord* rec;
  void operator()(const int lane, const std::int64_t b, const std::int64_t e) const {
    rec->runs[lane].fetch_add(1);
    rec->begin[lane] = b;
    rec->end[lane] = e;
    rec->level[lane] = omp_get_level();
    rec->team[lane] = omp_get_num_threads();
  }
};

void record_lanes(LaneRecord& rec, int lanes, std::int64_t count) {
  batched::run_lanes("tfbench::tests::lanes", Kokkos::OpenMP(), lanes, count, 0, false, RecordChunk{&rec});
}

}  // namespace

TEST_CASE("batched lanes on OpenMP: one region of the pool's threads, through Kokkos while a tool listens",
          "[batched][lanes]") {
  const int pool = Kokkos::OpenMP().concurrency();
  if (pool < 2) {
    WARN("the test's OpenMP pool has one thread: no region to check");
    return;
  }
  for (const int lanes : {2, pool + 3}) {  // more lanes than the pool's threads: no extra threads
    INFO("lanes " << lanes << " pool " << pool);
    LaneRecord rec(lanes);
    record_lanes(rec, lanes, 100);
    std::int64_t covered = 0;
    for (int lane = 0; lane < lanes; ++lane) {
      CHECK(rec.runs[lane].load() == 1);
      CHECK(rec.begin[lane] == covered);
      covered = rec.end[lane];
      CHECK(rec.level[lane] == 1);
      CHECK(rec.team[lane] >= 2);
      CHECK(rec.team[lane] <= std::min(lanes, pool));
    }
    CHECK(covered == 100);
  }
  // A listening tool sees the lanes' region under its label (Kokkos runs it then), lanes as before.
  g_labels.clear();
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(record_label);
  LaneRecord rec(2);
  record_lanes(rec, 2, 10);
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
  CHECK(std::count(g_labels.begin(), g_labels.end(), std::string("tfbench::tests::lanes")) == 1);
  CHECK(rec.runs[0].load() == 1);
  CHECK(rec.runs[1].load() == 1);
  CHECK(rec.end[1] == 10);
  // Inside a parallel region every lane runs on the calling thread, as a nested Kokkos parallel_for.
  LaneRecord nested(3);
#pragma omp parallel num_threads(1)
  record_lanes(nested, 3, 9);
  for (int lane = 0; lane < 3; ++lane) {
    CHECK(nested.runs[lane].load() == 1);
    CHECK(nested.team[lane] == 1);
  }
}
#endif

TEST_CASE("batched lanes: the route's on a host space, one item a lane on a device", "[batched][lanes]") {
  CHECK(batched::batch_lanes(true, 2, 512) == 2);
  CHECK(batched::batch_lanes(true, 1, 512) == 1);
  // Never more lanes than items: a lane's factor scratch is sized by them.
  CHECK(batched::batch_lanes(true, 4, 3) == 3);
  CHECK(batched::batch_lanes(true, 2, 1, 64 * 64 * 8) == 1);
  // A device context has one host thread: its routes say one lane, and the batch runs an item a lane.
  CHECK(batched::batch_lanes(false, 1, 16384) == 16384);
  CHECK(batched::batch_lanes(false, 2, 7) == 7);
  CHECK(batched::batch_lanes(false, 1, std::int64_t(1) << 40) == std::numeric_limits<int>::max());
  // Scratch a lane (64 x 64 f64 factors, 32 KiB) caps them at 256 MiB: 8192 lanes; never below one.
  CHECK(batched::batch_lanes(false, 1, 16384, 64 * 64 * 8) == 8192);
  CHECK(batched::batch_lanes(false, 1, 100, 64 * 64 * 8) == 100);
  CHECK(batched::batch_lanes(false, 1, 16384, std::int64_t(1) << 30) == 1);
}

TEST_CASE("batched gemm: provider applicability follows dtype, scalars, layout and space",
          "[batched][gemm]") {
  tfbench::testing::with_space([&](auto space) {
    using Space = decltype(space);
    using Mem = typename Space::memory_space;
    constexpr bool host = batched::is_host_space<Space>();
    TestBatch<double, Mem> a(8, 8, 3, TestLayout::Packed, "a"), c(8, 8, 3, TestLayout::Packed, "c");
    TestBatch<double, Mem> rev(8, 8, 3, TestLayout::Reversed, "rev"), rm(8, 8, 3, TestLayout::RowMajor, "rm");
    const batched::GemmBatch<double> packed{a.batch, a.batch, c.batch, 1.0, 0.0};
    CHECK(batched::gemm_provider_applies<Space>(ItemProvider::Specialized, packed));
    CHECK(batched::gemm_provider_applies<Space>(ItemProvider::KokkosBatched, packed));
    // On a device, per-item BLAS is the vendor's (cuBLAS builds on Cuda): where its batched gemm is.
    CHECK(batched::gemm_provider_applies<Space>(ItemProvider::Blas, packed) ==
          (host || batched::gemm_provider_applies<Space>(ItemProvider::VendorBatched, packed)));
    CHECK(batched::gemm_provider_applies<Space>(ItemProvider::Libxsmm, packed) ==
          (host && batched::libxsmm_compiled()));
    // libxsmm 1.17 kernels have alpha 1 and beta 0 or 1 baked in; row-major items are not its layout.
    CHECK_FALSE(batched::gemm_provider_applies<Space>(
        ItemProvider::Libxsmm, batched::GemmBatch<double>{a.batch, a.batch, c.batch, 2.0, 0.0}));
    CHECK_FALSE(batched::gemm_provider_applies<Space>(
        ItemProvider::Libxsmm, batched::GemmBatch<double>{rm.batch, a.batch, c.batch, 1.0, 0.0}));
    // Negative strides: KokkosBatched (unsigned LayoutStride) and BLAS cannot take them.
    const batched::GemmBatch<double> reversed{rev.batch, a.batch, c.batch, 1.0, 0.0};
    CHECK(batched::gemm_provider_applies<Space>(ItemProvider::Specialized, reversed));
    CHECK_FALSE(batched::gemm_provider_applies<Space>(ItemProvider::KokkosBatched, reversed));
    // No whole-batch vendor gemm on a host space (OpenBLAS 0.3.21 has no cblas_dgemm_batch).
    if (host) CHECK_FALSE(batched::gemm_provider_applies<Space>(ItemProvider::VendorBatched, packed));
  });
}

namespace {

/// A well-conditioned test matrix: diagonally dominant, then (when `permuted`) its rows shuffled so
/// that elimination without row exchanges meets zero-free but tiny-to-zero leading pivots.
template <class T>
void make_matrix(std::mt19937_64& rng, int n, bool permuted, std::vector<T>& out) {
  out.assign(std::size_t(n) * n, T(0));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) out[i + std::size_t(j) * n] = tfbench::testing::random_value<T>(rng);
  for (int i = 0; i < n; ++i) out[i + std::size_t(i) * n] += T(2.0 * n);
  if (!permuted || n < 2) return;
  std::vector<int> perm(n);
  for (int i = 0; i < n; ++i) perm[i] = (i + 1) % n;  // a cyclic shift: no fixed point, pivoting needed
  std::vector<T> shuffled(out.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) shuffled[perm[i] + std::size_t(j) * n] = out[i + std::size_t(j) * n];
  out.swap(shuffled);
}

template <class T>
void check_solve_all_routes(int n, int nrhs, std::int64_t count, TestLayout layout, bool permuted,
                            bool in_place, bool lanes = true) {
  tfbench::testing::with_space([&](auto space) {
    using Space = decltype(space);
    using Mem = typename Space::memory_space;
    std::mt19937_64 rng(77 + n * 13 + nrhs);
    TestBatch<T, Mem> a(n, n, count, layout, "a"), xtrue(n, nrhs, count, TestLayout::Packed, "xtrue");
    TestBatch<T, Mem> b(n, nrhs, count, layout, "b");
    xtrue.fill_random(rng);
    std::vector<T> m;
    for (std::int64_t it = 0; it < count; ++it) {
      make_matrix(rng, n, permuted, m);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) a.at(i, j, it) = m[i + std::size_t(j) * n];
      for (int r = 0; r < nrhs; ++r)
        for (int i = 0; i < n; ++i) {
          T s = T(0);
          for (int p = 0; p < n; ++p) s += m[i + std::size_t(p) * n] * xtrue.at(p, r, it);
          b.at(i, r, it) = s;
        }
    }
    a.upload();
    b.upload();
    int ran = 0;
    for (ItemProvider provider :
         {ItemProvider::Specialized, ItemProvider::KokkosBatched, ItemProvider::Blas}) {
      if (provider == ItemProvider::KokkosBatched && permuted) continue;  // no pivoting: not its contract
      for (const auto& route : routes_for(provider, lanes)) {
        TestBatch<T, Mem> x(n, nrhs, count, layout, "x");
        batched::SolveBatch<T> s{a.batch, b.batch, x.batch};
        if (in_place) {
          Kokkos::deep_copy(x.storage, b.storage);
          s = batched::SolveBatch<T>{a.batch, x.batch, x.batch};
        }
        if (!batched::solve_provider_applies<Space>(provider, s)) continue;
        const batched::SingularItems singular = batched::execute_solve(space, route, s).singular;
        Kokkos::fence();
        x.download();
        INFO("provider " << tfbench::ops::name(provider) << " mode " << int(route.mode) << " layout "
                         << tfbench::testing::layout_name(layout) << " n " << n << " nrhs " << nrhs
                         << " permuted " << permuted << " in place " << in_place);
        CHECK(singular.count == 0);
        CHECK(tfbench::testing::relative_error(x, [&](int r, int c, std::int64_t it) {
                return xtrue.at(r, c, it);
              }) <= tfbench::testing::tolerance<T>() * 10);
        ++ran;
      }
    }
    CHECK(ran >= 2);
  });
}

}  // namespace

TEST_CASE(
    "batched gemm: streaming-store items equal regular-store items, and stream only where the items allow",
    "[batched][gemm]") {
  // 8192 packed 4 x 4 items (3 MiB of operands: a streaming batch) in 64-byte aligned memory.
  constexpr int n = 4;
  const std::int64_t items = 8192, elements = n * n * items;
  auto aligned = [&] { return static_cast<double*>(std::aligned_alloc(64, std::size_t(elements) * 8)); };
  double *a = aligned(), *b = aligned(), *c_stream = aligned(), *c_plain = aligned();
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t i = 0; i < elements; ++i) a[i] = u(rng), b[i] = u(rng), c_stream[i] = c_plain[i] = 7;
  const batched::ItemBatch<const double> ab{a, n, n, items, 1, n, n * n}, bb{b, n, n, items, 1, n, n * n};
  const batched::ItemBatch<double> cs{c_stream, n, n, items, 1, n, n * n},
      cp{c_plain, n, n, items, 1, n, n * n};
  const batched::GemmBatch<double> streamed{ab, bb, cs, 1.0, 0.0}, plain{ab, bb, cp, 1.0, 0.0};
  using Chunk = batched::FixedGemmChunk<double, n, n, n, batched::ItemLayout::Packed, true>;
#if defined(TFBENCH_IMPL_STREAM_STORES)
  CHECK(batched::streams_c(streamed, n));
  CHECK(batched::specialized_streams_c(streamed));
  // A batch that fits the caches allows them too: whether they pay is the route's choice.
  batched::ItemBatch<double> few = cs;
  few.count = 64;
  CHECK(batched::streams_c(batched::GemmBatch<double>{ab, bb, few, 1.0, 0.0}, n));
#endif
  // Two lanes' chunks, as OuterParallel would run them.
  Chunk{streamed, true}(0, 0, items / 2);
  Chunk{streamed, true}(1, items / 2, items);
  Chunk{plain, false}(0, 0, items);
  bool same = true;
  for (std::int64_t i = 0; i < elements; ++i) same = same && c_stream[i] == c_plain[i];
  CHECK(same);
  CHECK(c_plain[0] != 7);
  // Not allowed: beta != 0 (C is read), an address off 32 bytes, 3 x 3 items (72 bytes, not whole
  // vectors), items that are not packed.
  CHECK_FALSE(batched::streams_c(batched::GemmBatch<double>{ab, bb, cs, 1.0, 1.0}, n));
  batched::ItemBatch<double> off = cs;
  off.data = c_stream + 1;
  off.count = items - 1;
  CHECK_FALSE(batched::streams_c(batched::GemmBatch<double>{ab, bb, off, 1.0, 0.0}, n));
  CHECK_FALSE(batched::streams_c(streamed, 3));
  batched::ItemBatch<double> spaced = cs;
  spaced.bs = 2 * n * n;
  spaced.count = items / 2;
  CHECK_FALSE(batched::specialized_streams_c(batched::GemmBatch<double>{ab, bb, spaced, 1.0, 0.0}));
  for (double* p : {a, b, c_stream, c_plain}) std::free(p);
}

TEMPLATE_TEST_CASE("batched solve: every provider and route solves to the known solution", "[batched][solve]",
                   double, float, Kokkos::complex<double>) {
  using T = TestType;
  for (TestLayout layout : all_layouts)
    for (int n : {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 40})
      for (int nrhs : {1, 3})
        for (bool permuted : {false, true})
          check_solve_all_routes<T>(n, nrhs, 5, layout, permuted, false, nrhs == 1);
  for (int n : {2, 5, 8, 33}) check_solve_all_routes<T>(n, 2, 4, TestLayout::Packed, true, true);
}

TEST_CASE("batched solve: singular items are reported by index, the others are solved", "[batched][solve]") {
  tfbench::testing::with_space([&](auto space) {
    using Space = decltype(space);
    using Mem = typename Space::memory_space;
    for (int n : {3, 8, 7, 40}) {
      const std::int64_t count = 9;
      std::mt19937_64 rng(5);
      TestBatch<double, Mem> a(n, n, count, TestLayout::Packed, "a"), b(n, 1, count, TestLayout::Packed, "b");
      std::vector<double> m;
      for (std::int64_t it = 0; it < count; ++it) {
        make_matrix(rng, n, false, m);
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) a.at(i, j, it) = m[i + std::size_t(j) * n];
        for (int i = 0; i < n; ++i) b.at(i, 0, it) = 1.0;
      }
      for (std::int64_t bad : {3, 6})
        for (int i = 0; i < n; ++i) a.at(i, 1, bad) = 0.0;  // a zero column: exactly singular
      a.upload();
      b.upload();
      for (ItemProvider provider :
           {ItemProvider::Specialized, ItemProvider::KokkosBatched, ItemProvider::Blas}) {
        for (const auto& route : routes_for(provider)) {
          TestBatch<double, Mem> x(n, 1, count, TestLayout::Packed, "x");
          const batched::SolveBatch<double> s{a.batch, b.batch, x.batch};
          if (!batched::solve_provider_applies<Space>(provider, s)) continue;
          const batched::SingularItems singular = batched::execute_solve(space, route, s).singular;
          INFO("provider " << tfbench::ops::name(provider) << " mode " << int(route.mode) << " n " << n);
          CHECK(singular.first == 3);
          CHECK(singular.count == 2);
          x.download();
          for (std::int64_t it : {0, 1, 2, 4, 5, 7, 8}) {  // every other item is solved: A x = 1
            for (int i = 0; i < n; ++i) {
              double s_i = 0;
              for (int p = 0; p < n; ++p) s_i += a.at(i, p, it) * x.at(p, 0, it);
              CHECK(std::abs(s_i - 1.0) < 1e-10);
            }
          }
        }
      }
    }
  });
}

TEST_CASE("batched: the specialized GEMM declares its item cost, its LU + solve keeps the policy default",
          "[batched]") {
  using tfbench::ops::BatchedFamily;
  const tfbench::ProviderDecl& gemm =
      tfbench::ops::declaration(ItemProvider::Specialized, BatchedFamily::Gemm);
  const tfbench::ProviderDecl& solve =
      tfbench::ops::declaration(ItemProvider::Specialized, BatchedFamily::Solve);
  CHECK(gemm.item_overhead_ns == 2);
  CHECK(solve.item_overhead_ns < 0);
  CHECK(tfbench::ops::item_provider_of(&solve) == ItemProvider::Specialized);
  // At 2 threads: 512 items of a 2 x 2 GEMM stay on one lane; 512 LU + solve items of n = 8 (about
  // 120 us of work) fan out over both.
  tfbench::ExecutionContext two;
  two.space = tfbench::ExecSpaceKind::OpenMP;
  two.threads = 2;
  const tfbench::BatchPolicy autop;
  auto g = tfbench::resolve_batch_route(two, autop, {512, 2, 8}, {&gemm}).value();
  CHECK(g.lanes == 1);
  auto s = tfbench::resolve_batch_route(two, autop, {512, 8, 8.0 * 8 * 8 / 3 + 8 * 8}, {&solve}).value();
  CHECK(s.lanes == 2);
}
