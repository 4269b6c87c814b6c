#pragma once
// One batched_solve case: X_i = A_i^-1 B_i for a batch of n x n systems with nrhs right-hand sides,
// all column-major and packed. A is strictly diagonally dominant by rows and columns (KokkosBatched
// LU does not pivot; LAPACK's partial pivoting then swaps nothing, so every route factors the same
// way). B = A X_true for a known random X_true, so the check needs no solver of its own.

#include "common/param_specs.hpp"
#include "tfbench/workloads/family.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace tfbench::workloads::batched_solve {

struct SolveShape {
  int n = 0;
  int nrhs = 1;
  std::int64_t batch = 0;
  std::size_t element_size = 8;

  std::size_t a_stride() const { return static_cast<std::size_t>(n) * n; }
  std::size_t b_stride() const { return static_cast<std::size_t>(n) * nrhs; }
  std::size_t a_elements() const { return a_stride() * static_cast<std::size_t>(batch); }
  std::size_t b_elements() const { return b_stride() * static_cast<std::size_t>(batch); }
};

std::vector<ParamSpec> solve_params();
SolveShape solve_shape(const ParamReader& p);
/// LAPACK's counts (LAWN 41): getrf 2n^3/3 - n^2/2 + 5n/6, getrs nrhs (2n^2 - n) per item; bytes:
/// A and B read, X written once.
Work solve_work(const SolveShape& s);

struct SolveSeeds {
  std::uint64_t a = 0, x = 0;
};
SolveSeeds solve_seeds(std::uint64_t run_seed);

/// The operands of a case (A packed n x n items, B packed n x nrhs items), written by `threads`.
template <class T>
void fill_system(T* a, T* b, const SolveShape& s, const SolveSeeds& seeds, int threads);

/// Compares X, read through x_at(item, row, rhs), with X_true on the sampled items.
template <class T>
CheckResult check_solve(const SolveShape& s, const SolveSeeds& seeds,
                        const std::function<T(std::int64_t, int, int)>& x_at);

}  // namespace tfbench::workloads::batched_solve
