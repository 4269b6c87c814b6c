#pragma once
// The erased boundary of the operation families, one numerical implementation per family: inputs are borrowed
// TensorReads, destinations are DestRefs (from a caller's TensorWrite or from a session output lease), the
// dtype is dispatched once per operation. Every family has a check_* function that validates everything
// (dtype, shape, memory space, aliasing) before anything is written and a run_* function that
// assumes it: allocating and `_into` facades share the run_* implementation.

#include <Kokkos_Complex.hpp>

#include "tfbench/engine/core/dtype.hpp"
#include "tfbench/engine/ops/error.hpp"
#include "tfbench/engine/ops/impl/exec_target.hpp"
#include "tfbench/engine/ops/impl/layout.hpp"
#include "tfbench/engine/ops/impl/scratch.hpp"
#include "tfbench/engine/storage/erased.hpp"

namespace tfbench {
class Session;
}

namespace tfbench::impl {

/// What every erased operation runs with: where its kernels go and where its scratch comes from.
struct OpContext {
  ExecTarget target;
  ScratchArena* scratch = nullptr;
  bool blas = true;            // contractions may call the BLAS provider (contraction_uses_blas)
  Session* session = nullptr;  // batch routes resolve the session's batch policy (null: per-item GEMMs)
};

/// A destination: element zero, dtype, memory, and its layout (compact column-major when `compact`).
struct DestRef {
  void* data = nullptr;
  DType dtype = DType::F64;
  MemorySpaceKind space = MemorySpaceKind::Host;
  Span<const Index> shape;
  Span<const Index> strides;  // empty when compact
  bool compact = true;

  int rank() const { return static_cast<int>(shape.size()); }
  RawLayout layout() const { return {shape.data(), compact ? nullptr : strides.data(), rank()}; }
};

/// The destination of a caller's TensorWrite.
DestRef dest_of(const TensorWrite& out);
/// A compact destination (an output lease's elements).
inline DestRef compact_dest(void* data, DType dtype, MemorySpaceKind space, Span<const Index> shape) {
  DestRef d;
  d.data = data;
  d.dtype = dtype;
  d.space = space;
  d.shape = shape;
  d.compact = true;
  return d;
}

/// Element zero of a read, and its layout.
inline const void* element_zero(const TensorRead& r) {
  return static_cast<const char*>(r.data()) + r.layout().offset * static_cast<Index>(size_of(r.dtype()));
}
inline RawLayout raw_layout(const TensorRead& r) {
  const auto& l = r.layout();
  return {l.shape.data(), l.compact_tag ? nullptr : l.strides.data(), static_cast<int>(l.shape.size())};
}

/// Whether the kernels of `target` can reach memory of `space`.
inline bool reachable(const ExecTarget& target, MemorySpaceKind space) {
  return target.space == ExecSpaceKind::Cuda
             ? space == MemorySpaceKind::Device
             : (space == MemorySpaceKind::Host || kDeviceMemoryIsHostAccessible);
}
/// f32, f64 and c128: the dtypes with arithmetic kernels.
inline bool has_numeric_kernels(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::C128;
}

// ---- validation (each throws OpError naming `where`)

/// Memory of `space` must be reachable by the kernels of `target`.
void check_accessible(const char* where, const ExecTarget& target, MemorySpaceKind space, const char* what);
void check_same_dtype(const char* where, DType a, DType b, const char* what);
void check_same_shape(const char* where, Span<const Index> a, Span<const Index> b, const char* what);
/// The destination must not share memory with `in`, except (allow_exact_alias) an identical layout
/// of the same elements, which elementwise kernels read before they write.
void check_no_overlap(const char* where, const DestRef& out, const TensorRead& in, bool allow_exact_alias);
/// Kernels exist for f32, f64 and c128 (and bool / integers for copies).
void check_numeric(const char* where, DType dtype);

/// Calls f(T{}) with the kernel element type of a numeric dtype (f32, f64, c128 -> Kokkos::complex).
template <class F>
decltype(auto) dispatch_numeric(DType dtype, const char* where, F&& f) {
  switch (dtype) {
    case DType::F32:
      return f(float{});
    case DType::F64:
      return f(double{});
    case DType::C128:
      return f(Kokkos::complex<double>{});
    default:
      break;
  }
  throw ops::OpError(ops::OpErrorCode::UnsupportedDType, where,
                     std::string("no kernel for dtype ") + name(dtype) + " (supported: f32, f64, c128)");
}

}  // namespace tfbench::impl
