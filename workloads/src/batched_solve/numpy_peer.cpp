// peer:numpy: np.linalg.solve on the stacked systems (LAPACK gesv per system inside NumPy) in the
// NumPy runner, timed inside Python.

#include "batched_solve/solve_peers.hpp"
#include "peers/numpy_runner.hpp"

namespace tfbench::workloads::batched_solve {
namespace {

template <class T>
class NumpySolve final : public Instance {
 public:
  NumpySolve(const SolveShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(solve_seeds(ctx.seed)),
        requested_(ctx.threads),
        op_(std::string("op=solve dtype=") + (sizeof(T) == 8 ? "float64" : "float32") + " n=" +
                std::to_string(s.n) + " nrhs=" + std::to_string(s.nrhs) + " batch=" + std::to_string(s.batch),
            (s.a_elements() + 2 * s.b_elements()) * sizeof(T)) {
    T* base = static_cast<T*>(op_.data());
    fill_system(base, base + s.a_elements(), s, seeds_, 1);
    verified_ = op_.setup(ctx.threads);
  }
  CheckResult check() override {
    last_ = op_.check();
    const T* x = static_cast<const T*>(op_.data()) + shape_.a_elements() + shape_.b_elements();
    return check_solve<T>(shape_, seeds_, [&](std::int64_t i, int r, int j) {
      return x[static_cast<std::size_t>(i) * shape_.b_stride() + static_cast<std::size_t>(j) * shape_.n + r];
    });
  }
  void run() override { last_ = op_.run(); }
  std::optional<double> self_timed_seconds() const override { return last_; }
  ResourceCounts resources() override { return numpy_resources(); }
  Work work() const override { return solve_work(shape_); }
  std::map<std::string, double> metrics() override {
    return {{"numpy_blas_threads_requested", static_cast<double>(requested_)},
            {"numpy_blas_threads", static_cast<double>(verified_)}};
  }

 private:
  SolveShape shape_;
  SolveSeeds seeds_;
  int requested_;
  int verified_ = 0;
  NumpyOperation op_;
  double last_ = 0.0;
};

}  // namespace

template <class T>
std::unique_ptr<Instance> make_numpy_solve(const SolveShape& s, const RunContext& ctx) {
  if (auto why = NumpyRunner::get().unavailable()) throw WorkloadError(*why);
  return std::make_unique<NumpySolve<T>>(s, ctx);
}
template std::unique_ptr<Instance> make_numpy_solve<double>(const SolveShape&, const RunContext&);
template std::unique_ptr<Instance> make_numpy_solve<float>(const SolveShape&, const RunContext&);

}  // namespace tfbench::workloads::batched_solve
