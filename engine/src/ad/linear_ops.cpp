// AD of the elementwise operations, sum over axes and permute.

#include <vector>

#include "record.hpp"
#include "tfbench/engine/ad/ops.hpp"

namespace tfbench::ad {
namespace impl {
namespace {

/// out = alpha a + beta b (also add, sub): gradients alpha g and beta g.
template <class T>
struct LinearNode final : Node<T> {
  T alpha, beta;
  LinearNode(T a, T b) : alpha(a), beta(b) {}
  const char* name() const override { return "axpby"; }
  void backward(Session& s, const Value<T>& g, std::vector<Value<T>>& out) override {
    const T coeff[2] = {alpha, beta};
    for (std::size_t i = 0; i < this->inputs.size(); ++i) {
      if (!this->inputs[i]) continue;
      out[i] = coeff[i] == T(1) ? g : share(ops::scale(s, coeff[i], *g));
    }
  }
};

/// out = a * b elementwise: gradients g * b and g * a (a and b saved).
template <class T>
struct MultiplyNode final : Node<T> {
  Value<T> a, b;
  const char* name() const override { return "multiply"; }
  void backward(Session& s, const Value<T>& g, std::vector<Value<T>>& out) override {
    if (this->inputs[0]) out[0] = share(ops::multiply(s, *g, *b));
    if (this->inputs[1]) out[1] = share(ops::multiply(s, *g, *a));
  }
};

/// out = sum of a over axes: the gradient is g broadcast back (stride 0 over the summed axes).
template <class T>
struct SumNode final : Node<T> {
  Shape shape;  // a's shape
  std::vector<bool> summed;
  const char* name() const override { return "sum"; }
  void backward(Session& s, const Value<T>& g, std::vector<Value<T>>& out) override {
    Strides strides(shape.size());
    Index step = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (summed[d]) {
        strides[d] = 0;
      } else {
        strides[d] = step;
        step *= shape[d];
      }
    }
    const auto broadcast = g->strided_view(shape, strides, 0);
    out[0] = share(ops::copy(s, broadcast));
  }
};

/// out = a with axes permuted: the gradient is g permuted back.
template <class T>
struct PermuteNode final : Node<T> {
  std::vector<int> inverse;
  const char* name() const override { return "permute"; }
  void backward(Session& s, const Value<T>& g, std::vector<Value<T>>& out) override {
    out[0] = share(ops::permute(s, *g, Span<const int>(inverse.data(), inverse.size())));
  }
};

template <class T>
Var<T> linear(Session& s, Tensor<T>&& value, T alpha, const Var<T>& a, T beta, const Var<T>& b) {
  std::shared_ptr<LinearNode<T>> node;
  if (should_record<T>({&a, &b})) node = std::make_shared<LinearNode<T>>(alpha, beta);
  return result<T>(std::move(value), node, {&a, &b});
}

}  // namespace
}  // namespace impl

template <class T>
Var<T> add(Session& s, const Var<T>& a, const Var<T>& b) {
  return impl::linear<T>(s, ops::add(s, a.value(), b.value()), T(1), a, T(1), b);
}
template <class T>
Var<T> sub(Session& s, const Var<T>& a, const Var<T>& b) {
  return impl::linear<T>(s, ops::sub(s, a.value(), b.value()), T(1), a, T(-1), b);
}
template <class T>
Var<T> axpby(Session& s, T alpha, const Var<T>& a, T beta, const Var<T>& b) {
  return impl::linear<T>(s, ops::axpby(s, alpha, a.value(), beta, b.value()), alpha, a, beta, b);
}
template <class T>
Var<T> scale(Session& s, T alpha, const Var<T>& a) {
  auto value = ops::scale(s, alpha, a.value());
  std::shared_ptr<impl::LinearNode<T>> node;
  if (impl::should_record<T>({&a})) node = std::make_shared<impl::LinearNode<T>>(alpha, T(0));
  return impl::result<T>(std::move(value), node, {&a});
}
template <class T>
Var<T> negate(Session& s, const Var<T>& a) {
  return scale(s, T(-1), a);
}

template <class T>
Var<T> multiply(Session& s, const Var<T>& a, const Var<T>& b) {
  auto value = ops::multiply(s, a.value(), b.value());
  std::shared_ptr<impl::MultiplyNode<T>> node;
  if (impl::should_record<T>({&a, &b})) {
    node = std::make_shared<impl::MultiplyNode<T>>();
    node->a = a.shared_value();
    node->b = b.shared_value();
  }
  return impl::result<T>(std::move(value), node, {&a, &b});
}

template <class T>
Var<T> sum(Session& s, const Var<T>& a, Span<const int> axes) {
  auto value = ops::sum(s, a.value(), axes);
  std::shared_ptr<impl::SumNode<T>> node;
  if (impl::should_record<T>({&a})) {
    node = std::make_shared<impl::SumNode<T>>();
    node->shape = Shape(a.shape());
    node->summed.assign(a.shape().size(), false);
    for (int axis : axes) node->summed[static_cast<std::size_t>(axis)] = true;
  }
  return impl::result<T>(std::move(value), node, {&a});
}
template <class T>
Var<T> sum_all(Session& s, const Var<T>& a) {
  std::vector<int> axes;
  for (std::size_t d = 0; d < a.shape().size(); ++d) axes.push_back(static_cast<int>(d));
  return sum(s, a, Span<const int>(axes.data(), axes.size()));
}

template <class T>
Var<T> permute(Session& s, const Var<T>& a, Span<const int> perm) {
  auto value = ops::permute(s, a.value(), perm);
  std::shared_ptr<impl::PermuteNode<T>> node;
  if (impl::should_record<T>({&a})) {
    node = std::make_shared<impl::PermuteNode<T>>();
    node->inverse.assign(perm.size(), 0);
    for (std::size_t d = 0; d < perm.size(); ++d)
      node->inverse[static_cast<std::size_t>(perm[d])] = static_cast<int>(d);
  }
  return impl::result<T>(std::move(value), node, {&a});
}

#define TFBENCH_AD_LINEAR_INSTANTIATE(T)                                  \
  template Var<T> add<T>(Session&, const Var<T>&, const Var<T>&);         \
  template Var<T> sub<T>(Session&, const Var<T>&, const Var<T>&);         \
  template Var<T> axpby<T>(Session&, T, const Var<T>&, T, const Var<T>&); \
  template Var<T> scale<T>(Session&, T, const Var<T>&);                   \
  template Var<T> negate<T>(Session&, const Var<T>&);                     \
  template Var<T> multiply<T>(Session&, const Var<T>&, const Var<T>&);    \
  template Var<T> sum<T>(Session&, const Var<T>&, Span<const int>);       \
  template Var<T> sum_all<T>(Session&, const Var<T>&);                    \
  template Var<T> permute<T>(Session&, const Var<T>&, Span<const int>);
TFBENCH_AD_LINEAR_INSTANTIATE(float)
TFBENCH_AD_LINEAR_INSTANTIATE(double)

}  // namespace tfbench::ad
