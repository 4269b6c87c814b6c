#pragma once
// OpenBLAS (DYNAMIC_ARCH) picks its kernels by CPU model. A model newer than the library falls back
// to its SSE-era kernels: OpenBLAS 0.3.21 reads this development machine's Emerald Rapids (model
// 207) as "Prescott" and runs dgemm at 13-16 GFLOP/s per core, against 61 with its SkylakeX kernels
// on the same core. Every BLAS peer, the engine's BLAS routes and the roofline's compute ceiling
// would then measure the library's detection, not the machine. So tfbench asks OpenBLAS for the
// kernels of the host's instruction set (OPENBLAS_CORETYPE) in every process it starts, when -- and
// only when -- OpenBLAS fell back that far and the user has not chosen a core; the run records it.

#include <string>

namespace tfbench::harness {

/// The OpenBLAS core for this host's instruction set ("SkylakeX" with AVX-512 F/BW/DQ/VL, "Haswell"
/// with AVX2 and FMA) when `detected` is an SSE-era core; empty otherwise (no AVX2, or a core of
/// the AVX era already, or another BLAS).
std::string openblas_core_correction(const std::string& detected);

/// At tfbench's start (not in a worker, which inherits it): sets OPENBLAS_CORETYPE for every process
/// tfbench starts when openblas_core_correction applies and OPENBLAS_CORETYPE is unset.
void correct_openblas_core();

/// What correct_openblas_core did, for provenance: "SkylakeX (OpenBLAS detected Prescott)", or empty.
const std::string& forced_openblas_core();

}  // namespace tfbench::harness
