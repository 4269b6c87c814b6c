#include "results/schema.hpp"

namespace tfbench::harness::impl {
namespace {

template <class Row>
Column<Row> text(const char* name, std::string Row::*member, const char* description) {
  return {name, member, nullptr, nullptr, "", description};
}
template <class Row>
Column<Row> status(const char* name, RowStatus Row::*member, const char* description) {
  return {name, nullptr, nullptr, nullptr, "", description, member};
}
template <class Row>
Column<Row> integer(const char* name, std::int64_t Row::*member, const char* units, const char* description) {
  return {name, nullptr, member, nullptr, units, description};
}
template <class Row>
Column<Row> number(const char* name, double Row::*member, const char* units, const char* description) {
  return {name, nullptr, nullptr, member, units, description};
}

// Run attributes: documented in docs/results-format.md; their units serve the exports.
template <class Row>
Column<Row> text(const char* name, std::string Row::*member) {
  return text(name, member, "");
}
template <class Row>
Column<Row> integer(const char* name, std::int64_t Row::*member, const char* units) {
  return integer(name, member, units, "");
}
template <class Row>
Column<Row> number(const char* name, double Row::*member, const char* units) {
  return number(name, member, units, "");
}

}  // namespace

const std::vector<Column<WorkerRow>>& worker_columns() {
  using W = WorkerRow;
  static const std::vector<Column<W>> columns = {
      integer("threads", &W::threads, "1", "requested thread configuration (the budget of this worker)"),
      text("exec_space", &W::exec_space, "Kokkos execution space the engine variants ran on"),
      integer("kokkos_threads", &W::kokkos_threads, "1",
              "verified concurrency of the Kokkos host thread pool"),
      integer("blas_threads_requested", &W::blas_threads_requested, "1", "BLAS threads the worker asked for"),
      integer("blas_threads", &W::blas_threads, "1",
              "verified: the BLAS library's own thread count after the request"),
      integer("affinity_cpus", &W::affinity_cpus, "1", "CPUs in the worker's affinity mask"),
      text("omp_proc_bind", &W::omp_proc_bind, "the worker's OMP_PROC_BIND (empty: unset)"),
      number("ceiling_gflops", &W::ceiling_gflops, "GFLOP/s",
             "f64 compute ceiling of this worker (the higher of the FMA throughput and OpenBLAS dgemm, best "
             "sample); NaN: not measured"),
      number("ceiling_gbs", &W::ceiling_gbs, "GB/s",
             "DRAM bandwidth ceiling of this worker (the higher of an OpenMP triad and an in-place kernel, "
             "best sample); NaN: not measured"),
      integer("pid", &W::pid, "", "process id of the worker"),
      text("exit", &W::exit,
           "how the worker ended: ok, signal <n> (<name>), exit <code>, verification failed: <why>, ..."),
      text("omp_places", &W::omp_places, "the worker's OMP_PLACES (empty: unset)"),
      number("startup_s", &W::startup_s, "s",
             "from starting the process until it reported its verified counts"),
      number("ceilings_s", &W::ceilings_s, "s", "measuring the ceilings (0: reused or not measured)"),
      number("ceiling_gflops_f32", &W::ceiling_gflops_f32, "GFLOP/s",
             "f32 compute ceiling measured by this worker (the higher of the FMA throughput and OpenBLAS "
             "sgemm, best of its samples)"),
      number("ceiling_l1_gbs", &W::ceiling_l1_gbs, "GB/s",
             "L1 bandwidth ceiling (triad or in-place kernel in L1, the higher; best sample)"),
      number("ceiling_l2_gbs", &W::ceiling_l2_gbs, "GB/s",
             "L2 bandwidth ceiling (triad or in-place kernel in L2, the higher; best sample)"),
      number("ceiling_llc_gbs", &W::ceiling_llc_gbs, "GB/s",
             "last-level cache bandwidth ceiling (triad or in-place kernel in the LLC, the higher; best "
             "sample)"),
      text("ceilings", &W::ceilings,
           "JSON: each ceiling's best, median and worst sample, sample count and working set; the LLC's "
           "bandwidth at further working sets (llc_sizes); the L1's and L2's bandwidth toward their capacity "
           "(cache_edges, v1.9: where each ends decides memory_level); the cache sizes the levels were sized "
           "by; the "
           "threads (docs/results-format.md, Roofline)"),
      text("ceilings_source", &W::ceilings_source,
           "measured, cached <path> (<when measured>), reused (an earlier worker's) or off"),
      text("blas_core", &W::blas_core,
           "verified: the core whose kernels OpenBLAS loaded in this worker (openblas_get_corename)"),
      text("binding", &W::binding,
           "the CPUs of each thread, read back from it after pinning: `<cores|threads> omp:<cpus>,... "
           "others:<cpus>,...` (OpenMP thread 0, 1, ...; then the other threads, OpenBLAS's), CPUs of one "
           "place joined by '+'; `off`: not pinned (--no-pin, or verification failed first)"),
      text("ceilings_measured", &W::ceilings_measured,
           "JSON of the ceilings this worker measured itself, as `ceilings`, before the cache's best of each "
           "was taken (ceilings_source `measured, with the best of ...`); the same as `ceilings` where "
           "nothing was cached; empty where the worker measured none (cached, reused, off)"),
      text("device", &W::device,
           "the accelerator of a device-space worker as its runtime names it: name, compute capability, "
           "SMs, memory, PCI address, driver and runtime versions; empty on a host space"),
  };
  return columns;
}

const std::vector<Column<ResultRow>>& result_columns() {
  using R = ResultRow;
  static const std::vector<Column<R>> columns = {
      text("case_id", &R::case_id,
           "<family>/<params>/<variant>; with threads and exec_space the key of the row"),
      text("group_id", &R::group_id, "<family>/<params>: the variants of one case share it"),
      text("family", &R::family, "workload family"),
      text("variant", &R::variant, "variant name, e.g. engine:auto or peer:openblas"),
      text("variant_kind", &R::variant_kind, "engine, peer or control"),
      text("provider", &R::provider, "library or code that ran the variant"),
      text("strategy", &R::strategy, "engine strategy of the variant (empty for peers)"),
      text("params", &R::params,
           "JSON object of the case parameters (tfbench export --format csv makes them columns)"),
      text("exec_space", &R::exec_space, "the worker's Kokkos execution space"),
      integer("threads", &R::threads, "1", "requested thread configuration"),
      integer("kokkos_threads", &R::kokkos_threads, "1", "verified Kokkos threads of the worker"),
      integer("blas_threads", &R::blas_threads, "1", "verified BLAS threads of the worker"),
      status("status", &R::status, "ok, check_failed, error, crashed, timed_out, skipped or interrupted"),
      text("error", &R::error, "why the row is not ok"),
      integer("repetitions", &R::repetitions, "1", "samples kept"),
      integer("iterations", &R::iterations, "1", "runs of the instance per sample"),
      number("median_s", &R::median_s, "s", "median over the samples of the seconds per iteration"),
      number("min_s", &R::min_s, "s", "fastest sample, seconds per iteration"),
      number("max_s", &R::max_s, "s", "slowest sample, seconds per iteration"),
      number("mean_s", &R::mean_s, "s", "mean of the samples, seconds per iteration"),
      number("stddev_s", &R::stddev_s, "s", "sample standard deviation (n - 1) of the samples"),
      number("cv", &R::cv, "1", "coefficient of variation: stddev_s / mean_s"),
      number("flops", &R::flops, "flop", "floating-point operations of one run (NaN: not reported)"),
      number("bytes", &R::bytes, "B", "bytes moved by one run (NaN: not reported)"),
      number("gflops", &R::gflops, "GFLOP/s", "flops / median_s / 1e9"),
      number("gbs", &R::gbs, "GB/s", "bytes / median_s / 1e9"),
      number("frac_compute_ceiling", &R::frac_compute_ceiling, "1",
             "gflops / the worker's peak of the row's precision (ceiling_gflops or ceiling_gflops_f32)"),
      number("frac_bandwidth_ceiling", &R::frac_bandwidth_ceiling, "1",
             "the bytes memory_level moves per second (bytes, and from dram also write_allocate_bytes) / the "
             "worker's bandwidth ceiling of that level"),
      text("fastest_peer", &R::fastest_peer, "variant of the fastest ok peer of the same group and worker"),
      number("speedup_vs_fastest_peer", &R::speedup_vs_fastest_peer, "1",
             "median_s of the fastest peer / median_s of this row (>= 1: at least as fast)"),
      number("allocations", &R::allocations, "1", "allocations per run"),
      number("pool_hits", &R::pool_hits, "1", "memory pool hits per run"),
      number("transfers", &R::transfers, "1", "host-device transfers per run"),
      number("bytes_retained", &R::bytes_retained, "B", "bytes the engine keeps allocated after a run"),
      number("max_rel_error", &R::max_rel_error, "1", "largest relative error of the correctness check"),
      number("tolerance", &R::tolerance, "1", "relative error the check allows"),
      number("threshold_pct", &R::threshold_pct, "%",
             "the case's regression threshold for compare (NaN: compare's default)"),
      text("metrics", &R::metrics,
           "JSON object of family-specific numbers (tfbench export --format csv makes them columns)"),
      integer("sample_offset", &R::sample_offset, "1",
              "index of the row's first sample in the samples dataset"),
      integer("sample_count", &R::sample_count, "1", "number of the row's samples"),
      text("finished_utc", &R::finished_utc, "ISO 8601 UTC time the row was written"),
      number("overhead_s", &R::overhead_s, "s", "wall time spent on the row outside its kept samples"),
      integer("worker_pid", &R::worker_pid, "",
              "the worker process that produced the row (workers.pid; 0: none started)"),
      number("case_timeout_s", &R::case_timeout_s, "s", "the time limit of the row's case (0: none)"),
      number("working_set_bytes", &R::working_set_bytes, "B",
             "distinct bytes one run touches (its footprint); decides memory_level"),
      text("precision", &R::precision,
           "f64 or f32: the peak the row's flops are bounded by (empty: no flops)"),
      number("arithmetic_intensity", &R::arithmetic_intensity, "flop/B",
             "flops / the bytes memory_level moves (bytes, and from dram also write_allocate_bytes)"),
      text("memory_level", &R::memory_level,
           "l1, l2, llc or dram: the level working_set_bytes lives in at the worker's threads (L1 and L2 per "
           "core, up to where their measured bandwidth ends: cache_edges of the ceilings)"),
      text("roofline_ceiling", &R::roofline_ceiling,
           "the ceiling that bounds the row: peak_f64, peak_f32 or bw_<memory_level> (empty: no ceilings)"),
      number("roofline_bound_s", &R::roofline_bound_s, "s",
             "seconds per run the roofline allows: max(flops / peak, traffic / bandwidth of memory_level; "
             "peak_beside_gflops and bandwidth_beside_gbs where measured, else the worker's ceilings), the "
             "traffic bytes plus, from dram, write_allocate_bytes"),
      number("roofline_fraction", &R::roofline_fraction, "1",
             "the fraction of the attainable bound (above 1.05: a modelling error, flagged by report): "
             "where the ceilings were measured beside the row in every round, the median over the rounds "
             "of that round's bound over its sample; else roofline_bound_s / median_s"),
      number("write_allocate_bytes", &R::write_allocate_bytes, "B",
             "bytes of `bytes` stored without being read first, through the caches: at memory_level dram "
             "the roofline counts them twice, once for the cache's read of the line (0: none; NaN: no "
             "bytes or an older writer)"),
      number("bandwidth_beside_gbs", &R::bandwidth_beside_gbs, "GB/s",
             "the bandwidth of memory_level measured again in the rounds of the row's case (the best "
             "round): roofline_bound_s divides by it in place of the worker's ceiling (NaN: not measured, "
             "a compute-bound row, or an older writer)"),
      number("peak_beside_gflops", &R::peak_beside_gflops, "GFLOP/s",
             "the FMA peak of the row's precision measured again in the rounds of its case (the best "
             "round): roofline_bound_s divides a compute-bound row's flops by it in place of the "
             "worker's peak (NaN: not measured, a bandwidth-bound row, a GEMM-set peak, or an older "
             "writer)"),
      integer("roofline_threads", &R::roofline_threads, "1",
              "the threads roofline_bound_s assumes: the worker's (their bound plus one handoff, where "
              "the worker measured it), or 1 where one thread's ceilings bound the row more tightly "
              "(0: no bound, or an older writer)"),
      number("handoff_beside_us", &R::handoff_beside_us, "us",
             "one round trip of a cache line between two of the worker's threads, measured again in the "
             "rounds of the row's case (the best round): the handoff roofline_bound_s adds to the bound "
             "of the worker's threads in place of the worker's ceiling (NaN: not measured, a one-thread "
             "worker, no bound, or an older writer)"),
      number("bandwidth_beside_1t_gbs", &R::bandwidth_beside_1t_gbs, "GB/s",
             "in a worker of several threads, one thread's bandwidth of the level that sets one thread's "
             "bound, measured again on one thread in the rounds of the row's case (the best round): one "
             "thread's bound divides by it in place of the cached one-thread ceiling (NaN: not measured, "
             "a one-thread worker, no one-thread ceilings cached, one thread's bound compute-bound, or an "
             "older writer)"),
      number("peak_beside_1t_gflops", &R::peak_beside_1t_gflops, "GFLOP/s",
             "in a worker of several threads, one thread's FMA peak of the row's precision measured again "
             "on one thread in the rounds of its case (the best round), where it sets one thread's bound: "
             "used in place of the cached one-thread peak (NaN: not measured, a one-thread worker, no "
             "one-thread ceilings cached, one thread's bound bandwidth-bound or set by a GEMM peak, or "
             "an older writer)"),
      number("roofline_fraction_lo", &R::roofline_fraction_lo, "1",
             "the lower end of the 90% distribution-free interval of roofline_fraction's median (the "
             "rounds' fractions, or roofline_bound_s over the samples'; NaN: no fraction, fewer than two "
             "samples, or an older writer)"),
      number("roofline_fraction_hi", &R::roofline_fraction_hi, "1",
             "the upper end of that interval (NaN as roofline_fraction_lo)"),
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
      integer("online_cpus", &I::online_cpus, "1"),
      text("compiler", &I::compiler),
      text("build_type", &I::build_type),
      text("build_flags", &I::build_flags),
      text("kokkos_version", &I::kokkos_version),
      text("kokkos_kernels_version", &I::kokkos_kernels_version),
      text("kokkos_spaces", &I::kokkos_spaces),
      text("blas_vendor", &I::blas_vendor),
      text("blas_config", &I::blas_config),
      text("blas_threading", &I::blas_threading),
      integer("seed", &I::seed, ""),
      integer("repetitions_default", &I::repetitions_default, "1"),
      number("min_time_default", &I::min_time_default, "s"),
      text("fault_inject", &I::fault_inject),
      text("build_cpu_model", &I::build_cpu_model),
      text("build_arch", &I::build_arch),
      text("build_isa", &I::build_isa),
      text("build_host_isa", &I::build_host_isa),
      text("run_isa", &I::run_isa),
      text("isa_mismatch", &I::isa_mismatch),
      text("tuning_file", &I::tuning_file),
      text("tuning_sha256", &I::tuning_sha256),
      text("blas_coretype_forced", &I::blas_coretype_forced),
      text("transparent_hugepage", &I::transparent_hugepage),
      text("openmp_runtime", &I::openmp_runtime),
  };
  return attributes;
}

}  // namespace tfbench::harness::impl
