#pragma once
// The peers of batched_solve: a LAPACK gesv (getrf + getrs) loop (LAPACKE, one BLAS thread per item inside
// an OpenMP fan-out), raw KokkosBatched SerialLU + SerialSolveLU in a parallel_for, cuBLAS's batched
// getrf + getrs (cuda cases), and NumPy's
// np.linalg.solve on the stack. Every variant keeps A and B intact (factors go to scratch).

#include "batched_solve/solve_batch.hpp"
#include "common/engine_route.hpp"
#include "peers/torch_runner.hpp"

#include <memory>

namespace tfbench::workloads::batched_solve {

/// The engine under `strategy` (see engine_solve.cpp), and why it cannot run here (asked of the engine).
template <class T>
std::unique_ptr<Instance> make_engine_solve(const SolveShape& s, const RunContext& ctx,
                                            const EngineStrategy& strategy);
std::optional<std::string> engine_solve_refusal(const SolveShape& s, const RunContext& ctx,
                                                const EngineStrategy& strategy);

template <class T>
std::unique_ptr<Instance> make_lapack_loop(const SolveShape& s, const RunContext& ctx);
template <class T>
std::unique_ptr<Instance> make_kokkos_batched_solve(const SolveShape& s, const RunContext& ctx);
template <class T>
std::unique_ptr<Instance> make_numpy_solve(const SolveShape& s, const RunContext& ctx);

/// Empty when cuBLAS's batched getrf + getrs can run this case (a cuda case of a cuBLAS build).
std::optional<std::string> cublas_solve_unavailable(const RunContext& ctx);
template <class T>
std::unique_ptr<Instance> make_cublas_solve(const SolveShape& s, const RunContext& ctx);

/// torch.linalg.solve in a Python with torch, on the case's device: its GPU for a device space, the
/// CPU for a host space (TorchRunner::unavailable_on says whether it can run here).
template <class T>
std::unique_ptr<Instance> make_torch_solve(const SolveShape& s, const RunContext& ctx);

}  // namespace tfbench::workloads::batched_solve
