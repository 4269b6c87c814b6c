#pragma once
// Execution of a resolved batched route on a Kokkos execution space. Everything here runs after
// validation and route resolution: the batch is valid and the provider applies to it.

#include <cstdint>

#include "fan_out_check.hpp"
#include "specialized_gemm.hpp"
#include "specialized_solve.hpp"
#include "tfbench/engine/ops/item_providers.hpp"

namespace tfbench::impl::batched {

/// How a resolved route runs the batch: on the caller (Sequential), in `lanes` contiguous chunks on
/// the session's space (OuterParallel), one provider call per item (ProviderItems), or one vendor call.
enum class RouteMode { Sequential, OuterParallel, ProviderItems, WholeBatchVendor };

struct ItemsRoute {
  RouteMode mode = RouteMode::Sequential;
  int lanes = 1;
  ops::ItemProvider provider = ops::ItemProvider::Specialized;
  // libxsmm: dispatch the kernel that prefetches the next item's operands; GEMM, specialized: prefetch
  // them where the items' kernel can (specialized_prefetches)
  bool prefetch = false;
  bool stream_c = false;  // GEMM, specialized and libxsmm: streaming stores of C where the items allow
  // GEMM, specialized: the 256-bit kernel where the items have two (specialized_two_widths)
  bool narrow = false;
  // OuterParallel chosen by Auto: the fan-out check may withhold it (fan_out_check.hpp)
  bool checked = false;
};

/// Whether `provider` can compute this batch on a space of this kind (dtype, layout, scalars).
template <class Space, class T>
bool gemm_provider_applies(ops::ItemProvider provider, const GemmBatch<T>& g);
template <class Space, class T>
bool solve_provider_applies(ops::ItemProvider provider, const SolveBatch<T>& s);

/// Whether `provider` writes this batch's C with streaming stores when its route asks for them (host
/// builds with the instructions; beta = 0; the items' alignment and size, per provider).
template <class T>
bool streams_c_on(ops::ItemProvider provider, const GemmBatch<T>& g);

/// C_i = alpha A_i B_i + beta C_i on `space` along `route`; returns the items lane 0 ran (the batch's
/// count on one lane; an OpenMP fan-out's learned split, lane_balance.hpp) and whether the fan-out
/// check ran the batch on the calling thread (run_lanes.hpp).
template <class Space, class T>
LanesRan execute_gemm(const Space& space, const ItemsRoute& route, const GemmBatch<T>& g);

/// A solve's outcome: its singular items and what its lanes ran (as execute_gemm's).
struct SolveRan {
  SingularItems singular;
  LanesRan lanes;
};

/// X_i = A_i^{-1} B_i on `space` along `route`; reports the singular items (X of a singular item is
/// unspecified; every other item is solved).
template <class Space, class T>
SolveRan execute_solve(const Space& space, const ItemsRoute& route, const SolveBatch<T>& s);

}  // namespace tfbench::impl::batched
