// Validation before writes: an `_into` call that fails validation leaves every destination element
// as it was (a sentinel pattern), for every family and every kind of bad input.

#include "ops_test_support.hpp"

namespace {

using namespace tfbench;
using namespace tfbench::testing;

constexpr double kSentinel = -12345.25;

template <class F>
void expect_untouched(Tensor<double, DynRank, Host>& dest, ops::OpErrorCode code, F&& call) {
  for (Index i = 0; i < dest.numel(); ++i) dest.data()[i] = kSentinel;
  try {
    call();
    FAIL("the call was expected to fail validation");
  } catch (const ops::OpError& e) {
    INFO(e.what());
    CHECK(e.code() == code);
  }
  for (Index i = 0; i < dest.numel(); ++i) REQUIRE(dest.data()[i] == kSentinel);
}

}  // namespace

TEST_CASE("failed validation leaves the _into destination untouched", "[ops][into]") {
  std::mt19937_64 rng(31);
  auto backend = ops_backend();
  auto a = random_operand<double>(rng, {6, 5});
  auto b = random_operand<double>(rng, {6, 5});
  auto wrong = random_operand<double>(rng, {5, 6});
  auto f = Tensor<float, DynRank, Host>::zeros({6, 5});
  auto dest = Tensor<double, DynRank, Host>::zeros({6, 5});
  auto dest_t = Tensor<double, DynRank, Host>::zeros({5, 5});
  using C = ops::OpErrorCode;
  in_session(backend, [&](Session& s) {
    expect_untouched(dest, C::ShapeMismatch, [&] { ops::add_into(s, dest, a.view(), wrong.view()); });
    expect_untouched(dest, C::DTypeMismatch, [&] { ops::add_into(s, dest, a.view(), f); });
    expect_untouched(dest, C::ShapeMismatch, [&] { ops::scale_into(s, dest, 2.0, wrong.view()); });
    expect_untouched(dest, C::DTypeMismatch, [&] {
      ops::axpby_into(s, dest, std::complex<double>(0.0, 1.0), a.view(), 1.0, b.view());
    });
    expect_untouched(dest, C::InvalidAxis, [&] { ops::sum_into(s, dest, a.view(), {2}); });
    expect_untouched(dest, C::RankMismatch, [&] { ops::sum_into(s, dest, a.view(), {0}); });
    expect_untouched(dest, C::InvalidAxis, [&] { ops::permute_into(s, dest, a.view(), {0, 0}); });
    expect_untouched(dest, C::ShapeMismatch, [&] { ops::permute_into(s, dest, a.view(), {1, 0}); });
    expect_untouched(dest, C::InvalidSpec,
                     [&] { ops::einsum_into(s, dest, "ij,jk->ik,", a.view(), b.view()); });
    expect_untouched(dest, C::InvalidSpec,
                     [&] { ops::einsum_into(s, dest, "ij,jk->iz", a.view(), b.view()); });
    expect_untouched(dest, C::ShapeMismatch,
                     [&] { ops::einsum_into(s, dest, "ij,jk->ik", a.view(), b.view()); });
    expect_untouched(dest, C::ShapeMismatch,
                     [&] { ops::einsum_into(s, dest, "ij,ij->ij", a.view(), wrong.view()); });
    expect_untouched(dest_t, C::InvalidAxis,
                     [&] { ops::tensordot_into(s, dest_t, a.view(), b.view(), {0}, {2}); });
    // The destination overlapping an input (not exactly it): rejected before any write.
    auto big = Tensor<double, DynRank, Host>::zeros({7, 5});
    auto shifted_in = big.strided_view({6, 5}, {1, 7}, 0);
    auto shifted_out = big.strided_view_mut({6, 5}, {1, 7}, 1);
    for (Index i = 0; i < big.numel(); ++i) big.data()[i] = kSentinel;
    CHECK_THROWS_AS(ops::add_into(s, shifted_out, shifted_in, b.view()), ops::OpError);
    for (Index i = 0; i < big.numel(); ++i) REQUIRE(big.data()[i] == kSentinel);
    // einsum may not write into an input at all.
    auto sq = random_operand<double>(rng, {5, 5});
    auto sq2 = random_operand<double>(rng, {5, 5});
    auto sqv = sq.view_mut();
    CHECK_THROWS_AS(ops::einsum_into(s, sqv, "ij,jk->ik", sq.view(), sq2.view()), ops::OpError);
  });
}
