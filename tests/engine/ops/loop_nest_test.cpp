// The strided kernels' index walk (engine/src/ops/kernels): a NestCursor stepping from any start
// visits the offsets KernelNest::offsets gives each flat index, and a RowNest's work items, however
// many rows each walks, cover every row exactly once.

#include <Kokkos_Core.hpp>
#include <catch2/catch.hpp>

#include <map>
#include <vector>

// The row walk is __host__ __device__ under nvcc; the tests call it from the host with lambdas that
// check with Catch2 and count in a std::map, host code, which nvcc warns of (#20011) at the walk's
// own lines: so before its header.
#if defined(__NVCC__)
#pragma nv_diag_suppress 20011
#endif
#include "ops/kernels/map_kernels.hpp"

namespace {

using tfbench::impl::index_t;
using tfbench::impl::KernelNest;
using tfbench::impl::NestCursor;

/// Three operands over extents {3, 5, 2, 4}: the output compact, the inputs permuted and one with a
/// negative stride, so that no two operands step alike.
KernelNest<3> awkward_nest() {
  KernelNest<3> n;
  n.rank = 4;
  const index_t extents[4] = {3, 5, 2, 4};
  const index_t strides[3][4] = {{1, 3, 15, 30}, {40, 8, 1, 2}, {-7, 21, 105, 210}};
  for (int d = 0; d < 4; ++d) {
    n.extent[d] = extents[d];
    for (int k = 0; k < 3; ++k) n.stride[k][d] = strides[k][d];
  }
  return n;
}

}  // namespace

TEST_CASE("a NestCursor steps through the offsets of every flat index", "[ops][loop_nest]") {
  const KernelNest<3> nest = awkward_nest();
  const index_t total = 3 * 5 * 2 * 4;
  for (index_t start : {index_t(0), index_t(1), index_t(14), index_t(59), total - 1}) {
    NestCursor<3> at;
    at.seek(nest, start);
    for (index_t flat = start; flat < total; ++flat) {
      index_t want[3];
      nest.offsets(flat, want);
      INFO("start " << start << ", flat index " << flat);
      REQUIRE(at.off[0] == want[0]);
      REQUIRE(at.off[1] == want[1]);
      REQUIRE(at.off[2] == want[2]);
      at.step(nest);
    }
  }
}

TEST_CASE("offsets of a one-axis nest and of the last axis need no wrap", "[ops][loop_nest]") {
  KernelNest<1> line;
  line.rank = 1;
  line.extent[0] = 10;
  line.stride[0][0] = 3;
  index_t off[1];
  line.offsets(9, off);
  CHECK(off[0] == 27);
  const KernelNest<3> nest = awkward_nest();
  index_t last[3];
  nest.offsets(3 * 5 * 2 * 4 - 1, last);
  CHECK(last[0] == 2 * 1 + 4 * 3 + 1 * 15 + 3 * 30);
  CHECK(last[2] == 2 * -7 + 4 * 21 + 1 * 105 + 3 * 210);
}

TEST_CASE("a RowNest's work items visit every row once, whatever rows each walks", "[ops][loop_nest]") {
  const KernelNest<3> nest = awkward_nest();  // rows along axis 0 (3 long), 40 rows
  const auto visit = [&](const tfbench::impl::RowNest<3>& rows) {
    std::map<index_t, int> seen;  // the output offset of each row's first element -> visits
    for (index_t w = 0; w < rows.work_items(); ++w) {
      rows.for_each_row(w, [&](const index_t(&off)[3], index_t begin, index_t end) {
        CHECK(begin == 0);
        CHECK(end == 3);
        ++seen[off[0]];
        // The row's input offsets are those of its first element in the full nest.
        bool found = false;
        for (index_t f = 0; f < 120; f += 3) {
          index_t o[3];
          nest.offsets(f, o);
          if (o[0] != off[0]) continue;
          found = true;
          CHECK(o[1] == off[1]);
          CHECK(o[2] == off[2]);
        }
        CHECK(found);
      });
    }
    return seen;
  };
  SECTION("one work item walks every row on a one-thread space") {
    const auto rows = tfbench::impl::row_nest(nest, Kokkos::Serial());
    CHECK(rows.work_items() == 1);
    const auto seen = visit(rows);
    CHECK(seen.size() == 40);
    for (const auto& [offset, visits] : seen) CHECK(visits == 1);
  }
  SECTION("rows that do not divide evenly among work items") {
    for (index_t per_item : {index_t(1), index_t(3), index_t(7), index_t(39), index_t(40), index_t(64)}) {
      auto rows = tfbench::impl::row_nest(nest, Kokkos::Serial());
      rows.rows_per_item = per_item;
      INFO(per_item << " rows per work item");
      CHECK(rows.work_items() == (40 + per_item - 1) / per_item);
      const auto seen = visit(rows);
      CHECK(seen.size() == 40);
      for (const auto& [offset, visits] : seen) CHECK(visits == 1);
    }
  }
}

TEST_CASE("walk_chunk: everything for one thread, a share per thread otherwise", "[ops][loop_nest]") {
  CHECK(tfbench::impl::walk_chunk(Kokkos::Serial(), 1000) == 1000);
  CHECK(tfbench::impl::walk_items(1000, 1000) == 1);
  CHECK(tfbench::impl::walk_items(1001, 250) == 5);
#if defined(KOKKOS_ENABLE_OPENMP)
  const index_t threads = Kokkos::OpenMP().concurrency();
  const index_t chunk = tfbench::impl::walk_chunk(Kokkos::OpenMP(), 1000);
  if (threads > 1) {
    CHECK(tfbench::impl::walk_items(1000, chunk) >= threads);
    CHECK(tfbench::impl::walk_items(1000, chunk) <= tfbench::impl::kWalkItemsPerThread * threads);
  } else {
    CHECK(chunk == 1000);
  }
#endif
}
