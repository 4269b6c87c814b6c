#pragma once
// resident_chain: a chain of dependent engine operations on Device tensors (steps of
// Y <- (1/n) Y W + 0.5 Y as an einsum and an axpby) with every transfer counted: kept resident and
// downloaded once, against the same chain downloading after each step, and against the same chain
// written with raw Kokkos Views. On a host build the device is host memory; the rows record it.

#include "tfbench/workloads/family.hpp"

namespace tfbench::workloads {

const Family& resident_chain_family();

}  // namespace tfbench::workloads
