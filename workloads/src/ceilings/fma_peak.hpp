#pragma once
// The machine's floating-point peak as the Empirical Roofline Toolkit measures it: independent
// fused multiply-adds on the widest vectors the build targets, in registers, on every thread of the
// worker. A BLAS GEMM is the other estimate (the ceilings keep both): it reads below this where the
// BLAS runs narrower kernels than the CPU has (OpenBLAS's Haswell kernels on an AVX-512 core, as an
// OPENBLAS_CORETYPE from the environment asks), and then kernels that use the full width (libxsmm,
// the engine's) read above a GEMM "peak".

#include <memory>
#include <vector>

#include "tfbench/workloads/family.hpp"

namespace tfbench::workloads::impl {

/// GFLOP/s of each of `samples` samples at `threads` OpenMP threads (2 flops per fused lane), a
/// sample repeating the kernel for at least `min_sample_s`.
std::vector<double> sample_fma_gflops(int threads, int samples, FlopPrecision precision, double min_sample_s);

/// The same kernel as an Instance that times itself (ceilings.hpp, peak_reference): a run is one
/// sample of at least `min_run_s`; work().flops counts every thread's.
std::unique_ptr<Instance> fma_reference(int threads, FlopPrecision precision, double min_run_s);

/// Bytes of the vectors the kernel runs on in this build (64 with AVX-512, 32 with AVX, else 16).
int fma_vector_bytes();

}  // namespace tfbench::workloads::impl
