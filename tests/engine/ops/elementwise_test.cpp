// Elementwise facades against a host reference: every op, every element type, strided and
// broadcast operands, strided destinations, result dtype/rank per operation.

#include "ops_test_support.hpp"

namespace {

using namespace tfbench;
using namespace tfbench::testing;
using C128 = Kokkos::complex<double>;

template <class T>
void check_close(double err) {
  CHECK(err < Tolerance<T>::value);
}

}  // namespace

TEMPLATE_TEST_CASE("elementwise binary and unary ops match the reference", "[ops][elementwise]", double,
                   float, C128) {
  using T = TestType;
  std::mt19937_64 rng(21);
  auto backend = ops_backend();
  const std::vector<index_t> shape{37, 11, 5};  // small: inline Serial kernels; see the large case below
  for (index_t scale_up : {1, 24}) {
    const std::vector<index_t> sh{shape[0] * scale_up, shape[1], shape[2]};
    auto a = random_operand<T>(rng, sh);
    auto b = random_operand<T>(rng, sh, {2, 0, 1}, 1, {false, true, false});
    in_session(backend, [&](Session& s) {
      const T alpha = random_value<T>(rng), beta = random_value<T>(rng);
      auto add = ops::add(s, a.view(), b.view());
      auto sub = ops::sub(s, a.view(), b.view());
      auto mul = ops::multiply(s, a.view(), b.view());
      auto axpby = ops::axpby(s, alpha, a.view(), beta, b.view());
      auto scaled = ops::scale(s, alpha, b.view());
      auto neg = ops::negate(s, b.view());
      auto copied = ops::copy(s, b.view());
      static_assert(std::is_same<decltype(add), Tensor<T, DynRank, Host>>::value, "rank and rep follow a");
      std::vector<T> want[7], got[7];
      for_each_index(sh, [&](const std::vector<index_t>& i) {
        const T x = a.at(i), y = b.at(i);
        const T w[7] = {x + y, x - y, x * y, alpha * x + beta * y, alpha * y, -y, y};
        const T g[7] = {element(add, i),    element(sub, i), element(mul, i),   element(axpby, i),
                        element(scaled, i), element(neg, i), element(copied, i)};
        for (int k = 0; k < 7; ++k) {
          want[k].push_back(w[k]);
          got[k].push_back(g[k]);
        }
      });
      for (int k = 0; k < 7; ++k) {
        INFO("op " << k << ", extent " << sh[0]);
        check_close<T>(max_relative_error(got[k], want[k]));
      }
    });
  }
}

TEMPLATE_TEST_CASE("abs gives the real type, compare gives bool", "[ops][elementwise]", double, float, C128) {
  using T = TestType;
  std::mt19937_64 rng(5);
  auto backend = ops_backend();
  const std::vector<index_t> sh{9, 8};
  auto a = random_operand<T>(rng, sh, {1, 0});
  auto b = random_operand<T>(rng, sh);
  in_session(backend, [&](Session& s) {
    auto mag = ops::abs(s, a.view());
    using Real = std::conditional_t<std::is_same<T, C128>::value, double, T>;
    static_assert(std::is_same<decltype(mag), Tensor<Real, DynRank, Host>>::value, "abs of complex is real");
    auto eq = ops::compare(s, ops::CompareOp::Eq, a.view(), a.view());
    auto ne = ops::compare(s, ops::CompareOp::Ne, a.view(), b.view());
    static_assert(std::is_same<decltype(eq), Tensor<bool, DynRank, Host>>::value, "compare gives bool");
    for_each_index(sh, [&](const std::vector<index_t>& i) {
      CHECK(std::fabs(double(element(mag, i)) - magnitude(a.at(i))) <=
            Tolerance<T>::value * magnitude(a.at(i)));
      CHECK(element(eq, i));
      CHECK(element(ne, i) == !(a.at(i) == b.at(i)));
    });
    if constexpr (!std::is_same<T, C128>::value) {
      auto lt = ops::compare(s, ops::CompareOp::Lt, a.view(), b.view());
      auto ge = ops::compare(s, ops::CompareOp::Ge, a.view(), b.view());
      for_each_index(sh, [&](const std::vector<index_t>& i) {
        CHECK(element(lt, i) == (a.at(i) < b.at(i)));
        CHECK(element(ge, i) == (a.at(i) >= b.at(i)));
      });
    } else {
      CHECK_THROWS_AS(ops::compare(s, ops::CompareOp::Lt, a.view(), b.view()), ops::OpError);
    }
  });
}

TEMPLATE_TEST_CASE("_into writes strided destinations and may alias an input exactly", "[ops][elementwise]",
                   double, C128) {
  using T = TestType;
  std::mt19937_64 rng(8);
  auto backend = ops_backend();
  const std::vector<index_t> sh{6, 7};
  auto a = random_operand<T>(rng, sh);
  auto b = random_operand<T>(rng, sh, {1, 0}, 2);
  auto c = random_operand<T>(rng, sh, {1, 0}, 3, {true, false});
  auto a0 = random_operand<T>(rng, sh);
  for_each_index(sh, [&](const std::vector<index_t>& i) { a0.owner.data()[0] = a0.owner.data()[0]; });
  in_session(backend, [&](Session& s) {
    auto cv = c.view_mut();
    ops::add_into(s, cv, a.view(), b.view());
    for_each_index(sh, [&](const std::vector<index_t>& i) { CHECK(c.at(i) == a.at(i) + b.at(i)); });
    // In place: a = a * b (the destination is exactly the first input).
    std::vector<T> before;
    for_each_index(sh, [&](const std::vector<index_t>& i) { before.push_back(a.at(i)); });
    auto av = a.view_mut();
    ops::multiply_into(s, av, a.view(), b.view());
    std::size_t k = 0;
    for_each_index(sh, [&](const std::vector<index_t>& i) { CHECK(a.at(i) == before[k++] * b.at(i)); });
    // Strided copy of a transposed view.
    auto bt = b.view().permute({1, 0});
    auto dest = Tensor<T, DynRank, Host>::zeros({sh[1], sh[0]});
    ops::copy_into(s, dest, bt);
    for_each_index(sh, [&](const std::vector<index_t>& i) { CHECK(dest.at(i[1], i[0]) == b.at(i)); });
    // Fill.
    ops::fill_into(s, dest, 2.0);
    CHECK(dest.at(3, 2) == T(2.0));
  });
}

TEST_CASE("elementwise ops on Dynamic tensors return Dynamic tensors", "[ops][elementwise]") {
  auto backend = ops_backend();
  auto a = Tensor<double, DynRank, Host>::from_col_major({2, 2}, {1, 2, 3, 4}).into_dynamic();
  auto b = Tensor<double, DynRank, Host>::from_col_major({2, 2}, {10, 20, 30, 40}).into_dynamic();
  in_session(backend, [&](Session& s) {
    Tensor<double> c = ops::add(s, a, b);
    auto host = std::move(c).into_host().value();
    CHECK(host.at(1, 1) == 44);
    auto full = ops::full<double>(s, {3, 2}, 1.5);
    CHECK(std::move(full).into_host().value().at(2, 1) == 1.5);
  });
}

TEMPLATE_TEST_CASE(
    "_into on owners (their fast path) matches views, works in place, rejects what views reject",
    "[ops][elementwise][into]", double, float, C128) {
  using T = TestType;
  using Owner = Tensor<T, DynRank, Host>;
  std::mt19937_64 rng(44);
  auto backend = ops_backend();
  const std::vector<index_t> sh{13, 6};
  auto a = random_operand<T>(rng, sh);
  auto b = random_operand<T>(rng, sh);
  const T alpha = random_value<T>(rng), beta = random_value<T>(rng);
  auto values = [](const Owner& t) { return std::vector<T>(t.data(), t.data() + t.numel()); };
  in_session(backend, [&](Session& s) {
    Owner ao = ops::copy(s, a.view()), bo = ops::copy(s, b.view());
    Tensor<T> b_dynamic = ops::copy(s, b.view()).into_dynamic();
    Owner got = Owner::zeros({sh[0], sh[1]}), want = Owner::zeros({sh[0], sh[1]});
    // Every operation once with owners only (the fast path) and once through views (erased path).
    auto agree = [&](const char* what, auto&& run) {
      INFO(what);
      run(got, ao, bo);
      auto wv = want.view_mut();
      run(wv, a.view(), b.view());
      CHECK(max_relative_error(values(got), values(want)) < Tolerance<T>::value);
    };
    agree("add", [&](auto& d, const auto& x, const auto& y) { ops::add_into(s, d, x, y); });
    agree("sub", [&](auto& d, const auto& x, const auto& y) { ops::sub_into(s, d, x, y); });
    agree("multiply", [&](auto& d, const auto& x, const auto& y) { ops::multiply_into(s, d, x, y); });
    agree("axpby", [&](auto& d, const auto& x, const auto& y) { ops::axpby_into(s, d, alpha, x, beta, y); });
    agree("scale", [&](auto& d, const auto&, const auto& y) { ops::scale_into(s, d, alpha, y); });
    agree("negate", [&](auto& d, const auto&, const auto& y) { ops::negate_into(s, d, y); });
    agree("copy", [&](auto& d, const auto&, const auto& y) { ops::copy_into(s, d, y); });
    // A Dynamic owner beside Host owners is still an owner of the same element type.
    ops::add_into(s, got, ao, b_dynamic);
    ops::add_into(s, want, a.view(), b.view());
    CHECK(max_relative_error(values(got), values(want)) < Tolerance<T>::value);
    // In place: the destination is exactly the first input.
    ops::axpby_into(s, ao, alpha, ao, beta, bo);
    std::vector<T> ref;
    for_each_index(sh,
                   [&](const std::vector<index_t>& i) { ref.push_back(alpha * a.at(i) + beta * b.at(i)); });
    CHECK(max_relative_error(values(ao), ref) < Tolerance<T>::value);
    // What the general path rejects, the owners' path rejects too, before writing anything.
    const T sentinel = T(-7.0);
    for (Index i = 0; i < got.numel(); ++i) got.data()[i] = sentinel;
    auto untouched = [&] {
      for (Index i = 0; i < got.numel(); ++i)
        if (!(got.data()[i] == sentinel)) return false;
      return true;
    };
    Owner transposed = Owner::zeros({sh[1], sh[0]});
    try {
      ops::add_into(s, got, ao, transposed);
      FAIL("a shape mismatch between owners was accepted");
    } catch (const ops::OpError& e) {
      CHECK(e.code() == ops::OpErrorCode::ShapeMismatch);
    }
    CHECK(untouched());
    if constexpr (!std::is_same<T, C128>::value) {
      try {
        ops::axpby_into(s, got, std::complex<double>(0.0, 1.0), ao, 1.0, bo);
        FAIL("a complex coefficient for real owners was accepted");
      } catch (const ops::OpError& e) {
        CHECK(e.code() == ops::OpErrorCode::DTypeMismatch);
      }
      CHECK(untouched());
    }
  });
}
