#!/usr/bin/python3
"""End-to-end tests of the tfbench executable: each runs the real binary and reads its HDF5 output
back with h5py and h5dump.

    tfbench_e2e.py TEST --tfbench PATH --source-dir DIR --work-dir DIR
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

ARGS = None


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def config(name):
    return os.path.join(ARGS.source_dir, "tests", "e2e", "configs", name)


def work(name):
    return os.path.join(ARGS.work_dir, name)


def fresh(name):
    """A path in the work directory with nothing there yet (tests rerun in the same build tree)."""
    path = work(name)
    if os.path.exists(path):
        os.remove(path)
    return path


def tfbench(*args, env=None, expect=None):
    """Runs tfbench; returns (exit code, stdout, stderr); checks the exit code when `expect` is set."""
    environment = dict(os.environ)
    environment.pop("TFBENCH_FAULT_INJECT", None)
    environment.update(env or {})
    started = time.time()
    proc = subprocess.run([ARGS.tfbench, *args], capture_output=True, text=True, env=environment, timeout=600)
    print("$ tfbench %s  -> exit %d in %.1f s" % (" ".join(args), proc.returncode, time.time() - started))
    if expect is not None and proc.returncode != expect:
        print(proc.stdout)
        print(proc.stderr, file=sys.stderr)
        fail("tfbench %s: exit %d, expected %d" % (" ".join(args), proc.returncode, expect))
    return proc.returncode, proc.stdout, proc.stderr


def only_run(path):
    with h5py.File(path, "r") as f:
        check(text(f.attrs["schema"]) == "tfbench-results", "schema attribute")
        check(int(f.attrs["schema_version"]) == 1, "schema_version attribute")
        runs = list(f["runs"].keys())
        check(len(runs) == 1, "one run in %s, found %s" % (path, runs))
        return runs[0]


def rows_of(path):
    """Result rows as dicts (strings decoded), each with its samples, and the workers."""
    with h5py.File(path, "r") as f:
        run = f["runs"][only_run(path)]
        samples = run["samples"][...]
        table = run["results"][...]
        rows = []
        for r in table:
            row = {name: (text(r[name]) if isinstance(r[name], bytes) else r[name]) for name in table.dtype.names}
            row["samples"] = samples[r["sample_offset"]: r["sample_offset"] + r["sample_count"]]
            rows.append(row)
        workers = []
        wtable = run["workers"][...]
        for w in wtable:
            workers.append({name: (text(w[name]) if isinstance(w[name], bytes) else w[name]) for name in wtable.dtype.names})
        attrs = {k: (text(v) if isinstance(v, bytes) else v) for k, v in run.attrs.items()}
        return attrs, workers, rows


def max_threads():
    return len(os.sched_getaffinity(0))


def h5dump_reads(path, dataset=None):
    args = ["h5dump", "-H", path] if dataset is None else ["h5dump", "-d", dataset, path]
    proc = subprocess.run(args, capture_output=True, text=True)
    check(proc.returncode == 0, "h5dump %s failed: %s" % (path, proc.stderr))
    return proc.stdout


def check_verified(workers, rows):
    for w in workers:
        t = int(w["threads"])
        check(w["exit"] == "ok", "worker exit: %s" % w["exit"])
        check(int(w["kokkos_threads"]) == t, "worker kokkos_threads %s != %d" % (w["kokkos_threads"], t))
        check(int(w["blas_threads"]) == t, "worker blas_threads %s != %d" % (w["blas_threads"], t))
        check(int(w["affinity_cpus"]) >= t, "worker affinity_cpus %s < %d" % (w["affinity_cpus"], t))
    for r in rows:
        check(int(r["kokkos_threads"]) == int(r["threads"]), "row kokkos_threads")
        check(int(r["blas_threads"]) == int(r["threads"]), "row blas_threads")


def test_smoke():
    """configs/smoke.yaml at [1, max]: every row ok, verified thread counts, full provenance, readable by
    h5py, h5dump and tfbench report."""
    out = fresh("smoke.h5")
    _, stdout, _ = tfbench("run", os.path.join(ARGS.source_dir, "configs", "smoke.yaml"), "--out", out, expect=0)
    check("results: " + out in stdout, "the summary names the file")
    attrs, workers, rows = rows_of(out)
    check(attrs["status"] == "complete", "run status %s" % attrs["status"])
    for key in ["start_utc", "end_utc", "tfbench_version", "git_revision", "compiler", "build_flags", "kokkos_version",
                "kokkos_spaces", "blas_vendor", "blas_config", "hostname", "cpu_model", "config_sha256", "command_line"]:
        check(attrs.get(key, "") != "", "run attribute %s is empty" % key)
    with open(os.path.join(ARGS.source_dir, "configs", "smoke.yaml")) as f:
        smoke_text = f.read()
    with h5py.File(out, "r") as f:
        run = f["runs"][only_run(out)]
        check(text(run["configs"]["0"][()]) == smoke_text, "configs/0 holds the config text")
    threads = sorted({int(w["threads"]) for w in workers})
    check(threads == sorted({1, max_threads()}), "thread configurations %s" % threads)
    check_verified(workers, rows)
    for w in workers:
        check(float(w["ceiling_gflops"]) > 0 and float(w["ceiling_gbs"]) > 0, "ceilings measured")
    # Generic for every family the smoke config runs; a peer unavailable here is `skipped`.
    check(len(rows) > 0 and all(r["status"] in ("ok", "skipped") for r in rows),
          "every row ok or skipped: %s" % sorted({(r["case_id"], r["status"], r["error"]) for r in rows
                                                  if r["status"] not in ("ok", "skipped")}))
    check(any(r["status"] == "ok" for r in rows), "something was measured")
    ok_peer_groups = {(r["group_id"], r["threads"]) for r in rows if r["status"] == "ok" and r["variant_kind"] == "peer"}
    for r in rows:
        if r["status"] != "ok":
            check(r["error"] != "", "a skipped row says why")
            continue
        check(len(r["samples"]) == int(r["repetitions"]) >= 1, "samples kept per repetition")
        check(abs(np.median(r["samples"]) - r["median_s"]) <= 1e-12 * r["median_s"], "median_s is the samples' median")
        check(r["max_rel_error"] <= r["tolerance"], "check passed")
        if np.isfinite(r["bytes"]):
            check(abs(r["gbs"] - r["bytes"] / r["median_s"] / 1e9) <= 1e-9 * r["gbs"], "gbs = bytes / median")
        if (r["group_id"], r["threads"]) in ok_peer_groups:
            check(r["fastest_peer"] != "" and r["speedup_vs_fastest_peer"] > 0, "fastest peer and speedup recorded")
        check(isinstance(json.loads(r["params"]), dict), "params is a JSON object")
    triads = [r for r in rows if r["family"] == "bandwidth_control" and r["status"] == "ok"]
    check(triads and all(r["fastest_peer"] == "peer:openmp" for r in triads), "triad rows against their OpenMP peer")
    header = h5dump_reads(out)
    check("results" in header and "samples" in header and "workers" in header, "h5dump shows the tables")
    h5dump_reads(out, "/runs/%s/results" % only_run(out))
    _, report, _ = tfbench("report", out, expect=0)
    check(only_run(out) in report, "report names the run")
    check("peer:openmp" in report and "GB/s" in report, "report shows rows with rates")


def test_verification():
    """Workers verify thread counts before timing: OMP_PROC_BIND in the caller's environment is
    removed (verification passes), forcing it pins the worker and fails verification, and more
    threads than CPUs fail it too. Failures are errors in the workers table and in every row."""
    n = max_threads()
    if n >= 2:
        out = fresh("bind_env.h5")
        tfbench("run", config("tiny.yaml"), "--threads", "max", "--no-ceilings", "--out", out,
                env={"OMP_PROC_BIND": "true", "OMP_PLACES": "cores"}, expect=0)
        _, workers, rows = rows_of(out)
        check_verified(workers, rows)
        check(workers[0]["omp_proc_bind"] == "", "OMP_PROC_BIND removed in the worker")

        out = fresh("bind_forced.h5")
        _, stdout, _ = tfbench("run", config("tiny.yaml"), "--threads", "max", "--no-ceilings", "--out", out,
                               "--omp-proc-bind", "true", expect=1)
        check("verification failed" in stdout, "run reports the failed verification")
        attrs, workers, rows = rows_of(out)
        check(len(workers) == 1, "one worker")
        check(workers[0]["exit"].startswith("verification failed: the affinity mask holds 1 CPU(s)"),
              "workers.exit: %s" % workers[0]["exit"])
        check(workers[0]["omp_proc_bind"] == "true", "forced OMP_PROC_BIND recorded")
        check(int(workers[0]["affinity_cpus"]) == 1, "pinned worker sees one CPU")
        check(rows and all(r["status"] == "error" and r["error"].startswith("verification failed") for r in rows),
              "every row is an error")
        check(all(len(r["samples"]) == 0 for r in rows), "nothing timed")
    else:
        print("note: one CPU only; the OMP_PROC_BIND part needs two")

    out = fresh("oversubscribed.h5")
    tfbench("run", config("tiny.yaml"), "--threads", str(n + 1), "--no-ceilings", "--out", out, expect=1)
    _, workers, rows = rows_of(out)
    check("verification failed" in workers[0]["exit"] and "CPU(s) for %d threads" % (n + 1) in workers[0]["exit"],
          "oversubscription fails verification: %s" % workers[0]["exit"])
    check(all(r["status"] == "error" for r in rows), "rows are errors")
    rc, stdout, _ = tfbench("info", "--threads", "1,%d" % (n + 1))
    check(rc == 1 and "verified" in stdout and "FAILED" in stdout, "info shows verified and failed workers")


def test_crash():
    """A worker killed by SIGSEGV (and another by SIGABRT) in the middle: cases measured before stay
    intact, the culprits are recorded crashed with their signal, fresh workers finish the rest."""
    out = fresh("crash.h5")
    faults = "crash:bandwidth_control/elements=8192/peer:openmp;abort:bandwidth_control/elements=16384/kokkos"
    _, stdout, _ = tfbench("run", config("tiny.yaml"), "--threads", "1", "--no-ceilings", "--out", out,
                           env={"TFBENCH_FAULT_INJECT": faults}, expect=1)
    check("starting a fresh worker" in stdout, "the run says it restarts")
    attrs, workers, rows = rows_of(out)
    check(attrs["status"] == "complete", "the run completes")
    by_id = {r["case_id"]: r for r in rows}
    check(len(rows) == 6, "every case has a row: %s" % sorted(by_id))
    segv = by_id["bandwidth_control/elements=8192/peer:openmp"]
    check(segv["status"] == "crashed" and "signal 11 (SIGSEGV) while checking" in segv["error"], segv["error"])
    abrt = by_id["bandwidth_control/elements=16384/kokkos"]
    check(abrt["status"] == "crashed" and "signal 6 (SIGABRT)" in abrt["error"], abrt["error"])
    for case in ["elements=4096/kokkos", "elements=4096/peer:openmp", "elements=8192/kokkos",
                 "elements=16384/peer:openmp"]:
        r = by_id["bandwidth_control/" + case]
        check(r["status"] == "ok" and len(r["samples"]) == 5, "%s survived: %s" % (case, r["status"]))
    # The rows measured before the first crash were written by the first worker.
    first = by_id["bandwidth_control/elements=4096/kokkos"]
    check(int(first["worker_pid"]) == int(workers[0]["pid"]), "first rows from the first worker")
    check([w["exit"] for w in workers] == ["signal 11 (SIGSEGV)", "signal 6 (SIGABRT)", "ok"],
          "worker exits %s" % [w["exit"] for w in workers])
    h5dump_reads(out)


def test_compare_setup():
    for name in ["a1.h5", "a2.h5", "slow.h5"]:
        fresh(name)
    tfbench("run", config("compare.yaml"), "--no-ceilings", "--out", work("a1.h5"), expect=0)
    tfbench("run", config("compare.yaml"), "--no-ceilings", "--out", work("a2.h5"), expect=0)
    # 5 ms of busy-wait after every run of the Kokkos variant: 30x to 1000x slower at these sizes.
    tfbench("run", config("compare.yaml"), "--no-ceilings", "--out", work("slow.h5"),
            env={"TFBENCH_FAULT_INJECT": "delay:*/kokkos:5000"}, expect=0)


def compare_json(base, new, *extra, expect):
    _, stdout, _ = tfbench("compare", base, new, "--format", "json", *extra, expect=expect)
    return json.loads(stdout)


def test_compare_aa():
    """Two runs of the same configuration: no regression, exit 0 under --fail-on-regression."""
    doc = compare_json(work("a1.h5"), work("a2.h5"), "--fail-on-regression", expect=0)
    check(doc["summary"]["REGRESSION"] == 0, "A/A has no regression")
    check(doc["summary"]["compared"] == 4, "every row matched")
    check(all(r["threshold_from_config"] and r["threshold_pct"] == 900 for r in doc["rows"]),
          "per-case thresholds come from the config")
    for fmt in ["table", "markdown"]:
        _, stdout, _ = tfbench("compare", work("a1.h5"), work("a2.h5"), "--format", fmt, expect=0)
        check("compared" in stdout, "summary line in %s output" % fmt)


def test_compare_regression():
    """The delay hook slows the Kokkos variant down: REGRESSION for it, exit 1 only under
    --fail-on-regression; unusable input exits 2."""
    doc = compare_json(work("a1.h5"), work("slow.h5"), "--fail-on-regression", expect=1)
    rows = {r["case_id"]: r for r in doc["rows"]}
    check(len(rows) == 4, "every row compared")
    for case, r in rows.items():
        print("%s: %s, ratio %.3g, p %.3g" % (case, r["verdict"], r["ratio"], r["p"]))
        if case.endswith("/kokkos"):
            check(r["verdict"] == "REGRESSION" and r["ratio"] > 10 and r["p"] < 0.05,
                  "%s: the delayed variant is a significant REGRESSION" % case)
            # The slowdown belongs to the delayed variant, not to its interleaved peer.
            peer = rows[case.replace("/kokkos", "/peer:openmp")]
            check(peer["ratio"] < r["ratio"] / 3, "%s: the peer is far less affected" % case)
    compare_json(work("a1.h5"), work("slow.h5"), expect=0)
    rc, _, stderr = tfbench("compare", work("a1.h5"), work("missing.h5"))
    check(rc == 2 and "unusable input" in stderr, "missing file exits 2")
    with open(work("not.h5"), "w") as f:
        f.write("not an HDF5 file")
    rc, _, stderr = tfbench("compare", work("a1.h5"), work("not.h5"))
    check(rc == 2 and "not an HDF5 file" in stderr, "non-HDF5 input exits 2")


def test_merge():
    """merge keeps every run with its provenance and rows; a run id collision gets a suffix."""
    out = fresh("merged.h5")
    _, stdout, _ = tfbench("merge", work("a1.h5"), work("a2.h5"), work("slow.h5"), work("a1.h5"), "-o", out, expect=0)
    check("merged 4 run(s)" in stdout, stdout)
    originals = {}
    for path in [work("a1.h5"), work("a2.h5"), work("slow.h5")]:
        with h5py.File(path, "r") as f:
            for run_id, run in f["runs"].items():
                originals[run_id] = ({k: run.attrs[k] for k in run.attrs}, run["results"][...], run["samples"][...])
    with h5py.File(out, "r") as f:
        runs = f["runs"]
        check(len(runs) == 4, "four runs: %s" % list(runs))
        for run_id, run in runs.items():
            source = run_id[:-2] if run_id.endswith("-2") else run_id
            attrs, results, samples = originals[source]
            for k, v in attrs.items():
                check(k in run.attrs and run.attrs[k] == v, "%s: attribute %s kept" % (run_id, k))
            check(np.array_equal(run["samples"][...], samples), "%s: samples kept" % run_id)
            check(len(run["results"]) == len(results), "%s: rows kept" % run_id)
            check(text(run.attrs["merged_from"]).endswith("#/runs/" + source), "merged_from recorded")
        check(any(r.endswith("-2") for r in runs), "the repeated run got a suffix")
    h5dump_reads(out)
    compare_json(out, work("a2.h5"), expect=0)
    rc, _, stderr = tfbench("merge", work("a1.h5"), "-o", out)
    check(rc == 2 and "already exists" in stderr, "merge refuses to overwrite")


def test_interrupt():
    """SIGINT in the middle of a run: exit 130, a valid file marked interrupted, rows measured
    before intact, the case in progress recorded as interrupted."""
    out = fresh("interrupted.h5")
    proc = subprocess.Popen([ARGS.tfbench, "run", config("long.yaml"), "--no-ceilings", "--out", out],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finished = 0
    deadline = time.time() + 120
    while finished < 3 and time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if re.match(r"\[\d+/\d+\]", line):
            finished += 1
    check(finished == 3, "three rows finished before the interrupt")
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    check(proc.returncode == 130, "exit %d, expected 130: %s" % (proc.returncode, stderr))
    check("interrupted" in stdout, "summary says interrupted")
    attrs, workers, rows = rows_of(out)
    check(attrs["status"] == "interrupted" and attrs["end_utc"] != "", "run marked interrupted with an end time")
    statuses = [r["status"] for r in rows]
    check(statuses[:3] == ["ok", "ok", "ok"], "rows before the interrupt: %s" % statuses)
    check(all(len(r["samples"]) == 20 for r in rows if r["status"] == "ok"), "their samples are complete")
    check(set(statuses) <= {"ok", "interrupted"}, "only ok and interrupted rows: %s" % statuses)
    check(len(rows) < 22, "the run stopped early")
    check(workers[0]["exit"].startswith("interrupted"), "worker exit %s" % workers[0]["exit"])
    h5dump_reads(out)


def test_cli():
    """validate/list/run exit codes and messages; every command's --help."""
    rc, stdout, stderr = tfbench("validate", os.path.join(ARGS.source_dir, "configs", "smoke.yaml"),
                                 os.path.join(ARGS.source_dir, "configs", "ci.yaml"), config("tiny.yaml"))
    check(rc == 0 and stdout.count(": ok") == 3, "valid configs: %s %s" % (stdout, stderr))
    rc, stdout, stderr = tfbench("validate", config("bad.yaml"))
    check(rc == 1, "invalid config exits 1")
    lines = stderr.strip().splitlines()
    bad = config("bad.yaml")
    expected = [
        bad + ":2:16: defaults.repetitions: expected an integer number of samples in [1, 100000], found 0",
        bad + ":4:13: benchmarks[0].family: unknown family 'bandwith_control'; expected one of: ",
        bad + ":7:34: benchmarks[1].params.elements.to: bad range: expected 'to' >= 'from' (8192), found 4096",
        bad + ":10:17: benchmarks[2].params.elements: wrong type: expected an integer",
        bad + ":11:5: benchmarks[2].treads: unknown key; expected one of: ",
    ]
    check(len(lines) == len(expected), "one line per problem:\n" + stderr)
    for line, want in zip(lines, expected):
        check(line.startswith(want), "\n  got:  %s\n  want: %s..." % (line, want))
    check("did you mean 'bandwidth_control'?" in lines[1], "nearest family suggested")
    check("did you mean 'threads'?" in lines[4], "nearest key suggested")
    rc, _, stderr = tfbench("validate", work("missing.yaml"))
    check(rc == 1 and "cannot read the file" in stderr, "missing config")
    rc, _, stderr = tfbench("run", config("bad.yaml"), "--out", work("never.h5"))
    check(rc == 2 and not os.path.exists(work("never.h5")), "run refuses a bad config with exit 2")
    rc, _, stderr = tfbench("run", config("tiny.yaml"), "--filter", "nothing-matches", "--out", work("never.h5"))
    check(rc == 2 and "nothing to run" in stderr, "empty selection exits 2")
    rc, stdout, _ = tfbench("list", config("tiny.yaml"), "--threads", "1", "--filter", "peer")
    check(rc == 0 and stdout.count("threads=1 openmp") + stdout.count("threads=1 serial") == 3, stdout)
    rc, stdout, _ = tfbench("run", config("tiny.yaml"), "--dry-run", "--out", work("dry.h5"))
    check(rc == 0 and "dry run" in stdout and not os.path.exists(work("dry.h5")), "dry run writes nothing")
    rc, _, stderr = tfbench("run", config("tiny.yaml"), "--out", work("x.h5"), env={"TFBENCH_FAULT_INJECT": "bogus"})
    check(rc == 2 and "unknown rule" in stderr, "malformed fault rule")
    rc, _, _ = tfbench("run", config("tiny.yaml"), "--repetitions", "0")
    check(rc == 2, "usage error exits 2")
    for command in ["run", "list", "validate", "info", "compare", "merge", "report"]:
        rc, stdout, _ = tfbench(command, "--help")
        check(rc == 0 and "Usage" in stdout, "%s --help" % command)
    rc, stdout, _ = tfbench("--help")
    check(rc == 0 and re.search(r"^\s+worker\s", stdout, re.M) is None, "worker is hidden")


TESTS = {
    "smoke": test_smoke,
    "verification": test_verification,
    "crash": test_crash,
    "compare_setup": test_compare_setup,
    "compare_aa": test_compare_aa,
    "compare_regression": test_compare_regression,
    "merge": test_merge,
    "interrupt": test_interrupt,
    "cli": test_cli,
}


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("test", choices=sorted(TESTS))
    parser.add_argument("--tfbench", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--work-dir", required=True)
    ARGS = parser.parse_args()
    os.makedirs(ARGS.work_dir, exist_ok=True)
    TESTS[ARGS.test]()
    print("PASS: " + ARGS.test)


if __name__ == "__main__":
    main()
