// The engine side of tfbench_batched_bench (see bench_engine.hpp).

#include "bench_engine.hpp"

#include <Kokkos_Core.hpp>

#include <stdexcept>

#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/exec/phase.hpp"
#include "tfbench/engine/ops/batched/impl/specialized_gemm.hpp"
#include "tfbench/engine/ops/batched_gemm.hpp"
#include "tfbench/engine/ops/batched_solve.hpp"
#include "tfbench/engine/ops/gemm.hpp"

namespace tfbench::bench {

namespace {

using Tensor3 = Tensor<double, Rank<3>, Host>;
using Tensor2 = Tensor<double, Rank<2>, Host>;

std::unique_ptr<CpuBackend> g_backend;
std::unique_ptr<HeldSession> g_held;

Session& session() {
  return g_held->session();
}

/// A zero-copy owner over the bench's buffer (a managed allocation whose deleter does nothing).
template <class T>
T over(double* p, typename T::extents_type shape) {
  return T::from_managed(shape, p, [](double*, Index) {});
}

ops::BatchedOptions options_for(const std::string& provider) {
  ops::BatchedOptions o;
  if (provider != "auto") {
    o.provider = ops::parse_item_provider(provider);
    if (!o.provider) throw std::runtime_error("bench: unknown provider " + provider);
    if (*o.provider == ops::ItemProvider::KokkosBatched) o.pivoting = ops::Pivoting::None;
  }
  return o;
}

}  // namespace

void engine_setup(int threads) {
  g_backend = std::make_unique<CpuBackend>(CpuBackend::openmp(threads));
  g_held.reset(new HeldSession(g_backend->hold()));
  if (!g_held->ok()) throw std::runtime_error("bench: could not hold a session: " + g_held->error().message);
}

void engine_teardown() {
  g_held.reset();
  g_backend.reset();
}

struct EngineGemm::State {
  Tensor3 a, b, c;
  TensorView<double, Rank<3>, Host> av, bv;
  TensorViewMut<double, Rank<3>, Host> cv;
  State(const GemmProblem& p)
      : a(over<Tensor3>(p.a, {Index(p.n), Index(p.n), Index(p.batch)})),
        b(over<Tensor3>(p.b, {Index(p.n), Index(p.n), Index(p.batch)})),
        c(over<Tensor3>(p.c, {Index(p.n), Index(p.n), Index(p.batch)})),
        av(a.view()),
        bv(b.view()),
        cv(c.view_mut()) {}
};

EngineGemm::EngineGemm(const GemmProblem& p) : state_(std::make_unique<State>(p)) {}
EngineGemm::~EngineGemm() = default;

void EngineGemm::run(const std::string& provider) {
  auto r =
      ops::batched_gemm_into(session(), state_->av, state_->bv, state_->cv, 1.0, 0.0, options_for(provider));
  if (!r) throw std::runtime_error(r.error().what());
}

std::string EngineGemm::route() {
  auto r = ops::batched_gemm_into(session(), state_->av, state_->bv, state_->cv, 1.0, 0.0);
  return r ? ops::describe(*r) : r.error().what();
}

struct EngineSolve::State {
  Tensor3 a, b, x;
  TensorView<double, Rank<3>, Host> av, bv;
  TensorViewMut<double, Rank<3>, Host> xv;
  State(const SolveProblem& p)
      : a(over<Tensor3>(p.a, {Index(p.n), Index(p.n), Index(p.batch)})),
        b(over<Tensor3>(p.b, {Index(p.n), Index(p.nrhs), Index(p.batch)})),
        x(over<Tensor3>(p.x, {Index(p.n), Index(p.nrhs), Index(p.batch)})),
        av(a.view()),
        bv(b.view()),
        xv(x.view_mut()) {}
};

EngineSolve::EngineSolve(const SolveProblem& p) : state_(std::make_unique<State>(p)) {}
EngineSolve::~EngineSolve() = default;

void EngineSolve::run(const std::string& provider) {
  auto r = ops::batched_solve_into(session(), state_->av, state_->bv, state_->xv, options_for(provider));
  if (!r) throw std::runtime_error(r.error().what());
}

std::string EngineSolve::route() {
  auto r = ops::batched_solve_into(session(), state_->av, state_->bv, state_->xv);
  return r ? ops::describe(*r) : r.error().what();
}

void engine_large_gemm(int n, const double* a, const double* b, double* c) {
  // Owners are cheap (no copy); build them per call like a caller would.
  auto at = over<Tensor2>(const_cast<double*>(a), {Index(n), Index(n)});
  auto bt = over<Tensor2>(const_cast<double*>(b), {Index(n), Index(n)});
  auto ct = over<Tensor2>(c, {Index(n), Index(n)});
  auto cv = ct.view_mut();
  auto r = ops::gemm_into(session(), at, bt, cv);
  if (!r) throw std::runtime_error(r.error().what());
}

void raw_specialized_2x2(const GemmProblem& p) {
  namespace batched = tfbench::impl::batched;
  const batched::ItemBatch<const double> a{p.a, 2, 2, p.batch, 1, 2, 4}, b{p.b, 2, 2, p.batch, 1, 2, 4};
  const batched::ItemBatch<double> c{p.c, 2, 2, p.batch, 1, 2, 4};
  batched::FixedGemmChunk<double, 2, 2, 2, batched::ItemLayout::Packed, true>{{a, b, c, 1.0, 0.0}}(0, 0,
                                                                                                   p.batch);
}

}  // namespace tfbench::bench
