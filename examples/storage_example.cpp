// The storage example of docs/storage.md, compiled and run by tfbench_storage_tests.
#include <complex>
#include <stdexcept>
#include <utility>

#include "tfbench/engine/storage/storage.hpp"

namespace {
void require(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(what);
}
}  // namespace

void storage_example() {
  using namespace tfbench;

  // Host owners: adopt column-major data (no copy) or import row-major data (copy + reorder).
  auto a = Tensor<double, DynRank, Host>::from_col_major({2, 3}, {1, 4, 2, 5, 3, 6});
  auto b = Tensor<double, DynRank, Host>::from_row_major({2, 3}, {1, 2, 3, 4, 5, 6});
  require(a.at(1, 0) == 4 && a.at(0, 2) == 3 && b.at(1, 0) == 4 && b.at(0, 2) == 3, "[2,3] example");

  // Views carry strides: transpose, then reverse the rows. No copy, no heap for rank <= 8.
  auto t = a.view().permute({1, 0}).slice(0, {2, -1, -1});
  require(t.at(0, 1) == 6 && t.stride(0) == -2, "strided view");

  // A complex tensor seen as real pairs: rank 2 complex -> rank 3 real, leading extent 2.
  auto z = Tensor<std::complex<double>, DynRank, Host>::zeros({2, 2});
  z.at(1, 0) = {3, -1};
  auto re = z.view().real_view();
  require(re.at(0, 1, 0) == 3 && re.at(1, 1, 0) == -1, "real view");

  // Device storage: explicit transfers, and a mapping guard for host access.
  Tensor<double, DynRank, Device> d = upload(a);
  {
    auto guard = map_write(d);
    guard.view_mut().at(0, 0) = 10;
  }  // published when the guard ends
  auto back = download(d);
  require(back.at(0, 0) == 10 && back.at(1, 2) == 6, "upload/download");

  // Dynamic (the default representation): narrowing is checked and keeps the owner on failure.
  Tensor<double> dynamic = std::move(d).into_dynamic();
  auto narrowed = std::move(dynamic).into_host();
  require(!narrowed.has_value() && narrowed.error().cause == ConversionCause::NotHostResident, "narrowing");
  Tensor<double, DynRank, Device> kept = std::move(narrowed.error().source).into_device().value();
  require(kept.numel() == 6, "owner kept");

  // Pooled allocation: the block returns to its pool exactly once and is reused.
  auto pool = HostPool::create();
  { auto scratch = Tensor<float, DynRank, Host>::zeros({64}, pool); }
  auto reused = Tensor<float, DynRank, Host>::zeros({64}, pool);
  require(pool->stats().hits == 1 && reused.allocation_kind() == AllocationKind::Pooled, "pool reuse");

  // An erased operation input borrows the layout: dtype dispatch happens once per operation.
  TensorRead input(t);
  require(input.dtype() == DType::F64 && input.layout().strides[0] == -2, "erased input");
}
