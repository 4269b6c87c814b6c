#pragma once
// Provider declarations: how an implementation behaves under outer fan-out. The declaration
// is explicit configuration, never deduced from environment variables.
//
//   Sequential, concurrent-call safe      allowed inside outer fan-out
//   SamePool, concurrent-call safe        allowed (runs sequentially inside a sequential lane)
//   IndependentRuntime (threaded BLAS...) rejected inside outer fan-out, before anything runs

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tfbench/engine/core/exec_space.hpp"

namespace tfbench {

enum class ProviderParallelism {
  /// Runs on the calling thread only (KokkosBatched Serial*, a single-threaded libxsmm kernel).
  Sequential,
  /// Runs on the session's own Kokkos pool and honours the context it is given.
  SamePool,
  /// Owns its own threads (threaded OpenBLAS/LAPACK, a vendor batched call): tfbench can neither
  /// make it sequential nor run several of it in lanes.
  IndependentRuntime,
};
const char* name(ProviderParallelism parallelism);

/// A provider declaration. Declarations must have static storage duration: routes and provider sets
/// point at them.
struct ProviderDecl {
  std::string_view name;
  ProviderParallelism parallelism;
  bool concurrent_call_safe;  // may be called from several threads at once
  bool per_item;              // can run one batch item per call
  bool whole_batch;           // can run a whole batch in one call (vendor batched)
  /// The fixed cost of one item call in ns, for Auto's lane cost model (< 0: not declared, the
  /// policy's default applies). An inline kernel costs a few ns per item, a library call tens: with
  /// the default 50 ns for everything, Auto fans out batches that finish before two lanes start.
  double item_overhead_ns = -1;
};

/// The operation families that pick a provider, each read by its operations (ops::gemm, batched_gemm,
/// batched_solve, the contractions). Candidates in a slot are ordered by preference; tfbench's own
/// sequential kernels are always allowed after them. Elementwise operations and reductions have one
/// implementation (tfbench's Kokkos kernels), so they have no slot.
enum class ProviderSlot { Gemm, BatchedGemm, BatchedSolve, Contraction };
inline constexpr int kProviderSlotCount = 4;
const char* name(ProviderSlot slot);

/// An ordered candidate list per slot and a generation that changes whenever any slot changes.
/// Generations are unique across every set in the process, so a plan keyed on one never matches a
/// plan prepared under another set.
class ProviderSet {
 public:
  ProviderSet();
  const std::vector<const ProviderDecl*>& candidates(ProviderSlot slot) const {
    return slots_[static_cast<int>(slot)];
  }
  /// Replaces a slot's candidates and takes a fresh generation. Null entries are dropped.
  void set(ProviderSlot slot, std::vector<const ProviderDecl*> candidates);
  std::uint64_t generation() const { return generation_; }

 private:
  std::array<std::vector<const ProviderDecl*>, kProviderSlotCount> slots_;
  std::uint64_t generation_;
};

/// The declarations of the implementations tfbench builds on.
namespace providers {
/// KokkosBatched Serial* per item (device-callable, runs on the calling thread or kernel thread).
extern const ProviderDecl kokkos_batched_serial;
/// A Kokkos kernel over the session's own execution space (KokkosBatched Team*, KokkosBlas native).
extern const ProviderDecl kokkos_same_pool;
/// OpenBLAS BLAS (pthread build: threads of its own). No batched entry in Debian 12's 0.3.21.
extern const ProviderDecl openblas;
/// LAPACK(E) over OpenBLAS: ?getrf/?getrs thread themselves.
extern const ProviderDecl lapack;
/// libxsmm dispatched small-GEMM kernel: sequential and safe to call concurrently.
extern const ProviderDecl libxsmm;
/// A vendor whole-batch call (cuBLAS strided batched on CUDA builds).
extern const ProviderDecl vendor_batched;
}  // namespace providers

/// The default provider set of a backend whose kernels run on `space`.
ProviderSet default_provider_set(ExecSpaceKind space);

}  // namespace tfbench
