#pragma once
// The shared implementation behind the typed allocating facades: an output allocated in the
// session's memory space after validation and route resolution, written completely by the kernel, and
// only then adopted as an owning tensor (no uninitialized element is ever published).

#include <Kokkos_Core.hpp>

#include <complex>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/ops/batched/options.hpp"
#include "tfbench/engine/storage/erased.hpp"
#include "tfbench/engine/storage/tensor.hpp"

namespace tfbench::impl::batched {

/// An allocation in the session's memory space that the operation fills before it is adopted. Frees
/// itself unless taken (an error or an exception between allocation and adoption leaks nothing).
class RawOutput {
 public:
  RawOutput() = default;
  RawOutput(const RawOutput&) = delete;
  RawOutput& operator=(const RawOutput&) = delete;
  ~RawOutput() {
    if (data_ != nullptr && release_ != nullptr) release_(data_);
  }

  template <class MemSpace>
  void allocate(std::size_t bytes, const char* label) {
    data_ = bytes == 0 ? nullptr : Kokkos::kokkos_malloc<MemSpace>(label, bytes);
    release_ = [](void* p) { Kokkos::kokkos_free<MemSpace>(p); };
    host_memory_ = std::is_same<MemSpace, Kokkos::HostSpace>::value;
  }
  void* data() const { return data_; }
  bool host_memory() const { return host_memory_; }

  /// Adopts the (fully written) allocation as a compact owner of `shape`.
  template <class T, class Rep>
  Tensor<T, DynRank, Rep> adopt(Shape shape) {
    if constexpr (std::is_same<Rep, Dynamic>::value) {
      if (host_memory_) return adopt<T, Host>(std::move(shape)).into_dynamic();
      return adopt<T, Device>(std::move(shape)).into_dynamic();
    } else {
      void (*release)(void*) = release_;
      auto owner = Tensor<T, DynRank, Rep>::from_managed(std::move(shape), static_cast<T*>(data_),
                                                         [release](T* p, Index) {
                                                           if (p != nullptr) release(p);
                                                         });
      data_ = nullptr;  // the owner frees it now
      return owner;
    }
  }

 private:
  void* data_ = nullptr;
  void (*release_)(void*) = nullptr;
  bool host_memory_ = true;
};

Result<ops::BatchRun, ops::BatchedError> batched_gemm_run(Session& session, const TensorRead& a,
                                                          const TensorRead& b, const TensorWrite* into,
                                                          RawOutput* output, std::complex<double> alpha,
                                                          std::complex<double> beta,
                                                          const ops::BatchedOptions& options);

Result<ops::BatchRun, ops::BatchedError> batched_solve_run(Session& session, const TensorRead& a,
                                                           const TensorRead& b, const TensorWrite* into,
                                                           RawOutput* output,
                                                           const ops::BatchedOptions& options);

Result<ops::BatchRun, ops::BatchedError> gemm_run(Session& session, const TensorRead& a, const TensorRead& b,
                                                  const TensorWrite* into, RawOutput* output,
                                                  std::complex<double> alpha, std::complex<double> beta);

/// Element type check of a typed facade against the erased dtype.
template <class T>
bool dtype_is(const TensorRead& t) {
  return t.dtype() == dtype_of<T>();
}

}  // namespace tfbench::impl::batched
