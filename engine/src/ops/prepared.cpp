// Prepared einsums: keyed plans from the backend's PlanCache, allocation-free validity checks on replay.

#include "tfbench/engine/ops/prepared.hpp"

#include <string>

#include "../exec/effective_policy.hpp"

namespace tfbench::ops {
namespace {

constexpr const char* kWhere = "ops::PreparedEinsum";

Index compact_stride(const Shape& shape, std::size_t d) {
  Index s = 1;
  for (std::size_t k = 0; k < d; ++k) s *= shape[k];
  return s;
}

/// Equal for planning: same dtype and shape, the same strides on every axis longer than one.
bool same_layout(const TensorRead& r, const OperandLayout& l) {
  if (r.dtype() != l.dtype || r.rank() != l.shape.size()) return false;
  const auto& rl = r.layout();
  for (std::size_t d = 0; d < r.rank(); ++d) {
    if (rl.shape[d] != l.shape[d]) return false;
    const Index want = l.strides.empty() ? compact_stride(l.shape, d) : l.strides[d];
    if (rl.shape[d] > 1 && rl.stride(d) != want) return false;
  }
  return true;
}

bool same_dest(const impl::DestRef* dest, const Strides& planned, const impl::DimList& shape) {
  if (!dest) return planned.empty();
  if (dest->compact) return planned.empty();
  if (planned.empty()) return false;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] > 1 && dest->strides[d] != planned[d]) return false;
  return true;
}

}  // namespace

OperandLayout OperandLayout::of(const TensorRead& r) {
  OperandLayout l;
  l.dtype = r.dtype();
  l.shape = Shape(r.shape());
  if (!r.layout().compact_tag) l.strides = Strides(r.layout().strides);
  return l;
}

void PreparedEinsum::prepare(Session& s) {
  if (operands_.size() != spec_.inputs.size())
    throw OpError(OpErrorCode::InvalidSpec, kWhere,
                  "'" + spec_.to_string() + "' names " + std::to_string(spec_.inputs.size()) + " operands, " +
                      std::to_string(operands_.size()) + " given");
  for (const OperandLayout& l : operands_)
    impl::check_same_dtype(kWhere, l.dtype, operands_[0].dtype, "operand dtypes differ");
  impl::check_numeric(kWhere, operands_[0].dtype);
  dtype_ = operands_[0].dtype;

  PlanKey key = make_plan_key(s, "einsum " + spec_.to_string(), name(dtype_));
  impl::FixedVec<impl::RawLayout, 2 * impl::kMaxOpRank> layouts;
  for (const OperandLayout& l : operands_) {
    const int rank = static_cast<int>(l.shape.size());
    key.add_operand(l.shape.data(), l.strides.empty() ? nullptr : l.strides.data(), rank);
    layouts.push_back({l.shape.data(), l.strides.empty() ? nullptr : l.strides.data(), rank});
  }
  // The destination: compact (empty strides) or the strides run_into was given.
  const impl::DimList out_shape = impl::einsum_output_shape(spec_, layouts.data(), kWhere);
  key.add_operand(out_shape.data(), dest_strides_.empty() ? nullptr : dest_strides_.data(),
                  static_cast<int>(out_shape.size()));
  // The provider choice follows from the key's provider generation and context.
  const impl::PlanOptions options{impl::contraction_uses_blas(s, kWhere),
                                  impl::direct_contraction_muladds(s)};
  plan_ = s.plan_cache().get_or_prepare<impl::EinsumPlan>(key, [&] {
    impl::EinsumPlan plan;
    plan.program = impl::plan_einsum(spec_, layouts.data(),
                                     dest_strides_.empty() ? nullptr : dest_strides_.data(), kWhere, options);
    return plan;
  });
  session_key_ = std::move(key);
  ++preparations_;
}

void PreparedEinsum::ensure(Session& s, Span<const TensorRead* const> ops, const impl::DestRef* dest) {
  bool valid = plan_ != nullptr && ops.size() == operands_.size();
  for (std::size_t i = 0; valid && i < ops.size(); ++i) valid = same_layout(*ops[i], operands_[i]);
  if (valid) valid = same_dest(dest, dest_strides_, plan_->program.out_shape);
  if (valid) {
    // The session's parts of the key, compared in place: building a PlanKey per replay (two strings,
    // a copy of the policy and its tuning's shared_ptr) was a few percent of a small replay.
    const ExecutionContext& c = s.context();
    valid = s.providers().generation() == session_key_.provider_generation &&
            PlanDeviceKey{c.space, c.memory, c.device, c.threads, c.outer_active} == session_key_.device &&
            impl::effective_policy_ref(s) == session_key_.batch_policy;
  }
  if (valid) return;
  operands_.clear();
  for (const TensorRead* r : ops) operands_.push_back(OperandLayout::of(*r));
  dest_strides_ = Strides();
  if (dest && !dest->compact) dest_strides_ = Strides(dest->strides);
  prepare(s);
}

void PreparedEinsum::execute(Session& s, Span<const TensorRead* const> ops, const impl::DestRef& dest) {
  impl::SessionScratch scratch(s);
  const impl::OpContext ctx{impl::exec_target(s), &scratch, true, &s};
  for (const TensorRead* r : ops) impl::check_accessible(kWhere, ctx.target, r->space(), "an operand");
  const auto& shape = plan_->program.out_shape;
  impl::check_same_dtype(kWhere, dest.dtype, dtype_, "destination dtype differs from the operands'");
  impl::check_same_shape(kWhere, dest.shape, Span<const Index>(shape.data(), shape.size()),
                         "destination shape differs from the result's");
  impl::check_accessible(kWhere, ctx.target, dest.space, "the destination");
  for (const TensorRead* r : ops) impl::check_no_overlap(kWhere, dest, *r, false);
  impl::run_program(ctx, plan_->program, dtype_, ops, dest);
}

PreparedEinsum prepare_einsum(Session& s, std::string_view spec, Span<const OperandLayout> operands) {
  PreparedEinsum p;
  p.spec_ = parse_einsum(spec);
  p.operands_.assign(operands.begin(), operands.end());
  p.prepare(s);
  return p;
}

}  // namespace tfbench::ops
