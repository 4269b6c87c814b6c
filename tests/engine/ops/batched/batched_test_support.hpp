#pragma once
// Shared helpers of the batched tests: batches in the test space's memory with chosen item layouts,
// random non-zero data, plain triple-loop references and relative errors.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "ops/batched/item_batch.hpp"
#include "tfbench/engine/ops/impl/kernels.hpp"
#include "tfbench/engine/storage/storage.hpp"

namespace tfbench::testing {

/// A packed [n, n, items] host tensor of `fill` at a 64-byte aligned address: the items where the
/// specialized kernel's and libxsmm's streaming stores of C apply (a std::vector's memory is 16-byte
/// aligned, or page + 16 when large).
/// With `offset_bytes` (a multiple of 8), the items start that far past the 64-byte boundary: at 32,
/// the specialized kernel still streams C, through a tile where a column's lines are not whole.
inline Tensor<double, Rank<3>, Host> aligned_items(Index n, Index items, double fill,
                                                   std::size_t offset_bytes = 0) {
  const std::size_t count = static_cast<std::size_t>(n * n * items), offset = offset_bytes / sizeof(double);
  auto* base =
      static_cast<double*>(std::aligned_alloc(64, ((count + offset) * sizeof(double) + 63) / 64 * 64));
  if (base == nullptr) throw std::bad_alloc();
  double* p = base + offset;
  std::fill(p, p + count, fill);
  return Tensor<double, Rank<3>, Host>::from_managed({n, n, items}, p,
                                                     [base](double*, Index) { std::free(base); });
}

/// Item layouts the tests run: compact items back to back; a padded leading dimension; items
/// interleaved along the batch (batch stride 1); row-major items; items stored in reverse order
/// (negative batch stride).
enum class TestLayout { Packed, Padded, Interleaved, RowMajor, Reversed };

inline const char* layout_name(TestLayout l) {
  switch (l) {
    case TestLayout::Packed:
      return "packed";
    case TestLayout::Padded:
      return "padded";
    case TestLayout::Interleaved:
      return "interleaved";
    case TestLayout::RowMajor:
      return "row-major";
    case TestLayout::Reversed:
      return "reversed";
  }
  return "?";
}

using impl::real_t;  // the engine's own trait: the real type of a (complex) element

template <class T>
double magnitude(const T& v) {
  return std::abs(static_cast<double>(v));
}
template <class T>
double magnitude(const Kokkos::complex<T>& v) {
  return std::abs(std::complex<double>(v.real(), v.imag()));
}

/// A random non-zero value: magnitude in [0.1, 1], random sign (and phase parts for complex).
template <class T>
T random_value(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> mag(0.1, 1.0);
  std::bernoulli_distribution sign(0.5);
  auto one = [&] { return (sign(rng) ? 1.0 : -1.0) * mag(rng); };
  if constexpr (std::is_same<T, Kokkos::complex<real_t<T>>>::value) {
    return T(static_cast<real_t<T>>(one()), static_cast<real_t<T>>(one()));
  } else {
    return static_cast<T>(one());
  }
}

/// A batch of `count` items [rows, cols] in `layout`, stored in MemSpace, with a host copy.
template <class T, class MemSpace>
struct TestBatch {
  Kokkos::View<T*, MemSpace> storage;
  typename Kokkos::View<T*, MemSpace>::HostMirror host;
  impl::batched::ItemBatch<T> batch;       // on MemSpace storage
  impl::batched::ItemBatch<T> host_batch;  // the same layout on the host mirror

  TestBatch(int rows, int cols, std::int64_t count, TestLayout layout, const std::string& label) {
    std::ptrdiff_t rs = 1, cs = rows, bs = std::ptrdiff_t(rows) * cols, offset = 0;
    std::size_t size = std::size_t(rows) * cols * count;
    switch (layout) {
      case TestLayout::Packed:
        break;
      case TestLayout::Padded:
        cs = rows + 3;
        bs = cs * cols + 5;
        size = std::size_t(bs) * count;
        break;
      case TestLayout::Interleaved:
        rs = count;
        cs = std::ptrdiff_t(rows) * count;
        bs = 1;
        break;
      case TestLayout::RowMajor:
        rs = cols;
        cs = 1;
        break;
      case TestLayout::Reversed:
        bs = -std::ptrdiff_t(rows) * cols;
        offset = std::ptrdiff_t(rows) * cols * (count - 1);
        break;
    }
    storage = Kokkos::View<T*, MemSpace>("tfbench::tests::batched::" + label, std::max<std::size_t>(size, 1));
    host = Kokkos::create_mirror_view(storage);
    batch = {storage.data() + offset, rows, cols, count, rs, cs, bs};
    host_batch = {host.data() + offset, rows, cols, count, rs, cs, bs};
  }

  T& at(int r, int c, std::int64_t b) const {
    return host_batch.item(b)[r * host_batch.rs + c * host_batch.cs];
  }

  void fill_random(std::mt19937_64& rng) {
    for (std::int64_t b = 0; b < batch.count; ++b)
      for (int c = 0; c < batch.cols; ++c)
        for (int r = 0; r < batch.rows; ++r) at(r, c, b) = random_value<T>(rng);
    upload();
  }
  void fill(const T& v) {
    Kokkos::deep_copy(host, v);
    upload();
  }
  void upload() { Kokkos::deep_copy(storage, host); }
  void download() { Kokkos::deep_copy(host, storage); }
};

/// max |x - ref| / max |ref| over a whole batch (normwise relative error).
template <class T, class MemSpace, class Ref>
double relative_error(const TestBatch<T, MemSpace>& x, const Ref& ref) {
  double diff = 0, scale = 0;
  for (std::int64_t b = 0; b < x.batch.count; ++b)
    for (int c = 0; c < x.batch.cols; ++c)
      for (int r = 0; r < x.batch.rows; ++r) {
        diff = std::max(diff, magnitude(x.at(r, c, b) - ref(r, c, b)));
        scale = std::max(scale, magnitude(ref(r, c, b)));
      }
  return scale > 0 ? diff / scale : diff;
}

template <class T>
double tolerance() {
  return std::is_same<real_t<T>, float>::value ? 1e-5 : 1e-12;
}

}  // namespace tfbench::testing
