// Compile-time contracts: what each representation exposes, move-only ownership and write authority,
// no public uninitialized construction, and no erasure of a temporary.
#include <catch2/catch.hpp>

#include <string>
#include <type_traits>

#include "drop_counted.hpp"
#include "tfbench/engine/storage/storage.hpp"

using namespace tfbench;

namespace {
template <class, class = void>
struct has_data : std::false_type {};
template <class X>
struct has_data<X, std::void_t<decltype(std::declval<X&>().data())>> : std::true_type {};
template <class, class = void>
struct has_at : std::false_type {};
template <class X>
struct has_at<X, std::void_t<decltype(std::declval<X&>().at(Index{0}))>> : std::true_type {};
template <class, class = void>
struct has_clone : std::false_type {};
template <class X>
struct has_clone<X, std::void_t<decltype(std::declval<const X&>().clone())>> : std::true_type {};
template <class, class = void>
struct has_into_host : std::false_type {};
template <class X>
struct has_into_host<X, std::void_t<decltype(std::declval<X&&>().into_host())>> : std::true_type {};
template <class, class = void>
struct has_real_view : std::false_type {};
template <class X>
struct has_real_view<X, std::void_t<decltype(std::declval<const X&>().real_view())>> : std::true_type {};
}  // namespace

// Only Host exposes infallible host access.
static_assert(has_data<Tensor<double, DynRank, Host>>::value, "");
static_assert(!has_data<Tensor<double, DynRank, Dynamic>>::value, "Dynamic must be narrowed first");
static_assert(!has_data<Tensor<double, DynRank, Device>>::value, "no host access to device memory");
static_assert(has_at<TensorView<double, DynRank, Host>>::value, "");
static_assert(!has_at<TensorView<double, DynRank, Dynamic>>::value, "");
static_assert(!has_at<TensorView<double, DynRank, Device>>::value, "");
static_assert(!has_at<TensorViewMut<double, DynRank, Device>>::value, "");
static_assert(has_clone<Tensor<double, DynRank, Host>>::value, "");
static_assert(!has_clone<Tensor<double, DynRank, Dynamic>>::value, "Dynamic has no clone");
static_assert(has_into_host<Tensor<double>>::value, "narrowing exists on Dynamic");
static_assert(!has_into_host<Tensor<double, DynRank, Host>>::value, "and only there");
static_assert(has_real_view<TensorView<std::complex<float>>>::value, "");
static_assert(!has_real_view<TensorView<float>>::value, "");

// Ownership and write authority are move-only; read views copy.
static_assert(!std::is_copy_constructible<Tensor<double>>::value, "clone() is explicit");
static_assert(std::is_nothrow_move_constructible<Tensor<double>>::value, "");
static_assert(!std::is_copy_constructible<TensorViewMut<double>>::value, "one write authority");
static_assert(!std::is_copy_assignable<TensorViewMut<double>>::value, "");
static_assert(std::is_copy_constructible<TensorView<double>>::value, "");
static_assert(!std::is_copy_constructible<PooledBlock<Kokkos::HostSpace>>::value, "");
static_assert(!std::is_copy_constructible<ReadMapping<double>>::value, "");
static_assert(!std::is_copy_constructible<WriteMapping<double>>::value, "");

// No public way to obtain uninitialized elements.
static_assert(!std::is_default_constructible<Tensor<double>>::value, "");
static_assert(!std::is_constructible<Tensor<double>, Shape>::value, "");
static_assert(!std::is_constructible<Tensor<double, DynRank, Host>, Shape>::value, "");
static_assert(!std::is_constructible<TensorView<double, DynRank, Host>, const double*>::value, "");

// Erasure borrows lvalues only, and writes need write authority.
static_assert(std::is_constructible<TensorRead, const TensorView<double>&>::value, "");
static_assert(std::is_constructible<TensorRead, const Tensor<double, Rank<2>, Host>&>::value, "");
static_assert(!std::is_constructible<TensorRead, TensorView<double>&&>::value, "a temporary would dangle");
static_assert(!std::is_constructible<TensorRead, Tensor<double>&&>::value, "");
static_assert(std::is_constructible<TensorWrite, TensorViewMut<double>&>::value, "");
static_assert(!std::is_constructible<TensorWrite, TensorView<double>&>::value, "reads cannot write");
static_assert(!std::is_constructible<TensorWrite, const Tensor<double>&>::value, "");

// Mapping guards must outlive their views: no view of a temporary guard.
namespace {
template <class, class = void>
struct has_rvalue_view : std::false_type {};
template <class X>
struct has_rvalue_view<X, std::void_t<decltype(std::declval<X&&>().view())>> : std::true_type {};
}  // namespace
static_assert(!has_rvalue_view<ReadMapping<double>>::value, "");
static_assert(!has_rvalue_view<WriteMapping<double>>::value, "");
static_assert(has_rvalue_view<ReadMapping<double>&>::value, "");

// Non-arithmetic host storage in every representation's type (Device construction is what is refused).
static_assert(sizeof(Tensor<tfbench::testing::DropCounted>) > 0, "");
static_assert(sizeof(Tensor<std::string, Rank<3>, Host>) > 0, "");

TEST_CASE("compile-time contracts hold", "[storage][static]") {
  SUCCEED("checked by static_assert");
}
