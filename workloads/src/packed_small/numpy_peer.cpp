// peer:numpy: np.matmul on the stacked batch in the persistent NumPy runner; operands travel once
// through a shared file, the timed call runs on NumPy's own copies, timed inside Python.

#include "packed_small/gemm_peers.hpp"
#include "peers/numpy_runner.hpp"

#include <cstring>

namespace tfbench::workloads::packed_small {
namespace {

template <class T>
class NumpyGemm final : public Instance {
 public:
  NumpyGemm(const GemmBatchShape& s, const RunContext& ctx)
      : shape_(s),
        seeds_(gemm_batch_seeds(ctx.seed)),
        requested_threads_(ctx.threads),
        op_(fields(s), 3 * s.elements() * sizeof(T)) {
    T* base = static_cast<T*>(op_.data());
    fill_operand(base, s, seeds_.a, 1);
    fill_operand(base + s.elements(), s, seeds_.b, 1);
    verified_threads_ = op_.setup(ctx.threads);
  }

  CheckResult check() override {
    last_ = op_.check();
    const T* c = static_cast<const T*>(op_.data()) + 2 * shape_.elements();
    return check_gemm_batch<T>(shape_, seeds_,
                               [&](std::int64_t i, int r, int col) { return c[shape_.offset(i, r, col)]; });
  }
  void run() override { last_ = op_.run(); }
  std::optional<double> self_timed_seconds() const override { return last_; }
  ResourceCounts resources() override { return numpy_resources(); }
  Work work() const override { return gemm_batch_work(shape_); }
  std::map<std::string, double> metrics() override {
    return {{"numpy_blas_threads_requested", static_cast<double>(requested_threads_)},
            {"numpy_blas_threads", static_cast<double>(verified_threads_)}};
  }

 private:
  static std::string fields(const GemmBatchShape& s) {
    return std::string("op=matmul dtype=") + (sizeof(T) == 8 ? "float64" : "float32") +
           " n=" + std::to_string(s.n) + " batch=" + std::to_string(s.batch) + " ld=" + std::to_string(s.ld) +
           " stride=" + std::to_string(s.stride);
  }

  GemmBatchShape shape_;
  GemmBatchSeeds seeds_;
  int requested_threads_;
  int verified_threads_ = 0;
  NumpyOperation op_;
  double last_ = 0.0;
};

}  // namespace

std::optional<std::string> numpy_unavailable() {
  return NumpyRunner::get().unavailable();
}

template <class T>
std::unique_ptr<Instance> make_numpy(const GemmBatchShape& s, const RunContext& ctx) {
  if (auto why = numpy_unavailable()) throw WorkloadError(*why);
  return std::make_unique<NumpyGemm<T>>(s, ctx);
}
template std::unique_ptr<Instance> make_numpy<double>(const GemmBatchShape&, const RunContext&);
template std::unique_ptr<Instance> make_numpy<float>(const GemmBatchShape&, const RunContext&);

}  // namespace tfbench::workloads::packed_small
