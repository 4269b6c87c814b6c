#pragma once
// Plain host references for the operation tests: strided host buffers filled with random non-zero
// values, a naive einsum over every label assignment, and relative-error comparison.

#include <Kokkos_Complex.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tfbench/engine/ops/einsum_spec.hpp"
#include "tfbench/engine/ops/impl/kernels.hpp"

namespace tfbench::testing {

using index_t = std::int64_t;

template <class T>
struct Tolerance;
template <>
struct Tolerance<double> {
  static constexpr double value = 1e-12;
};
template <>
struct Tolerance<float> {
  static constexpr double value = 1e-5;
};
template <>
struct Tolerance<Kokkos::complex<double>> {
  static constexpr double value = 1e-12;
};

inline double magnitude(double x) {
  return std::fabs(x);
}
inline double magnitude(float x) {
  return std::fabs(static_cast<double>(x));
}
inline double magnitude(const Kokkos::complex<double>& x) {
  return std::hypot(x.real(), x.imag());
}

/// Random non-zero value in +-[0.5, 1.5] (real and imaginary parts for complex).
template <class T>
T random_value(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> mag(0.5, 1.5);
  std::bernoulli_distribution sign(0.5);
  auto draw = [&] { return (sign(rng) ? 1.0 : -1.0) * mag(rng); };
  if constexpr (std::is_same<T, Kokkos::complex<double>>::value) {
    return T(draw(), draw());
  } else {
    return static_cast<T>(draw());
  }
}

/// A host buffer holding one strided layout of `shape`: axes stored in `order` (order[0] fastest),
/// every stride padded by `pad` elements, optionally reversed (negative stride) on `flip` axes.
template <class T>
struct StridedHost {
  std::vector<T> storage;
  std::vector<index_t> shape, strides;
  index_t origin = 0;  // offset of logical element 0 in storage

  T* data() { return storage.data() + origin; }
  const T* data() const { return storage.data() + origin; }
  int rank() const { return static_cast<int>(shape.size()); }
  index_t elements() const {
    index_t n = 1;
    for (auto e : shape) n *= e;
    return n;
  }
  T& at(const std::vector<index_t>& idx) {
    index_t off = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[d];
    return data()[off];
  }
  const T& at(const std::vector<index_t>& idx) const { return const_cast<StridedHost*>(this)->at(idx); }
};

template <class T>
StridedHost<T> make_strided(const std::vector<index_t>& shape, std::vector<int> order = {}, index_t pad = 0,
                            std::vector<bool> flip = {}) {
  StridedHost<T> h;
  h.shape = shape;
  const int r = static_cast<int>(shape.size());
  if (order.empty())
    for (int d = 0; d < r; ++d) order.push_back(d);
  flip.resize(r, false);
  h.strides.assign(r, 0);
  index_t step = 1;
  for (int d : order) {
    h.strides[d] = step;
    step = step * shape[d] + pad;
  }
  h.storage.assign(static_cast<std::size_t>(step > 0 ? step : 1), T(0));
  for (int d = 0; d < r; ++d) {
    if (flip[d] && shape[d] > 0) {
      h.origin += (shape[d] - 1) * h.strides[d];
      h.strides[d] = -h.strides[d];
    }
  }
  return h;
}

/// Calls f(idx) for every multi-index of `shape` (column-major order).
template <class F>
void for_each_index(const std::vector<index_t>& shape, F&& f) {
  for (auto e : shape)
    if (e == 0) return;
  std::vector<index_t> idx(shape.size(), 0);
  while (true) {
    f(idx);
    std::size_t d = 0;
    for (; d < shape.size(); ++d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
    if (d == shape.size()) return;
  }
}

template <class T>
void fill_random(StridedHost<T>& h, std::mt19937_64& rng) {
  for_each_index(h.shape, [&](const std::vector<index_t>& idx) { h.at(idx) = random_value<T>(rng); });
}

/// Reference arithmetic accumulates like the kernels (float sums in double): the engine's rule.
template <class T>
using Wide = tfbench::impl::accumulator_t<T>;

/// Naive einsum: every assignment of every label, products summed into a compact output (in the
/// wide type, rounded to T once).
template <class T>
std::vector<T> naive_einsum(const std::string& text, const std::vector<const StridedHost<T>*>& ops,
                            std::vector<index_t>* out_shape = nullptr) {
  const auto spec = ops::parse_einsum(text);
  std::vector<char> labels;
  std::vector<index_t> extent;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    for (std::size_t d = 0; d < spec.inputs[i].size(); ++d) {
      const char l = spec.inputs[i][d];
      bool seen = false;
      for (char x : labels) seen |= x == l;
      if (!seen) {
        labels.push_back(l);
        extent.push_back(ops[i]->shape[d]);
      }
    }
  }
  auto pos = [&](char l) {
    for (std::size_t i = 0; i < labels.size(); ++i)
      if (labels[i] == l) return i;
    return labels.size();
  };
  std::vector<index_t> oshape;
  for (char l : spec.output) oshape.push_back(extent[pos(l)]);
  if (out_shape) *out_shape = oshape;
  index_t n = 1;
  for (auto e : oshape) n *= e;
  using W = Wide<T>;
  std::vector<W> wide(static_cast<std::size_t>(n), W(0));
  for_each_index(extent, [&](const std::vector<index_t>& assign) {
    W prod = W(1);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      std::vector<index_t> idx;
      for (char l : spec.inputs[i]) idx.push_back(assign[pos(l)]);
      prod *= W(ops[i]->at(idx));
    }
    index_t off = 0, step = 1;
    for (std::size_t d = 0; d < spec.output.size(); ++d) {
      off += assign[pos(spec.output[d])] * step;
      step *= oshape[d];
    }
    wide[static_cast<std::size_t>(off)] += prod;
  });
  std::vector<T> out;
  for (const W& w : wide) out.push_back(static_cast<T>(w));
  return out;
}

/// max |got - want| / max(|want|, floor) over the elements.
template <class T>
double max_relative_error(const std::vector<T>& got, const std::vector<T>& want) {
  double worst = 0, scale = 0;
  for (const auto& w : want) scale = std::max(scale, magnitude(w));
  if (scale == 0) scale = 1;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double err = magnitude(got[i] - want[i]) / scale;
    worst = std::max(worst, err);
  }
  return worst;
}

}  // namespace tfbench::testing
