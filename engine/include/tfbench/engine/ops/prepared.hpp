#pragma once
// Prepared einsums: labels validated, path chosen and every step lowered (which operand
// is borrowed or packed how, the GEMM shapes and transposes, scratch sizes) once, under a validity
// key {operation and spec, dtype, operand and destination shapes/strides, provider generation,
// device/context, effective batch policy}. The plan holds values only, never operand pointers; it
// lives in the backend's bounded PlanCache, so several PreparedEinsums and einsum_cached calls share it.
//
//   auto p = ops::prepare_einsum(s, "ik,kj->ij", a, b);  // layouts only: the data is not kept
//   auto c = p.run(s, a2, b2);                          // fresh data of the same layouts: replay
//   p.run_into(s, c_view, a3, b3);                      // strided destination: keyed too
//
// A replay compares its operands' dtype, shapes and strides and the session's key parts with the
// plan's (no allocation); any difference re-prepares through the cache (preparations() counts it).

#include <memory>
#include <string_view>
#include <vector>

#include "tfbench/engine/exec/plan_cache.hpp"
#include "tfbench/engine/ops/einsum.hpp"
#include "tfbench/engine/ops/impl/einsum_erased.hpp"

namespace tfbench::impl {
/// The cached value of a prepared einsum: its lowered program (values only).
struct EinsumPlan final : PreparedOp {
  EinsumProgram program;
};
}  // namespace tfbench::impl

namespace tfbench::ops {

/// An operand layout a plan is keyed on (no data): dtype, shape, strides (empty: compact).
struct OperandLayout {
  DType dtype = DType::F64;
  Shape shape;
  Strides strides;

  static OperandLayout of(const TensorRead& r);
  template <class X, class = std::enable_if_t<impl::operand_traits<std::decay_t<X>>::typed>>
  static OperandLayout of(const X& x) {
    return of(TensorRead(x));
  }
};

class PreparedEinsum {
 public:
  const EinsumSpec& spec() const { return spec_; }
  DType dtype() const { return dtype_; }
  /// How many times a plan was obtained (1 after prepare_einsum; +1 per re-preparation).
  std::uint64_t preparations() const { return preparations_; }
  /// The lowered program (steps, routes) of the current plan.
  const impl::EinsumProgram& program() const { return plan_->program; }

  /// Replays on fresh operands into a compact result (a session output lease).
  template <class A, class... More>
  Tensor<impl::element_of<A>, DynRank, impl::rep_of<A>> run(Session& s, const A& a, const More&... more) {
    using T = impl::element_of<A>;
    using Rep = impl::rep_of<A>;
    const TensorRead reads[] = {TensorRead(a), TensorRead(more)...};
    const TensorRead* ptrs[1 + sizeof...(More)];
    for (std::size_t i = 0; i < 1 + sizeof...(More); ++i) ptrs[i] = &reads[i];
    const Span<const TensorRead* const> ops(ptrs, 1 + sizeof...(More));
    ensure(s, ops, nullptr);
    impl::check_output_rep<Rep>("ops::PreparedEinsum::run", s);
    impl::check_same_dtype("ops::PreparedEinsum::run", dtype_, dtype_of<T>(),
                           "operand vs result element type");
    const auto& shape = plan_->program.out_shape;
    impl::Output<T, DynRank, Rep> out(s, Shape(shape.begin(), shape.end()));
    execute(s, ops, out.dest());
    return std::move(out).publish(s);
  }

  /// Replays into any injective destination of the result shape (its layout is part of the key).
  template <class O, class A, class... More>
  void run_into(Session& s, O&& out, const A& a, const More&... more) {
    const TensorRead reads[] = {impl::as_read(a), impl::as_read(more)...};
    const TensorRead* ptrs[1 + sizeof...(More)];
    for (std::size_t i = 0; i < 1 + sizeof...(More); ++i) ptrs[i] = &reads[i];
    const Span<const TensorRead* const> ops(ptrs, 1 + sizeof...(More));
    const impl::DestRef d = impl::as_dest(out);
    ensure(s, ops, &d);
    execute(s, ops, d);
    impl::complete(s);
  }

 private:
  friend PreparedEinsum prepare_einsum(Session& s, std::string_view spec, Span<const OperandLayout> operands);
  PreparedEinsum() = default;

  /// Re-prepares when the operands, destination layout or session key parts differ from the plan's.
  void ensure(Session& s, Span<const TensorRead* const> ops, const impl::DestRef* dest);
  void prepare(Session& s);
  void execute(Session& s, Span<const TensorRead* const> ops, const impl::DestRef& dest);

  EinsumSpec spec_;
  DType dtype_ = DType::F64;
  std::vector<OperandLayout> operands_;
  Strides dest_strides_;  // empty: compact destination
  PlanKey session_key_;   // the session parts of the key the plan was prepared under
  std::shared_ptr<const impl::EinsumPlan> plan_;
  std::uint64_t preparations_ = 0;
};

/// Prepares `spec` for operands of these layouts (one dtype) and a compact destination.
PreparedEinsum prepare_einsum(Session& s, std::string_view spec, Span<const OperandLayout> operands);
/// Prepares from the layouts of tensors or views (their data is not retained).
template <class A, class... More>
PreparedEinsum prepare_einsum(Session& s, std::string_view spec, const A& a, const More&... more) {
  const OperandLayout layouts[] = {OperandLayout::of(impl::as_read(a)),
                                   OperandLayout::of(impl::as_read(more))...};
  return prepare_einsum(s, spec, Span<const OperandLayout>(layouts, 1 + sizeof...(More)));
}

/// An eager einsum whose plan comes from the session's PlanCache (hit: no planning at all).
template <class A, class... More>
Tensor<impl::element_of<A>, DynRank, impl::rep_of<A>> einsum_cached(Session& s, std::string_view spec,
                                                                    const A& a, const More&... more) {
  auto prepared = prepare_einsum(s, spec, a, more...);
  return prepared.run(s, a, more...);
}

}  // namespace tfbench::ops
