#include "ceilings/fma_peak.hpp"

#include <omp.h>

#include <cstdint>
#include <memory>
#include <type_traits>

// nvcc compiles this file in CUDA builds, and its front end does not take the x86 intrinsics (as
// the engine's specialized kernels, those builds use the portable code below: the GEMM then sets
// the peak).
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__CUDACC__) && !defined(__HIPCC__)
#define TFBENCH_FMA_INTRINSICS 1
#include <immintrin.h>
#endif

#include "ceilings/level_bandwidth.hpp"
#include "ceilings/reference_instance.hpp"

namespace tfbench::workloads::impl {
namespace {

// One vector type and its fused multiply-add per precision, the widest the build targets. Without
// FMA instructions a multiply and an add do the same 2 flops.
#if defined(TFBENCH_FMA_INTRINSICS) && defined(__AVX512F__)
struct F64Vec {
  using V = __m512d;
  static V set(double x) { return _mm512_set1_pd(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static double first(V v) { return _mm512_cvtsd_f64(v); }
};
struct F32Vec {
  using V = __m512;
  static V set(float x) { return _mm512_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static float first(V v) { return _mm512_cvtss_f32(v); }
};
constexpr int kVectorBytes = 64, kAccumulators = 24;  // of 32 registers: latency 4 x 2 pipes, 3x over
#elif defined(TFBENCH_FMA_INTRINSICS) && defined(__AVX__)
struct F64Vec {
  using V = __m256d;
  static V set(double x) { return _mm256_set1_pd(x); }
#if defined(__FMA__)
  static V fma(V a, V b, V c) {
    return _mm256_fmadd_pd(a, b, c);
  }
#else
  static V fma(V a, V b, V c) {
    return _mm256_add_pd(_mm256_mul_pd(a, b), c);
  }
#endif
  static double first(V v) {
    return _mm256_cvtsd_f64(v);
  }
};
struct F32Vec {
  using V = __m256;
  static V set(float x) { return _mm256_set1_ps(x); }
#if defined(__FMA__)
  static V fma(V a, V b, V c) {
    return _mm256_fmadd_ps(a, b, c);
  }
#else
  static V fma(V a, V b, V c) {
    return _mm256_add_ps(_mm256_mul_ps(a, b), c);
  }
#endif
  static float first(V v) {
    return _mm256_cvtss_f32(v);
  }
};
constexpr int kVectorBytes = 32, kAccumulators = 12;  // of 16 registers
#elif defined(TFBENCH_FMA_INTRINSICS) && defined(__SSE2__)
struct F64Vec {
  using V = __m128d;
  static V set(double x) { return _mm_set1_pd(x); }
  static V fma(V a, V b, V c) { return _mm_add_pd(_mm_mul_pd(a, b), c); }
  static double first(V v) { return _mm_cvtsd_f64(v); }
};
struct F32Vec {
  using V = __m128;
  static V set(float x) { return _mm_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
  static float first(V v) { return _mm_cvtss_f32(v); }
};
constexpr int kVectorBytes = 16, kAccumulators = 12;
#else
template <class T>
struct ScalarVec {
  using V = T;
  static V set(T x) { return x; }
  static V fma(V a, V b, V c) { return a * b + c; }
  static T first(V v) { return v; }
};
using F64Vec = ScalarVec<double>;
using F32Vec = ScalarVec<float>;
constexpr int kVectorBytes = sizeof(double), kAccumulators = 8;
#endif

/// `iterations` rounds of kAccumulators independent FMA chains; the sum of the lanes leaves the
/// function, so no chain can be dropped. a = a * x + y with x just below 1 converges, never overflows.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define TFBENCH_UNROLL_ACCUMULATORS _Pragma("GCC unroll 32")
#else
#define TFBENCH_UNROLL_ACCUMULATORS
#endif

template <class Vec, class T>
T fma_chains(std::int64_t iterations, T seed) {
  typename Vec::V acc[kAccumulators];
  TFBENCH_UNROLL_ACCUMULATORS
  for (int i = 0; i < kAccumulators; ++i) acc[i] = Vec::set(seed * static_cast<T>(i + 1));
  const typename Vec::V x = Vec::set(static_cast<T>(0.9999)), y = Vec::set(static_cast<T>(1e-4));
  for (std::int64_t k = 0; k < iterations; ++k) {
    TFBENCH_UNROLL_ACCUMULATORS
    for (int i = 0; i < kAccumulators; ++i) acc[i] = Vec::fma(acc[i], x, y);
  }
  T sum = 0;
  for (int i = 0; i < kAccumulators; ++i) sum += Vec::first(acc[i]);
  return sum;
}

template <class T>
constexpr double kFlopsPerIteration = 2.0 * kAccumulators* kVectorBytes / sizeof(T);  // one thread's

/// Seconds for `iterations` rounds of the chains on every thread of a `threads`-thread region,
/// between barriers.
template <class Vec, class T>
double time_fma(int threads, std::int64_t iterations) {
  volatile T sink = 0;
  return time_between_barriers(threads, [&] {
    const T s = fma_chains<Vec, T>(iterations, static_cast<T>(1e-3 * (omp_get_thread_num() + 1)));
#pragma omp critical
    sink = sink + s;
  });
}

constexpr std::int64_t kWarmupIterations = 1 << 14;  // ~0.1 ms at 3 GHz

/// Iterations for a sample of at least `min_sample_s`, from three warm-up timings.
template <class Vec, class T>
std::int64_t iterations_for(int threads, double min_sample_s) {
  std::vector<double> warmup;
  for (int w = 0; w < 3; ++w) warmup.push_back(time_fma<Vec, T>(threads, kWarmupIterations));
  return kWarmupIterations * passes_for_sample(warmup, min_sample_s);
}

template <class Vec, class T>
std::vector<double> sample(int threads, int samples, double min_sample_s) {
  const std::int64_t iterations = iterations_for<Vec, T>(threads, min_sample_s);
  std::vector<double> gflops;
  for (int s = 0; s < samples; ++s) {
    const double seconds = time_fma<Vec, T>(threads, iterations);
    gflops.push_back(kFlopsPerIteration<T> * static_cast<double>(iterations) * threads / seconds / 1e9);
  }
  return gflops;
}

/// The FMA peak as an Instance (peak_reference): each run one sample's iterations, timed by itself.
template <class Vec, class T>
class FmaReference final : public ReferenceInstance {
 public:
  FmaReference(int threads, double min_run_s)
      : threads_(threads), iterations_(iterations_for<Vec, T>(threads, min_run_s)) {}
  Work work() const override {
    Work w;
    w.flops = kFlopsPerIteration<T> * static_cast<double>(iterations_) * threads_;
    w.precision = std::is_same<T, float>::value ? FlopPrecision::F32 : FlopPrecision::F64;
    return w;
  }

 private:
  double timed_run() override { return time_fma<Vec, T>(threads_, iterations_); }

  int threads_;
  std::int64_t iterations_;
};

}  // namespace

std::vector<double> sample_fma_gflops(int threads, int samples, FlopPrecision precision,
                                      double min_sample_s) {
  return precision == FlopPrecision::F32 ? sample<F32Vec, float>(threads, samples, min_sample_s)
                                         : sample<F64Vec, double>(threads, samples, min_sample_s);
}

std::unique_ptr<Instance> fma_reference(int threads, FlopPrecision precision, double min_run_s) {
  if (precision == FlopPrecision::F32)
    return std::make_unique<FmaReference<F32Vec, float>>(threads, min_run_s);
  return std::make_unique<FmaReference<F64Vec, double>>(threads, min_run_s);
}

int fma_vector_bytes() {
  return kVectorBytes;
}

}  // namespace tfbench::workloads::impl
