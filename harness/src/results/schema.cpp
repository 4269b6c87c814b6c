#include "results/schema.hpp"

namespace tfbench::harness::impl {
namespace {

template <class Row>
Column<Row> text(const char* name, std::string Row::*member) {
  return {name, member, nullptr, nullptr};
}
template <class Row>
Column<Row> integer(const char* name, std::int64_t Row::*member) {
  return {name, nullptr, member, nullptr};
}
template <class Row>
Column<Row> number(const char* name, double Row::*member) {
  return {name, nullptr, nullptr, member};
}

}  // namespace

const std::vector<Column<WorkerRow>>& worker_columns() {
  using W = WorkerRow;
  static const std::vector<Column<W>> columns = {
      integer("threads", &W::threads),
      text("exec_space", &W::exec_space),
      integer("kokkos_threads", &W::kokkos_threads),
      integer("blas_threads_requested", &W::blas_threads_requested),
      integer("blas_threads", &W::blas_threads),
      integer("affinity_cpus", &W::affinity_cpus),
      text("omp_proc_bind", &W::omp_proc_bind),
      number("ceiling_gflops", &W::ceiling_gflops),
      number("ceiling_gbs", &W::ceiling_gbs),
      integer("pid", &W::pid),
      text("exit", &W::exit),
      text("omp_places", &W::omp_places),
      number("startup_s", &W::startup_s),
      number("ceilings_s", &W::ceilings_s),
  };
  return columns;
}

const std::vector<Column<ResultRow>>& result_columns() {
  using R = ResultRow;
  static const std::vector<Column<R>> columns = {
      text("case_id", &R::case_id),
      text("group_id", &R::group_id),
      text("family", &R::family),
      text("variant", &R::variant),
      text("variant_kind", &R::variant_kind),
      text("provider", &R::provider),
      text("strategy", &R::strategy),
      text("params", &R::params),
      text("exec_space", &R::exec_space),
      integer("threads", &R::threads),
      integer("kokkos_threads", &R::kokkos_threads),
      integer("blas_threads", &R::blas_threads),
      text("status", &R::status),
      text("error", &R::error),
      integer("repetitions", &R::repetitions),
      integer("iterations", &R::iterations),
      number("median_s", &R::median_s),
      number("min_s", &R::min_s),
      number("max_s", &R::max_s),
      number("mean_s", &R::mean_s),
      number("stddev_s", &R::stddev_s),
      number("cv", &R::cv),
      number("flops", &R::flops),
      number("bytes", &R::bytes),
      number("gflops", &R::gflops),
      number("gbs", &R::gbs),
      number("frac_compute_ceiling", &R::frac_compute_ceiling),
      number("frac_bandwidth_ceiling", &R::frac_bandwidth_ceiling),
      text("fastest_peer", &R::fastest_peer),
      number("speedup_vs_fastest_peer", &R::speedup_vs_fastest_peer),
      number("allocations", &R::allocations),
      number("pool_hits", &R::pool_hits),
      number("transfers", &R::transfers),
      number("bytes_retained", &R::bytes_retained),
      number("max_rel_error", &R::max_rel_error),
      number("tolerance", &R::tolerance),
      number("threshold_pct", &R::threshold_pct),
      text("metrics", &R::metrics),
      integer("sample_offset", &R::sample_offset),
      integer("sample_count", &R::sample_count),
      text("finished_utc", &R::finished_utc),
      number("overhead_s", &R::overhead_s),
      integer("worker_pid", &R::worker_pid),
      number("case_timeout_s", &R::case_timeout_s),
  };
  return columns;
}

const std::vector<Column<RunInfo>>& run_attributes() {
  using I = RunInfo;
  static const std::vector<Column<I>> attributes = {
      text("status", &I::status),
      text("start_utc", &I::start_utc),
      text("end_utc", &I::end_utc),
      text("tfbench_version", &I::tfbench_version),
      text("git_revision", &I::git_revision),
      text("git_dirty", &I::git_dirty),
      text("command_line", &I::command_line),
      text("config_paths", &I::config_paths),
      text("config_sha256", &I::config_sha256),
      text("hostname", &I::hostname),
      text("cpu_model", &I::cpu_model),
      integer("online_cpus", &I::online_cpus),
      text("compiler", &I::compiler),
      text("build_type", &I::build_type),
      text("build_flags", &I::build_flags),
      text("kokkos_version", &I::kokkos_version),
      text("kokkos_kernels_version", &I::kokkos_kernels_version),
      text("kokkos_spaces", &I::kokkos_spaces),
      text("blas_vendor", &I::blas_vendor),
      text("blas_config", &I::blas_config),
      text("blas_threading", &I::blas_threading),
      integer("seed", &I::seed),
      integer("repetitions_default", &I::repetitions_default),
      number("min_time_default", &I::min_time_default),
      text("fault_inject", &I::fault_inject),
  };
  return attributes;
}

}  // namespace tfbench::harness::impl
