// tfbench_contract_bench: side-by-side timings of this concern's two claims (not a unit test):
//  1. backward / forward time of an AD chain of four contractions (three GEMM-sized matrix
//     products and a full contraction to a scalar), per size;
//  2. per-call cost of a small eager einsum versus a prepared replay and a plan-cache lookup.
// Usage: tfbench_contract_bench [--threads N] [--reps R]. Medians over interleaved repetitions.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tfbench/engine/ad/ad.hpp"
#include "tfbench/engine/core/system_info.hpp"
#include "tfbench/engine/exec/backend.hpp"
#include "tfbench/engine/ops/ops.hpp"

namespace {

using namespace tfbench;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Tensor<double> random_matrix(std::mt19937_64& rng, Index rows, Index cols, double scale) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> data(static_cast<std::size_t>(rows * cols));
  for (auto& x : data) x = scale * u(rng);
  return Tensor<double, DynRank, Host>::from_col_major({rows, cols}, std::move(data)).into_dynamic();
}

void ad_chain(CpuBackend& backend, Index n, int reps) {
  std::mt19937_64 rng(1);
  const double scale = 1.0 / std::sqrt(double(n));
  std::vector<ad::Var<double>> leaves;
  for (int i = 0; i < 4; ++i) leaves.push_back(ad::Var<double>::leaf(random_matrix(rng, n, n, scale)));
  std::vector<double> fwd, bwd;
  auto r = backend.with_session([&](Session& s) {
    for (int rep = 0; rep < reps + 1; ++rep) {
      for (auto& l : leaves) l.zero_grad();
      auto t0 = Clock::now();
      auto t1 = ad::einsum(s, "ij,jk->ik", leaves[0], leaves[1]);
      auto t2 = ad::einsum(s, "ij,jk->ik", t1, leaves[2]);
      auto t3 = ad::einsum(s, "ij,jk->ik", t2, leaves[3]);
      auto loss = ad::einsum(s, "ij,ij->", t3, t3);
      const double f = seconds_since(t0);
      t0 = Clock::now();
      ad::backward(s, loss);
      const double b = seconds_since(t0);
      if (rep > 0) {  // the first repetition warms pools and BLAS buffers
        fwd.push_back(f);
        bwd.push_back(b);
      }
    }
  });
  if (!r) std::printf("session entry failed\n");
  const double mf = median(fwd), mb = median(bwd);
  std::printf("ad_chain n=%-5ld forward %10.1f us  backward %10.1f us  backward/forward %.2f\n", long(n),
              mf * 1e6, mb * 1e6, mb / mf);
}

void eager_vs_prepared(CpuBackend& backend, Index n, int reps) {
  std::mt19937_64 rng(2);
  auto a = random_matrix(rng, n, n, 1.0);
  auto b = random_matrix(rng, n, n, 1.0);
  const int calls = 2000;
  std::vector<double> eager, replay, cached;
  auto r = backend.with_session([&](Session& s) {
    auto prepared = ops::prepare_einsum(s, "ik,kj->ij", a, b);
    for (int rep = 0; rep < reps; ++rep) {  // interleaved: each repetition times all three
      auto t0 = Clock::now();
      for (int i = 0; i < calls; ++i) ops::einsum(s, "ik,kj->ij", a, b);
      eager.push_back(seconds_since(t0) / calls);
      t0 = Clock::now();
      for (int i = 0; i < calls; ++i) prepared.run(s, a, b);
      replay.push_back(seconds_since(t0) / calls);
      t0 = Clock::now();
      for (int i = 0; i < calls; ++i) ops::einsum_cached(s, "ik,kj->ij", a, b);
      cached.push_back(seconds_since(t0) / calls);
    }
  });
  if (!r) std::printf("session entry failed\n");
  const double e = median(eager), p = median(replay), c = median(cached);
  std::printf(
      "einsum n=%-3ld eager %7.3f us  prepared replay %7.3f us  plan-cache lookup %7.3f us  "
      "eager-replay %6.3f us\n",
      long(n), e * 1e6, p * 1e6, c * 1e6, (e - p) * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, reps = 7;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  Kokkos::InitArguments args;
  args.num_threads = threads;
  args.disable_warnings = true;
  Kokkos::initialize(args);
  {
    set_blas_threads(threads);
    CpuBackend backend = CpuBackend::openmp();
    std::printf("threads %d (session budget %d, space %s)\n", threads, backend.context().threads,
                name(backend.context().space));
    for (Index n : {64, 256, 512}) ad_chain(backend, n, reps);
    for (Index n : {4, 16, 64}) eager_vs_prepared(backend, n, reps);
  }
  Kokkos::finalize();
  return 0;
}
