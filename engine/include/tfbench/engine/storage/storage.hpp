#pragma once
// The engine's storage concern in one include: the tensor family (Tensor, TensorView, TensorViewMut),
// pools, erased operation inputs, transfers and mappings. See docs/storage.md.

#include "tfbench/engine/core/dtype.hpp"
#include "tfbench/engine/storage/erased.hpp"
#include "tfbench/engine/storage/kokkos_view.hpp"
#include "tfbench/engine/storage/lease.hpp"
#include "tfbench/engine/storage/mapping.hpp"
#include "tfbench/engine/storage/pool.hpp"
#include "tfbench/engine/storage/tensor.hpp"
#include "tfbench/engine/storage/transfer.hpp"
