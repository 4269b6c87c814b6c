#pragma once
// Elementwise map kernels over a LoopPlan: out = f(a) and out = f(a, b) for any operand strides.
// Labels are std::strings built once (Kokkos 3.4 takes labels as std::string: a literal longer than
// the small-string buffer would be a heap allocation per launch). One Kokkos parallel_for per outer index of
// the plan (one in all but rank > kKernelRank cases), with a unit-stride functor when every operand is
// contiguous so the compiler can vectorize.

#include <Kokkos_Core.hpp>

#include <string>

#include "loop_nest.hpp"

namespace tfbench::impl {

/// Square tiles for layouts whose reads and writes stream along different axes (transposes): a
/// 32 x 32 tile of doubles keeps every touched cache line of both operands in L1.
inline constexpr index_t kTransposeTile = 32;

/// Tiling of a loop nest over axis 0 (the written operand's fastest) and axis `d1` (the fastest
/// axis of a read operand that is not axis 0); the other axes form `rest`.
template <int NOps>
struct TiledNest {
  KernelNest<NOps> rest;
  index_t e0 = 0, e1 = 0, tiles0 = 0, tiles1 = 0, rest_total = 1;
  index_t s0[NOps] = {}, s1[NOps] = {};

  index_t work_items() const { return tiles0 * tiles1 * rest_total; }

  /// Tile bounds and the rest offsets of work item w.
  KOKKOS_INLINE_FUNCTION void locate(index_t w, index_t& i0, index_t& n0, index_t& i1, index_t& n1,
                                     index_t (&off)[NOps]) const {
    const index_t t0 = w % tiles0;
    w /= tiles0;
    const index_t t1 = w % tiles1;
    w /= tiles1;
    rest.offsets(w, off);
    i0 = t0 * kTransposeTile;
    i1 = t1 * kTransposeTile;
    n0 = e0 - i0 < kTransposeTile ? e0 - i0 : kTransposeTile;
    n1 = e1 - i1 < kTransposeTile ? e1 - i1 : kTransposeTile;
  }
};

/// The tiling of `nest` when a read operand's fastest axis differs from the written one's and both
/// axes are long enough to tile; `ok` is false otherwise.
template <int NOps>
TiledNest<NOps> tile_nest(const KernelNest<NOps>& nest, bool& ok) {
  TiledNest<NOps> t;
  ok = false;
  if (nest.rank < 2) return t;
  auto mag = [](index_t x) { return x < 0 ? -x : x; };
  int d1 = -1;
  for (int k = 1; k < NOps && d1 < 0; ++k) {
    int fastest = 0;
    for (int d = 1; d < nest.rank; ++d)
      if (mag(nest.stride[k][d]) < mag(nest.stride[k][fastest])) fastest = d;
    if (fastest != 0 && mag(nest.stride[k][0]) > 8) d1 = fastest;
  }
  if (d1 < 0 || nest.extent[0] < 8 || nest.extent[d1] < 8) return t;
  t.e0 = nest.extent[0];
  t.e1 = nest.extent[d1];
  t.tiles0 = (t.e0 + kTransposeTile - 1) / kTransposeTile;
  t.tiles1 = (t.e1 + kTransposeTile - 1) / kTransposeTile;
  for (int k = 0; k < NOps; ++k) {
    t.s0[k] = nest.stride[k][0];
    t.s1[k] = nest.stride[k][d1];
  }
  for (int d = 1; d < nest.rank; ++d) {
    if (d == d1) continue;
    t.rest.extent[t.rest.rank] = nest.extent[d];
    for (int k = 0; k < NOps; ++k) t.rest.stride[k][t.rest.rank] = nest.stride[k][d];
    ++t.rest.rank;
    t.rest_total *= nest.extent[d];
  }
  ok = true;
  return t;
}

template <class Tout, class Ta, class F>
struct UnaryMapTiled {
  TiledNest<2> nest;
  Tout* out;
  const Ta* a;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(index_t w) const {
    index_t i0, n0, i1, n1, off[2];
    nest.locate(w, i0, n0, i1, n1, off);
    for (index_t j = i1; j < i1 + n1; ++j) {
      Tout* o = out + off[0] + j * nest.s1[0];
      const Ta* x = a + off[1] + j * nest.s1[1];
      for (index_t i = i0; i < i0 + n0; ++i) o[i * nest.s0[0]] = f(x[i * nest.s0[1]]);
    }
  }
};

template <class Tout, class Ta, class Tb, class F>
struct BinaryMapTiled {
  TiledNest<3> nest;
  Tout* out;
  const Ta* a;
  const Tb* b;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(index_t w) const {
    index_t i0, n0, i1, n1, off[3];
    nest.locate(w, i0, n0, i1, n1, off);
    for (index_t j = i1; j < i1 + n1; ++j) {
      Tout* o = out + off[0] + j * nest.s1[0];
      const Ta* x = a + off[1] + j * nest.s1[1];
      const Tb* y = b + off[2] + j * nest.s1[2];
      for (index_t i = i0; i < i0 + n0; ++i) o[i * nest.s0[0]] = f(x[i * nest.s0[1]], y[i * nest.s0[2]]);
    }
  }
};

/// A loop nest split into rows along axis 0 (the written operand's fastest). A work item walks
/// `rows_per_item` consecutive rows, finding the first by division and the rest by a NestCursor's
/// steps (one item of every row on a one-thread space). Few long rows are cut into blocks instead,
/// one per work item, so that they still spread over the threads.
template <int NOps>
struct RowNest {
  KernelNest<NOps> rest;  // axes 1..rank-1
  index_t e0 = 1;
  index_t s0[NOps] = {};
  index_t rows = 1;
  index_t block = 1;          // elements of axis 0 per work item
  index_t blocks = 1;         // work items per row
  index_t rows_per_item = 1;  // rows a work item walks (blocks == 1)

  index_t work_items() const { return blocks > 1 ? rows * blocks : walk_items(rows, rows_per_item); }
  /// Calls row(offsets, begin, end) for each row (or block of a row) of work item w: the operands'
  /// offsets of the row and its range [begin, end) along axis 0.
  template <class Row>
  KOKKOS_INLINE_FUNCTION void for_each_row(index_t w, Row&& row) const {
    if (blocks > 1) {
      index_t off[NOps];
      const index_t b = w % blocks;
      rest.offsets(w / blocks, off);
      const index_t begin = b * block;
      row(off, begin, begin + block < e0 ? begin + block : e0);
      return;
    }
    walk_run(rest, rows, rows_per_item, w, [&](const index_t(&off)[NOps]) { row(off, index_t(0), e0); });
  }
};

/// The rows of `nest` for kernels on `space` (walk_chunk: how many rows a work item takes).
template <int NOps, class Space>
RowNest<NOps> row_nest(const KernelNest<NOps>& nest, const Space& space) {
  RowNest<NOps> r;
  if (nest.rank == 0) return r;
  r.e0 = nest.extent[0];
  for (int k = 0; k < NOps; ++k) r.s0[k] = nest.stride[k][0];
  for (int d = 1; d < nest.rank; ++d) {
    r.rest.extent[d - 1] = nest.extent[d];
    for (int k = 0; k < NOps; ++k) r.rest.stride[k][d - 1] = nest.stride[k][d];
    r.rows *= nest.extent[d];
  }
  r.rest.rank = nest.rank - 1;
  r.block = r.e0;
  if (r.rows < 64 && r.e0 > 4096) r.block = 1024;
  r.blocks = (r.e0 + r.block - 1) / r.block;
  if (r.blocks == 1) r.rows_per_item = walk_chunk(space, r.rows);
  return r;
}

template <class Tout, class Ta, class F>
struct UnaryMapStrided {
  RowNest<2> nest;
  Tout* out;
  const Ta* a;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(index_t w) const {
    nest.for_each_row(w, [&](const index_t(&off)[2], index_t begin, index_t end) {
      Tout* o = out + off[0];
      const Ta* x = a + off[1];
      for (index_t i = begin; i < end; ++i) o[i * nest.s0[0]] = f(x[i * nest.s0[1]]);
    });
  }
};

template <class Tout, class Ta, class F>
struct UnaryMapContiguous {
  Tout* out;
  const Ta* a;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const { out[i] = f(a[i]); }
};

template <class Tout, class Ta, class Tb, class F>
struct BinaryMapStrided {
  RowNest<3> nest;
  Tout* out;
  const Ta* a;
  const Tb* b;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(index_t w) const {
    nest.for_each_row(w, [&](const index_t(&off)[3], index_t begin, index_t end) {
      Tout* o = out + off[0];
      const Ta* x = a + off[1];
      const Tb* y = b + off[2];
      for (index_t i = begin; i < end; ++i) o[i * nest.s0[0]] = f(x[i * nest.s0[1]], y[i * nest.s0[2]]);
    });
  }
};

template <class Tout, class Ta, class Tb, class F>
struct BinaryMapContiguous {
  Tout* out;
  const Ta* a;
  const Tb* b;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const { out[i] = f(a[i], b[i]); }
};

template <class T>
struct FillStrided {
  RowNest<1> nest;
  T* out;
  T value;
  KOKKOS_INLINE_FUNCTION void operator()(index_t w) const {
    nest.for_each_row(w, [&](const index_t(&off)[1], index_t begin, index_t end) {
      T* o = out + off[0];
      for (index_t i = begin; i < end; ++i) o[i * nest.s0[0]] = value;
    });
  }
};

template <class T>
struct FillContiguous {
  T* out;
  T value;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const { out[i] = value; }
};

// ---- flat launches: n elements, every operand unit-stride (compact operands of one shape; no plan).
// Overloads of the planned launches below, so that a caller holding either a count or a plan calls one name.

template <class Space, class T>
void launch_fill(const Space& space, const std::string& label, index_t n, T* out, T value) {
  Kokkos::parallel_for(label, Kokkos::RangePolicy<Space, Kokkos::IndexType<index_t>>(space, 0, n),
                       FillContiguous<T>{out, value});
}
template <class Space, class Tout, class Ta, class F>
void launch_unary_map(const Space& space, const std::string& label, index_t n, Tout* out, const Ta* a, F f) {
  Kokkos::parallel_for(label, Kokkos::RangePolicy<Space, Kokkos::IndexType<index_t>>(space, 0, n),
                       UnaryMapContiguous<Tout, Ta, F>{out, a, f});
}
template <class Space, class Tout, class Ta, class Tb, class F>
void launch_binary_map(const Space& space, const std::string& label, index_t n, Tout* out, const Ta* a,
                       const Tb* b, F f) {
  Kokkos::parallel_for(label, Kokkos::RangePolicy<Space, Kokkos::IndexType<index_t>>(space, 0, n),
                       BinaryMapContiguous<Tout, Ta, Tb, F>{out, a, b, f});
}

// ---- planned launches: any strides

template <class Space, class T>
void launch_fill(const Space& space, const std::string& label, const LoopPlan<1>& plan, T* out, T value) {
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<index_t>>;
  if (plan.contiguous()) return launch_fill(space, label, plan.total, out, value);
  const auto rows = row_nest(plan.inner, space);
  plan.for_each_outer([&](const index_t(&base)[1]) {
    Kokkos::parallel_for(label, Policy(space, 0, rows.work_items()),
                         FillStrided<T>{rows, out + base[0], value});
  });
}

template <class Space, class Tout, class Ta, class F>
void launch_unary_map(const Space& space, const std::string& label, const LoopPlan<2>& plan, Tout* out,
                      const Ta* a, F f) {
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<index_t>>;
  if (plan.contiguous()) return launch_unary_map(space, label, plan.total, out, a, f);
  bool tiled = false;
  const auto tiles = tile_nest(plan.inner, tiled);
  const auto rows = row_nest(plan.inner, space);
  plan.for_each_outer([&](const index_t(&base)[2]) {
    if (tiled) {
      Kokkos::parallel_for(label, Policy(space, 0, tiles.work_items()),
                           UnaryMapTiled<Tout, Ta, F>{tiles, out + base[0], a + base[1], f});
    } else {
      Kokkos::parallel_for(label, Policy(space, 0, rows.work_items()),
                           UnaryMapStrided<Tout, Ta, F>{rows, out + base[0], a + base[1], f});
    }
  });
}

template <class Space, class Tout, class Ta, class Tb, class F>
void launch_binary_map(const Space& space, const std::string& label, const LoopPlan<3>& plan, Tout* out,
                       const Ta* a, const Tb* b, F f) {
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<index_t>>;
  if (plan.contiguous()) return launch_binary_map(space, label, plan.total, out, a, b, f);
  bool tiled = false;
  const auto tiles = tile_nest(plan.inner, tiled);
  const auto rows = row_nest(plan.inner, space);
  plan.for_each_outer([&](const index_t(&base)[3]) {
    if (tiled) {
      Kokkos::parallel_for(
          label, Policy(space, 0, tiles.work_items()),
          BinaryMapTiled<Tout, Ta, Tb, F>{tiles, out + base[0], a + base[1], b + base[2], f});
    } else {
      Kokkos::parallel_for(
          label, Policy(space, 0, rows.work_items()),
          BinaryMapStrided<Tout, Ta, Tb, F>{rows, out + base[0], a + base[1], b + base[2], f});
    }
  });
}

}  // namespace tfbench::impl
