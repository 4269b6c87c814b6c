// peer:libxsmm: one JIT kernel for the shape, dispatched once at construction with
// libxsmm_[sd]mmdispatch, then called per item (with the next item's operands as prefetch
// locations when the kernel was generated with LIBXSMM_PREFETCH_AUTO), fanned out with OpenMP.

#include "common/fan_out.hpp"
#include "packed_small/gemm_peers.hpp"
#include "packed_small/host_gemm_batch.hpp"

#if defined(TFBENCH_HAVE_LIBXSMM)
#include <libxsmm.h>
#endif

namespace tfbench::workloads::packed_small {

#if defined(TFBENCH_HAVE_LIBXSMM)
namespace {

template <class T>
struct Kernel;
template <>
struct Kernel<double> {
  using type = libxsmm_dmmfunction;
  static type dispatch(int n, int ld, int prefetch) {
    const libxsmm_blasint m = n, l = ld;
    const double alpha = 1.0, beta = 0.0;
    const int flags = LIBXSMM_GEMM_FLAG_NONE;
    return libxsmm_dmmdispatch(m, m, m, &l, &l, &l, &alpha, &beta, &flags, &prefetch);
  }
};
template <>
struct Kernel<float> {
  using type = libxsmm_smmfunction;
  static type dispatch(int n, int ld, int prefetch) {
    const libxsmm_blasint m = n, l = ld;
    const float alpha = 1.0f, beta = 0.0f;
    const int flags = LIBXSMM_GEMM_FLAG_NONE;
    return libxsmm_smmdispatch(m, m, m, &l, &l, &l, &alpha, &beta, &flags, &prefetch);
  }
};

/// Streaming batches (beyond the L2 cache) gain from prefetching the next item's operands.
bool use_prefetch(const GemmBatchShape& s) {
  return static_cast<double>(s.elements()) * 3.0 * static_cast<double>(s.element_size) > 2.0 * 1024 * 1024;
}

template <class T>
class LibxsmmGemm final : public HostGemmBatch<T> {
 public:
  LibxsmmGemm(const GemmBatchShape& s, const RunContext& ctx) : HostGemmBatch<T>(s, ctx) {
    libxsmm_init();
    prefetch_ = use_prefetch(s);
    kernel_ = Kernel<T>::dispatch(s.n, s.ld, prefetch_ ? LIBXSMM_PREFETCH_AUTO : LIBXSMM_PREFETCH_NONE);
    if (!kernel_) throw WorkloadError("libxsmm could not generate a kernel for n = " + std::to_string(s.n));
  }

  void run() override {
    const auto kernel = kernel_;
    const std::int64_t stride = this->shape_.stride, last = this->shape_.batch - 1;
    const T* a = this->a_.data();
    const T* b = this->b_.data();
    T* c = this->c_.data();
    if (prefetch_) {
      fan_out(this->threads_, this->shape_.batch, [=](std::int64_t i) {
        const std::int64_t next = (i < last ? i + 1 : i) * stride;
        kernel(a + i * stride, b + i * stride, c + i * stride, a + next, b + next, c + next);
      });
    } else {
      fan_out(this->threads_, this->shape_.batch,
              [=](std::int64_t i) { kernel(a + i * stride, b + i * stride, c + i * stride); });
    }
  }
  std::map<std::string, double> metrics() override {
    auto m = shared_by_metric(this->operands_);
    m["libxsmm_prefetch"] = prefetch_ ? 1.0 : 0.0;
    return m;
  }

 private:
  typename Kernel<T>::type kernel_ = nullptr;
  bool prefetch_ = false;
};

}  // namespace

std::optional<std::string> libxsmm_unavailable(const GemmBatchShape& s) {
  libxsmm_init();
  const bool ok = s.element_size == 8 ? Kernel<double>::dispatch(s.n, s.ld, LIBXSMM_PREFETCH_NONE) != nullptr
                                      : Kernel<float>::dispatch(s.n, s.ld, LIBXSMM_PREFETCH_NONE) != nullptr;
  if (ok) return std::nullopt;
  return "libxsmm generated no kernel for n = " + std::to_string(s.n) + " (JIT unsupported on this CPU?)";
}

template <class T>
std::unique_ptr<Instance> make_libxsmm(const GemmBatchShape& s, const RunContext& ctx) {
  return std::make_unique<LibxsmmGemm<T>>(s, ctx);
}

#else

std::optional<std::string> libxsmm_unavailable(const GemmBatchShape&) {
  return "tfbench was built without libxsmm (TFBENCH_ENABLE_LIBXSMM=OFF)";
}
template <class T>
std::unique_ptr<Instance> make_libxsmm(const GemmBatchShape&, const RunContext&) {
  throw WorkloadError("tfbench was built without libxsmm (TFBENCH_ENABLE_LIBXSMM=OFF)");
}

#endif

template std::unique_ptr<Instance> make_libxsmm<double>(const GemmBatchShape&, const RunContext&);
template std::unique_ptr<Instance> make_libxsmm<float>(const GemmBatchShape&, const RunContext&);

}  // namespace tfbench::workloads::packed_small
