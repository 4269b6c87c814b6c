// peer:openblas: one cblas gemm per item, OpenBLAS held at one thread, items fanned out over the
// worker's threads with OpenMP (a threaded BLAS per item under fan-out would contend).

#include "common/blas_threads.hpp"
#include "common/fan_out.hpp"
#include "packed_small/gemm_peers.hpp"
#include "packed_small/host_gemm_batch.hpp"

#include <cblas.h>

namespace tfbench::workloads::packed_small {
namespace {

inline void gemm(int n, int ld, const double* a, const double* b, double* c) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, ld, b, ld, 0.0, c, ld);
}
inline void gemm(int n, int ld, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, ld, b, ld, 0.0f, c, ld);
}

template <class T>
class BlasLoop final : public HostGemmBatch<T> {
 public:
  using HostGemmBatch<T>::HostGemmBatch;

  void run() override {
    ScopedBlasThreads one(1);
    const int n = this->shape_.n, ld = this->shape_.ld;
    const std::int64_t stride = this->shape_.stride;
    const T* a = this->a_.data();
    const T* b = this->b_.data();
    T* c = this->c_.data();
    fan_out(this->threads_, this->shape_.batch,
            [=](std::int64_t i) { gemm(n, ld, a + i * stride, b + i * stride, c + i * stride); });
  }
  std::map<std::string, double> metrics() override {
    ScopedBlasThreads one(1);
    auto m = shared_by_metric(this->operands_);
    m["blas_threads_per_item"] = static_cast<double>(one.verified());
    return m;
  }
};

}  // namespace

template <class T>
std::unique_ptr<Instance> make_blas_loop(const GemmBatchShape& s, const RunContext& ctx) {
  return std::make_unique<BlasLoop<T>>(s, ctx);
}
template std::unique_ptr<Instance> make_blas_loop<double>(const GemmBatchShape&, const RunContext&);
template std::unique_ptr<Instance> make_blas_loop<float>(const GemmBatchShape&, const RunContext&);

}  // namespace tfbench::workloads::packed_small
