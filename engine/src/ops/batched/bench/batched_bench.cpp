// Side-by-side measurement of the engine's batched routes against their peers, interleaved in one
// process: batched GEMM (libxsmm dispatched once, Eigen fixed-size, raw KokkosBatched SerialGemm in a
// parallel_for, an OpenBLAS per-item loop), batched LU + solve (LAPACK getrf/getrs loop, raw
// KokkosBatched), large GEMM (cblas_dgemm) and the engine's per-call overhead. Not a test: it prints
// medians and ratios. Build target tfbench_batched_bench (not in the default target set).
//
//   tfbench_batched_bench --threads 1 --what gemm,solve,large,overhead [--samples 15] [--quick]

#include <cblas.h>
#include <lapacke.h>
#include <omp.h>
#include <Eigen/Dense>
#include <KokkosBatched_Gemm_Decl.hpp>
#include <KokkosBatched_Gemm_Serial_Impl.hpp>
#include <KokkosBatched_LU_Decl.hpp>
#include <KokkosBatched_LU_Serial_Impl.hpp>
#include <KokkosBatched_SolveLU_Decl.hpp>
#include <Kokkos_Core.hpp>

#if defined(TFBENCH_HAVE_LIBXSMM)
#include <libxsmm.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench_engine.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using HostView = Kokkos::View<double*, Kokkos::HostSpace>;

struct Options {
  int threads = 1;
  int samples = 15;
  bool quick = false;
  std::string what = "gemm,solve,large,overhead";
  std::vector<int> sizes = {2, 4, 8, 16, 32};
};

struct Variant {
  std::string name;
  bool peer;
  std::function<void()> run;
  std::vector<double> seconds;
};

/// At one thread every variant runs on the calling thread, so its CPU time is the work without the
/// time the (shared, oversubscribed) machine took the core away; with lanes, wall-clock time.
bool g_cpu_clock = false;
double now_seconds() {
  if (g_cpu_clock) {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
  }
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// Times every variant `samples` times, interleaved (the order rotates each round); each sample runs
/// the variant `inner` times so that one sample lasts at least ~2 ms.
void measure(std::vector<Variant>& variants, int samples) {
  for (auto& v : variants) v.run();  // warm up (and fault in pages)
  int inner = 1;
  {
    const double t0 = now_seconds();
    variants.front().run();
    const double s = now_seconds() - t0;
    inner = std::max(1, static_cast<int>(2e-3 / std::max(s, 1e-9)));
  }
  for (int round = 0; round < samples; ++round) {
    for (std::size_t j = 0; j < variants.size(); ++j) {
      Variant& v = variants[(j + round) % variants.size()];
      const double t0 = now_seconds();
      for (int r = 0; r < inner; ++r) v.run();
      v.seconds.push_back((now_seconds() - t0) / inner);
    }
  }
}

void report(const char* title, std::vector<Variant>& variants, double flops) {
  double best_peer = 0;
  for (auto& v : variants)
    if (v.peer) best_peer = std::max(best_peer, flops / median(v.seconds) * 1e-9);
  std::printf("%s\n", title);
  for (auto& v : variants) {
    const double gf = flops / median(v.seconds) * 1e-9;
    std::printf("  %-26s %8.2f GFLOP/s  %6.3fx best peer  (median %.3g s)\n", v.name.c_str(), gf,
                best_peer > 0 ? gf / best_peer : 0.0, median(v.seconds));
  }
  std::fflush(stdout);
}

void fill_random(std::vector<double>& v, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  for (auto& x : v) x = d(rng);
}

/// Fans `items` out over `threads` OpenMP threads in contiguous chunks (plain loop at one thread).
template <class F>
void omp_items(int threads, std::int64_t items, const F& f) {
  if (threads <= 1) {
    f(std::int64_t(0), items);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const std::int64_t base = items / nt, extra = items % nt;
    const std::int64_t b = t * base + std::min<std::int64_t>(t, extra);
    f(b, b + base + (t < extra ? 1 : 0));
  }
}

template <int N>
void eigen_items(const double* a, const double* b, double* c, std::int64_t begin, std::int64_t end) {
  using Mat = Eigen::Matrix<double, N, N>;
  for (std::int64_t i = begin; i < end; ++i) {
    Eigen::Map<const Mat> A(a + i * N * N), B(b + i * N * N);
    Eigen::Map<Mat> C(c + i * N * N);
    C.noalias() = A * B;
  }
}

using EigenFn = void (*)(const double*, const double*, double*, std::int64_t, std::int64_t);
EigenFn eigen_for(int n) {
  switch (n) {
    case 2:
      return eigen_items<2>;
    case 3:
      return eigen_items<3>;
    case 4:
      return eigen_items<4>;
    case 5:
      return eigen_items<5>;
    case 6:
      return eigen_items<6>;
    case 8:
      return eigen_items<8>;
    case 12:
      return eigen_items<12>;
    case 16:
      return eigen_items<16>;
    case 24:
      return eigen_items<24>;
    case 32:
      return eigen_items<32>;
    default:
      return nullptr;
  }
}

double max_rel_diff(const std::vector<double>& x, const std::vector<double>& ref, std::size_t count) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < count; ++i) {
    d = std::max(d, std::abs(x[i] - ref[i]));
    s = std::max(s, std::abs(ref[i]));
  }
  return s > 0 ? d / s : d;
}

void bench_gemm(const Options& o, int n, std::int64_t batch, const char* label) {
  const std::size_t item = std::size_t(n) * n;
  std::vector<double> a(item * batch), b(item * batch), c(item * batch, 0.0),
      ref(item * std::min<std::int64_t>(batch, 64));
  fill_random(a, 1);
  fill_random(b, 2);
  for (std::int64_t it = 0; it < std::min<std::int64_t>(batch, 64); ++it)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int p = 0; p < n; ++p) s += a[it * item + i + p * n] * b[it * item + p + j * n];
        ref[it * item + i + j * n] = s;
      }
  const int threads = o.threads;
  tfbench::bench::EngineGemm engine({n, batch, a.data(), b.data(), c.data()});
  std::vector<Variant> variants;
  variants.push_back({"engine:auto", false, [&] { engine.run("auto"); }, {}});
  variants.push_back({"engine:specialized", false, [&] { engine.run("specialized"); }, {}});
#if defined(TFBENCH_HAVE_LIBXSMM)
  variants.push_back({"engine:libxsmm", false, [&] { engine.run("libxsmm"); }, {}});
  const libxsmm_dmmfunction xk = [&] {
    const int flags = LIBXSMM_GEMM_FLAG_BETA_0, prefetch = LIBXSMM_PREFETCH_NONE;
    const double alpha = 1, beta = 0;
    const libxsmm_blasint ld = n;
    return libxsmm_dmmdispatch(n, n, n, &ld, &ld, &ld, &alpha, &beta, &flags, &prefetch);
  }();
  variants.push_back({"peer:libxsmm",
                      true,
                      [&] {
                        omp_items(threads, batch, [&](std::int64_t s, std::int64_t e) {
                          for (std::int64_t i = s; i < e; ++i) xk(&a[i * item], &b[i * item], &c[i * item]);
                        });
                      },
                      {}});
#endif
  if (const EigenFn ef = eigen_for(n)) {
    variants.push_back({"peer:eigen",
                        true,
                        [&, ef] {
                          omp_items(threads, batch, [&](std::int64_t s, std::int64_t e) {
                            ef(a.data(), b.data(), c.data(), s, e);
                          });
                        },
                        {}});
  }
  variants.push_back(
      {"peer:kokkosbatched",
       true,
       [&] {
         using V = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
         using CV = Kokkos::View<const double**, Kokkos::LayoutLeft, Kokkos::HostSpace,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
         const double* ap = a.data();
         const double* bp = b.data();
         double* cp = c.data();
         Kokkos::parallel_for(
             "tfbench::bench::kokkosbatched_gemm",
             Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, batch), [=](const std::int64_t i) {
               CV A(ap + i * item, n, n), B(bp + i * item, n, n);
               V C(cp + i * item, n, n);
               KokkosBatched::SerialGemm<KokkosBatched::Trans::NoTranspose, KokkosBatched::Trans::NoTranspose,
                                         KokkosBatched::Algo::Gemm::Unblocked>::invoke(1.0, A, B, 0.0, C);
             });
         Kokkos::fence();
       },
       {}});
  variants.push_back({"peer:openblas-loop",
                      true,
                      [&] {
                        omp_items(threads, batch, [&](std::int64_t s, std::int64_t e) {
                          for (std::int64_t i = s; i < e; ++i)
                            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, &a[i * item],
                                        n, &b[i * item], n, 0.0, &c[i * item], n);
                        });
                      },
                      {}});
  // Correctness of every variant before timing.
  for (auto& v : variants) {
    std::fill(c.begin(), c.end(), std::nan(""));
    v.run();
    const double err = max_rel_diff(c, ref, ref.size());
    if (!(err < 1e-12)) std::printf("  !! %s: relative error %.3g\n", v.name.c_str(), err);
  }
  measure(variants, o.samples);
  char title[200];
  std::snprintf(title, sizeof title, "batched_gemm n=%d %s (batch %lld, %d thread%s, route %s)", n, label,
                static_cast<long long>(batch), threads, threads > 1 ? "s" : "", engine.route().c_str());
  report(title, variants, 2.0 * n * n * n * double(batch));
}

void bench_solve(const Options& o, int n, int nrhs, std::int64_t batch, const char* label) {
  const std::size_t asz = std::size_t(n) * n, bsz = std::size_t(n) * nrhs;
  std::vector<double> a(asz * batch), b(bsz * batch), x(bsz * batch);
  fill_random(a, 3);
  fill_random(b, 4);
  for (std::int64_t it = 0; it < batch;
       ++it)  // diagonally dominant: every route (no-pivot included) is exact
    for (int i = 0; i < n; ++i) a[it * asz + i + i * n] += 2.0 * n;
  const int threads = o.threads;
  tfbench::bench::EngineSolve engine({n, nrhs, batch, a.data(), b.data(), x.data()});
  std::vector<Variant> variants;
  variants.push_back({"engine:auto", false, [&] { engine.run("auto"); }, {}});
  variants.push_back({"engine:kokkosbatched", false, [&] { engine.run("kokkosbatched"); }, {}});
  variants.push_back({"peer:lapack-loop",
                      true,
                      [&] {
                        omp_items(threads, batch, [&](std::int64_t s, std::int64_t e) {
                          std::vector<double> f(asz);
                          std::vector<lapack_int> piv(n);
                          for (std::int64_t i = s; i < e; ++i) {
                            std::memcpy(f.data(), &a[i * asz], asz * sizeof(double));
                            std::memcpy(&x[i * bsz], &b[i * bsz], bsz * sizeof(double));
                            LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, f.data(), n, piv.data());
                            LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, f.data(), n, piv.data(),
                                                &x[i * bsz], n);
                          }
                        });
                      },
                      {}});
  variants.push_back(
      {"peer:kokkosbatched",
       true,
       [&] {
         using V = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
         const double* ap = a.data();
         const double* bp = b.data();
         double* xp = x.data();
         Kokkos::parallel_for(
             "tfbench::bench::kokkosbatched_solve",
             Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, batch), [=](const std::int64_t i) {
               double w[32 * 32];
               std::memcpy(w, ap + i * asz, asz * sizeof(double));
               std::memcpy(xp + i * bsz, bp + i * bsz, bsz * sizeof(double));
               V F(w, n, n), X(xp + i * bsz, n, nrhs);
               KokkosBatched::SerialLU<KokkosBatched::Algo::LU::Unblocked>::invoke(F);
               KokkosBatched::SerialSolveLU<KokkosBatched::Trans::NoTranspose,
                                            KokkosBatched::Algo::SolveLU::Unblocked>::invoke(F, X);
             });
         Kokkos::fence();
       },
       {}});
  // Correctness: residual of every variant.
  for (auto& v : variants) {
    std::fill(x.begin(), x.end(), std::nan(""));
    v.run();
    double worst = 0;
    for (std::int64_t it = 0; it < std::min<std::int64_t>(batch, 64); ++it)
      for (int r = 0; r < nrhs; ++r)
        for (int i = 0; i < n; ++i) {
          double s = 0;
          for (int p = 0; p < n; ++p) s += a[it * asz + i + p * n] * x[it * bsz + p + r * n];
          worst = std::max(worst, std::abs(s - b[it * bsz + i + r * n]));
        }
    if (!(worst < 1e-10)) std::printf("  !! %s: residual %.3g\n", v.name.c_str(), worst);
  }
  measure(variants, o.samples);
  char title[200];
  std::snprintf(title, sizeof title, "batched_solve n=%d nrhs=%d %s (batch %lld, %d thread%s, route %s)", n,
                nrhs, label, static_cast<long long>(batch), threads, threads > 1 ? "s" : "",
                engine.route().c_str());
  // LU 2/3 n^3 + solve 2 n^2 nrhs
  report(title, variants, (2.0 / 3.0 * n * n * n + 2.0 * n * n * nrhs) * double(batch));
}

void bench_large(const Options& o, int n) {
  std::vector<double> a(std::size_t(n) * n), b(std::size_t(n) * n), c(std::size_t(n) * n);
  fill_random(a, 5);
  fill_random(b, 6);
  std::vector<Variant> variants;
  variants.push_back({"engine:gemm",
                      false,
                      [&] { tfbench::bench::engine_large_gemm(n, a.data(), b.data(), c.data()); },
                      {}});
  variants.push_back({"peer:cblas_dgemm",
                      true,
                      [&] {
                        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n,
                                    b.data(), n, 0.0, c.data(), n);
                      },
                      {}});
  measure(variants, std::max(3, o.samples / 3));
  char title[120];
  std::snprintf(title, sizeof title, "gemm n=%d (%d OpenBLAS thread%s)", n, o.threads,
                o.threads > 1 ? "s" : "");
  report(title, variants, 2.0 * n * n * double(n));
}

void bench_overhead(const Options& o) {
  // Per-call engine overhead at batch 512 of 2x2 items: the public facade against the raw kernel loop.
  const int n = 2;
  const std::int64_t batch = 512;
  std::vector<double> a(4 * batch), b(4 * batch), c(4 * batch);
  fill_random(a, 7);
  fill_random(b, 8);
  tfbench::bench::GemmProblem prob{n, batch, a.data(), b.data(), c.data()};
  tfbench::bench::EngineGemm engine(prob);
  std::vector<Variant> variants;
  variants.push_back({"engine:auto (facade)", false, [&] { engine.run("auto"); }, {}});
  variants.push_back({"raw specialized loop", true, [&] { tfbench::bench::raw_specialized_2x2(prob); }, {}});
  measure(variants, o.samples * 3);
  std::printf("overhead: batch 512 of 2x2, %d thread%s\n", o.threads, o.threads > 1 ? "s" : "");
  const double facade = median(variants[0].seconds), raw = median(variants[1].seconds);
  std::printf("  facade %.0f ns, raw kernel loop %.0f ns, per-call overhead %.0f ns (%.2fx)\n", facade * 1e9,
              raw * 1e9, (facade - raw) * 1e9, facade / raw);
  std::fflush(stdout);
}

bool wants(const Options& o, const char* what) {
  return o.what.find(what) != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (arg == "--threads")
      o.threads = std::stoi(next());
    else if (arg == "--samples")
      o.samples = std::stoi(next());
    else if (arg == "--what")
      o.what = next();
    else if (arg == "--quick")
      o.quick = true;
    else if (arg == "--sizes") {
      o.sizes.clear();
      std::string s = next();
      for (std::size_t p = 0; p < s.size();) {
        const std::size_t q = s.find(',', p);
        o.sizes.push_back(std::stoi(s.substr(p, q - p)));
        p = q == std::string::npos ? s.size() : q + 1;
      }
    } else {
      std::fprintf(stderr,
                   "usage: %s [--threads N] [--samples S] [--what gemm,solve,large,overhead] [--sizes 2,4] "
                   "[--quick]\n",
                   argv[0]);
      return 2;
    }
  }
  Kokkos::InitArguments args;
  args.num_threads = o.threads;
  args.disable_warnings = true;
  Kokkos::initialize(args);
  {
    tfbench::bench::engine_setup(o.threads);
    g_cpu_clock = o.threads == 1;
    std::printf(
        "tfbench_batched_bench: %d thread%s, Kokkos OpenMP concurrency %d, OpenBLAS %d thread(s) per call, "
        "%s\n",
        o.threads, o.threads > 1 ? "s" : "", Kokkos::DefaultHostExecutionSpace::concurrency(),
        openblas_get_num_threads(),
        g_cpu_clock ? "medians of thread CPU time" : "medians of wall-clock time");
    const std::int64_t big_bytes = o.quick ? (32ll << 20) : (256ll << 20);
    if (wants(o, "gemm")) {
      openblas_set_num_threads(1);  // the per-item loop peer: single-threaded BLAS inside fan-out
      for (int n : o.sizes) {
        bench_gemm(o, n, 512, "cache-resident");
        bench_gemm(o, n, big_bytes / (3 * 8 * std::int64_t(n) * n), o.quick ? "32 MiB" : "256 MiB");
      }
    }
    if (wants(o, "solve")) {
      openblas_set_num_threads(1);
      for (int n : o.sizes) {
        for (int nrhs : {1, 4}) {
          bench_solve(o, n, nrhs, 512, "cache-resident");
          bench_solve(o, n, nrhs, big_bytes / (8 * (std::int64_t(n) * n + 2 * n * nrhs)),
                      o.quick ? "32 MiB" : "256 MiB");
        }
      }
    }
    if (wants(o, "large")) {
      openblas_set_num_threads(o.threads);
      bench_large(o, o.quick ? 1024 : 2048);
    }
    if (wants(o, "overhead")) bench_overhead(o);
    tfbench::bench::engine_teardown();
  }
  Kokkos::finalize();
  return 0;
}
