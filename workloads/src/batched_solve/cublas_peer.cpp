// peer:cublas: cuBLAS's batched LU, cublas<t>getrfBatched (partial pivoting) then
// cublas<t>getrsBatched, on operands in the device memory of the worker's Kokkos Cuda space. Like
// every variant it keeps A and B intact: each run copies them (device to device) into the factor
// and solution buffers first, and that copy is part of its time, as the engine's is of its own.
// It runs on the cuda space only, in builds whose Kokkos Kernels has the cuBLAS TPL.

#include "batched_solve/solve_peers.hpp"

#include <Kokkos_Core.hpp>

#include "common/cublas_handle.hpp"

#include <cstdint>
#include <limits>
#include <type_traits>

namespace tfbench::workloads::batched_solve {

std::optional<std::string> cublas_solve_unavailable(const RunContext& ctx) {
  return cublas_unavailable_reason(ctx);
}

#if defined(TFBENCH_WORKLOADS_HAVE_CUBLAS)
namespace {

constexpr const char* kPeer = "batched_solve peer:cublas";

void check_status(cublasStatus_t status, const char* what) {
  check_cublas(status, kPeer, what);
}

template <class T>
class CublasSolve final : public Instance {
  using View = Kokkos::View<T*, Kokkos::CudaSpace>;
  // Item pointer arrays as addresses: a View<T**> would be a rank-2 View of T.
  using Pointers = Kokkos::View<std::uintptr_t*, Kokkos::CudaSpace>;

 public:
  CublasSolve(const SolveShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(solve_seeds(ctx.seed)),
        handle_(space_, kPeer),
        a_(label("a"), s.a_elements()),
        b_(label("b"), s.b_elements()),
        lu_(label("lu"), s.a_elements()),
        x_(label("x"), s.b_elements()),
        lu_items_(label("lu_items"), s.batch),
        x_items_(label("x_items"), s.batch),
        pivots_(label("pivots"), static_cast<std::size_t>(s.n) * s.batch),
        info_(label("info"), s.batch) {
    if (s.batch > std::numeric_limits<int>::max()) {
      throw WorkloadError("batched_solve peer:cublas: a batch beyond 2^31 - 1 items");
    }
    auto ha = Kokkos::create_mirror_view(a_);
    auto hb = Kokkos::create_mirror_view(b_);
    fill_system(ha.data(), hb.data(), s, seeds_, ctx.threads);
    Kokkos::deep_copy(a_, ha);
    Kokkos::deep_copy(b_, hb);
    // The item pointer arrays, made once on the host and copied to the device.
    auto hl = Kokkos::create_mirror_view(lu_items_);
    auto hx = Kokkos::create_mirror_view(x_items_);
    for (std::int64_t i = 0; i < s.batch; ++i) {
      hl(i) = reinterpret_cast<std::uintptr_t>(lu_.data() + static_cast<std::size_t>(i) * s.a_stride());
      hx(i) = reinterpret_cast<std::uintptr_t>(x_.data() + static_cast<std::size_t>(i) * s.b_stride());
    }
    Kokkos::deep_copy(lu_items_, hl);
    Kokkos::deep_copy(x_items_, hx);
  }

  CheckResult check() override {
    run();
    space_.fence();
    auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x_);
    return check_solve<T>(shape_, seeds_, [&](std::int64_t i, int r, int j) {
      return hx(static_cast<std::size_t>(i) * shape_.b_stride() + static_cast<std::size_t>(j) * shape_.n + r);
    });
  }

  void run() override {
    Kokkos::deep_copy(space_, lu_, a_);
    Kokkos::deep_copy(space_, x_, b_);
    const int n = shape_.n, nrhs = shape_.nrhs, count = static_cast<int>(shape_.batch);
    int info = 0;
    if constexpr (std::is_same<T, double>::value) {
      check_status(
          cublasDgetrfBatched(handle_.get(), n, items(lu_items_), n, pivots_.data(), info_.data(), count),
          "cublasDgetrfBatched");
      check_status(cublasDgetrsBatched(handle_.get(), CUBLAS_OP_N, n, nrhs, items(lu_items_), n,
                                       pivots_.data(), items(x_items_), n, &info, count),
                   "cublasDgetrsBatched");
    } else {
      check_status(
          cublasSgetrfBatched(handle_.get(), n, items(lu_items_), n, pivots_.data(), info_.data(), count),
          "cublasSgetrfBatched");
      check_status(cublasSgetrsBatched(handle_.get(), CUBLAS_OP_N, n, nrhs, items(lu_items_), n,
                                       pivots_.data(), items(x_items_), n, &info, count),
                   "cublasSgetrsBatched");
    }
    if (info != 0)
      throw WorkloadError("batched_solve peer:cublas: getrsBatched argument " + std::to_string(-info));
    space_.fence();  // complete, as every device variant's run() is (packed_small's cuBLAS peer says why)
  }

  Work work() const override { return solve_work(shape_); }

 private:
  static T** items(const Pointers& p) { return reinterpret_cast<T**>(p.data()); }
  static std::string label(const char* what) {
    return std::string("tfbench::workloads::batched_solve::cublas_") + what;
  }

  Kokkos::Cuda space_;  // first: the handle is ordered on its stream
  SolveShape shape_;
  SolveSeeds seeds_;
  CublasHandle handle_;
  View a_, b_, lu_, x_;
  Pointers lu_items_, x_items_;
  Kokkos::View<int*, Kokkos::CudaSpace> pivots_, info_;
};

}  // namespace
#endif

template <class T>
std::unique_ptr<Instance> make_cublas_solve(const SolveShape& s, const RunContext& ctx) {
  if (auto why = cublas_solve_unavailable(ctx)) throw WorkloadError("batched_solve peer:cublas: " + *why);
#if defined(TFBENCH_WORKLOADS_HAVE_CUBLAS)
  return std::make_unique<CublasSolve<T>>(s, ctx);
#else
  (void)s;
  return nullptr;
#endif
}
template std::unique_ptr<Instance> make_cublas_solve<double>(const SolveShape&, const RunContext&);
template std::unique_ptr<Instance> make_cublas_solve<float>(const SolveShape&, const RunContext&);

}  // namespace tfbench::workloads::batched_solve
