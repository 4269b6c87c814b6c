#include "batched_solve/solve_batch.hpp"

#include "common/check.hpp"
#include "common/random.hpp"
#include "packed_small/gemm_batch.hpp"

namespace tfbench::workloads::batched_solve {

std::vector<ParamSpec> solve_params() {
  return {
      int_param("n", "rows = columns of every system", 8, 2, 32),
      int_param("nrhs", "right-hand sides per system", 1, 1, 64),
      int_param("batch", "systems in the batch (ignored when working_set_mib > 0)", 512, 1, 1e9),
      double_param("working_set_mib", "A+B+X working set in MiB; > 0 derives the batch from it", 0.0, 0.0,
                   65536.0),
      dtype_param(),
  };
}

SolveShape solve_shape(const ParamReader& p) {
  SolveShape s;
  s.n = static_cast<int>(p.get_int("n"));
  s.nrhs = static_cast<int>(p.get_int("nrhs"));
  s.element_size = p.get_string("dtype") == "float32" ? 4 : 8;
  const double mib = p.get_double("working_set_mib");
  if (mib > 0.0) {
    const double item =
        static_cast<double>(s.a_stride() + 2 * s.b_stride()) * static_cast<double>(s.element_size);
    s.batch = std::max<std::int64_t>(1, static_cast<std::int64_t>(mib * 1024.0 * 1024.0 / item));
  } else {
    s.batch = p.get_int("batch");
  }
  return s;
}

Work solve_work(const SolveShape& s) {
  const double n = s.n, r = s.nrhs, items = static_cast<double>(s.batch);
  const double getrf = 2.0 * n * n * n / 3.0 - n * n / 2.0 + 5.0 * n / 6.0;
  const double getrs = r * (2.0 * n * n - n);
  Work w{(getrf + getrs) * items, (n * n + 2.0 * n * r) * items * static_cast<double>(s.element_size)};
  w.precision = flop_precision_of(s.element_size);
  return w;
}

SolveSeeds solve_seeds(std::uint64_t run_seed) {
  return {derive_seed(run_seed, 301), derive_seed(run_seed, 302)};
}

namespace {
/// A_i(r, c): off-diagonal uniform in [0.5, 1.5], diagonal that plus 1.5 n (dominant both ways).
inline double a_value(const SolveSeeds& seeds, const SolveShape& s, std::int64_t item, int r, int c) {
  const std::uint64_t k =
      static_cast<std::uint64_t>(item) * s.a_stride() + static_cast<std::uint64_t>(c) * s.n + r;
  return random_at(seeds.a, k) + (r == c ? 1.5 * s.n : 0.0);
}
inline double x_value(const SolveSeeds& seeds, const SolveShape& s, std::int64_t item, int r, int j) {
  return random_at(seeds.x,
                   static_cast<std::uint64_t>(item) * s.b_stride() + static_cast<std::uint64_t>(j) * s.n + r);
}
}  // namespace

template <class T>
void fill_system(T* a, T* b, const SolveShape& s, const SolveSeeds& seeds, int threads) {
  const int n = s.n;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (std::int64_t i = 0; i < s.batch; ++i) {
    T* ai = a + static_cast<std::size_t>(i) * s.a_stride();
    T* bi = b + static_cast<std::size_t>(i) * s.b_stride();
    for (int c = 0; c < n; ++c) {
      for (int r = 0; r < n; ++r) ai[c * n + r] = static_cast<T>(a_value(seeds, s, i, r, c));
    }
    // B = A X_true from the rounded A, in long double, then rounded once.
    for (int j = 0; j < s.nrhs; ++j) {
      for (int r = 0; r < n; ++r) {
        long double sum = 0.0L;
        for (int k = 0; k < n; ++k)
          sum += static_cast<long double>(ai[k * n + r]) * x_value(seeds, s, i, k, j);
        bi[j * n + r] = static_cast<T>(sum);
      }
    }
  }
}

template <class T>
CheckResult check_solve(const SolveShape& s, const SolveSeeds& seeds,
                        const std::function<T(std::int64_t, int, int)>& x_at) {
  std::vector<double> actual, ref;
  const auto items = packed_small::checked_items(s.batch);
  for (const std::int64_t i : items) {
    for (int j = 0; j < s.nrhs; ++j) {
      for (int r = 0; r < s.n; ++r) {
        ref.push_back(x_value(seeds, s, i, r, j));
        actual.push_back(static_cast<double>(x_at(i, r, j)));
      }
    }
  }
  // Well conditioned (cond < 2): the error is the factorization's rounding, growing with n.
  return compare_outputs(std::move(actual), ref, tolerance_for<T>(4.0 * s.n),
                         "X = A^-1 B on " + std::to_string(items.size()) + " of " + std::to_string(s.batch) +
                             " systems against the known solution");
}

template void fill_system<double>(double*, double*, const SolveShape&, const SolveSeeds&, int);
template void fill_system<float>(float*, float*, const SolveShape&, const SolveSeeds&, int);
template CheckResult check_solve<double>(const SolveShape&, const SolveSeeds&,
                                         const std::function<double(std::int64_t, int, int)>&);
template CheckResult check_solve<float>(const SolveShape&, const SolveSeeds&,
                                        const std::function<float(std::int64_t, int, int)>&);

}  // namespace tfbench::workloads::batched_solve
