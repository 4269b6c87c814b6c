// The direct strided contraction: one parallel_for over output elements, each summing products
// along the contracted (and broadcast summed-only) labels with the operands' own strides. Used for
// tiny items, where packing and a BLAS call cost more than the arithmetic.

#include <string>

#include "kernels/loop_nest.hpp"
#include "tfbench/engine/ops/impl/kernels.hpp"

namespace tfbench::impl {
namespace {

const std::string kDirectLabel = "tfbench::engine::ops::contract_direct";  // built once

template <class T>
struct DirectContract {
  using Acc = accumulator_t<T>;
  KernelNest<3> outer;  // {out, a, b}
  KernelNest<2> inner;  // {a, b}
  index_t outer_total;
  index_t chunk;  // output elements per work item (walk_chunk)
  index_t inner_total;
  T* out;
  const T* a;
  const T* b;
  bool accumulate;

  /// The dot product along one contracted axis, in four running sums: one sum is a chain of
  /// dependent additions (3-4 cycles each), which is what bounded the kernel, not its loads.
  KOKKOS_INLINE_FUNCTION Acc dot(const T* pa, index_t sa, const T* pb, index_t sb) const {
    Acc s0 = Acc(0), s1 = Acc(0), s2 = Acc(0), s3 = Acc(0);
    index_t j = 0;
    for (; j + 4 <= inner_total; j += 4) {
      s0 += Acc(pa[j * sa]) * Acc(pb[j * sb]);
      s1 += Acc(pa[(j + 1) * sa]) * Acc(pb[(j + 1) * sb]);
      s2 += Acc(pa[(j + 2) * sa]) * Acc(pb[(j + 2) * sb]);
      s3 += Acc(pa[(j + 3) * sa]) * Acc(pb[(j + 3) * sb]);
    }
    for (; j < inner_total; ++j) s0 += Acc(pa[j * sa]) * Acc(pb[j * sb]);
    return (s0 + s1) + (s2 + s3);
  }

  KOKKOS_INLINE_FUNCTION void operator()(index_t w) const {
    walk_run(outer, outer_total, chunk, w, [&](const index_t(&off)[3]) {
      const T* pa = a + off[1];
      const T* pb = b + off[2];
      Acc s = Acc(0);
      if (inner.rank == 1) {
        s = dot(pa, inner.stride[0][0], pb, inner.stride[1][0]);
      } else {
        NestCursor<2> r;  // index 0: every offset 0
        for (index_t j = 0; j < inner_total; ++j) {
          s += Acc(pa[r.off[0]]) * Acc(pb[r.off[1]]);
          r.step(inner);
        }
      }
      if (accumulate)
        out[off[0]] += static_cast<T>(s);
      else
        out[off[0]] = static_cast<T>(s);
    });
  }
};

}  // namespace

template <class T>
void run_direct_contract(const ExecTarget& target, const index_t* outer_shape, int outer_rank,
                         StridedOut<T> out, StridedIn<T> a, StridedIn<T> b, const index_t* inner_shape,
                         int inner_rank, const index_t* inner_a, const index_t* inner_b) {
  const index_t* os[3] = {out.strides, a.strides, b.strides};
  const auto outer = plan_loops<3>(outer_shape, outer_rank, os);
  if (outer.total == 0) return;
  const index_t* is[2] = {inner_a, inner_b};
  const auto inner = plan_loops<2>(inner_shape, inner_rank, is);
  if (inner.total == 0) return run_fill<T>(target, T(0), outer_shape, outer_rank, out);
  dispatch_exec_space(kernel_space(target, outer.total * inner.total), [&](auto space) {
    using Policy = Kokkos::RangePolicy<decltype(space), Kokkos::IndexType<index_t>>;
    const index_t chunk = walk_chunk(space, outer.inner_total);
    outer.for_each_outer([&](const index_t(&ob)[3]) {
      bool accumulate = false;
      inner.for_each_outer([&](const index_t(&ib)[2]) {
        Kokkos::parallel_for(
            kDirectLabel, Policy(space, 0, walk_items(outer.inner_total, chunk)),
            DirectContract<T>{outer.inner, inner.inner, outer.inner_total, chunk, inner.inner_total,
                              out.data + ob[0], a.data + ob[1] + ib[0], b.data + ob[2] + ib[1], accumulate});
        accumulate = true;
      });
    });
  });
}

#define TFBENCH_OPS_DIRECT_INSTANTIATE(T)                                                                   \
  template void run_direct_contract<T>(const ExecTarget&, const index_t*, int, StridedOut<T>, StridedIn<T>, \
                                       StridedIn<T>, const index_t*, int, const index_t*, const index_t*);
TFBENCH_OPS_DIRECT_INSTANTIATE(float)
TFBENCH_OPS_DIRECT_INSTANTIATE(double)
TFBENCH_OPS_DIRECT_INSTANTIATE(Kokkos::complex<double>)

}  // namespace tfbench::impl
