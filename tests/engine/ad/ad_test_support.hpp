#pragma once
// Helpers of the AD tests: a backend over the test's space, host-filled tensors, and a central
// finite-difference check of every leaf's gradient of a scalar function.

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "test_context.hpp"
#include "tfbench/engine/ad/ad.hpp"
#include "tfbench/engine/exec/backend.hpp"

namespace tfbench::testing {

inline CpuBackend ad_backend() {
  CpuBackendConfig config;
  config.space = is_host_space(space()) ? space() : ExecSpaceKind::Serial;
  auto made = CpuBackend::create(config);
  if (!made) throw std::runtime_error(made.error().message);
  return std::move(made).value();
}

/// A Dynamic tensor of `shape` with random values in +-[0.5, 1.5] (diagonally dominant if `dominant`
/// and square).
template <class T>
Tensor<T> random_tensor(std::mt19937_64& rng, std::vector<Index> shape, bool dominant = false) {
  std::uniform_real_distribution<double> mag(0.5, 1.5);
  std::bernoulli_distribution sign(0.5);
  Index n = 1;
  for (auto e : shape) n *= e;
  std::vector<T> data(static_cast<std::size_t>(n));
  for (auto& x : data) x = static_cast<T>((sign(rng) ? 1 : -1) * mag(rng));
  if (dominant && shape.size() == 2 && shape[0] == shape[1])
    for (Index i = 0; i < shape[0]; ++i) data[static_cast<std::size_t>(i * shape[0] + i)] += T(2 * shape[0]);
  return Tensor<T, DynRank, Host>::from_col_major(Shape(shape.data(), shape.data() + shape.size()),
                                                  std::move(data))
      .into_dynamic();
}

/// The elements of a host-resident Dynamic tensor, column-major.
template <class T>
std::vector<T> values_of(const Tensor<T>& t) {
  auto host = t.view().into_host().value();
  std::vector<T> out;
  for (Index i = 0; i < t.numel(); ++i) out.push_back(host.data()[i]);
  return out;
}

template <class T>
Tensor<T> with_values(const Tensor<T>& like, const std::vector<T>& values) {
  return Tensor<T, DynRank, Host>::from_col_major(Shape(like.shape()), values).into_dynamic();
}

using ScalarFn = std::function<ad::Var<double>(Session&, const std::vector<ad::Var<double>>&)>;

/// Relative error (norm-wise) between the AD gradient of every input and central differences of
/// f (a one-element result), worst over the inputs.
inline double gradient_error(Session& s, const std::vector<Tensor<double>>& inputs, const ScalarFn& f,
                             double h = 1e-6) {
  std::vector<ad::Var<double>> leaves;
  for (const auto& t : inputs) leaves.push_back(ad::Var<double>::leaf(with_values(t, values_of(t))));
  ad::backward(s, f(s, leaves));
  double worst = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    REQUIRE(leaves[i].grad() != nullptr);
    const std::vector<double> grad = values_of(*leaves[i].grad());
    const std::vector<double> x = values_of(inputs[i]);
    double diff = 0, norm = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
      auto eval = [&](double delta) {
        std::vector<ad::Var<double>> point;
        for (std::size_t j = 0; j < inputs.size(); ++j) {
          std::vector<double> v = values_of(inputs[j]);
          if (j == i) v[k] += delta;
          point.emplace_back(with_values(inputs[j], v));
        }
        return values_of(f(s, point).value())[0];
      };
      const double fd = (eval(h) - eval(-h)) / (2 * h);
      diff += (fd - grad[k]) * (fd - grad[k]);
      norm += fd * fd;
    }
    worst = std::max(worst, std::sqrt(diff) / std::max(std::sqrt(norm), 1e-300));
  }
  return worst;
}

/// sum(w * y) for fixed random weights w of y's shape: a scalar that sees every element of y.
inline ad::Var<double> weighted_sum(Session& s, const ad::Var<double>& y, std::uint64_t seed = 99) {
  std::mt19937_64 rng(seed);
  std::vector<Index> shape(y.shape().begin(), y.shape().end());
  ad::Var<double> w(random_tensor<double>(rng, shape));
  return ad::sum_all(s, ad::multiply(s, y, w));
}

}  // namespace tfbench::testing
