// Gradients of every supported operation against central finite differences (float64, relative
// error below 1e-6), through a weighted sum so that every output element contributes.

#include "ad_test_support.hpp"

namespace {

using namespace tfbench;
using namespace tfbench::testing;
using V = ad::Var<double>;
using Vs = std::vector<V>;

struct Case {
  const char* name;
  std::vector<std::vector<Index>> shapes;
  ScalarFn f;
  bool dominant = false;
};

}  // namespace

TEST_CASE("AD gradients match central finite differences", "[ad][gradient]") {
  auto backend = ad_backend();
  const std::vector<Case> cases = {
      {"add",
       {{3, 4}, {3, 4}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::add(s, v[0], v[1])); }},
      {"sub",
       {{3, 4}, {3, 4}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::sub(s, v[0], v[1])); }},
      {"axpby",
       {{5}, {5}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::axpby(s, 0.5, v[0], -2.0, v[1])); }},
      {"scale", {{2, 3}}, [](Session& s, const Vs& v) { return weighted_sum(s, ad::scale(s, 3.0, v[0])); }},
      {"negate", {{2, 3}}, [](Session& s, const Vs& v) { return weighted_sum(s, ad::negate(s, v[0])); }},
      {"multiply",
       {{3, 4}, {3, 4}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::multiply(s, v[0], v[1])); }},
      {"multiply same input",
       {{3, 4}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::multiply(s, v[0], v[0])); }},
      {"sum axis 1",
       {{3, 4, 2}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::sum(s, v[0], {1})); }},
      {"sum axes 0,2",
       {{3, 4, 2}},
       [](Session& s, const Vs& v) {
         return weighted_sum(s, ad::sum(s, v[0], {0, 2}));
       }},
      {"sum all", {{3, 4}}, [](Session& s, const Vs& v) { return ad::sum_all(s, v[0]); }},
      {"permute",
       {{2, 3, 4}},
       [](Session& s, const Vs& v) {
         return weighted_sum(s, ad::permute(s, v[0], {2, 0, 1}));
       }},
      {"einsum matmul",
       {{3, 4}, {4, 5}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::einsum(s, "ik,kj->ij", v[0], v[1])); }},
      {"einsum large (GEMM route)",
       {{20, 18}, {18, 16}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::einsum(s, "ik,kj->ji", v[0], v[1])); }},
      {"einsum batch",
       {{3, 4, 2}, {4, 5, 2}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::einsum(s, "ikb,kjb->ijb", v[0], v[1])); }},
      {"einsum all-batch",
       {{3, 4}, {4, 3}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::einsum(s, "ij,ji->ij", v[0], v[1])); }},
      {"einsum summed-only label",
       {{3, 4, 2}, {4, 5}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::einsum(s, "ikx,kj->ij", v[0], v[1])); }},
      {"einsum diagonal",
       {{4, 4}, {4, 3}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::einsum(s, "ii,ij->ij", v[0], v[1])); }},
      {"einsum trace", {{5, 5}}, [](Session& s, const Vs& v) { return ad::einsum(s, "ii->", v[0]); }},
      {"einsum unary transpose+sum",
       {{3, 4, 5}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::einsum(s, "ijk->ki", v[0])); }},
      {"einsum N-ary",
       {{3, 4}, {4, 5}, {5, 2}},
       [](Session& s, const Vs& v) {
         return weighted_sum(s, ad::einsum(s, "ij,jk,kl->il", v[0], v[1], v[2]));
       }},
      {"einsum N-ary with a shared batch label",
       {{3, 4, 2}, {4, 5, 2}, {5, 2}},
       [](Session& s, const Vs& v) {
         return weighted_sum(s, ad::einsum(s, "ijb,jkb,kb->ib", v[0], v[1], v[2]));
       }},
      {"tensordot",
       {{3, 4, 5}, {5, 4, 2}},
       [](Session& s, const Vs& v) {
         return weighted_sum(s, ad::tensordot(s, v[0], v[1], {1, 2}, {1, 0}));
       }},
      {"solve vector",
       {{5, 5}, {5}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::solve(s, v[0], v[1])); },
       true},
      {"solve matrix",
       {{4, 4}, {4, 3}},
       [](Session& s, const Vs& v) { return weighted_sum(s, ad::solve(s, v[0], v[1])); },
       true},
      {"chain",
       {{4, 5}, {5, 6}, {6, 4}},
       [](Session& s, const Vs& v) {
         auto t = ad::einsum(s, "ij,jk->ik", v[0], v[1]);
         auto u = ad::multiply(s, t, t);
         auto w = ad::einsum(s, "ik,ki->", u, v[2]);
         return ad::add(s, w, ad::sum_all(s, ad::scale(s, 0.25, v[0])));
       }},
  };
  for (const auto& c : cases) {
    std::mt19937_64 rng(101);
    std::vector<Tensor<double>> inputs;
    for (std::size_t i = 0; i < c.shapes.size(); ++i)
      inputs.push_back(random_tensor<double>(rng, c.shapes[i], c.dominant && i == 0));
    auto r = backend.with_session([&](Session& s) {
      const double err = gradient_error(s, inputs, c.f);
      INFO(c.name << ": relative error " << err);
      CHECK(err < 1e-6);
    });
    REQUIRE(r);
  }
}

TEST_CASE("float gradients agree with double ones", "[ad][gradient]") {
  auto backend = ad_backend();
  std::mt19937_64 rng(7);
  auto ad_ = random_tensor<double>(rng, {6, 5});
  auto bd = random_tensor<double>(rng, {5, 4});
  auto to_float = [](const Tensor<double>& t) {
    std::vector<float> v;
    for (double x : values_of(t)) v.push_back(static_cast<float>(x));
    return Tensor<float, DynRank, Host>::from_col_major(Shape(t.shape()), v).into_dynamic();
  };
  auto r = backend.with_session([&](Session& s) {
    auto a = ad::Var<float>::leaf(to_float(ad_));
    auto b = ad::Var<float>::leaf(to_float(bd));
    ad::backward(s, ad::sum_all(s, ad::einsum(s, "ik,kj->ij", a, b)));
    auto a64 = V::leaf(with_values(ad_, values_of(ad_)));
    auto b64 = V::leaf(with_values(bd, values_of(bd)));
    ad::backward(s, ad::sum_all(s, ad::einsum(s, "ik,kj->ij", a64, b64)));
    const auto g32 = values_of(*a.grad());
    const auto g64 = values_of(*a64.grad());
    for (std::size_t k = 0; k < g32.size(); ++k)
      CHECK(std::fabs(g32[k] - g64[k]) <= 1e-5 * std::fabs(g64[k]) + 1e-6);
  });
  REQUIRE(r);
}
