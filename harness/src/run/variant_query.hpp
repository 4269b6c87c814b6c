#pragma once
// Which variants a worker would skip, and why, asked of a worker itself. Whether a variant can run
// is decided in the worker, with Kokkos initialized for its threads (an engine route is probed
// there; a process without Kokkos, like the parent, cannot tell). `tfbench list` and
// `run --dry-run` start one worker per thread configuration in this query mode, as `run` starts
// it, and show its answers.
//
// The query worker plans the same configs for its space and threads and answers on its message fd
// one line per planned variant, tab-separated (no JSON: nothing in the answer needs it):
//   variant <TAB> <case id> <TAB> <why it would be skipped; empty: it runs>
// or, when Kokkos cannot be started with that many threads, a single line
//   unstartable <TAB> <why>

#include "tfbench/harness/plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tfbench::harness {

struct VariantQuery {
  std::vector<std::string> configs;
  std::optional<std::string> filter;
  std::optional<std::string> omp_proc_bind, omp_places;  // forced into the workers, as by run
};

/// Sets `unavailable` of every planned variant to what a worker of its thread configuration
/// answers. Returns a note for each worker that could not answer; its variants keep the parent's
/// view.
std::vector<std::string> ask_workers_for_variants(RunPlan& plan, const VariantQuery& query);

namespace impl {

/// What the hidden `tfbench worker --query-variants` was asked.
struct VariantQueryArgs {
  ExecSpaceKind space = ExecSpaceKind::Serial;
  int threads = 1;
  std::vector<std::string> configs;
  std::optional<std::string> filter;
};

/// The query worker: starts Kokkos as a worker does, plans the configs for its space and threads,
/// and answers on `message_fd`. Returns its exit code: 0 answered, 2 unusable config, 3 Kokkos
/// cannot start with these threads.
int query_variants_main(int message_fd, const VariantQueryArgs& args);

}  // namespace impl
}  // namespace tfbench::harness
