#include "tfbench/engine/ops/impl/einsum_program.hpp"

#include <string>

#include "tfbench/engine/ops/error.hpp"

namespace tfbench::impl {
namespace {

using ops::OpError;
using ops::OpErrorCode;

struct Bound {
  std::vector<ContractOperand> values;
  LabelExtents ext;
};

Bound bind(const ops::EinsumSpec& spec, const RawLayout* inputs, const char* where) {
  Bound b;
  b.values.reserve(spec.inputs.size() * 2);
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    b.values.push_back(fold_operand(spec.inputs[i], inputs[i], where));
    b.ext.bind(b.values.back(), where);
  }
  return b;
}

index_t volume(const LabelList& labels, const LabelExtents& ext) {
  index_t v = 1;
  for (char l : labels) v *= ext[l];
  return v;
}

ContractOperand compact_value(const LabelList& labels, const LabelExtents& ext) {
  ContractOperand v;
  index_t step = 1;
  for (char l : labels) {
    v.labels.push_back(l);
    v.shape.push_back(ext[l]);
    v.strides.push_back(step);
    step *= ext[l];
  }
  return v;
}

}  // namespace

DimList einsum_output_shape(const ops::EinsumSpec& spec, const RawLayout* inputs, const char* where) {
  const Bound b = bind(spec, inputs, where);
  DimList shape;
  for (char l : spec.output) shape.push_back(b.ext[l]);
  return shape;
}

EinsumProgram plan_einsum(const ops::EinsumSpec& spec, const RawLayout* inputs, const index_t* dest_strides,
                          const char* where, PlanOptions options) {
  Bound b = bind(spec, inputs, where);
  EinsumProgram prog;
  prog.inputs = static_cast<int>(spec.inputs.size());
  for (char l : spec.output) prog.out_shape.push_back(b.ext[l]);
  StrideList compact;
  if (!dest_strides) {
    compact = compact_strides(prog.out_shape.data(), static_cast<int>(prog.out_shape.size()));
    dest_strides = compact.data();
  }
  if (prog.inputs == 1) {
    prog.steps.push_back({plan_unary(b.values[0], spec.output, b.ext, dest_strides), 0, -1, -1});
    return prog;
  }

  std::vector<int> alive;
  for (int i = 0; i < prog.inputs; ++i) alive.push_back(i);
  while (alive.size() > 2) {
    // Greedy: among pairs sharing a label (any pair if none do), the smallest intermediate first.
    int best_i = -1, best_j = -1;
    index_t best_size = 0, best_gain = 0;
    bool best_shares = false;
    LabelList best_labels;
    for (std::size_t x = 0; x < alive.size(); ++x) {
      for (std::size_t y = x + 1; y < alive.size(); ++y) {
        const ContractOperand& vx = b.values[alive[x]];
        const ContractOperand& vy = b.values[alive[y]];
        auto needed = [&](char l) {
          if (spec.output.contains(l)) return true;
          for (std::size_t z = 0; z < alive.size(); ++z)
            if (z != x && z != y && b.values[alive[z]].labels.contains(l)) return true;
          return false;
        };
        LabelList result;
        bool shares = false;
        for (char l : vx.labels) {
          if (vy.labels.contains(l)) shares = true;
          if (needed(l)) result.push_back(l);
        }
        for (char l : vy.labels)
          if (!vx.labels.contains(l) && needed(l)) result.push_back(l);
        const index_t size = volume(result, b.ext);
        const index_t gain = size - volume(vx.labels, b.ext) - volume(vy.labels, b.ext);
        const bool better =
            best_i < 0 || (shares && !best_shares) ||
            (shares == best_shares && (size < best_size || (size == best_size && gain < best_gain)));
        if (better) {
          best_i = alive[x];
          best_j = alive[y];
          best_size = size;
          best_gain = gain;
          best_shares = shares;
          best_labels = result;
        }
      }
    }
    ContractionProgram step =
        plan_binary(b.values[best_i], b.values[best_j], best_labels, b.ext, nullptr, options);
    const int id = static_cast<int>(b.values.size());
    b.values.push_back(compact_value(step.result_labels, b.ext));
    prog.intermediate_elements.push_back(volume(step.result_labels, b.ext));
    prog.steps.push_back({std::move(step), best_i, best_j, id});
    std::vector<int> next;
    for (int v : alive)
      if (v != best_i && v != best_j) next.push_back(v);
    next.push_back(id);
    alive.swap(next);
  }
  prog.steps.push_back(
      {plan_binary(b.values[alive[0]], b.values[alive[1]], spec.output, b.ext, dest_strides, options),
       alive[0], alive[1], -1});
  return prog;
}

}  // namespace tfbench::impl
