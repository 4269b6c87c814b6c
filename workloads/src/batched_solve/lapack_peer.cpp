// peer:lapack: per system, copy A into its LU scratch and B into X, then LAPACK's gesv driver
// (getrf + getrs in one call) through LAPACKE_?gesv_work (column-major: straight to LAPACK, no NaN
// scan, no transposition), with the BLAS library at one thread and systems fanned out over the
// worker's threads. gesv rather than separate getrf/getrs calls: OpenBLAS takes its buffer once per
// call, and one call per system is 1.1-1.6x faster at n <= 4 and n = 32 (same factorization).

#include "batched_solve/solve_peers.hpp"
#include "common/blas_threads.hpp"
#include "common/buffer.hpp"
#include "common/fan_out.hpp"

#include <lapacke.h>

#include <algorithm>

namespace tfbench::workloads::batched_solve {
namespace {

inline void gesv(int n, int nrhs, double* lu, lapack_int* ipiv, double* x) {
  LAPACKE_dgesv_work(LAPACK_COL_MAJOR, n, nrhs, lu, n, ipiv, x, n);
}
inline void gesv(int n, int nrhs, float* lu, lapack_int* ipiv, float* x) {
  LAPACKE_sgesv_work(LAPACK_COL_MAJOR, n, nrhs, lu, n, ipiv, x, n);
}

template <class T>
class LapackLoop final : public Instance {
 public:
  LapackLoop(const SolveShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(solve_seeds(ctx.seed)),
        threads_(ctx.threads),
        a_(s.a_elements(), ctx.threads),
        b_(s.b_elements(), ctx.threads),
        x_(s.b_elements(), ctx.threads),
        lu_(s.a_elements(), ctx.threads),
        ipiv_(static_cast<std::size_t>(s.n) * static_cast<std::size_t>(s.batch), ctx.threads) {
    fill_system(a_.data(), b_.data(), s, seeds_, threads_);
  }

  CheckResult check() override {
    run();
    return check_solve<T>(shape_, seeds_, [this](std::int64_t i, int r, int j) {
      return x_[static_cast<std::size_t>(i) * shape_.b_stride() + static_cast<std::size_t>(j) * shape_.n + r];
    });
  }

  void run() override {
    ScopedBlasThreads one(1);
    const int n = shape_.n, nrhs = shape_.nrhs;
    const std::size_t sa = shape_.a_stride(), sb = shape_.b_stride();
    const T* a = a_.data();
    const T* b = b_.data();
    T* x = x_.data();
    T* lu = lu_.data();
    lapack_int* ipiv = ipiv_.data();
    fan_out(threads_, shape_.batch, [=](std::int64_t i) {
      T* lui = lu + i * sa;
      T* xi = x + i * sb;
      std::copy(a + i * sa, a + (i + 1) * sa, lui);
      std::copy(b + i * sb, b + (i + 1) * sb, xi);
      gesv(n, nrhs, lui, ipiv + i * n, xi);
    });
  }

  Work work() const override { return solve_work(shape_); }

 private:
  SolveShape shape_;
  SolveSeeds seeds_;
  int threads_;
  AlignedBuffer<T> a_, b_, x_, lu_;
  AlignedBuffer<lapack_int> ipiv_;
};

}  // namespace

template <class T>
std::unique_ptr<Instance> make_lapack_loop(const SolveShape& s, const RunContext& ctx) {
  return std::make_unique<LapackLoop<T>>(s, ctx);
}
template std::unique_ptr<Instance> make_lapack_loop<double>(const SolveShape&, const RunContext&);
template std::unique_ptr<Instance> make_lapack_loop<float>(const SolveShape&, const RunContext&);

}  // namespace tfbench::workloads::batched_solve
