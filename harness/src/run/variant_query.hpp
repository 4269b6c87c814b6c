#pragma once
// The variants of a plan as a worker decides them, asked of a worker itself. Whether a variant can
// run is decided in the worker, with Kokkos initialized for its threads (an engine route is probed
// there; a process without Kokkos, like the parent, cannot tell), and only there: `run` plans from
// this dry query and sends the decided variants in its jobs, which the worker runs or records as
// skipped without asking the family again; `tfbench list` and `run --dry-run` show the answers.
// One query worker per thread configuration is started as `run` starts a worker.
//
// The query worker plans the same configs for its space and threads and answers on its message fd
// one JSON line per planned variant (protocol.hpp):
//   {"msg":"variant","case_id":"<group>/<variant>","variant":{"name":..,"kind":..,"provider":..,
//    "strategy":..,"available":true|false,"why":".."}}
// or, when Kokkos cannot be started with that many threads, a single line
//   {"msg":"unstartable","why":".."}

#include "tfbench/harness/plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tfbench::harness {

struct VariantQuery {
  std::vector<std::string> configs;
  std::optional<std::string> filter;
  std::optional<std::string> omp_proc_bind, omp_places;  // forced into the workers, as by run
  /// true (list, --dry-run): a worker that cannot start, and a variant it does not offer, show as
  /// skipped with why; false (run): they keep the plan's view, and the run records the worker's
  /// failure (or the family's error) as `error` rows.
  bool listing = true;
};

/// Sets the facts of every planned variant (kind, provider, strategy, whether it can run and why
/// not) to what a worker of its thread configuration answers. Returns a note for each worker that
/// could not answer; its variants keep the parent's view.
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
