#pragma once
// Forward declarations of the tensor family with its defaults: Dynamic representation, dynamic rank.

#include "tfbench/engine/storage/rank.hpp"
#include "tfbench/engine/storage/representation.hpp"

namespace tfbench {

template <class T, class R = DynRank, class Rep = Dynamic>
class Tensor;
template <class T, class R = DynRank, class Rep = Dynamic>
class TensorView;
template <class T, class R = DynRank, class Rep = Dynamic>
class TensorViewMut;

namespace impl {
template <class Q>
using EnableIfHost = std::enable_if_t<std::is_same<Q, Host>::value, int>;
template <class Q>
using EnableIfDevice = std::enable_if_t<std::is_same<Q, Device>::value, int>;
template <class Q>
using EnableIfDynamic = std::enable_if_t<std::is_same<Q, Dynamic>::value, int>;
template <class Q>
using EnableIfNotDevice = std::enable_if_t<!std::is_same<Q, Device>::value, int>;

template <class... I>
struct all_integral : std::true_type {};
template <class I, class... Rest>
struct all_integral<I, Rest...>
    : std::integral_constant<bool, std::is_integral<I>::value && all_integral<Rest...>::value> {};

/// True when R is static with a rank other than `count`.
template <class R, std::size_t count>
struct wrong_static_arity : std::false_type {};
template <std::size_t N, std::size_t count>
struct wrong_static_arity<Rank<N>, count> : std::integral_constant<bool, N != count> {};

/// Builds views and owners from raw parts for the storage implementation (owners, mappings, erased
/// inputs, leases); not for users, who get views only from owners or checked host spans.
struct ViewAccess;
struct TensorAccess;
}  // namespace impl

}  // namespace tfbench
