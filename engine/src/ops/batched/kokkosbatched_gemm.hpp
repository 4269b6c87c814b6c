#pragma once
// The portable KokkosBatched route: KokkosBatched::SerialGemm on unmanaged strided views of each item.

#include <KokkosBatched_Gemm_Decl.hpp>
#include <KokkosBatched_Gemm_Serial_Impl.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "specialized_gemm.hpp"

namespace tfbench::impl::batched {

template <class T, class MemSpace>
using StridedItemView =
    Kokkos::View<T**, Kokkos::LayoutStride, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T, class MemSpace>
KOKKOS_INLINE_FUNCTION StridedItemView<T, MemSpace> item_view(const ItemBatch<T>& batch,
                                                              const std::int64_t i) {
  return StridedItemView<T, MemSpace>(
      batch.item(i),
      Kokkos::LayoutStride(static_cast<std::size_t>(batch.rows), static_cast<std::size_t>(batch.rs),
                           static_cast<std::size_t>(batch.cols), static_cast<std::size_t>(batch.cs)));
}

/// KokkosBatched needs non-negative strides (Kokkos::LayoutStride is unsigned).
template <class T>
bool kokkosbatched_applicable(const GemmBatch<T>& g) {
  return g.a.nonnegative_strides() && g.b.nonnegative_strides() && g.c.nonnegative_strides();
}

/// Items [begin, end) through KokkosBatched::SerialGemm (Algo::Gemm::Unblocked: measured faster than
/// Blocked for the item sizes of this engine, see docs/ops-batched.md).
template <class T, class MemSpace>
struct KokkosBatchedGemmChunk {
  GemmBatch<T> g;
  KOKKOS_INLINE_FUNCTION void operator()(const int /*lane*/, const std::int64_t begin,
                                         const std::int64_t end) const {
    using KokkosBatched::Algo;
    using KokkosBatched::Trans;
    for (std::int64_t i = begin; i < end; ++i) {
      const auto a = item_view<const T, MemSpace>(g.a, i);
      const auto b = item_view<const T, MemSpace>(g.b, i);
      const auto c = item_view<T, MemSpace>(g.c, i);
      KokkosBatched::SerialGemm<Trans::NoTranspose, Trans::NoTranspose, Algo::Gemm::Unblocked>::invoke(
          g.alpha, a, b, g.beta, c);
    }
  }
};

}  // namespace tfbench::impl::batched
