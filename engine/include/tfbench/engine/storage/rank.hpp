#pragma once
// Rank tags: DynRank (runtime rank, shape/strides in InlineVec<Index, 8>) and Rank<N> (rank fixed at
// compile time, shape/strides in std::array<Index, N>). Extents<R> is the metadata container of R.

#include <array>
#include <cstddef>

#include "tfbench/engine/storage/inline_vec.hpp"
#include "tfbench/engine/storage/span.hpp"

namespace tfbench {

/// Inline capacity of dynamic-rank shape/stride containers: ranks up to this never allocate.
constexpr std::size_t kInlineRank = 8;

/// Shape or strides of dynamic rank.
using Shape = InlineVec<Index, kInlineRank>;
using Strides = InlineVec<Index, kInlineRank>;

/// Rank known only at run time.
struct DynRank {
  static constexpr bool is_static = false;
  static constexpr const char* name() { return "dyn"; }
};

/// Rank N, fixed at compile time.
template <std::size_t N>
struct Rank {
  static constexpr bool is_static = true;
  static constexpr std::size_t value = N;
  static constexpr const char* name() { return "static"; }
};

namespace impl {
template <class R>
struct RankTraits;
template <>
struct RankTraits<DynRank> {
  using extents = Shape;
};
template <std::size_t N>
struct RankTraits<Rank<N>> {
  using extents = std::array<Index, N>;
};
}  // namespace impl

/// The shape/stride container of rank tag R.
template <class R>
using Extents = typename impl::RankTraits<R>::extents;

template <class R>
struct is_rank_tag : std::false_type {};
template <>
struct is_rank_tag<DynRank> : std::true_type {};
template <std::size_t N>
struct is_rank_tag<Rank<N>> : std::true_type {};

}  // namespace tfbench
