#include "compute_control/compute_control.hpp"

#include "common/blas_threads.hpp"
#include "common/buffer.hpp"
#include "common/engine_route.hpp"
#include "compute_control/large_gemm.hpp"
#include "peers/numpy_runner.hpp"

#include "tfbench/engine/ops/gemm.hpp"
#include "tfbench/engine/storage/storage.hpp"

#include <cblas.h>
#include <KokkosBlas3_gemm.hpp>
#include <Kokkos_Core.hpp>

#include "common/engine_backend.hpp"
#include "common/operand_placement.hpp"
#include "common/variant_table.hpp"

#include <algorithm>
#include <chrono>

namespace tfbench::workloads {
namespace {

using namespace compute_control;

inline void blas_gemm(const GemmShape& s, const double* a, const double* b, double* c) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.m), static_cast<int>(s.n),
              static_cast<int>(s.k), 1.0, a, static_cast<int>(s.m), b, static_cast<int>(s.k), 0.0, c,
              static_cast<int>(s.m));
}
inline void blas_gemm(const GemmShape& s, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.m), static_cast<int>(s.n),
              static_cast<int>(s.k), 1.0f, a, static_cast<int>(s.m), b, static_cast<int>(s.k), 0.0f, c,
              static_cast<int>(s.m));
}

/// peer:openblas: cblas_?gemm with the BLAS library at the worker's thread budget.
template <class T>
class OpenBlasGemm final : public Instance {
 public:
  OpenBlasGemm(const GemmShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(gemm_seeds(ctx.seed)),
        threads_(ctx.threads),
        a_(static_cast<std::size_t>(s.m * s.k), ctx.threads),
        b_(static_cast<std::size_t>(s.k * s.n), ctx.threads),
        c_(static_cast<std::size_t>(s.m * s.n), ctx.threads) {
    fill_matrix(a_.data(), s.m, s.k, seeds_.a, threads_);
    fill_matrix(b_.data(), s.k, s.n, seeds_.b, threads_);
  }
  CheckResult check() override {
    run();
    return check_gemm<T>(shape_, seeds_,
                         [this](std::int64_t r, std::int64_t c) { return c_[c * shape_.m + r]; });
  }
  void run() override {
    ScopedBlasThreads blas(threads_);
    blas_gemm(shape_, a_.data(), b_.data(), c_.data());
  }
  Work work() const override { return gemm_work(shape_); }
  std::map<std::string, double> metrics() override {
    ScopedBlasThreads blas(threads_);
    return {{"blas_threads", static_cast<double>(blas.verified())}};
  }

 private:
  GemmShape shape_;
  GemmSeeds seeds_;
  int threads_;
  AlignedBuffer<T> a_, b_, c_;
};

/// engine:gemm: ops::gemm_into on Host tensors in a CpuBackend session like the worker's (the
/// engine's KokkosBlas route: the BLAS TPL at the session's thread budget on host builds), or, on a
/// device space, on Device tensors of a DeviceBackend session (KokkosBlas's cuBLAS TPL on CUDA builds).
template <class T, class Operands>
class EngineGemm final : public Instance {
  using HostTensor = Tensor<T, DynRank, Host>;

 public:
  EngineGemm(const GemmShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(gemm_seeds(ctx.seed)),
        threads_(ctx.threads),
        backend_(Operands::backend(ctx)),
        a_(Operands::place(backend_, filled(s.m, s.k, seeds_.a, ctx.threads))),
        b_(Operands::place(backend_, filled(s.k, s.n, seeds_.b, ctx.threads))),
        c_(Operands::place(backend_, HostTensor::zeros({s.m, s.n}))) {}

  CheckResult check() override {
    run();
    const std::vector<T> c = Operands::to_host(backend_, c_);
    return check_gemm<T>(shape_, seeds_,
                         [&](std::int64_t r, std::int64_t col) { return c[col * shape_.m + r]; });
  }
  void run() override {
    // The worker's BLAS runs at its budget already; the engine's route uses it as it is.
    auto ran = backend_.with_session([this](Session& s) { return ops::gemm_into(s, a_, b_, c_); });
    if (!ran) throw_entry_error(ran.error(), "compute_control engine:gemm");
    if (!*ran) throw WorkloadError(std::string("compute_control engine:gemm: ") + ran->error().what());
    last_ = ran->value();
  }
  Work work() const override { return gemm_work(shape_); }
  std::map<std::string, double> metrics() override {
    auto m = route_metrics(last_);
    m["blas_threads"] = static_cast<double>(blas_threads());
    return m;
  }

 private:
  static HostTensor filled(std::int64_t rows, std::int64_t cols, std::uint64_t seed, int threads) {
    std::vector<T> v(static_cast<std::size_t>(rows * cols));
    fill_matrix(v.data(), rows, cols, seed, threads);
    return HostTensor::from_col_major({rows, cols}, std::move(v));
  }
  GemmShape shape_;
  GemmSeeds seeds_;
  int threads_;
  typename Operands::Backend backend_;
  typename Operands::Owner a_, b_, c_;
  ops::BatchRun last_;
};

/// control:kokkosblas: KokkosBlas::gemm on Views of the worker's space (the BLAS TPL on host
/// builds, Kokkos Kernels' own kernel elsewhere): the engine's route without the engine.
template <class T, class ExecSpace>
class KokkosBlasGemm final : public Instance {
  using View = Kokkos::View<T**, Kokkos::LayoutLeft, typename ExecSpace::memory_space>;

 public:
  KokkosBlasGemm(const GemmShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(gemm_seeds(ctx.seed)),
        threads_(ctx.threads),
        a_(Kokkos::view_alloc(std::string("tfbench::workloads::compute_control::a"),
                              Kokkos::WithoutInitializing),
           s.m, s.k),
        b_(Kokkos::view_alloc(std::string("tfbench::workloads::compute_control::b"),
                              Kokkos::WithoutInitializing),
           s.k, s.n),
        c_("tfbench::workloads::compute_control::c", s.m, s.n) {
    auto ha = Kokkos::create_mirror_view(a_);
    auto hb = Kokkos::create_mirror_view(b_);
    fill_matrix(ha.data(), s.m, s.k, seeds_.a, threads_);
    fill_matrix(hb.data(), s.k, s.n, seeds_.b, threads_);
    Kokkos::deep_copy(a_, ha);
    Kokkos::deep_copy(b_, hb);
  }
  CheckResult check() override {
    run();
    auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_);
    return check_gemm<T>(shape_, seeds_, [&](std::int64_t r, std::int64_t c) { return hc(r, c); });
  }
  void run() override {
    ScopedBlasThreads blas(threads_);
    KokkosBlas::gemm("N", "N", T(1), a_, b_, T(0), c_);
    ExecSpace().fence();
  }
  Work work() const override { return gemm_work(shape_); }

 private:
  GemmShape shape_;
  GemmSeeds seeds_;
  int threads_;
  View a_, b_, c_;
};

/// peer:numpy: np.matmul of the two matrices in the NumPy runner (OpenBLAS under NumPy at the
/// worker's thread budget, set and verified), timed inside Python.
template <class T>
class NumpyGemm final : public Instance {
 public:
  NumpyGemm(const GemmShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(gemm_seeds(ctx.seed)),
        requested_(ctx.threads),
        op_(std::string("op=gemm dtype=") + (sizeof(T) == 8 ? "float64" : "float32") +
                " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k),
            static_cast<std::size_t>(s.m * s.k + s.k * s.n + s.m * s.n) * sizeof(T)) {
    T* base = static_cast<T*>(op_.data());
    fill_matrix(base, s.m, s.k, seeds_.a, 1);
    fill_matrix(base + s.m * s.k, s.k, s.n, seeds_.b, 1);
    verified_ = op_.setup(ctx.threads);
  }
  CheckResult check() override {
    last_ = op_.check();
    const T* c = static_cast<const T*>(op_.data()) + shape_.m * shape_.k + shape_.k * shape_.n;
    return check_gemm<T>(shape_, seeds_,
                         [&](std::int64_t r, std::int64_t col) { return c[col * shape_.m + r]; });
  }
  void run() override { last_ = op_.run(); }
  std::optional<double> self_timed_seconds() const override { return last_; }
  ResourceCounts resources() override { return numpy_resources(); }
  Work work() const override { return gemm_work(shape_); }
  std::map<std::string, double> metrics() override {
    return {{"numpy_blas_threads_requested", static_cast<double>(requested_)},
            {"numpy_blas_threads", static_cast<double>(verified_)}};
  }

 private:
  GemmShape shape_;
  GemmSeeds seeds_;
  int requested_;
  int verified_ = 0;
  NumpyOperation op_;
  double last_ = 0.0;
};

class ComputeControl final : public TableFamily {
 public:
  std::string_view name() const override { return "compute_control"; }
  std::string_view description() const override {
    return "large GEMM C = A B: the engine's KokkosBlas route and raw KokkosBlas against OpenBLAS "
           "cblas_?gemm and NumPy; OpenBLAS gives the compute ceiling (GFLOP/s)";
  }
  std::vector<ParamSpec> parameters() const override { return gemm_params(); }
  VariantTable table(const Params& params, const RunContext& ctx) const override {
    const GemmShape s = gemm_shape(ParamReader(std::string(name()), parameters(), params));
    return s.element_size == 8 ? typed_table<double>(s, ctx) : typed_table<float>(s, ctx);
  }

 private:
  template <class T>
  static VariantTable typed_table(const GemmShape& s, const RunContext& ctx) {
    return {
        engine_row("engine:gemm", [s, &ctx] { return make_engine<T>(s, ctx); }),
        control_row("control:kokkosblas", "kokkoskernels", [s, &ctx] { return make_kokkos_blas<T>(s, ctx); }),
        peer_row("peer:openblas", "openblas",
                 [s, &ctx] { return std::make_unique<OpenBlasGemm<T>>(s, ctx); }),
        peer_row(
            "peer:numpy", "numpy", [s, &ctx] { return make_numpy<T>(s, ctx); },
            [] { return NumpyRunner::get().unavailable(); })};
  }
  template <class T>
  static std::unique_ptr<Instance> make_engine(const GemmShape& s, const RunContext& ctx) {
    if (on_device(ctx)) return std::make_unique<EngineGemm<T, DevicePlacement<T>>>(s, ctx);
    return std::make_unique<EngineGemm<T, HostPlacement<T>>>(s, ctx);
  }
  template <class T>
  static std::unique_ptr<Instance> make_kokkos_blas(const GemmShape& s, const RunContext& ctx) {
    return dispatch_exec_space(engine_space(ctx), [&](auto space) -> std::unique_ptr<Instance> {
      return std::make_unique<KokkosBlasGemm<T, decltype(space)>>(s, ctx);
    });
  }
  template <class T>
  static std::unique_ptr<Instance> make_numpy(const GemmShape& s, const RunContext& ctx) {
    if (auto why = NumpyRunner::get().unavailable()) throw WorkloadError(*why);
    return std::make_unique<NumpyGemm<T>>(s, ctx);
  }
};

}  // namespace

const Family& compute_control_family() {
  static const ComputeControl family;
  return family;
}

namespace {
template <class T>
std::vector<double> sample_gemm(int n, int threads, int samples) {
  RunContext ctx;
  ctx.threads = threads;
  ctx.seed = 7;
  GemmShape s;
  s.m = s.n = s.k = n;
  s.element_size = sizeof(T);
  OpenBlasGemm<T> gemm(s, ctx);
  gemm.run();  // warm-up: BLAS thread start-up and page faults stay out of the ceiling
  std::vector<double> gflops;
  for (int r = 0; r < samples; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    gemm.run();
    const auto t1 = std::chrono::steady_clock::now();
    gflops.push_back(gemm.work().flops / std::chrono::duration<double>(t1 - t0).count() / 1e9);
  }
  return gflops;
}
}  // namespace

std::vector<double> sample_gemm_gflops(int n, int threads, int samples, FlopPrecision precision) {
  return precision == FlopPrecision::F32 ? sample_gemm<float>(n, threads, samples)
                                         : sample_gemm<double>(n, threads, samples);
}

}  // namespace tfbench::workloads
