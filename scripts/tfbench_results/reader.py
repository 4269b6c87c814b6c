"""Reads tfbench result files (HDF5 schema `tfbench-results` v1, docs/results-format.md).

The reader checks the contract instead of trusting it: a wrong schema, a newer version, a missing
table or field, or samples outside the samples dataset raise ResultsFormatError naming the file,
the object and what was wrong.
"""

import json
import math

import h5py
import numpy as np

SCHEMA = "tfbench-results"
SCHEMA_VERSION = 1

RUN_ATTRS = (
    "status", "start_utc", "end_utc", "tfbench_version", "git_revision", "git_dirty",
    "command_line", "config_paths", "config_sha256", "hostname", "cpu_model", "online_cpus",
    "compiler", "build_type", "build_flags", "kokkos_version", "kokkos_kernels_version",
    "kokkos_spaces", "blas_vendor", "blas_config", "blas_threading", "seed",
    "repetitions_default", "min_time_default",
)
WORKER_FIELDS = (
    "threads", "exec_space", "kokkos_threads", "blas_threads_requested", "blas_threads",
    "affinity_cpus", "omp_proc_bind", "ceiling_gflops", "ceiling_gbs", "pid", "exit",
)
RESULT_FIELDS = (
    "case_id", "group_id", "family", "variant", "variant_kind", "provider", "strategy", "params",
    "exec_space", "threads", "kokkos_threads", "blas_threads", "status", "error", "repetitions",
    "iterations", "median_s", "min_s", "max_s", "mean_s", "stddev_s", "cv", "flops", "bytes",
    "gflops", "gbs", "frac_compute_ceiling", "frac_bandwidth_ceiling", "fastest_peer",
    "speedup_vs_fastest_peer", "allocations", "pool_hits", "transfers", "bytes_retained",
    "max_rel_error", "tolerance", "threshold_pct", "metrics", "sample_offset", "sample_count",
    "finished_utc",
)
# The fields this package needs; the rest are read when present (a writer may lag the doc).
REQUIRED_WORKER_FIELDS = ("threads", "exec_space", "kokkos_threads", "blas_threads", "exit")
REQUIRED_RESULT_FIELDS = (
    "case_id", "group_id", "family", "variant", "variant_kind", "params", "exec_space", "threads",
    "status", "median_s", "flops", "bytes", "sample_offset", "sample_count",
)


class ResultsFormatError(Exception):
    """A file that does not follow docs/results-format.md; says where and why."""

    def __init__(self, path, where, why):
        super().__init__(f"{path}: {where}: {why}")
        self.path, self.where, self.why = path, where, why


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, np.ndarray) and value.shape == ():
        return _text(value[()])
    if isinstance(value, np.generic):
        return value.item()
    return value


def _table(path, group, name, required):
    where = f"{group.name}/{name}"
    if name not in group:
        raise ResultsFormatError(path, where, "table missing")
    ds = group[name]
    if ds.dtype.names is None:
        raise ResultsFormatError(path, where, f"expected a compound table, found dtype {ds.dtype}")
    missing = [f for f in required if f not in ds.dtype.names]
    if missing:
        raise ResultsFormatError(path, where, "missing field(s) " + ", ".join(missing))
    data = ds[...]
    return [{k: _text(row[k]) for k in ds.dtype.names} for row in np.atleast_1d(data)]


class Worker(dict):
    """One row of a run's workers table."""

    @property
    def verified(self):
        """True when the worker confirmed the thread counts it was asked for (it may still have
        crashed later in a case: see `exit`)."""
        return (not str(self["exit"]).startswith("verification failed")
                and int(self["kokkos_threads"]) == int(self["threads"])
                and int(self["blas_threads"]) == int(self.get("blas_threads_requested", self["threads"])))

    @property
    def ok(self):
        return self["exit"] == "ok"


class Row(dict):
    """One row of a run's results table, with its raw samples (seconds per iteration)."""

    @property
    def key(self):
        """What `tfbench compare` matches rows by."""
        return (self["case_id"], int(self["threads"]), self["exec_space"])

    @property
    def ok(self):
        return self["status"] == "ok"

    @property
    def param_values(self):
        return json.loads(self["params"]) if self["params"] else {}


class Run:
    """One group under /runs: provenance attributes, workers, result rows, config texts."""

    def __init__(self, path, run_id, group):
        self.path, self.id = path, run_id
        self.attrs = {k: _text(v) for k, v in group.attrs.items()}
        for name in ("status", "git_revision", "hostname", "start_utc"):
            if name not in self.attrs:
                raise ResultsFormatError(path, group.name, f"attribute '{name}' missing")
        self.workers = [Worker(w) for w in _table(path, group, "workers", REQUIRED_WORKER_FIELDS)]
        rows = _table(path, group, "results", REQUIRED_RESULT_FIELDS)
        if "samples" not in group:
            raise ResultsFormatError(path, f"{group.name}/samples", "dataset missing")
        samples = np.asarray(group["samples"][...], dtype=np.float64).ravel()
        self.rows = []
        for i, r in enumerate(rows):
            off, cnt = int(r["sample_offset"]), int(r["sample_count"])
            if off < 0 or cnt < 0 or off + cnt > samples.size:
                raise ResultsFormatError(
                    path, f"{group.name}/results[{i}] ({r['case_id']})",
                    f"samples [{off}, {off + cnt}) outside the {samples.size} stored samples")
            row = Row(r)
            row["run_id"] = run_id
            row["samples"] = samples[off:off + cnt]
            self.rows.append(row)
        self.configs = []
        if "configs" in group:
            cfg = group["configs"]
            for name in sorted(cfg.keys(), key=lambda s: int(s) if s.isdigit() else s):
                self.configs.append(_text(cfg[name][()]))

    def __getitem__(self, name):
        return self.attrs.get(name)

    @property
    def revision(self):
        rev = str(self.attrs.get("git_revision") or "unknown")
        return rev + ("+dirty" if self.attrs.get("git_dirty") == "true" else "")


class ResultFile:
    """A result file: its runs, in the order of their start time."""

    def __init__(self, path):
        self.path = str(path)
        try:
            f = h5py.File(self.path, "r")
        except OSError as e:
            raise ResultsFormatError(self.path, "/", f"not a readable HDF5 file ({e})") from None
        with f:
            schema = _text(f.attrs.get("schema"))
            if schema != SCHEMA:
                raise ResultsFormatError(self.path, "/", f"schema is {schema!r}, expected {SCHEMA!r}")
            version = _text(f.attrs.get("schema_version"))
            if version is None or int(version) != SCHEMA_VERSION:
                raise ResultsFormatError(
                    self.path, "/", f"schema_version {version!r}; this reader knows {SCHEMA_VERSION}")
            if "runs" not in f:
                raise ResultsFormatError(self.path, "/runs", "group missing")
            self.runs = [Run(self.path, rid, grp) for rid, grp in f["runs"].items()]
        self.runs.sort(key=lambda r: (str(r["start_utc"]), r.id))

    def rows(self, ok_only=False):
        for run in self.runs:
            for row in run.rows:
                if row.ok or not ok_only:
                    yield row

    def workers(self):
        for run in self.runs:
            for w in run.workers:
                yield run, w


def load(path):
    return ResultFile(path)


def finite(x):
    return x is not None and isinstance(x, (int, float, np.floating)) and math.isfinite(x)
