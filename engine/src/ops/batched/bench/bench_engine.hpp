#pragma once
// The engine side of tfbench_batched_bench: each variant goes through the engine's public operations
// (route resolution, validation and dispatch included).

#include <cstdint>
#include <string>

namespace tfbench::bench {

struct GemmProblem {
  int n;
  std::int64_t batch;
  double* a;
  double* b;
  double* c;
};

struct SolveProblem {
  int n;
  int nrhs;
  std::int64_t batch;
  double* a;
  double* b;
  double* x;
};

void engine_setup(int threads);
void engine_teardown();
/// provider: "auto" or an item provider name.
void engine_gemm(const GemmProblem& p, const std::string& provider);
std::string engine_gemm_route(const GemmProblem& p);
void engine_solve(const SolveProblem& p, const std::string& provider);
std::string engine_solve_route(const SolveProblem& p);
void engine_large_gemm(int n, const double* a, const double* b, double* c);
/// The specialized 2x2 kernel loop with no engine around it (for the overhead measurement).
void raw_specialized_2x2(const GemmProblem& p);

}  // namespace tfbench::bench
