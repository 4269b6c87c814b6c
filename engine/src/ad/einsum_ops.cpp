// AD of einsum (unary, binary; N-ary along the greedy pairwise path) and tensordot.
//
// The gradient of operand X (labels LX) of out = einsum(LX, LY -> LO) is einsum(LO, LY -> LX) with
// two corrections einsum cannot express directly: labels summed only inside X (in neither LO nor
// LY) broadcast the gradient over their extent, and a label repeated in LX (a diagonal) receives the
// gradient on that diagonal only, zeros elsewhere. Both are a strided copy: broadcast reads use
// stride 0, the diagonal destination is a view whose strides add.

#include <string>
#include <vector>

#include "record.hpp"
#include "tfbench/engine/ad/ops.hpp"
#include "tfbench/engine/ops/impl/einsum_program.hpp"

namespace tfbench::ad {
namespace impl {
namespace {

using ops::LabelList;

std::string labels_text(const LabelList& l) {
  return std::string(l.begin(), l.end());
}

/// Gradient of an operand with labels `lx` and shape `shape`, given the output gradient g (labels
/// lo) and the other operand (labels ly) if any.
template <class T>
Value<T> operand_grad(Session& s, const Tensor<T>& g, const LabelList& lo, const Tensor<T>* other,
                      const LabelList* ly, const LabelList& lx, Span<const Index> shape) {
  LabelList unique, kept;  // distinct labels of lx (first appearance); those the einsum can produce
  Shape unique_shape;
  for (std::size_t d = 0; d < lx.size(); ++d) {
    if (unique.contains(lx[d])) continue;
    unique.push_back(lx[d]);
    unique_shape.push_back(shape[d]);
    if (lo.contains(lx[d]) || (ly && ly->contains(lx[d]))) kept.push_back(lx[d]);
  }
  const std::string spec =
      labels_text(lo) + (ly ? "," + labels_text(*ly) : std::string()) + "->" + labels_text(kept);
  Tensor<T> r = other ? ops::einsum(s, spec, g, *other) : ops::einsum(s, spec, g);
  const bool diagonal = unique.size() < lx.size();
  if (!diagonal && kept.size() == unique.size()) return share(std::move(r));

  // r broadcast over the labels summed only in X, read in X's distinct-label order.
  Strides read_strides(unique.size());
  for (std::size_t u = 0; u < unique.size(); ++u) {
    const int k = kept.find(unique[u]);
    Index step = 1;
    for (int j = 0; j < k; ++j) step *= r.shape()[static_cast<std::size_t>(j)];
    read_strides[u] = k < 0 ? 0 : step;
  }
  const auto source = r.strided_view(unique_shape, read_strides, 0);
  if (!diagonal) return share(ops::copy(s, source));

  // Diagonal: zeros, then the distinct-label view (strides of repeated axes add) receives the values.
  Tensor<T> grad = ops::full<T>(s, shape, 0);
  Strides compact(shape.size()), diag_strides(unique.size(), 0);
  Index step = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    compact[d] = step;
    step *= shape[d];
    diag_strides[static_cast<std::size_t>(unique.find(lx[d]))] += compact[d];
  }
  auto target = grad.strided_view_mut(unique_shape, diag_strides, 0);
  ops::copy_into(s, target, source);
  return share(std::move(grad));
}

template <class T>
struct EinsumNode final : Node<T> {
  LabelList la, lb, lo;  // lb empty and b null for a unary einsum
  Value<T> a, b;
  const char* name() const override { return "einsum"; }
  void backward(Session& s, const Value<T>& g, std::vector<Value<T>>& out) override {
    if (b) {
      if (this->inputs[0]) out[0] = operand_grad<T>(s, *g, lo, b.get(), &lb, la, a->shape());
      if (this->inputs[1]) out[1] = operand_grad<T>(s, *g, lo, a.get(), &la, lb, b->shape());
    } else if (this->inputs[0]) {
      out[0] = operand_grad<T>(s, *g, lo, nullptr, nullptr, la, a->shape());
    }
  }
};

/// One recorded unary or binary einsum.
template <class T>
Var<T> einsum_step(Session& s, const LabelList& la, const Var<T>& a, const LabelList* lb, const Var<T>* b,
                   const LabelList& lo) {
  const std::string spec =
      labels_text(la) + (lb ? "," + labels_text(*lb) : std::string()) + "->" + labels_text(lo);
  Tensor<T> value = b ? ops::einsum(s, spec, a.value(), b->value()) : ops::einsum(s, spec, a.value());
  const bool record = b ? should_record<T>({&a, b}) : should_record<T>({&a});
  if (!record) return Var<T>(std::move(value));
  auto node = std::make_shared<EinsumNode<T>>();
  node->la = la;
  node->lo = lo;
  node->a = a.shared_value();
  if (b) {
    node->lb = *lb;
    node->b = b->shared_value();
    return result<T>(std::move(value), node, {&a, b});
  }
  return result<T>(std::move(value), node, {&a});
}

}  // namespace
}  // namespace impl

template <class T>
Var<T> einsum(Session& s, std::string_view text, Span<const Var<T>> operands) {
  const ops::EinsumSpec spec = ops::parse_einsum(text);
  if (spec.inputs.size() != operands.size())
    throw ops::OpError(ops::OpErrorCode::InvalidSpec, "ad::einsum",
                       "'" + spec.to_string() + "' names " + std::to_string(spec.inputs.size()) +
                           " operands, " + std::to_string(operands.size()) + " given");
  if (operands.size() == 1)
    return impl::einsum_step<T>(s, spec.inputs[0], operands[0], nullptr, nullptr, spec.output);
  if (operands.size() == 2)
    return impl::einsum_step<T>(s, spec.inputs[0], operands[0], &spec.inputs[1], &operands[1], spec.output);

  // N-ary: the greedy pairwise path of the eager einsum, one recorded binary step per pair.
  std::vector<tfbench::impl::RawLayout> layouts;
  for (const Var<T>& v : operands)
    layouts.push_back({v.shape().data(), nullptr, static_cast<int>(v.shape().size())});
  const auto program = tfbench::impl::plan_einsum(spec, layouts.data(), nullptr, "ad::einsum");
  std::vector<Var<T>> values(operands.begin(), operands.end());
  std::vector<ops::LabelList> labels(spec.inputs.begin(), spec.inputs.end());
  for (const auto& step : program.steps) {
    const ops::LabelList out = step.result >= 0 ? step.program.result_labels : spec.output;
    const Var<T>& lhs = values[static_cast<std::size_t>(step.lhs)];
    const Var<T>& rhs = values[static_cast<std::size_t>(step.rhs)];
    Var<T> v = impl::einsum_step<T>(s, labels[static_cast<std::size_t>(step.lhs)], lhs,
                                    &labels[static_cast<std::size_t>(step.rhs)], &rhs, out);
    values.push_back(std::move(v));
    labels.push_back(out);
  }
  return values.back();
}

template <class T>
Var<T> tensordot(Session& s, const Var<T>& a, const Var<T>& b, Span<const int> axes_a,
                 Span<const int> axes_b) {
  const TensorRead ra(a.value()), rb(b.value());
  const ops::EinsumSpec spec = tfbench::impl::tensordot_spec("ad::tensordot", ra, rb, axes_a, axes_b);
  return impl::einsum_step<T>(s, spec.inputs[0], a, &spec.inputs[1], &b, spec.output);
}

template Var<float> einsum<float>(Session&, std::string_view, Span<const Var<float>>);
template Var<double> einsum<double>(Session&, std::string_view, Span<const Var<double>>);
template Var<float> tensordot<float>(Session&, const Var<float>&, const Var<float>&, Span<const int>,
                                     Span<const int>);
template Var<double> tensordot<double>(Session&, const Var<double>&, const Var<double>&, Span<const int>,
                                       Span<const int>);

}  // namespace tfbench::ad
