#pragma once
// session_overhead: what entering the engine costs. An empty session entry against an inline call
// and an empty kernel launch; phase lanes of a held session against a plain parallel_for doing the
// same work; a chain of small engine operations in one session, in separate sessions, and as raw
// kernel calls.

#include "tfbench/workloads/family.hpp"

namespace tfbench::workloads {

const Family& session_overhead_family();

}  // namespace tfbench::workloads
