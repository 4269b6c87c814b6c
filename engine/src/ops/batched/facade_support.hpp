#pragma once
// Validation and dispatch helpers shared by the batched facades: erased operands to ItemBatch,
// typed errors, memory reachability, overlap, dtype dispatch and route selection.

#include <Kokkos_Core.hpp>

#include <array>
#include <complex>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "batched_exec.hpp"
#include "run_lanes.hpp"
#include "tfbench/engine/core/dtype.hpp"
#include "tfbench/engine/core/result.hpp"
#include "tfbench/engine/exec/batch_policy.hpp"
#include "tfbench/engine/exec/impl/function_ref.hpp"
#include "tfbench/engine/exec/session.hpp"
#include "tfbench/engine/ops/batched/options.hpp"
#include "tfbench/engine/storage/erased.hpp"

namespace tfbench::impl::batched {

using ops::BatchedErrc;
using ops::BatchedError;

inline Unexpected<BatchedError> fail(BatchedErrc code, const char* where, std::string message) {
  return unexpected(BatchedError{code, where, std::move(message), std::nullopt, -1, 0});
}

/// An erased operand with its layout resolved: element zero, extents and strides (in elements).
struct Operand {
  const char* name = "";
  void* zero = nullptr;      // element zero
  const char* lo = nullptr;  // [lo, hi): the bytes the operand's window may reach
  const char* hi = nullptr;
  DType dtype = DType::F64;
  MemorySpaceKind space = MemorySpaceKind::Host;
  std::array<Index, 3> shape{};
  std::array<Index, 3> strides{};
};

inline std::string shape_text(const Operand& x, std::size_t rank) {
  std::string s = "[";
  for (std::size_t d = 0; d < rank; ++d) s += (d ? ", " : "") + std::to_string(x.shape[d]);
  return s + "]";
}

/// Bytes per element of the dtypes the batched operations compute with (others are rejected later).
inline Index element_bytes(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return 4;
    case DType::C128:
      return 16;
    default:
      return static_cast<Index>(size_of(dtype));
  }
}

/// Reads an erased operand of `rank` into x; false when its rank differs (see rank_error).
template <class Erased>
bool load_operand(const Erased& t, const char* name, std::size_t rank, Operand& x) {
  if (t.rank() != rank) return false;
  const LayoutRef& layout = t.layout();
  const Index size = element_bytes(t.dtype());
  char* base = static_cast<char*>(const_cast<void*>(static_cast<const void*>(t.data())));
  x.name = name;
  x.dtype = t.dtype();
  x.space = t.space();
  x.zero = base + layout.offset * size;
  x.lo = base;
  x.hi = base + t.window() * size;
  Index compact = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    x.shape[d] = layout.shape[d];
    x.strides[d] = layout.compact_tag ? compact : layout.strides[d];
    compact *= layout.shape[d];
  }
  for (std::size_t d = rank; d < 3; ++d) {
    x.shape[d] = 1;
    x.strides[d] = 0;
  }
  return true;
}

/// The RankMismatch error of an operand load_operand rejected (cold path: builds the message).
Unexpected<BatchedError> rank_error(const char* where, const char* name, std::size_t actual,
                                    std::size_t rank);

/// The operand's memory is reachable from the session's kernels: the same kind, or a host build
/// where device memory is host memory.
inline bool reachable(const Session& session, MemorySpaceKind space) {
  if (kDeviceMemoryIsHostAccessible) return true;
  return (space == MemorySpaceKind::Host) == (session.context().memory == MemoryKind::Host);
}

inline bool overlaps(const Operand& x, const Operand& y) {
  return x.lo < y.hi && y.lo < x.hi && x.hi > x.lo && y.hi > y.lo;
}

inline bool same_layout(const Operand& x, const Operand& y) {
  return x.zero == y.zero && x.shape == y.shape && x.strides == y.strides;
}

/// Common checks: dtypes equal and supported, memory reachable, extents within the kernels' int.
/// Empty when they pass (no error object is built on the success path).
std::optional<BatchedError> check_operands(const Session& session, const char* where, const Operand& first,
                                           const Operand& second, const Operand& third);

template <class T>
ItemBatch<T> as_batch(const Operand& x) {
  return {static_cast<T*>(x.zero),
          static_cast<int>(x.shape[0]),
          static_cast<int>(x.shape[1]),
          static_cast<std::int64_t>(x.shape[2]),
          static_cast<std::ptrdiff_t>(x.strides[0]),
          static_cast<std::ptrdiff_t>(x.strides[1]),
          static_cast<std::ptrdiff_t>(x.strides[2])};
}

/// Calls f(T{}) for the element type of an f64, f32 or c128 dtype (checked by check_operands).
template <class F>
decltype(auto) with_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::F32:
      return f(float{});
    case DType::C128:
      return f(Kokkos::complex<double>{});
    default:
      return f(double{});
  }
}

/// Whether T can hold the scalar: any complex value for a complex T, a real one otherwise.
template <class T>
bool scalar_fits(std::complex<double> v) {
  return std::is_same<T, Kokkos::complex<double>>::value || v.imag() == 0;
}

/// The scalar as T (precondition: scalar_fits<T>(v)). Checked apart from the error (a Result per
/// scalar cost two out-of-line calls a batched call).
template <class T>
T scalar_as(std::complex<double> v) {
  if constexpr (std::is_same<T, Kokkos::complex<double>>::value) {
    return T(v.real(), v.imag());
  } else {
    return static_cast<T>(v.real());
  }
}

/// The InvalidScalar error of a scalar scalar_fits rejected (cold path: builds the message).
Unexpected<BatchedError> imaginary_scalar(const char* where, const char* name);

/// The name of the first of alpha and beta that T cannot hold ("alpha", "beta"), or nullptr.
template <class T>
const char* unfit_scalar(std::complex<double> alpha, std::complex<double> beta) {
  if (!scalar_fits<T>(alpha)) return "alpha";
  if (!scalar_fits<T>(beta)) return "beta";
  return nullptr;
}

/// The compact column-major layout of an allocated output.
template <class T>
ItemBatch<T> compact_batch(T* data, Index rows, Index cols, Index count) {
  return {data,
          static_cast<int>(rows),
          static_cast<int>(cols),
          static_cast<std::int64_t>(count),
          1,
          static_cast<std::ptrdiff_t>(rows),
          static_cast<std::ptrdiff_t>(rows * cols)};
}

/// Whether an item provider can compute this operation (dtype, layout, scalars, space); asked
/// lazily, in preference order, only for providers that could still be chosen.
using ApplicableFn = FunctionRef<bool(ops::ItemProvider)>;

/// The same answers precomputed for every provider, indexed by index_of (callers that build a table).
using Applicable = std::array<bool, 5>;
inline std::size_t index_of(ops::ItemProvider p) {
  return static_cast<std::size_t>(p);
}

/// The resolved route of one operation.
struct SelectedRoute {
  BatchRoute route;
  ops::ItemProvider provider;
  bool tuned = false;     // taken from the policy's AutoTuning
  bool prefetch = false;  // libxsmm, and GEMM, specialized where the items allow: prefetch the next item
  bool stream_c = false;  // GEMM, specialized and libxsmm: C in streaming stores where the items allow
  bool checked = false;   // Auto's OuterParallel, which the fan-out check may withhold (fan_out_check.hpp)
  bool narrow = false;    // GEMM, specialized: the 256-bit kernel where the items have two
  ItemsRoute items_route() const {
    RouteMode mode = RouteMode::Sequential;
    switch (route.strategy) {
      case BatchStrategy::OuterParallel:
        mode = RouteMode::OuterParallel;
        break;
      case BatchStrategy::ProviderItems:
        mode = RouteMode::ProviderItems;
        break;
      case BatchStrategy::WholeBatchVendor:
        mode = RouteMode::WholeBatchVendor;
        break;
      default:
        break;
    }
    return {mode, route.lanes, provider, prefetch, stream_c, narrow, checked};
  }
  /// The report of the call; `ran`: what execute_gemm/execute_solve returned; `c_streams`: whether the
  /// provider could stream this GEMM's C (streams_c_on; empty for a solve); `two_widths`: whether the
  /// items have a 512-bit and a 256-bit specialized kernel (specialized_two_widths; false for a solve);
  /// `prefetches`: whether the items' specialized kernel can prefetch the next item
  /// (specialized_prefetches; false for a solve).
  ops::BatchRun run(std::int64_t items, const LanesRan& ran, std::optional<bool> c_streams = std::nullopt,
                    const bool two_widths = false, const bool prefetches = false) const {
    ops::BatchRun r{route.strategy, route.lanes,  provider,     items,
                    tuned,          std::nullopt, std::nullopt, std::nullopt};
    if (two_widths && provider == ops::ItemProvider::Specialized) r.narrow_vectors = narrow;
    if (route.strategy == BatchStrategy::OuterParallel) r.first_lane_items = ran.first_lane_items;
    if (checked) r.fan_out_withheld = ran.fan_out_withheld;
    if (provider == ops::ItemProvider::Libxsmm || (prefetches && provider == ops::ItemProvider::Specialized))
      r.prefetch = prefetch;
    if (c_streams && (provider == ops::ItemProvider::Libxsmm || provider == ops::ItemProvider::Specialized))
      r.streaming_stores = stream_c && *c_streams;
    return r;
  }
};

/// Auto's per-size provider preference, best first (measured: docs/ops-batched.md).
/// `streaming`: the batch's operands exceed the caches (streaming_batch of a GEMM batch).
int preference_order(ops::BatchedFamily family, bool host_space, DType dtype, Index max_item_dim,
                     bool streaming, ops::Pivoting pivoting, std::array<ops::ItemProvider, 5>& order);

/// Candidates in preference order (the session's provider slot decides which external providers are
/// allowed; tfbench's own specialized kernels always are), filtered by applicability and by the
/// effective strategy, then the exec concern's resolve_batch_route. Errors are typed, before writes.
/// `streaming`: streaming_batch(g) of a GEMM batch (false for solves: their preference ignores it).
/// Under Auto with an AutoTuning in the policy, on a host space, the tuning's choice for the problem's
/// class (`working_set_bytes`: the operands' bytes) is tried first. The route's prefetch of the next
/// item (libxsmm's, and the specialized kernel's where its items have one): options.prefetch, else
/// the tuning's choice, else `streaming`. Its streaming stores of C:
/// options.streaming_stores, else the tuning's choice, else `streaming` for the specialized kernel
/// (never for libxsmm). Its kernel width: options.narrow_vectors, else the tuning's choice, else 512-bit.
Result<SelectedRoute, BatchedError> select_route(const Session& session, const ops::BatchedOptions& options,
                                                 ops::BatchedFamily family, const BatchProblem& problem,
                                                 bool host_space, DType dtype, bool streaming,
                                                 double working_set_bytes, ApplicableFn applicable,
                                                 const char* where);

/// select_route over a precomputed table.
inline Result<SelectedRoute, BatchedError> select_route(const Session& session,
                                                        const ops::BatchedOptions& options,
                                                        ops::BatchedFamily family,
                                                        const BatchProblem& problem, bool host_space,
                                                        DType dtype, bool streaming, double working_set_bytes,
                                                        const Applicable& table, const char* where) {
  const auto lookup = [&](ops::ItemProvider p) { return table[index_of(p)]; };
  return select_route(session, options, family, problem, host_space, dtype, streaming, working_set_bytes,
                      ApplicableFn(lookup), where);
}

}  // namespace tfbench::impl::batched
