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
  index_t inner_total;
  T* out;
  const T* a;
  const T* b;
  bool accumulate;

  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const {
    index_t off[3];
    outer.offsets(i, off);
    const T* pa = a + off[1];
    const T* pb = b + off[2];
    Acc s = Acc(0);
    if (inner.rank == 1) {
      const index_t sa = inner.stride[0][0], sb = inner.stride[1][0];
      for (index_t j = 0; j < inner_total; ++j) s += Acc(pa[j * sa]) * Acc(pb[j * sb]);
    } else {
      for (index_t j = 0; j < inner_total; ++j) {
        index_t r[2];
        inner.offsets(j, r);
        s += Acc(pa[r[0]]) * Acc(pb[r[1]]);
      }
    }
    if (accumulate)
      out[off[0]] += static_cast<T>(s);
    else
      out[off[0]] = static_cast<T>(s);
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
    outer.for_each_outer([&](const index_t(&ob)[3]) {
      bool accumulate = false;
      inner.for_each_outer([&](const index_t(&ib)[2]) {
        Kokkos::parallel_for(kDirectLabel, Policy(space, 0, outer.inner_total),
                             DirectContract<T>{outer.inner, inner.inner, inner.inner_total, out.data + ob[0],
                                               a.data + ob[1] + ib[0], b.data + ob[2] + ib[1], accumulate});
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
