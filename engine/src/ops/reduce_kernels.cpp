// Typed sum-over-axes kernels: parallel over output elements with a sequential inner sum, or, for
// few outputs over much data, one parallel_reduce per output element.

#include <string>

#include "kernels/loop_nest.hpp"
#include "tfbench/engine/ops/impl/kernels.hpp"

namespace tfbench::impl {
namespace {

const std::string kSumLabel = "tfbench::engine::ops::sum";  // built once: no allocation per launch

template <class T>
struct SumPerOutput {
  KernelNest<2> out_nest;  // {out, a} over the kept axes
  KernelNest<1> red_nest;  // a over the reduced axes
  index_t out_total;
  index_t chunk;  // output elements per work item (walk_chunk)
  index_t red_total;
  T* out;
  const T* a;
  T alpha;
  bool accumulate;

  KOKKOS_INLINE_FUNCTION void operator()(index_t w) const {
    walk_run(out_nest, out_total, chunk, w, [&](const index_t(&off)[2]) {
      const T* base = a + off[1];
      accumulator_t<T> s = accumulator_t<T>(0);
      if (red_nest.rank == 1) {
        const index_t step = red_nest.stride[0][0];
        for (index_t j = 0; j < red_total; ++j) s += base[j * step];
      } else {
        NestCursor<1> r;  // index 0: offset 0
        for (index_t j = 0; j < red_total; ++j) {
          s += base[r.off[0]];
          r.step(red_nest);
        }
      }
      const T v = alpha * static_cast<T>(s);
      if (accumulate)
        out[off[0]] += v;
      else
        out[off[0]] = v;
    });
  }
};

template <class T>
struct SumAll {
  KernelNest<1> nest;
  index_t total;
  index_t chunk;  // elements per work item (walk_chunk)
  const T* a;
  KOKKOS_INLINE_FUNCTION void operator()(index_t w, accumulator_t<T>& acc) const {
    walk_run(nest, total, chunk, w, [&](const index_t(&off)[1]) { acc += a[off[0]]; });
  }
};

template <class Space, class T>
void sum_on(const Space& space, T alpha, const LoopPlan<2>& out_plan, const LoopPlan<1>& red_plan, T* out,
            const T* a) {
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<index_t>>;
  const index_t threads = static_cast<index_t>(space.concurrency());
  const bool few_outputs = out_plan.total < 2 * threads && red_plan.total >= kInlineWorkThreshold;
  if (few_outputs) {
    // One parallel_reduce per output element; partial sums of a split reduced loop add on the host.
    out_plan.for_each_outer([&](const index_t(&ob)[2]) {
      for (index_t i = 0; i < out_plan.inner_total; ++i) {
        index_t off[2];
        out_plan.inner.offsets(i, off);
        accumulator_t<T> total = accumulator_t<T>(0);
        red_plan.for_each_outer([&](const index_t(&rb)[1]) {
          accumulator_t<T> part = accumulator_t<T>(0);
          const index_t chunk = walk_chunk(space, red_plan.inner_total);
          Kokkos::parallel_reduce(
              kSumLabel, Policy(space, 0, walk_items(red_plan.inner_total, chunk)),
              SumAll<T>{red_plan.inner, red_plan.inner_total, chunk, a + ob[1] + off[1] + rb[0]}, part);
          total += part;
        });
        Kokkos::View<T, typename Space::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> dst(
            out + ob[0] + off[0]);
        Kokkos::deep_copy(space, dst, alpha * static_cast<T>(total));
      }
    });
    return;
  }
  const index_t chunk = walk_chunk(space, out_plan.inner_total);
  out_plan.for_each_outer([&](const index_t(&ob)[2]) {
    bool accumulate = false;
    red_plan.for_each_outer([&](const index_t(&rb)[1]) {
      Kokkos::parallel_for(
          kSumLabel, Policy(space, 0, walk_items(out_plan.inner_total, chunk)),
          SumPerOutput<T>{out_plan.inner, red_plan.inner, out_plan.inner_total, chunk, red_plan.inner_total,
                          out + ob[0], a + ob[1] + rb[0], alpha, accumulate});
      accumulate = true;
    });
  });
}

}  // namespace

template <class T>
void run_sum(const ExecTarget& target, T alpha, const index_t* shape, int rank, const bool* reduced,
             StridedOut<T> out, StridedIn<T> a) {
  DimList kept_shape, red_shape;
  StrideList kept_a, red_a;
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) {
      red_shape.push_back(shape[d]);
      red_a.push_back(a.strides[d]);
    } else {
      kept_shape.push_back(shape[d]);
      kept_a.push_back(a.strides[d]);
    }
  }
  const int kept_rank = static_cast<int>(kept_shape.size());
  const index_t* out_strides[2] = {out.strides, kept_a.data()};
  const auto out_plan = plan_loops<2>(kept_shape.data(), kept_rank, out_strides);
  if (out_plan.total == 0) return;
  const index_t* red_strides[1] = {red_a.data()};
  const auto red_plan = plan_loops<1>(red_shape.data(), static_cast<int>(red_shape.size()), red_strides);
  if (red_plan.total == 0) return run_fill<T>(target, T(0), kept_shape.data(), kept_rank, out);
  dispatch_exec_space(kernel_space(target, out_plan.total * red_plan.total),
                      [&](auto space) { sum_on(space, alpha, out_plan, red_plan, out.data, a.data); });
}

template void run_sum<float>(const ExecTarget&, float, const index_t*, int, const bool*, StridedOut<float>,
                             StridedIn<float>);
template void run_sum<double>(const ExecTarget&, double, const index_t*, int, const bool*, StridedOut<double>,
                              StridedIn<double>);
template void run_sum<Kokkos::complex<double>>(const ExecTarget&, Kokkos::complex<double>, const index_t*,
                                               int, const bool*, StridedOut<Kokkos::complex<double>>,
                                               StridedIn<Kokkos::complex<double>>);

}  // namespace tfbench::impl
