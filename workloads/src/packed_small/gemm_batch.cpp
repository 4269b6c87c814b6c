#include "packed_small/gemm_batch.hpp"

#include "common/check.hpp"
#include "common/random.hpp"

#include <algorithm>

namespace tfbench::workloads::packed_small {

std::vector<ParamSpec> gemm_batch_params() {
  return {
      int_param("n", "rows = columns = inner dimension of every item", 8, 2, 32),
      int_param("batch", "items in the batch (ignored when working_set_mib > 0)", 512, 1, 1e9),
      double_param("working_set_mib", "A+B+C working set in MiB; > 0 derives the batch from it", 0.0, 0.0,
                   65536.0),
      string_param("layout", "packed: items contiguous; strided: leading dimension n + pad", "packed",
                   {"packed", "strided"}),
      int_param("pad", "extra rows per column of a strided item (leading dimension n + pad)", 3, 1, 64),
      dtype_param(),
  };
}

GemmBatchShape gemm_batch_shape(const ParamReader& p) {
  GemmBatchShape s;
  s.n = static_cast<int>(p.get_int("n"));
  s.packed = p.get_string("layout") == "packed";
  s.ld = s.packed ? s.n : s.n + static_cast<int>(p.get_int("pad"));
  s.stride = static_cast<std::int64_t>(s.ld) * s.n;
  s.element_size = p.get_string("dtype") == "float32" ? 4 : 8;
  const double mib = p.get_double("working_set_mib");
  if (mib > 0.0) {
    const double item_bytes = 3.0 * static_cast<double>(s.stride) * static_cast<double>(s.element_size);
    s.batch = std::max<std::int64_t>(1, static_cast<std::int64_t>(mib * 1024.0 * 1024.0 / item_bytes));
  } else {
    s.batch = p.get_int("batch");
  }
  return s;
}

Work gemm_batch_work(const GemmBatchShape& s, const bool c_streamed) {
  const double n = s.n;
  const double items = static_cast<double>(s.batch);
  const double operand_bytes = n * n * items * static_cast<double>(s.element_size);
  Work w{2.0 * n * n * n * items, 3.0 * operand_bytes};
  w.precision = flop_precision_of(s.element_size);
  w.write_allocate_bytes = c_streamed ? 0.0 : operand_bytes;
  return w;
}

GemmBatchSeeds gemm_batch_seeds(std::uint64_t run_seed) {
  return {derive_seed(run_seed, 101), derive_seed(run_seed, 102)};
}

template <class T>
void fill_operand(T* data, const GemmBatchShape& s, std::uint64_t seed, int threads) {
  const int n = s.n;
  const std::int64_t items = s.batch;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (std::int64_t i = 0; i < items; ++i) {
    const std::uint64_t base = static_cast<std::uint64_t>(i) * n * n;
    for (int c = 0; c < n; ++c) {
      for (int r = 0; r < n; ++r) data[s.offset(i, r, c)] = static_cast<T>(random_at(seed, base + c * n + r));
    }
  }
}

std::vector<std::int64_t> checked_items(std::int64_t batch) {
  constexpr std::int64_t kMaxChecked = 4096;
  std::vector<std::int64_t> items;
  if (batch <= kMaxChecked) {
    for (std::int64_t i = 0; i < batch; ++i) items.push_back(i);
    return items;
  }
  for (std::int64_t k = 0; k < kMaxChecked; ++k) items.push_back(k * (batch - 1) / (kMaxChecked - 1));
  return items;
}

template <class T>
CheckResult check_gemm_batch(const GemmBatchShape& s, const GemmBatchSeeds& seeds,
                             const std::function<T(std::int64_t, int, int)>& c_at) {
  const int n = s.n;
  std::vector<double> actual, ref;
  const auto items = checked_items(s.batch);
  actual.reserve(items.size() * n * n);
  ref.reserve(items.size() * n * n);
  std::vector<long double> a(static_cast<std::size_t>(n) * n), b(a.size());
  for (const std::int64_t i : items) {
    const std::uint64_t base = static_cast<std::uint64_t>(i) * n * n;
    for (std::size_t k = 0; k < a.size(); ++k) {
      // The reference multiplies exactly the values the variant got (rounded to T).
      a[k] = static_cast<T>(random_at(seeds.a, base + k));
      b[k] = static_cast<T>(random_at(seeds.b, base + k));
    }
    for (int c = 0; c < n; ++c) {
      for (int r = 0; r < n; ++r) {
        long double sum = 0.0L;
        for (int k = 0; k < n; ++k)
          sum += a[static_cast<std::size_t>(k) * n + r] * b[static_cast<std::size_t>(c) * n + k];
        ref.push_back(static_cast<double>(sum));
        actual.push_back(static_cast<double>(c_at(i, r, c)));
      }
    }
  }
  return compare_outputs(std::move(actual), ref, tolerance_for<T>(n),
                         "C = A B on " + std::to_string(items.size()) + " of " + std::to_string(s.batch) +
                             " items against a long-double reference");
}

template void fill_operand<double>(double*, const GemmBatchShape&, std::uint64_t, int);
template void fill_operand<float>(float*, const GemmBatchShape&, std::uint64_t, int);
template CheckResult check_gemm_batch<double>(const GemmBatchShape&, const GemmBatchSeeds&,
                                              const std::function<double(std::int64_t, int, int)>&);
template CheckResult check_gemm_batch<float>(const GemmBatchShape&, const GemmBatchSeeds&,
                                             const std::function<float(std::int64_t, int, int)>&);

}  // namespace tfbench::workloads::packed_small
