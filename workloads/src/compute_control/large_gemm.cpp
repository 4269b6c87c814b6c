#include "compute_control/large_gemm.hpp"

#include "common/check.hpp"
#include "common/random.hpp"

namespace tfbench::workloads::compute_control {

std::vector<ParamSpec> gemm_params() {
  return {
      int_param("n", "columns of C and B", 2048, 16, 65536),
      int_param("m", "rows of C and A (0: n)", 0, 0, 65536),
      int_param("k", "inner dimension (0: n)", 0, 0, 65536),
      dtype_param(),
  };
}

GemmShape gemm_shape(const ParamReader& p) {
  GemmShape s;
  s.n = p.get_int("n");
  s.m = p.get_int("m") > 0 ? p.get_int("m") : s.n;
  s.k = p.get_int("k") > 0 ? p.get_int("k") : s.n;
  s.element_size = p.get_string("dtype") == "float32" ? 4 : 8;
  return s;
}

Work gemm_work(const GemmShape& s) {
  const double m = static_cast<double>(s.m), n = static_cast<double>(s.n), k = static_cast<double>(s.k);
  Work w{2.0 * m * n * k, (m * k + k * n + m * n) * static_cast<double>(s.element_size)};
  w.precision = flop_precision_of(s.element_size);
  w.write_allocate_bytes = m * n * static_cast<double>(s.element_size);  // C = A B, beta 0
  return w;
}

GemmSeeds gemm_seeds(std::uint64_t run_seed) {
  return {derive_seed(run_seed, 201), derive_seed(run_seed, 202)};
}

template <class T>
void fill_matrix(T* data, std::int64_t rows, std::int64_t cols, std::uint64_t seed, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (std::int64_t c = 0; c < cols; ++c) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto i = static_cast<std::uint64_t>(c * rows + r);
      data[i] = static_cast<T>(random_at(seed, i));
    }
  }
}

template <class T>
CheckResult check_gemm(const GemmShape& s, const GemmSeeds& seeds,
                       const std::function<T(std::int64_t, std::int64_t)>& c_at) {
  constexpr int kSamples = 256;
  std::vector<double> actual, ref;
  for (int q = 0; q < kSamples; ++q) {
    // Entries spread over C, corners included.
    const std::int64_t r = (static_cast<std::int64_t>(q) * 7919) % s.m;
    const std::int64_t c = q == kSamples - 1 ? s.n - 1 : (static_cast<std::int64_t>(q) * 104729) % s.n;
    long double sum = 0.0L;
    for (std::int64_t l = 0; l < s.k; ++l) {
      const long double a = static_cast<T>(random_at(seeds.a, static_cast<std::uint64_t>(l * s.m + r)));
      const long double b = static_cast<T>(random_at(seeds.b, static_cast<std::uint64_t>(c * s.k + l)));
      sum += a * b;
    }
    ref.push_back(static_cast<double>(sum));
    actual.push_back(static_cast<double>(c_at(r, c)));
  }
  return compare_outputs(std::move(actual), ref, tolerance_for<T>(static_cast<double>(s.k)),
                         std::to_string(kSamples) + " entries of C = A B against long-double dot products");
}

template void fill_matrix<double>(double*, std::int64_t, std::int64_t, std::uint64_t, int);
template void fill_matrix<float>(float*, std::int64_t, std::int64_t, std::uint64_t, int);
template CheckResult check_gemm<double>(const GemmShape&, const GemmSeeds&,
                                        const std::function<double(std::int64_t, std::int64_t)>&);
template CheckResult check_gemm<float>(const GemmShape&, const GemmSeeds&,
                                       const std::function<float(std::int64_t, std::int64_t)>&);

}  // namespace tfbench::workloads::compute_control
