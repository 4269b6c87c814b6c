// The engine side of tfbench_batched_bench (see bench_engine.hpp).

#include "bench_engine.hpp"

#include <Kokkos_Core.hpp>

#include <stdexcept>

#include "tfbench/engine/ops/batched/impl/batched_exec.hpp"
#include "tfbench/engine/ops/batched/impl/host_providers.hpp"
#include "tfbench/engine/ops/batched/impl/large_gemm.hpp"

namespace tfbench::bench {

namespace {
int g_threads = 1;
namespace batched = tfbench::impl::batched;

batched::ItemBatch<double> packed(double* p, int rows, int cols, std::int64_t count) {
  return {p, rows, cols, count, 1, rows, std::ptrdiff_t(rows) * cols};
}

batched::ItemsRoute gemm_route(const GemmProblem& p, const std::string& provider) {
  ops::ItemProvider chosen;
  if (provider == "auto") {
    chosen = p.n <= 8 ? ops::ItemProvider::Specialized : ops::ItemProvider::Libxsmm;
  } else {
    chosen = *ops::parse_item_provider(provider);
  }
  if (g_threads > 1) return {batched::RouteMode::OuterParallel, g_threads, chosen};
  return {batched::RouteMode::Sequential, 1, chosen};
}

template <class F>
void on_space(F&& f) {
  if (g_threads > 1) {
    f(Kokkos::OpenMP());
  } else {
    f(Kokkos::Serial());
  }
}
}  // namespace

void engine_setup(int threads) {
  g_threads = threads;
}
void engine_teardown() {}

void engine_gemm(const GemmProblem& p, const std::string& provider) {
  const batched::GemmBatch<double> g{packed(p.a, p.n, p.n, p.batch), packed(p.b, p.n, p.n, p.batch),
                                     packed(p.c, p.n, p.n, p.batch), 1.0, 0.0};
  on_space([&](auto space) { batched::execute_gemm(space, gemm_route(p, provider), g); });
}

std::string engine_gemm_route(const GemmProblem& p) {
  const auto r = gemm_route(p, "auto");
  return std::string(ops::name(r.provider)) + " x" + std::to_string(r.lanes);
}

void engine_solve(const SolveProblem& p, const std::string& provider) {
  const batched::SolveBatch<double> s{packed(p.a, p.n, p.n, p.batch), packed(p.b, p.n, p.nrhs, p.batch),
                                      packed(p.x, p.n, p.nrhs, p.batch)};
  const ops::ItemProvider chosen =
      provider == "auto" ? ops::ItemProvider::Specialized : *ops::parse_item_provider(provider);
  const batched::ItemsRoute route =
      g_threads > 1 ? batched::ItemsRoute{batched::RouteMode::OuterParallel, g_threads, chosen}
                    : batched::ItemsRoute{batched::RouteMode::Sequential, 1, chosen};
  on_space([&](auto space) {
    if (batched::execute_solve(space, route, s).count != 0) throw std::runtime_error("bench: singular item");
  });
}

std::string engine_solve_route(const SolveProblem&) {
  return "specialized";
}

void engine_large_gemm(int n, const double* a, const double* b, double* c) {
  on_space([&](auto space) {
    batched::execute_large_gemm(
        space, 1.0, batched::ItemBatch<const double>(packed(const_cast<double*>(a), n, n, 1)),
        batched::ItemBatch<const double>(packed(const_cast<double*>(b), n, n, 1)), 0.0, packed(c, n, n, 1));
  });
}

void raw_specialized_2x2(const GemmProblem& p) {
  const batched::GemmBatch<double> g{packed(p.a, 2, 2, p.batch), packed(p.b, 2, 2, p.batch),
                                     packed(p.c, 2, 2, p.batch), 1.0, 0.0};
  batched::FixedGemmChunk<double, 2, 2, 2, batched::ItemLayout::Packed, true>{g}(0, 0, p.batch);
}

}  // namespace tfbench::bench
