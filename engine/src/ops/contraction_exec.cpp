// Execution of contraction and einsum programs: pack what the plan says, run the route's kernel or
// GEMMs, copy a scratch product into a strided destination when the plan asks for it.

#include <atomic>

#include "tfbench/engine/ops/contraction_stats.hpp"
#include "tfbench/engine/ops/impl/einsum_program.hpp"
#include "tfbench/engine/ops/impl/kernels.hpp"

namespace tfbench {
namespace impl {
namespace {

struct Counters {
  std::atomic<std::uint64_t> unary{0}, elementwise_product{0}, all_batch{0}, direct{0}, gemm{0},
      batched_gemm{0}, gemm_calls{0}, borrowed{0}, packed{0}, via_scratch{0};
};
Counters& counters() {
  static Counters c;
  return c;
}
void bump(std::atomic<std::uint64_t>& c, std::uint64_t n = 1) {
  c.fetch_add(n, std::memory_order_relaxed);
}

int rank_of(const DimList& e) {
  return static_cast<int>(e.size());
}

template <class T>
const T* run_pack(const ExecTarget& target, const PackStep& pack, const T* src, ScratchArena* scratch) {
  if (pack.kind == PackStep::Kind::None) return src;
  T* dst = scratch->take<T>(pack.elements);
  if (pack.kind == PackStep::Kind::Copy) {
    run_unary<T>(target, UnaryKind::Copy, T(1), pack.shape.data(), rank_of(pack.shape),
                 {dst, pack.out.data()}, {src, pack.in.data()});
  } else {
    run_sum<T>(target, T(1), pack.shape.data(), rank_of(pack.shape), pack.reduced.data(),
               {dst, pack.out.data()}, {src, pack.in.data()});
  }
  return dst;
}

template <class T>
void run_gemms(const OpContext& ctx, const ContractionProgram& p, const T* a, const T* b, T* c) {
  const int r = rank_of(p.batch.shape);
  if (r == 0) {
    large_gemm<T>(ctx.target, p.gm, p.gn, p.gk, a, p.a_form, b, p.b_form, c, p.c_form);
    bump(counters().gemm_calls);
    return;
  }
  // The innermost merged batch axis goes to one batched call; any further axes loop here.
  const index_t count = p.batch.shape[0];
  DimList idx;
  idx.resize(r, 0);
  index_t oa = 0, ob = 0, oc = 0;
  std::uint64_t calls = 0;
  while (true) {
    if (ctx.session) {
      batched_gemm_items<T>(*ctx.session, p.gm, p.gn, p.gk, count, a + oa, p.a_form, p.batch.a[0], b + ob,
                            p.b_form, p.batch.b[0], c + oc, p.c_form, p.batch.out[0]);
      ++calls;
    } else {
      for (index_t i = 0; i < count; ++i, ++calls)
        large_gemm<T>(ctx.target, p.gm, p.gn, p.gk, a + oa + i * p.batch.a[0], p.a_form,
                      b + ob + i * p.batch.b[0], p.b_form, c + oc + i * p.batch.out[0], p.c_form);
    }
    int d = 1;
    for (; d < r; ++d) {
      ++idx[d];
      oa += p.batch.a[d];
      ob += p.batch.b[d];
      oc += p.batch.out[d];
      if (idx[d] < p.batch.shape[d]) break;
      oa -= p.batch.a[d] * p.batch.shape[d];
      ob -= p.batch.b[d] * p.batch.shape[d];
      oc -= p.batch.out[d] * p.batch.shape[d];
      idx[d] = 0;
    }
    if (d >= r) break;
  }
  bump(counters().gemm_calls, calls);
}

}  // namespace

template <class T>
void run_contraction(const OpContext& ctx, const ContractionProgram& p, const T* a, const T* b, T* dest) {
  const ExecTarget& target = ctx.target;
  ScratchArena* scratch = ctx.scratch;
  if (p.empty) return;
  if (p.zero) {
    return run_fill<T>(target, T(0), p.dest.shape.data(), rank_of(p.dest.shape), {dest, p.dest.out.data()});
  }
  if (p.route == ContractionRoute::Unary) {
    bump(counters().unary);
    if (p.pack_a.kind == PackStep::Kind::Copy) {
      run_unary<T>(target, UnaryKind::Copy, T(1), p.pack_a.shape.data(), rank_of(p.pack_a.shape),
                   {dest, p.pack_a.out.data()}, {a, p.pack_a.in.data()});
    } else {
      run_sum<T>(target, T(1), p.pack_a.shape.data(), rank_of(p.pack_a.shape), p.pack_a.reduced.data(),
                 {dest, p.pack_a.out.data()}, {a, p.pack_a.in.data()});
    }
    return;
  }
  bump(counters().borrowed, static_cast<std::uint64_t>(p.borrowed_operands));
  bump(counters().packed, static_cast<std::uint64_t>(p.packed_operands));
  const T* ea = run_pack(target, p.pack_a, a, scratch);
  const T* eb = run_pack(target, p.pack_b, b, scratch);
  switch (p.route) {
    case ContractionRoute::ElementwiseProduct:
      bump(counters().elementwise_product);
      if (p.all_batch) bump(counters().all_batch);
      return run_binary<T>(target, BinaryKind::Mul, T(1), T(0), p.outer.shape.data(), rank_of(p.outer.shape),
                           {dest, p.outer.out.data()}, {ea, p.outer.a.data()}, {eb, p.outer.b.data()});
    case ContractionRoute::Direct:
      bump(counters().direct);
      return run_direct_contract<T>(target, p.outer.shape.data(), rank_of(p.outer.shape),
                                    {dest, p.outer.out.data()}, {ea, p.outer.a.data()},
                                    {eb, p.outer.b.data()}, p.inner.shape.data(), rank_of(p.inner.shape),
                                    p.inner.a.data(), p.inner.b.data());
    case ContractionRoute::Gemm:
    case ContractionRoute::BatchedGemm: {
      bump(p.route == ContractionRoute::Gemm ? counters().gemm : counters().batched_gemm);
      T* c = p.out_via_scratch ? scratch->take<T>(p.out_scratch_elements) : dest;
      run_gemms<T>(ctx, p, ea, eb, c);
      if (p.out_via_scratch) {
        bump(counters().via_scratch);
        run_unary<T>(target, UnaryKind::Copy, T(1), p.finish.shape.data(), rank_of(p.finish.shape),
                     {dest, p.finish.out.data()}, {c, p.finish.a.data()});
      }
      return;
    }
    case ContractionRoute::Unary:
      return;
  }
}

template <class T>
void run_einsum(const OpContext& ctx, const EinsumProgram& program, const T* const* inputs, T* dest) {
  // Values: the borrowed inputs, then intermediates in scratch as their steps produce them.
  FixedVec<const T*, 2 * kMaxOpRank> values;
  for (int i = 0; i < program.inputs; ++i) values.push_back(inputs[i]);
  std::size_t next_intermediate = 0;
  for (const EinsumStep& step : program.steps) {
    T* out = dest;
    if (step.result >= 0) out = ctx.scratch->take<T>(program.intermediate_elements[next_intermediate++]);
    run_contraction<T>(ctx, step.program, values[step.lhs], step.rhs >= 0 ? values[step.rhs] : nullptr, out);
    if (step.result >= 0) values.push_back(out);
  }
}

#define TFBENCH_OPS_CONTRACTION_INSTANTIATE(T)                                                           \
  template void run_contraction<T>(const OpContext&, const ContractionProgram&, const T*, const T*, T*); \
  template void run_einsum<T>(const OpContext&, const EinsumProgram&, const T* const*, T*);
TFBENCH_OPS_CONTRACTION_INSTANTIATE(float)
TFBENCH_OPS_CONTRACTION_INSTANTIATE(double)
TFBENCH_OPS_CONTRACTION_INSTANTIATE(Kokkos::complex<double>)

}  // namespace impl

namespace ops {

ContractionStats contraction_stats() {
  auto& c = impl::counters();
  auto ld = [](const std::atomic<std::uint64_t>& v) { return v.load(std::memory_order_relaxed); };
  ContractionStats s;
  s.unary = ld(c.unary);
  s.elementwise_product = ld(c.elementwise_product);
  s.all_batch = ld(c.all_batch);
  s.direct = ld(c.direct);
  s.gemm = ld(c.gemm);
  s.batched_gemm = ld(c.batched_gemm);
  s.gemm_calls = ld(c.gemm_calls);
  s.borrowed_operands = ld(c.borrowed);
  s.packed_operands = ld(c.packed);
  s.output_via_scratch = ld(c.via_scratch);
  return s;
}

void reset_contraction_stats() {
  auto& c = impl::counters();
  for (auto* v : {&c.unary, &c.elementwise_product, &c.all_batch, &c.direct, &c.gemm, &c.batched_gemm,
                  &c.gemm_calls, &c.borrowed, &c.packed, &c.via_scratch})
    v->store(0, std::memory_order_relaxed);
}

}  // namespace ops
}  // namespace tfbench
