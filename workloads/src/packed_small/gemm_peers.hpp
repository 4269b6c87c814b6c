#pragma once
// The peers of packed_small, each as fast as its library allows: OpenBLAS called per item with one
// BLAS thread inside an OpenMP fan-out, one libxsmm kernel dispatched once and called per item,
// Eigen fixed-size matrices instantiated per n, raw KokkosBatched SerialGemm in a parallel_for,
// cuBLAS's strided-batched gemm (cuda cases), and NumPy's matmul on the stacked batch (in its own process).

#include "common/engine_route.hpp"
#include "packed_small/gemm_batch.hpp"
#include "peers/torch_runner.hpp"

#include <memory>
#include <optional>
#include <string>

namespace tfbench::workloads::packed_small {

/// The engine under `strategy` (see engine_gemm.cpp), and why it cannot run here (asked of the engine).
template <class T>
std::unique_ptr<Instance> make_engine_gemm(const GemmBatchShape& s, const RunContext& ctx,
                                           const EngineStrategy& strategy);
std::optional<std::string> engine_gemm_refusal(const GemmBatchShape& s, const RunContext& ctx,
                                               const EngineStrategy& strategy);

template <class T>
std::unique_ptr<Instance> make_blas_loop(const GemmBatchShape& s, const RunContext& ctx);

/// Empty when libxsmm can dispatch a kernel for this shape, else why not.
std::optional<std::string> libxsmm_unavailable(const GemmBatchShape& s);
template <class T>
std::unique_ptr<Instance> make_libxsmm(const GemmBatchShape& s, const RunContext& ctx);

/// Empty when an Eigen fixed-size instantiation exists for n, else why not.
std::optional<std::string> eigen_unavailable(const GemmBatchShape& s);
template <class T>
std::unique_ptr<Instance> make_eigen(const GemmBatchShape& s, const RunContext& ctx);

template <class T>
std::unique_ptr<Instance> make_kokkos_batched(const GemmBatchShape& s, const RunContext& ctx);

/// Empty when cuBLAS's strided-batched gemm can run this case (a cuda case of a cuBLAS build).
std::optional<std::string> cublas_unavailable(const RunContext& ctx);
template <class T>
std::unique_ptr<Instance> make_cublas(const GemmBatchShape& s, const RunContext& ctx);

std::optional<std::string> numpy_unavailable();
template <class T>
std::unique_ptr<Instance> make_numpy(const GemmBatchShape& s, const RunContext& ctx);

/// torch.bmm in a Python with torch, on the case's device: its GPU for a device space, the CPU for a
/// host space (TorchRunner::unavailable_on says whether it can run here).
template <class T>
std::unique_ptr<Instance> make_torch(const GemmBatchShape& s, const RunContext& ctx);

}  // namespace tfbench::workloads::packed_small
