#include "bandwidth_control/bandwidth_control.hpp"

#include "common/check.hpp"
#include "common/random.hpp"
#include "common/variant_table.hpp"

#include <omp.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tfbench::workloads {
namespace {

constexpr double kScalar = 3.0;
constexpr double kTolerance = 1e-15;  // one rounding of b + s*c

/// STREAM counts two reads and one write per element; the write of `a`, which no kernel reads first,
/// is write-allocate traffic (from DRAM the roofline counts it twice).
Work triad_work(std::int64_t n) {
  Work w{2.0 * static_cast<double>(n), 24.0 * static_cast<double>(n)};
  w.write_allocate_bytes = 8.0 * static_cast<double>(n);
  return w;
}

/// b and c from the run's streams, written by the same static schedule as the kernels (first touch).
void fill_triad_operands(double* b, double* c, std::int64_t n, std::uint64_t seed, int threads) {
  const std::uint64_t sb = derive_seed(seed, 1), sc = derive_seed(seed, 2);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < n; ++i) {
    b[i] = random_at(sb, static_cast<std::uint64_t>(i));
    c[i] = random_at(sc, static_cast<std::uint64_t>(i));
  }
}

CheckResult check_triad(const double* a, const double* b, const double* c, std::int64_t n) {
  std::vector<double> ref(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) ref[i] = b[i] + kScalar * c[i];
  return compare_outputs(std::vector<double>(a, a + n), ref, kTolerance,
                         "triad against a sequential host loop over " + std::to_string(n) + " elements");
}

template <class ExecSpace>
class KokkosTriad final : public Instance {
  using View = Kokkos::View<double*, typename ExecSpace::memory_space>;

 public:
  KokkosTriad(std::int64_t n, int threads, std::uint64_t seed)
      : n_(n),
        a_(Kokkos::view_alloc(std::string("tfbench::workloads::triad::a"), Kokkos::WithoutInitializing), n),
        b_(Kokkos::view_alloc(std::string("tfbench::workloads::triad::b"), Kokkos::WithoutInitializing), n),
        c_(Kokkos::view_alloc(std::string("tfbench::workloads::triad::c"), Kokkos::WithoutInitializing), n) {
    // First touch by the executing space, then fresh random values copied in.
    Kokkos::deep_copy(ExecSpace(), a_, 0.0);
    auto hb = Kokkos::create_mirror_view(b_);
    auto hc = Kokkos::create_mirror_view(c_);
    fill_triad_operands(hb.data(), hc.data(), n, seed, threads);
    Kokkos::deep_copy(b_, hb);
    Kokkos::deep_copy(c_, hc);
    ExecSpace().fence();
  }

  CheckResult check() override {
    run();
    auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a_);
    auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b_);
    auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_);
    return check_triad(ha.data(), hb.data(), hc.data(), n_);
  }

  void run() override {
    auto a = a_;
    auto b = b_;
    auto c = c_;
    Kokkos::parallel_for(
        "tfbench::workloads::triad", Kokkos::RangePolicy<ExecSpace>(ExecSpace(), 0, n_),
        KOKKOS_LAMBDA(const std::int64_t i) { a(i) = b(i) + kScalar * c(i); });
    ExecSpace().fence();
  }

  Work work() const override { return triad_work(n_); }

 private:
  std::int64_t n_;
  View a_, b_, c_;
};

/// The hand-written peer: one `omp parallel for` with a static schedule, first-touch initialized.
class OpenMPTriad final : public Instance {
 public:
  OpenMPTriad(std::int64_t n, int threads, std::uint64_t seed)
      : n_(n), threads_(threads), a_(alloc(n)), b_(alloc(n)), c_(alloc(n)) {
    double* a = a_.get();
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (std::int64_t i = 0; i < n; ++i) a[i] = 0.0;
    fill_triad_operands(b_.get(), c_.get(), n, seed, threads_);
  }

  CheckResult check() override {
    run();
    return check_triad(a_.get(), b_.get(), c_.get(), n_);
  }

  void run() override {
    double* __restrict a = a_.get();
    const double* __restrict b = b_.get();
    const double* __restrict c = c_.get();
    const std::int64_t n = n_;
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + kScalar * c[i];
  }

  Work work() const override {
    return triad_work(n_);
  }

 private:
  struct Free {
    void operator()(double* p) const { std::free(p); }
  };
  static std::unique_ptr<double[], Free> alloc(std::int64_t n) {
    const std::size_t bytes = ((static_cast<std::size_t>(n) * sizeof(double) + 63) / 64) * 64;
    return std::unique_ptr<double[], Free>(static_cast<double*>(std::aligned_alloc(64, bytes)));
  }

  std::int64_t n_;
  int threads_;
  std::unique_ptr<double[], Free> a_, b_, c_;
};

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
__global__ void cuda_triad_kernel(double* __restrict__ a, const double* __restrict__ b,
                                  const double* __restrict__ c, std::int64_t n) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    a[i] = b[i] + kScalar * c[i];
  }
}

/// The hand-written device peer: a grid-stride CUDA kernel on the Kokkos Cuda instance's stream, on
/// the same CudaSpace Views as the Kokkos triad, with as many 256-thread blocks as fill the device
/// several times over (the grid STREAM-like CUDA triads use).
class CudaTriad final : public Instance {
  using View = Kokkos::View<double*, Kokkos::CudaSpace>;

 public:
  CudaTriad(std::int64_t n, int threads, std::uint64_t seed)
      : n_(n),
        a_(Kokkos::view_alloc(std::string("tfbench::workloads::triad::cuda_a"), Kokkos::WithoutInitializing),
           n),
        b_(Kokkos::view_alloc(std::string("tfbench::workloads::triad::cuda_b"), Kokkos::WithoutInitializing),
           n),
        c_(Kokkos::view_alloc(std::string("tfbench::workloads::triad::cuda_c"), Kokkos::WithoutInitializing),
           n) {
    Kokkos::deep_copy(a_, 0.0);
    auto hb = Kokkos::create_mirror_view(b_);
    auto hc = Kokkos::create_mirror_view(c_);
    fill_triad_operands(hb.data(), hc.data(), n, seed, threads);
    Kokkos::deep_copy(b_, hb);
    Kokkos::deep_copy(c_, hc);
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const std::int64_t needed = (n + kBlock - 1) / kBlock;
    blocks_ = static_cast<int>(std::min<std::int64_t>(needed, std::int64_t{32} * std::max(sms, 1)));
  }

  CheckResult check() override {
    run();
    space_.fence();
    auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a_);
    auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b_);
    auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_);
    return check_triad(ha.data(), hb.data(), hc.data(), n_);
  }

  void run() override {
    cuda_triad_kernel<<<blocks_, kBlock, 0, space_.cuda_stream()>>>(a_.data(), b_.data(), c_.data(), n_);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
      throw WorkloadError(std::string("bandwidth_control peer:cuda: kernel launch failed: ") +
                          cudaGetErrorString(e));
    }
    space_.fence();
  }

  Work work() const override { return triad_work(n_); }

 private:
  static constexpr int kBlock = 256;
  Kokkos::Cuda space_;
  std::int64_t n_;
  View a_, b_, c_;
  int blocks_ = 1;
};
#endif

std::unique_ptr<Instance> make_kokkos_triad(std::int64_t n, const RunContext& ctx) {
  return dispatch_exec_space(ctx.space, [&](auto space) -> std::unique_ptr<Instance> {
    return std::make_unique<KokkosTriad<decltype(space)>>(n, ctx.threads, ctx.seed);
  });
}

#if defined(KOKKOS_ENABLE_CUDA)
// peer:cuda, a variant of CUDA builds only: its kernel exists where nvcc compiled this file.
std::optional<std::string> cuda_triad_unavailable(const RunContext& ctx) {
#if defined(__CUDACC__)
  if (is_host_space(ctx.space)) return std::string("a CUDA kernel; this case runs on ") + name(ctx.space);
  return std::nullopt;
#else
  (void)ctx;
  return std::string("this build has no CUDA (the cuda preset has it)");
#endif
}

std::unique_ptr<Instance> make_cuda_triad(std::int64_t n, const RunContext& ctx) {
#if defined(__CUDACC__)
  if (!cuda_triad_unavailable(ctx)) return std::make_unique<CudaTriad>(n, ctx.threads, ctx.seed);
#else
  (void)n;
  (void)ctx;
#endif
  throw WorkloadError("bandwidth_control has no variant 'peer:cuda'");
}
#endif

class BandwidthControl final : public TableFamily {
 public:
  std::string_view name() const override { return "bandwidth_control"; }
  std::string_view description() const override {
    return "STREAM triad a = b + s*c: a Kokkos kernel on the worker's space against a hand-written "
           "OpenMP loop (host memory) and, on the cuda space, a hand-written CUDA kernel; the bandwidth "
           "ceiling (GB/s)";
  }
  std::vector<ParamSpec> parameters() const override {
    ParamSpec elements{"elements", ParamType::Int, "doubles per array (3 arrays)",
                       ParamValue{std::int64_t{1} << 24}};
    elements.min = 1024;
    elements.max = static_cast<double>(std::int64_t{1} << 31);
    return {elements};
  }
  VariantTable table(const Params& params, const RunContext& ctx) const override {
    // `elements` is read when a variant is built: listing the variants reads no parameter.
    VariantTable t = {
        control_row("kokkos", "kokkos",
                    [params, &ctx] { return make_kokkos_triad(params.get_int("elements"), ctx); }),
        peer_row("peer:openmp", "openmp", [params, &ctx] {
          return std::make_unique<OpenMPTriad>(params.get_int("elements"), ctx.threads, ctx.seed);
        })};
    // The CUDA kernel is a variant of CUDA builds only: host builds' rows stay as they were.
#if defined(KOKKOS_ENABLE_CUDA)
    t.push_back(peer_row(
        "peer:cuda", "cuda", [params, &ctx] { return make_cuda_triad(params.get_int("elements"), ctx); },
        [&ctx] { return cuda_triad_unavailable(ctx); }));
#endif
    return t;
  }
};

}  // namespace

const Family& bandwidth_control_family() {
  static const BandwidthControl family;
  return family;
}

double measure_triad_gbs(std::int64_t elements, int threads, int repetitions) {
  OpenMPTriad triad(elements, threads, 7);
  triad.run();  // warm-up: page faults and thread start-up stay out of the ceiling
  double best = 1e300;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    triad.run();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return triad.work().bytes / best / 1e9;
}

}  // namespace tfbench::workloads
