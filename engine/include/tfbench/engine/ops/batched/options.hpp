#pragma once
// Options, route report and typed error shared by the batched operations (batched_gemm, batched_solve)
// and the large gemm.

#include <cstdint>
#include <optional>
#include <string>

#include "tfbench/engine/core/dtype.hpp"
#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/ops/item_providers.hpp"

namespace tfbench::ops {

/// Row exchanges of batched LU. KokkosBatched's SerialLU does not pivot: it is correct only for
/// matrices whose leading pivots are safe (e.g. diagonally dominant); the caller says so with None.
enum class Pivoting {
  Partial,  // LAPACK's rule (default): every route pivots; kokkosbatched is not selectable
  None,     // the caller declares the matrices safe without row exchanges: kokkosbatched selectable
};
const char* name(Pivoting pivoting);

/// Per-operation options. `policy` is the per-operation batch policy (per-operation > scoped >
/// backend default, resolved by the exec concern); `provider` restricts the candidates to one item
/// provider (a preference the route resolver still checks: a provider that cannot serve the
/// strategy, dtype or layout is a typed error, never a silent fallback).
struct BatchedOptions {
  std::optional<BatchPolicy> policy;
  std::optional<ItemProvider> provider;
  Pivoting pivoting = Pivoting::Partial;  // batched_solve only
  /// libxsmm items, and GEMM items of the specialized kernel that has a prefetching kernel for them
  /// (packed f64 16 x 16 and 32 x 32 in host builds with AVX-512; has_prefetching_kernel): whether the
  /// next item's operands are prefetched while one is computed: by libxsmm's prefetching kernel, or,
  /// for libxsmm items of four 8-column blocks or more, by tfbench between the blocks of each item (its
  /// A; docs/ops-batched.md "libxsmm's prefetching"); by the specialized kernel into the L2, spread over
  /// the item's column blocks, the A and B of the item two ahead ("The specialized kernel's prefetch").
  /// Empty: the tuning's choice for the problem's class, else on for batches beyond the L2 cache
  /// (streaming). Which is faster depends on the machine (on a Xeon with a 105 MiB LLC, libxsmm's off is
  /// 9% faster for 32 x 32 items in the LLC, on is 4-19% faster from DRAM): `tfbench tune` measures
  /// both. Elsewhere it changes nothing; BatchRun::prefetch says what ran.
  std::optional<bool> prefetch;
  /// GEMM items of the specialized kernel or libxsmm with beta = 0: whether C is written with
  /// non-temporal (streaming) stores, which skip reading each output line before writing it and leave
  /// it out of the caches. Empty: the tuning's choice for the problem's class, else the built-in rule
  /// (the specialized kernel streams batches beyond the L2 cache, libxsmm never). Applied where the
  /// items allow it (packed specialized items of whole 32-byte vectors; libxsmm columns of whole
  /// 64-byte lines at 64-byte aligned addresses); BatchRun::streaming_stores says what ran.
  std::optional<bool> streaming_stores;
  /// GEMM items of the specialized kernel that it has in 512-bit and in 256-bit vectors (packed f64
  /// 2 x 2, 4 x 4 and 8 x 8 items in host builds with AVX-512): whether the 256-bit kernel runs. Which
  /// is faster depends on the core (Zen 4 runs a 512-bit instruction as two 256-bit halves, and its
  /// 256-bit 4 x 4 kernel is 1.2x the 512-bit one; docs/ops-batched.md "Two widths of kernel"). Empty:
  /// the tuning's choice for the problem's class, else the 512-bit kernel. Elsewhere it changes
  /// nothing; BatchRun::narrow_vectors says what ran.
  std::optional<bool> narrow_vectors;
};

/// Whether the specialized kernel has packed GEMM items of `dtype`, n x n, in a 512-bit and in a
/// 256-bit kernel in this build (f64 2, 4 and 8 in host builds with AVX-512), between which
/// BatchedOptions::narrow_vectors chooses.
bool has_two_kernel_widths(DType dtype, int n);

/// Whether the specialized kernel has packed GEMM items of `dtype`, n x n, in a kernel that prefetches
/// the next item when BatchedOptions::prefetch asks (f64 16 and 32 in host builds with AVX-512).
bool has_prefetching_kernel(DType dtype, int n);

/// The route that actually ran.
struct BatchRun {
  BatchStrategy strategy = BatchStrategy::Sequential;  // never Auto
  int lanes = 1;                                       // > 1 only for OuterParallel
  ItemProvider provider = ItemProvider::Specialized;
  std::int64_t items = 0;
  bool tuned = false;  // Auto took the provider (and strategy) from the policy's AutoTuning
  /// libxsmm routes, and specialized routes of items with a prefetching kernel: whether the next item
  /// was prefetched.
  std::optional<bool> prefetch;
  /// GEMM routes of the specialized kernel and libxsmm: whether C was written with streaming stores.
  std::optional<bool> streaming_stores;
  /// OuterParallel: the items lane 0 (the calling thread) ran. In the engine's own OpenMP region the
  /// split is learned from earlier regions of the batch's shape (docs/ops-batched.md, "The lanes'
  /// split"), so it can exceed an even share; elsewhere it is the even one.
  std::optional<std::int64_t> first_lane_items;
  /// A fan-out Auto chose (not forced): whether this call ran all its items on the calling thread
  /// instead (first_lane_items is then `items`), because the fan-out ran slower than that on this
  /// thread's recent calls of the batch's shape, or to measure that (docs/ops-batched.md, "The fan-out
  /// check"). `strategy` and `lanes` stay Auto's route.
  std::optional<bool> fan_out_withheld;
  /// Specialized GEMM routes of items with two widths of kernel (BatchedOptions::narrow_vectors):
  /// whether the 256-bit one ran.
  std::optional<bool> narrow_vectors;
};
/// e.g. "outer-parallel x2 specialized", "sequential specialized+256-bit (tuned)",
/// "sequential libxsmm+prefetch+nt-stores (tuned)",
/// "outer-parallel x2 specialized (tuned), withheld: ran on the calling thread".
std::string describe(const BatchRun& run);

enum class BatchedErrc {
  RankMismatch,      // an operand is not rank 3 ([rows, cols, batch]; rank 2 for gemm)
  ShapeMismatch,     // extents of operands and destination disagree
  DTypeMismatch,     // operands of different element types (or a typed facade of another T)
  UnsupportedDType,  // not f64, f32 or c128
  SpaceMismatch,     // an operand's memory is not reachable from the session's execution space
  InvalidLayout,     // the destination overlaps an input (an in-place solve X == B is allowed)
  InvalidScalar,     // a complex alpha/beta for a real dtype
  SizeOverflow,      // an extent beyond what the kernels index (2^31 - 1 rows/cols)
  NoRoute,           // the route resolver found no route (see route: strategy and why)
  Unsupported,       // the chosen provider cannot compute this operand combination
  Singular,          // batched_solve: an item's matrix is singular (see singular_item)
  SessionParked,     // the session is a held root parked by a running phase: use the lane's session
};
const char* name(BatchedErrc code);

/// The typed error of a batched operation. Everything but Singular is reported before any output
/// is written (an `_into` destination is then untouched). Singular is found while factoring: every
/// non-singular item is solved, the contents of a singular item's X are unspecified.
struct BatchedError {
  BatchedErrc code = BatchedErrc::ShapeMismatch;
  std::string where;                // "ops::batched_gemm", "ops::batched_solve", "ops::gemm"
  std::string message;              // why, with the offending extents/strides
  std::optional<RouteError> route;  // code NoRoute: the resolver's typed error
  std::int64_t singular_item = -1;  // code Singular: the lowest singular item
  std::int64_t singular_items = 0;  // code Singular: how many items are singular
  /// "tfbench::<where>: <message> [<code>]"
  std::string what() const;
};

}  // namespace tfbench::ops
