// Validation shared by the erased operation families.

#include <string>

#include "tfbench/engine/ops/impl/erased.hpp"

namespace tfbench::impl {
namespace {

using ops::OpError;
using ops::OpErrorCode;

std::string shape_text(Span<const Index> s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

struct ByteSpan {
  const char* lo;
  const char* hi;
};

ByteSpan byte_span(const void* zero, const RawLayout& layout, std::size_t elem) {
  const char* base = static_cast<const char*>(zero);
  const auto bytes = static_cast<Index>(elem);
  // An owner's compact tag spans exactly its elements: no stride list to build (every operation
  // of a chain pays this check).
  if (layout.compact_tag()) return {base, base + element_count(layout) * bytes};
  const OffsetSpan e = offset_span(layout.shape, layout.strides, layout.rank);
  return {base + e.lo * bytes, base + e.hi * bytes};
}

}  // namespace

DestRef dest_of(const TensorWrite& out) {
  DestRef d;
  const auto& l = out.layout();
  d.data = static_cast<char*>(out.data()) + l.offset * static_cast<Index>(size_of(out.dtype()));
  d.dtype = out.dtype();
  d.space = out.space();
  d.shape = l.shape;
  d.compact = l.compact_tag;
  if (!l.compact_tag) d.strides = l.strides;
  return d;
}

void check_accessible(const char* where, const ExecTarget& target, MemorySpaceKind space, const char* what) {
  if (!reachable(target, space))
    throw OpError(OpErrorCode::SpaceMismatch, where,
                  std::string(what) + " lives in " + name(space) + " memory, which the session's " +
                      name(target.space) + " kernels cannot reach (upload or download it first)");
}

void check_same_dtype(const char* where, DType a, DType b, const char* what) {
  if (a != b)
    throw OpError(OpErrorCode::DTypeMismatch, where, std::string(what) + ": " + name(a) + " vs " + name(b));
}

void check_same_shape(const char* where, Span<const Index> a, Span<const Index> b, const char* what) {
  bool same = a.size() == b.size();
  for (std::size_t i = 0; same && i < a.size(); ++i) same = a[i] == b[i];
  if (!same)
    throw OpError(a.size() == b.size() ? OpErrorCode::ShapeMismatch : OpErrorCode::RankMismatch, where,
                  std::string(what) + ": " + shape_text(a) + " vs " + shape_text(b));
}

void check_no_overlap(const char* where, const DestRef& out, const TensorRead& in, bool allow_exact_alias) {
  const RawLayout ol = out.layout(), il = raw_layout(in);
  if (element_count(ol) == 0 || element_count(il) == 0) return;
  const std::size_t oe = size_of(out.dtype), ie = size_of(in.dtype());
  const ByteSpan o = byte_span(out.data, ol, oe), i = byte_span(element_zero(in), il, ie);
  if (o.hi <= i.lo || i.hi <= o.lo) return;
  if (allow_exact_alias && out.data == element_zero(in) && oe == ie && ol.rank == il.rank) {
    const StrideList os = strides_of(ol), is = strides_of(il);
    bool same = true;
    for (int d = 0; d < ol.rank && same; ++d)
      same = ol.shape[d] == il.shape[d] && (ol.shape[d] == 1 || os[d] == is[d]);
    if (same) return;
  }
  throw OpError(OpErrorCode::InvalidLayout, where,
                allow_exact_alias ? "the destination overlaps an input without being exactly that input"
                                  : "the destination overlaps an input (write into a separate tensor)");
}

void check_numeric(const char* where, DType dtype) {
  if (!has_numeric_kernels(dtype))
    throw OpError(OpErrorCode::UnsupportedDType, where,
                  std::string("no kernel for dtype ") + name(dtype) + " (supported: f32, f64, c128)");
}

}  // namespace tfbench::impl
