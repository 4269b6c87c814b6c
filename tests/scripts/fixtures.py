"""Writes synthetic result files that follow docs/results-format.md exactly (schema v1).

Used by the script tests to exercise the readers and figures on files with known content (a
known slowdown, a failed case, a failed worker) independently of the harness. Tests that need
real measurements use `tfbench run` instead.
"""

import fnmatch
import json
import math

import h5py
import numpy as np

STR = h5py.string_dtype("utf-8")

WORKER_DTYPE = np.dtype([
    ("threads", "i8"), ("exec_space", STR), ("kokkos_threads", "i8"),
    ("blas_threads_requested", "i8"), ("blas_threads", "i8"), ("affinity_cpus", "i8"),
    ("omp_proc_bind", STR), ("ceiling_gflops", "f8"), ("ceiling_gbs", "f8"), ("pid", "i8"),
    ("exit", STR),
])

RESULT_DTYPE = np.dtype([
    ("case_id", STR), ("group_id", STR), ("family", STR), ("variant", STR),
    ("variant_kind", STR), ("provider", STR), ("strategy", STR), ("params", STR),
    ("exec_space", STR), ("threads", "i8"), ("kokkos_threads", "i8"), ("blas_threads", "i8"),
    ("status", STR), ("error", STR), ("repetitions", "i8"), ("iterations", "i8"),
    ("median_s", "f8"), ("min_s", "f8"), ("max_s", "f8"), ("mean_s", "f8"), ("stddev_s", "f8"),
    ("cv", "f8"), ("flops", "f8"), ("bytes", "f8"), ("gflops", "f8"), ("gbs", "f8"),
    ("frac_compute_ceiling", "f8"), ("frac_bandwidth_ceiling", "f8"), ("fastest_peer", STR),
    ("speedup_vs_fastest_peer", "f8"), ("allocations", "f8"), ("pool_hits", "f8"),
    ("transfers", "f8"), ("bytes_retained", "f8"), ("max_rel_error", "f8"), ("tolerance", "f8"),
    ("threshold_pct", "f8"), ("metrics", STR), ("sample_offset", "i8"), ("sample_count", "i8"),
    ("finished_utc", STR),
])

# (variant, kind, provider, strategy, seconds per flop at 1 thread, parallel efficiency)
PACKED_VARIANTS = [
    ("engine:auto", "engine", "tfbench", "auto", 1 / 9e9, 0.9),
    ("engine:sequential", "engine", "tfbench", "sequential", 1 / 6e9, 0.0),
    ("engine:outer_parallel", "engine", "tfbench", "outer_parallel", 1 / 8e9, 0.95),
    ("peer:libxsmm", "peer", "libxsmm", "", 1 / 12e9, 0.0),
    ("peer:eigen", "peer", "eigen", "", 1 / 10e9, 0.0),
    ("peer:openblas_loop", "peer", "openblas", "", 1 / 3e9, 0.0),
]


# session_overhead-like family: no work counted (flops = bytes = 0), tens of microseconds per
# iteration, so figures draw time. (variant, kind, provider, seconds per iteration at 1 thread)
OVERHEAD_VARIANTS = [
    ("engine:held_session", "engine", "tfbench", 1.0e-5),
    ("engine:with_session", "engine", "tfbench", 6.0e-5),
    ("peer:inline", "peer", "inline", 2.0e-6),
]
SKIP_ERROR = ("tfbench::ops::batched_gemm: batch route: OuterParallel forced in a one-thread "
              "context [no_route]")


def _time_model(n, spf, eff, threads):
    flops = 2.0 * n ** 3 * 1000
    speedup = 1 + eff * (threads - 1)
    return flops, flops * spf / speedup * (1 + 4.0 / n)  # small sizes pay overhead


def make_run(run_id, rng, *, threads=(1, 2), sizes=(2, 4, 8, 16, 32), reps=9, noise=0.02,
             slowdown=None, revision="0123456789abcdef0123456789abcdef01234567", dirty="false",
             host="node01", start="2026-03-01T10:00:00Z", failed_worker_threads=None,
             crash_case=None, families=("packed_small", "bandwidth_control"), layouts=None,
             skip_case=None):
    """A dict describing one run; `slowdown` maps a case-id glob to a time factor.

    layouts (e.g. ("packed", "strided")): packed_small also sweeps a `layout` parameter (strided
    30% slower), a sweep over two parameters; skip_case: a case-id glob whose rows are `skipped`
    with a route error, as tfbench records variants the engine cannot route. The family
    "session_overhead" counts no work and takes microseconds."""
    workers, rows, samples = [], [], []
    for t in threads:
        ok = t != failed_worker_threads
        workers.append(dict(
            threads=t, exec_space="openmp", kokkos_threads=t if ok else 1,
            blas_threads_requested=t, blas_threads=t if ok else 1, affinity_cpus=t,
            omp_proc_bind="", ceiling_gflops=36.0 * t, ceiling_gbs=18.0 * t ** 0.7, pid=1000 + t,
            exit="ok" if ok else "verification failed: blas_threads 1 != 2"))
        if not ok:
            continue
        cases = []
        if "packed_small" in families:
            for n in sizes:
                for layout in layouts or (None,):
                    params = {"batch": 1000, "n": n}
                    if layout:
                        params["layout"] = layout
                    for v, kind, prov, strat, spf, eff in PACKED_VARIANTS:
                        flops, sec = _time_model(n, spf, eff, t)
                        cases.append(("packed_small", params, v, kind, prov, strat, flops,
                                      3 * 8.0 * n * n * 1000,
                                      sec * (1.3 if layout == "strided" else 1.0)))
        if "session_overhead" in families:
            for op in ("chain", "empty"):
                for v, kind, prov, sec in OVERHEAD_VARIANTS:
                    cases.append(("session_overhead", {"elements": 16384, "op": op}, v, kind, prov,
                                  "", 0.0, 0.0, sec * (2 if op == "chain" else 1)))
        if "bandwidth_control" in families:
            for e in (1 << 20, 1 << 22, 1 << 24):
                for v, kind, prov, gbs in (("engine:triad", "engine", "tfbench", 14.0),
                                          ("peer:openmp_triad", "peer", "openmp", 15.0)):
                    nbytes = 3 * 8.0 * e
                    cases.append(("bandwidth_control", {"elements": e}, v, kind, prov, "",
                                  2.0 * e, nbytes, nbytes / (gbs * 1e9 * t ** 0.7)))
        for fam, params, v, kind, prov, strat, flops, nbytes, sec in cases:
            pstr = ",".join(f"{k}={params[k]}" for k in sorted(params))
            case_id = f"{fam}/{pstr}/{v}"
            for pat, factor in (slowdown or {}).items():
                if fnmatch.fnmatchcase(case_id, pat):
                    sec *= factor
            status, err = "ok", ""
            if crash_case and fnmatch.fnmatchcase(case_id, crash_case):
                status, err = "crashed", "signal 11 (SIGSEGV)"
            if skip_case and fnmatch.fnmatchcase(case_id, skip_case):
                status, err = "skipped", SKIP_ERROR
            s = sec * np.exp(rng.normal(0.0, noise, reps)) if status == "ok" else np.array([])
            off = len(samples)
            samples.extend(s.tolist())
            med = float(np.median(s)) if s.size else math.nan
            rows.append(dict(
                case_id=case_id, group_id=f"{fam}/{pstr}", family=fam, variant=v,
                variant_kind=kind, provider=prov, strategy=strat,
                params=json.dumps(params, sort_keys=True), exec_space="openmp", threads=t,
                kokkos_threads=t, blas_threads=t, status=status, error=err, repetitions=s.size,
                iterations=100, median_s=med, min_s=float(s.min()) if s.size else math.nan,
                max_s=float(s.max()) if s.size else math.nan,
                mean_s=float(s.mean()) if s.size else math.nan,
                stddev_s=float(s.std(ddof=1)) if s.size > 1 else math.nan,
                cv=float(s.std(ddof=1) / s.mean()) if s.size > 1 else math.nan,
                flops=flops, bytes=nbytes, gflops=flops / med / 1e9 if s.size else math.nan,
                gbs=nbytes / med / 1e9 if s.size else math.nan,
                frac_compute_ceiling=math.nan, frac_bandwidth_ceiling=math.nan, fastest_peer="",
                speedup_vs_fastest_peer=math.nan, allocations=0.0, pool_hits=0.0, transfers=0.0,
                bytes_retained=0.0, max_rel_error=1e-15, tolerance=1e-12, threshold_pct=math.nan,
                metrics="{}", sample_offset=off, sample_count=s.size, finished_utc=start))
    return dict(run_id=run_id, attrs=dict(
        status="complete", start_utc=start, end_utc=start, tfbench_version="0.1.0",
        git_revision=revision, git_dirty=dirty,
        command_line="tfbench run configs/ci.yaml --out x.h5", config_paths="configs/ci.yaml",
        config_sha256="ab" * 32, hostname=host, cpu_model="AMD EPYC 7B13 (synthetic)",
        online_cpus=max(threads), compiler="GNU 12.2.0", build_type="Release",
        build_flags="-O3 -march=native", kokkos_version="3.4.1", kokkos_kernels_version="3.4.1",
        kokkos_spaces="openmp,serial", blas_vendor="OpenBLAS", blas_config="OpenBLAS 0.3.21",
        blas_threading="pthread", seed=1, repetitions_default=reps, min_time_default=0.01),
        workers=workers, rows=rows, samples=samples, configs=["family: packed_small\n"])


def _table(group, name, dtype, records):
    arr = np.zeros(len(records), dtype=dtype)
    for i, rec in enumerate(records):
        for k in dtype.names:
            arr[i][k] = rec[k]
    group.create_dataset(name, data=arr, maxshape=(None,), chunks=(max(1, min(64, len(records))),))


def write(path, runs):
    with h5py.File(path, "w") as f:
        f.attrs["schema"] = "tfbench-results"
        f.attrs["schema_version"] = np.int64(1)
        top = f.create_group("runs")
        for run in runs:
            g = top.create_group(run["run_id"])
            for k, v in run["attrs"].items():
                g.attrs[k] = np.int64(v) if isinstance(v, int) else v
            cfg = g.create_group("configs")
            for i, text in enumerate(run["configs"]):
                cfg.create_dataset(str(i), data=text, dtype=STR)
            _table(g, "workers", WORKER_DTYPE, run["workers"])
            _table(g, "results", RESULT_DTYPE, run["rows"])
            g.create_dataset("samples", data=np.asarray(run["samples"], "f8"), maxshape=(None,),
                             chunks=(max(1, min(1024, len(run["samples"]))),))
    return path
