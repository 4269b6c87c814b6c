#pragma once
// The engine side of tfbench_batched_bench: every engine variant goes through the public operations
// (validation, dtype/space dispatch and route resolution included) in one held session.

#include <cstdint>
#include <memory>
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

/// Starts a CPU backend with `threads` (Kokkos::Serial for 1, OpenMP otherwise) and holds a session.
void engine_setup(int threads);
void engine_teardown();

/// Engine tensors over the bench's buffers (zero copy) for one problem.
class EngineGemm {
 public:
  explicit EngineGemm(const GemmProblem& p);
  ~EngineGemm();
  /// provider: "auto" or an item provider name (forced).
  void run(const std::string& provider);
  /// The route Auto takes, e.g. "outer-parallel x2 specialized".
  std::string route();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

class EngineSolve {
 public:
  explicit EngineSolve(const SolveProblem& p);
  ~EngineSolve();
  /// provider: "auto" or "kokkosbatched" (declares Pivoting::None)
  void run(const std::string& provider);
  std::string route();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

void engine_large_gemm(int n, const double* a, const double* b, double* c);
/// The specialized 2x2 kernel loop with no engine around it (for the overhead measurement).
void raw_specialized_2x2(const GemmProblem& p);

}  // namespace tfbench::bench
