#pragma once
// cuBLAS for the CUDA peers (packed_small's and batched_solve's peer:cublas): whether this build
// and case have it, status checks that say who failed, and a handle ordered on the Kokkos Cuda
// instance's stream so that the harness's fence covers its calls.

#include <KokkosKernels_config.h>
#include <Kokkos_Core.hpp>

#include <optional>
#include <string>

#include "common/engine_backend.hpp"
#include "tfbench/workloads/family.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
#include <cublas_v2.h>
#define TFBENCH_WORKLOADS_HAVE_CUBLAS 1
#endif

namespace tfbench::workloads {

/// Why a cuBLAS peer cannot run this case (not a cuda case, or no cuBLAS TPL in this build).
inline std::optional<std::string> cublas_unavailable_reason(const RunContext& ctx) {
#if defined(TFBENCH_WORKLOADS_HAVE_CUBLAS)
  if (!on_device(ctx))
    return std::string("cuBLAS runs on the cuda space; this case runs on ") + name(ctx.space);
  return std::nullopt;
#else
  (void)ctx;
  return std::string("this build has no CUDA Kokkos with the cuBLAS TPL (the cuda preset has it)");
#endif
}

#if defined(TFBENCH_WORKLOADS_HAVE_CUBLAS)
/// Throws WorkloadError "<who>: <what> returned status <n>" unless `status` is success.
inline void check_cublas(cublasStatus_t status, const char* who, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw WorkloadError(std::string(who) + ": " + what + " returned status " +
                        std::to_string(static_cast<int>(status)));
  }
}

/// A cuBLAS handle of the peer's own, on `space`'s stream.
class CublasHandle {
 public:
  CublasHandle(const Kokkos::Cuda& space, const char* who) {
    check_cublas(cublasCreate(&handle_), who, "cublasCreate");
    check_cublas(cublasSetStream(handle_, space.cuda_stream()), who, "cublasSetStream");
  }
  ~CublasHandle() { cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};
#endif

}  // namespace tfbench::workloads
