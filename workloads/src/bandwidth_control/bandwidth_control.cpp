#include "bandwidth_control/bandwidth_control.hpp"

#include "common/check.hpp"
#include "common/live_by_case.hpp"
#include "common/random.hpp"
#include "common/variant_table.hpp"

#include <omp.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
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

/// The three arrays of one case, in the memory of `MemSpace`: a zeroed, b and c fresh random values,
/// each written first by the static schedule the host kernels use (first touch).
template <class MemSpace>
struct TriadArrays {
  using View = Kokkos::View<double*, MemSpace>;
  std::int64_t n;
  View a, b, c;

  TriadArrays(std::int64_t elements, int threads, std::uint64_t seed)
      : n(elements),
        a(Kokkos::view_alloc(std::string("tfbench::workloads::triad::a"), Kokkos::WithoutInitializing), n),
        b(Kokkos::view_alloc(std::string("tfbench::workloads::triad::b"), Kokkos::WithoutInitializing), n),
        c(Kokkos::view_alloc(std::string("tfbench::workloads::triad::c"), Kokkos::WithoutInitializing), n) {
    auto ha = Kokkos::create_mirror_view(a);
    auto hb = Kokkos::create_mirror_view(b);
    auto hc = Kokkos::create_mirror_view(c);
    double* pa = ha.data();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t i = 0; i < n; ++i) pa[i] = 0.0;
    fill_triad_operands(hb.data(), hc.data(), n, seed, threads);
    Kokkos::deep_copy(a, ha);  // no copy where the mirror is the View itself (host memory)
    Kokkos::deep_copy(b, hb);
    Kokkos::deep_copy(c, hc);
    Kokkos::fence();
  }

  CheckResult check() const {
    auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
    auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
    auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
    return check_triad(ha.data(), hb.data(), hc.data(), n);
  }
};

/// The arrays of the case (elements, threads, seed) in `MemSpace`, shared by every variant of the
/// case alive at once: the Kokkos triad and the hand-written one run on the same memory, so their
/// ratio compares their code. On separate allocations it compared the allocations: two sets of
/// three 64 MiB arrays from aligned_alloc, the same loop on each, differed by 2-10% at one thread
/// (median of 15 rounds, 6 processes: 0.90-0.98) on the Zen 2 VM of 2026-12-05, and the Kokkos
/// triad read 0.90-1.08 of the hand-written one from process to process.
template <class MemSpace>
std::shared_ptr<TriadArrays<MemSpace>> case_arrays(std::int64_t n, int threads, std::uint64_t seed) {
  using Key = std::tuple<std::int64_t, int, std::uint64_t>;
  return LiveByCase<TriadArrays<MemSpace>, Key>::get(
      Key{n, threads, seed}, [&] { return std::make_shared<TriadArrays<MemSpace>>(n, threads, seed); });
}

/// A triad variant on its case's arrays: the check, the work and the metric `operands_shared_by`
/// (how many variants alive run on the row's arrays) every variant shares; run() is its own.
template <class MemSpace>
class TriadInstance : public Instance {
 public:
  CheckResult check() override {
    run();
    return arrays_->check();
  }
  Work work() const override { return triad_work(arrays_->n); }
  std::map<std::string, double> metrics() override { return shared_by_metric(arrays_); }

 protected:
  explicit TriadInstance(std::shared_ptr<TriadArrays<MemSpace>> arrays) : arrays_(std::move(arrays)) {}
  std::shared_ptr<TriadArrays<MemSpace>> arrays_;
};

template <class ExecSpace>
class KokkosTriad final : public TriadInstance<typename ExecSpace::memory_space> {
  using Base = TriadInstance<typename ExecSpace::memory_space>;

 public:
  KokkosTriad(std::int64_t n, int threads, std::uint64_t seed)
      : Base(case_arrays<typename ExecSpace::memory_space>(n, threads, seed)) {}

  void run() override {
    const auto& arrays = *this->arrays_;
    auto a = arrays.a;
    auto b = arrays.b;
    auto c = arrays.c;
    Kokkos::parallel_for(
        "tfbench::workloads::triad", Kokkos::RangePolicy<ExecSpace>(ExecSpace(), 0, arrays.n),
        KOKKOS_LAMBDA(const std::int64_t i) { a(i) = b(i) + kScalar * c(i); });
    ExecSpace().fence();
  }
};

/// The hand-written peer: one `omp parallel for` with a static schedule.
class OpenMPTriad final : public TriadInstance<Kokkos::HostSpace> {
 public:
  OpenMPTriad(std::shared_ptr<TriadArrays<Kokkos::HostSpace>> arrays, int threads)
      : TriadInstance(std::move(arrays)), threads_(threads) {}

  void run() override {
    double* __restrict a = arrays_->a.data();
    const double* __restrict b = arrays_->b.data();
    const double* __restrict c = arrays_->c.data();
    const std::int64_t n = arrays_->n;
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + kScalar * c[i];
  }

 private:
  int threads_;
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
class CudaTriad final : public TriadInstance<Kokkos::CudaSpace> {
 public:
  CudaTriad(std::int64_t n, int threads, std::uint64_t seed)
      : TriadInstance(case_arrays<Kokkos::CudaSpace>(n, threads, seed)) {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const std::int64_t needed = (n + kBlock - 1) / kBlock;
    blocks_ = static_cast<int>(std::min<std::int64_t>(needed, std::int64_t{32} * std::max(sms, 1)));
  }

  void run() override {
    cuda_triad_kernel<<<blocks_, kBlock, 0, space_.cuda_stream()>>>(arrays_->a.data(), arrays_->b.data(),
                                                                    arrays_->c.data(), arrays_->n);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
      throw WorkloadError(std::string("bandwidth_control peer:cuda: kernel launch failed: ") +
                          cudaGetErrorString(e));
    }
    space_.fence();
  }

 private:
  static constexpr int kBlock = 256;
  Kokkos::Cuda space_;
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
           "OpenMP loop (host memory) and, on the cuda space, a hand-written CUDA kernel, all on the "
           "case's one set of arrays (GB/s)";
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
          return std::make_unique<OpenMPTriad>(
              case_arrays<Kokkos::HostSpace>(params.get_int("elements"), ctx.threads, ctx.seed), ctx.threads);
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

}  // namespace tfbench::workloads
