#!/usr/bin/python3
"""End-to-end tests of the tfbench executable: each runs the real binary and reads its HDF5 output
back with h5py and h5dump.

    tfbench_e2e.py TEST --tfbench PATH --source-dir DIR --work-dir DIR
"""

import argparse
import hashlib
import json
import math
import os
import re
import shutil
import signal
import socket
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
    environment = dict(os.environ)  # isolate_from_user_caches' environment
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
    thp = "/sys/kernel/mm/transparent_hugepage/enabled"
    if os.path.exists(thp):
        with open(thp) as f:
            mode = re.search(r"\[(\w+)\]", f.read()).group(1)
        check(attrs.get("transparent_hugepage") == mode, "the huge page mode %s recorded: %s" %
              (mode, attrs.get("transparent_hugepage")))
    # The OpenMP runtime the run's processes loaded: a real library file, libomp or libgomp.
    omp = attrs.get("openmp_runtime", "")
    check(os.path.isfile(omp) and re.match(r"lib(g?omp)", os.path.basename(omp)) is not None,
          "openmp_runtime names the runtime library: %r" % omp)
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
        # The host's load over the row's samples: shares of the worker's CPUs (Linux /proc), where the
        # samples span enough ticks (these rows are mostly too short: test_host_load).
        metrics = json.loads(r["metrics"])
        for key in ("host.other_cpu", "host.steal"):
            check(0.0 <= metrics.get(key, 0.0) <= 1.0, "%s of %s: %s" % (key, r["case_id"], metrics))
    triads = [r for r in rows if r["family"] == "bandwidth_control" and r["status"] == "ok"]
    check(triads and all(r["fastest_peer"] == "peer:openmp" for r in triads), "triad rows against their OpenMP peer")
    header = h5dump_reads(out)
    check("results" in header and "samples" in header and "workers" in header, "h5dump shows the tables")
    h5dump_reads(out, "/runs/%s/results" % only_run(out))
    _, report, _ = tfbench("report", out, expect=0)
    check(only_run(out) in report, "report names the run")
    check("peer:openmp" in report and "GB/s" in report, "report shows rows with rates")


def test_host_load():
    """A process spinning beside the worker is recorded as other work on its CPUs (host.other_cpu),
    and the progress line says the row was timed on a busy host; without it the row says less."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        busy = fresh("host_load_busy.h5")
        _, stdout, _ = tfbench("run", config("host_load.yaml"), "--ceilings", "off", "--out", busy, expect=0)
    finally:
        spinner.kill()
        spinner.wait()
    _, _, rows = rows_of(busy)
    check(len(rows) == 1 and rows[0]["status"] == "ok", "one ok row: %s" % [r["status"] for r in rows])
    metrics = json.loads(rows[0]["metrics"])
    # The spinner holds one CPU of the worker's set (less the hypervisor's steal).
    share = 1.0 / len(os.sched_getaffinity(0))
    check(metrics.get("host.other_cpu", 0.0) >= 0.5 * share, "the spinner is other work: %s" % metrics)
    check(0.0 <= metrics.get("host.steal", -1.0) <= 1.0, "steal recorded: %s" % metrics)
    check("on a busy host (other work" in stdout, "the progress line says so: " + stdout)
    quiet = fresh("host_load_quiet.h5")
    tfbench("run", config("host_load.yaml"), "--ceilings", "off", "--out", quiet, expect=0)
    _, _, rows = rows_of(quiet)
    quiet_metrics = json.loads(rows[0]["metrics"])
    check(quiet_metrics["host.other_cpu"] < metrics["host.other_cpu"],
          "less other work without the spinner: %s vs %s" % (quiet_metrics, metrics))


def test_helper_settles():
    """A Python peer's runner keeps its BLAS threads spinning for a while after its call; the next
    variant is timed once they are quiet, so a one-thread variant beside it at two threads does not
    read other work on the idle CPU (52% before the wait, 2026-12-03)."""
    if max_threads() < 2:
        print("SKIP: one CPU")
        return
    out = fresh("helper_settles.h5")
    _, stdout, _ = tfbench("run", config("helper_settles.yaml"), "--ceilings", "off", "--tuning", "off", "--out", out,
                           expect=0)
    _, _, rows = rows_of(out)
    by_variant = {r["variant"]: r for r in rows}
    numpy_row = by_variant["peer:numpy"]
    if numpy_row["status"] != "ok":
        print("SKIP: no NumPy peer here: %s" % numpy_row["error"])
        return
    metrics = json.loads(by_variant["engine:sequential"]["metrics"])
    check(metrics.get("host.other_cpu", 1.0) < 0.25,
          "the runner's spinning threads are not timed beside the next variant: %s" % metrics)


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

        # Places of one hardware thread each: the default places are the runtime's own reading of the
        # topology (libomp reads the EPYC VM's two vCPUs as one core's two threads, one place of both).
        out = fresh("bind_forced.h5")
        _, stdout, _ = tfbench("run", config("tiny.yaml"), "--threads", "max", "--no-ceilings", "--out", out,
                               "--omp-proc-bind", "true", "--omp-places", "threads", expect=1)
        check("verification failed" in stdout, "run reports the failed verification")
        attrs, workers, rows = rows_of(out)
        check(len(workers) == 1, "one worker")
        check(workers[0]["exit"].startswith("verification failed: the affinity mask holds 1 CPU(s)"),
              "workers.exit: %s" % workers[0]["exit"])
        check(workers[0]["omp_proc_bind"] == "true", "forced OMP_PROC_BIND recorded")
        check(workers[0]["omp_places"] == "threads", "forced OMP_PLACES recorded")
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
    intact, the culprits are recorded crashed with their signal, fresh workers finish the rest. The
    run records the injected faults."""
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
    # Injected faults are provenance: recorded in the run and shown by report (issue 16, item 6).
    check(attrs.get("fault_inject") == faults, "fault_inject attribute: %r" % attrs.get("fault_inject"))
    _, report, _ = tfbench("report", out, expect=0)
    check("FAULT INJECTION: TFBENCH_FAULT_INJECT='%s'" % faults in report, report)
    genuine = fresh("genuine.h5")
    tfbench("run", config("tiny.yaml"), "--threads", "1", "--no-ceilings", "--filter", "4096/kokkos", "--out",
            genuine, expect=0)
    check(rows_of(genuine)[0].get("fault_inject") == "", "a genuine run records no faults")
    _, report, _ = tfbench("report", genuine, expect=0)
    check("FAULT INJECTION" not in report, "report of a genuine run")


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
    """merge keeps every run with its provenance and rows; a file or run given twice is merged once; a run
    id collision of two different runs gets a suffix; a merge with an unusable input writes nothing."""
    out = fresh("merged.h5")
    _, stdout, stderr = tfbench("merge", work("a1.h5"), work("a2.h5"), work("slow.h5"), work("a1.h5"), "-o", out,
                                expect=0)
    check("merged 3 run(s)" in stdout, stdout)
    check("a1.h5 is the same file as" in stderr and "merged once" in stderr, "the repeated input is noted: " + stderr)
    originals = {}
    for path in [work("a1.h5"), work("a2.h5"), work("slow.h5")]:
        with h5py.File(path, "r") as f:
            for run_id, run in f["runs"].items():
                originals[run_id] = ({k: run.attrs[k] for k in run.attrs}, run["results"][...], run["samples"][...])
    with h5py.File(out, "r") as f:
        runs = f["runs"]
        check(sorted(runs) == sorted(originals), "each run once: %s" % list(runs))
        for run_id, run in runs.items():
            attrs, results, samples = originals[run_id]
            for k, v in attrs.items():
                check(k in run.attrs and run.attrs[k] == v, "%s: attribute %s kept" % (run_id, k))
            check(np.array_equal(run["samples"][...], samples), "%s: samples kept" % run_id)
            check(len(run["results"]) == len(results), "%s: rows kept" % run_id)
            check(text(run.attrs["merged_from"]).endswith("#/runs/" + run_id), "merged_from recorded")
    h5dump_reads(out)
    compare_json(out, work("a2.h5"), expect=0)
    rc, _, stderr = tfbench("merge", work("a1.h5"), "-o", out)
    check(rc == 2 and "already exists" in stderr, "merge refuses to overwrite")

    # The same run inside a merged file and on its own: once.
    again = fresh("merged-again.h5")
    _, stdout, stderr = tfbench("merge", out, work("a1.h5"), "-o", again, expect=0)
    check("merged 3 run(s)" in stdout and "is the same run as" in stderr, stdout + stderr)

    # Another run under the same id (same second, host and pid: containers on one node): a suffix.
    twin = fresh("a1-twin.h5")
    shutil.copy(work("a1.h5"), twin)
    with h5py.File(twin, "r+") as f:
        run = f["runs"][only_run(twin)]
        run.attrs["start_utc"] = text(run.attrs["start_utc"]) + "-twin"
    both = fresh("merged-twins.h5")
    _, stdout, _ = tfbench("merge", work("a1.h5"), twin, "-o", both, expect=0)
    with h5py.File(both, "r") as f:
        check(sorted(f["runs"]) == [only_run(twin), only_run(twin) + "-2"], "the colliding id got a suffix")

    # An input the reader refuses (cut short) stops the merge before anything is written.
    cut = fresh("cut.h5")
    with open(work("a2.h5"), "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[: len(data) // 2])
    never = fresh("merged-never.h5")
    rc, _, stderr = tfbench("merge", work("a1.h5"), cut, "-o", never)
    check(rc == 2 and "cut.h5" in stderr, "an unusable input exits 2 naming it: " + stderr)
    check(not os.path.exists(never) and not os.path.exists(never + ".lock"), "a failed merge leaves no output")


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


def test_timeout():
    """A hung variant (a real worker busy-waiting forever) is killed at its case's time limit and recorded
    timed_out with the limit; a fresh worker runs the case's other variants and the later cases. The
    limit comes from --case-timeout, or from the config's block (35 s: the 30 s heartbeat comes first even on a loaded machine), and a run whose output is not a
    terminal says what is still running after 30 s (issue 16, item 5)."""
    hang = {"TFBENCH_FAULT_INJECT": "delay:bandwidth_control/elements=8192/peer:openmp:1e12"}
    hung_id = "bandwidth_control/elements=8192/peer:openmp"
    for limit, args in [(2, ["--case-timeout", "2"]), (35, [])]:
        out = fresh("timeout_%d.h5" % limit)
        started = time.time()
        _, stdout, _ = tfbench("run", config("timeout.yaml"), "--no-ceilings", "--out", out, *args, env=hang, expect=1)
        elapsed = time.time() - started
        check(limit <= elapsed < limit + 15, "the run took %.1f s for a limit of %d s" % (elapsed, limit))
        attrs, workers, rows = rows_of(out)
        check(attrs["status"] == "complete", "run status " + attrs["status"])
        check(len(rows) == 6, "every row recorded: %d" % len(rows))
        by_id = {r["case_id"]: r for r in rows}
        hung = by_id[hung_id]
        check(hung["status"] == "timed_out", "hung variant: %s %s" % (hung["status"], hung["error"]))
        check(hung["error"].startswith("exceeded the case time limit of %d s while timing (worker %d killed"
                                       % (limit, workers[0]["pid"])), hung["error"])
        check(all(r["status"] == "ok" for r in rows if r["case_id"] != hung_id),
              "the other variant of the case and the later cases are measured: %s"
              % [(r["case_id"], r["status"]) for r in rows])
        check(all(float(r["case_timeout_s"]) == limit for r in rows), "every row records its limit")
        check([w["exit"] for w in workers] == ["killed: case time limit of %d s exceeded" % limit, "ok"],
              "a fresh worker after the kill: %s" % [w["exit"] for w in workers])
        check("%s exceeded the case time limit of %d s while timing: killed; starting a fresh worker" % (hung_id, limit)
              in stdout, stdout)
        heartbeat = re.search(r"^still running after 3\d(\.\d+)? s: threads=1 ", stdout, re.M)
        check(bool(heartbeat) == (limit > 30), "a quiet run says what runs")
        _, report, _ = tfbench("report", out, expect=0)
        check("timed_out" in report, "report shows the status")


def test_option_values():
    """Out-of-range option values exit 2 with a message (a negative seed or one beyond int64 was ignored
    or clamped, an empty --threads ignored); a thread count Kokkos cannot start fails verification with
    the reason instead of a SIGSEGV in the worker (issue 16, items 9 and 10)."""
    tiny = config("tiny.yaml")
    for value in ["-7", "9223372036854775808", "99999999999999999999999", "1e3", ""]:
        rc, _, stderr = tfbench("run", tiny, "--seed", value, "--dry-run")
        check(rc == 2 and "--seed: expected an integer in [0, 9223372036854775807], found '%s'" % value in stderr,
              "--seed %r: exit %d, %s" % (value, rc, stderr))
    out = fresh("max_seed.h5")
    tfbench("run", tiny, "--seed", "9223372036854775807", "--threads", "1", "--filter", "elements=4096/kokkos",
            "--no-ceilings", "--out", out, expect=0)
    attrs, _, _ = rows_of(out)
    check(int(attrs["seed"]) == 9223372036854775807, "the seed is recorded unchanged: %s" % attrs["seed"])
    for command in ["run", "list"]:
        rc, _, stderr = tfbench(command, tiny, "--threads", "", "--dry-run" if command == "run" else "--filter=.")
        check(rc == 2 and "--threads: expected at least one thread count" in stderr, "%s --threads ''" % command)
        rc, _, stderr = tfbench(command, tiny, "--space", "", "--dry-run" if command == "run" else "--filter=.")
        check(rc == 2 and "--space" in stderr, "%s --space ''" % command)

    for threads in ["1000", "4096"]:
        out = fresh("threads_%s.h5" % threads)
        _, stdout, stderr = tfbench("run", tiny, "--threads", threads, "--no-ceilings", "--out", out, expect=1)
        check("see its messages above" not in stdout + stderr, "no pointer at messages that do not exist")
        _, workers, rows = rows_of(out)
        reason = "Kokkos's OpenMP back-end runs at most 512 threads, %s requested" % threads
        check(len(workers) == 1 and workers[0]["exit"].startswith("verification failed: " + reason),
              "workers.exit: %s" % [w["exit"] for w in workers])
        check(rows and all(r["status"] == "error" and reason in r["error"] for r in rows), "every row says why")
        rc, stdout, _ = tfbench("info", "--threads", threads)
        check(rc == 1 and reason in stdout, "info says why: %s" % stdout)


def lock_text(pid, host):
    return "pid=%d\nhost=%s\nsince=2026-01-01T00:00:00.000Z\ncommand=tfbench run x.yaml\n" % (pid, host)


def test_writers():
    """A file being written is locked: a second `run --overwrite` and a `merge -o` on it exit 2 naming the
    first writer's pid, and leave it alone; a stale lock of a dead process of this host is taken over with a
    note; a lock of another host is not."""
    small = fresh("writers-small.h5")
    tfbench("run", config("tiny.yaml"), "--threads", "1", "--no-ceilings", "--out", small, expect=0)
    out = fresh("writers.h5")
    lock = out + ".lock"
    first = subprocess.Popen([ARGS.tfbench, "run", config("long.yaml"), "--no-ceilings", "--out", out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = ""
        deadline = time.time() + 120
        while time.time() < deadline and not re.match(r"\[\d+/\d+\]", line):
            line = first.stdout.readline()
            check(line != "", "the first run ended early")
        check(os.path.exists(lock), "the lock file exists while the run writes")
        check("pid=%d\n" % first.pid in open(lock).read(), "the lock names the writer's pid")
        holder = "is being written by pid %d on host %s" % (first.pid, socket.gethostname())
        rc, _, stderr = tfbench("run", config("tiny.yaml"), "--out", out, "--overwrite")
        check(rc == 2 and holder in stderr, "a second run refuses: " + stderr)
        rc, _, stderr = tfbench("merge", small, "-o", out, "--overwrite")
        check(rc == 2 and holder in stderr, "a merge onto it refuses: " + stderr)
        attrs, _, rows = rows_of(out)  # readable while written, and still the first run's
        check(attrs["status"] == "running" and "long.yaml" in attrs["config_paths"] and rows, "the first run's file")
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    check(first.returncode == 130, "the first run ends as interrupted: %d" % first.returncode)
    check(not os.path.exists(lock), "the lock is gone with its writer")
    check(rows_of(out)[0]["status"] == "interrupted", "the first run's file is complete")

    dead = subprocess.Popen(["true"])
    dead.wait()
    with open(lock, "w") as f:
        f.write(lock_text(dead.pid, socket.gethostname()))
    _, _, stderr = tfbench("run", config("tiny.yaml"), "--threads", "1", "--no-ceilings", "--out", out, "--overwrite",
                           expect=0)
    check("took over the stale lock" in stderr and "pid %d" % dead.pid in stderr, "stale lock taken over: " + stderr)
    check(not os.path.exists(lock) and rows_of(out)[0]["status"] == "complete", "and the run wrote the file")

    with open(lock, "w") as f:
        f.write(lock_text(dead.pid, "another-node"))
    rc, _, stderr = tfbench("run", config("tiny.yaml"), "--out", out, "--overwrite")
    check(rc == 2 and "on host another-node" in stderr and "remove the lock file" in stderr, stderr)
    os.remove(lock)


def test_config_output():
    """`run X.yaml --out X.yaml --overwrite` (also spelled differently, or a hard link) exits 2 and leaves the
    config alone: paths are compared by device and inode."""
    cfg = fresh("self.yaml")
    shutil.copy(config("tiny.yaml"), cfg)
    with open(cfg) as f:
        original = f.read()
    link = fresh("self-link.h5")
    os.link(cfg, link)
    for out in [cfg, os.path.join(ARGS.work_dir, ".", "self.yaml"), link]:
        rc, _, stderr = tfbench("run", cfg, "--out", out, "--overwrite")
        check(rc == 2 and "is the config" in stderr, "refused: " + stderr)
    with open(cfg) as f:
        check(f.read() == original, "the config is unchanged")


def full_disk_run(kib, mount, many):
    """One run of many.yaml onto a tmpfs of `kib` KiB in a private mount namespace; returns the exit code,
    stdout, stderr, a copy of the file (None if there was none) and what else was left in the directory."""
    copy = fresh("full-disk-%dk.h5" % kib)
    listing = fresh("full-disk-%dk.ls" % kib)
    script = ('mount -t tmpfs -o size=%dk tfbench-full "$1" || exit 99; "$0" run "$2" --no-ceilings --out "$1/x.h5"; '
              'rc=$?; [ -e "$1/x.h5" ] && cp "$1/x.h5" "$3"; ls -A "$1" > "$4"; exit $rc') % kib
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script, ARGS.tfbench, mount, many, copy, listing],
                          capture_output=True, text=True, timeout=300)
    check(proc.returncode != 99, "mount failed: " + proc.stderr)
    with open(listing) as f:
        left = sorted(set(f.read().split()) - {"x.h5"})
    return proc.returncode, proc.stdout, proc.stderr, (copy if os.path.exists(copy) else None), left


def test_full_disk():
    """A disk that fills up during a run, at many fill points (tmpfs of 8 to 418 KiB; the whole file is about
    170 KiB with its units and descriptions, and a write needs room for the old and the new file): tfbench exits 3, not by a signal, naming the
    file and ENOSPC; the file on disk (if the first write fitted) reads with h5py and `tfbench report` and holds
    exactly the rows printed before the failure; no temporary or lock file is left. Needs root and
    `unshare -m` (exit 77: skipped)."""
    if os.geteuid() != 0 or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        print("SKIP: needs root and unshare -m to mount a small tmpfs")
        sys.exit(77)
    mount = work("full-disk-mount")
    os.makedirs(mount, exist_ok=True)
    outcomes = {}
    for kib in range(8, 424, 10):
        rc, stdout, stderr, copy, left = full_disk_run(kib, mount, config("many.yaml"))
        printed = len(re.findall(r"^\[\d+/\d+\]", stdout, re.M))
        where = "%d KiB: exit %d, %d row(s) printed: " % (kib, rc, printed)
        check(rc in (0, 3), where + "exit by a signal or unexpected: " + stderr)
        check(left == [], where + "left behind: %s" % left)
        if rc == 3:
            check("cannot write %s/x.h5: No space left on device (ENOSPC)" % mount in stderr, where + stderr)
        if copy is None:
            check(rc == 3 and "nothing was written" in stderr and printed == 0, where + "no file: " + stderr)
            outcomes[kib] = "no file"
            continue
        tfbench("report", copy, expect=0)
        with h5py.File(copy, "r") as f:
            has_run = len(f["runs"]) > 0
        if not has_run:  # the run's first write did not fit
            check(rc == 3 and printed == 0, where + "a file without its run")
            outcomes[kib] = "no run"
            continue
        attrs, _, rows = rows_of(copy)
        check(len(rows) == printed, where + "the file holds %d row(s)" % len(rows))
        check(all(len(r["samples"]) == 5 for r in rows), where + "every row's samples")
        check(attrs["status"] == ("complete" if rc == 0 else "running"), where + "status " + attrs["status"])
        outcomes[kib] = "%s, %d row(s)" % ("complete" if rc == 0 else "full", len(rows))
    for kib, what in sorted(outcomes.items()):
        print("  %3d KiB: %s" % (kib, what))
    full = {what for what in outcomes.values() if what.startswith("full")}
    check(len(full) >= 10 and any(w.startswith("complete") for w in outcomes.values()),
          "the disk filled at many different points, and one run fitted")


def test_torch_skipped():
    """peer:torch of packed_small and batched_solve in a Python that cannot import torch (the system
    Python without site-packages, -S): every row recorded skipped with the import error and the variable
    that chooses another Python."""
    python = work("python-without-torch")
    with open(python, "w") as f:
        f.write("#!/bin/sh\nunset PYTHONPATH PYTHONHOME\nexec /usr/bin/python3 -S \"$@\"\n")
    os.chmod(python, 0o755)
    out = fresh("torch.h5")
    tfbench("run", config("torch.yaml"), "--out", out, env={"TFBENCH_TORCH_PYTHON": python}, expect=0)
    _, _, rows = rows_of(out)
    check(sorted({r["family"] for r in rows}) == ["batched_solve", "packed_small"], "both families ran")
    check(len(rows) == 3 and all(r["variant"] == "peer:torch" for r in rows), "the three torch rows")
    for r in rows:
        check(r["status"] == "skipped" and r["provider"] == "torch", "%s: %s" % (r["case_id"], r["status"]))
        check("No module named 'torch'" in r["error"] and "TFBENCH_TORCH_PYTHON" in r["error"],
              "%s says why: %s" % (r["case_id"], r["error"]))


def test_peers_unselected():
    """A Python peer that the variant patterns leave out is never started: not by the parent's plan,
    the query workers nor the run's worker (each start is an interpreter, for torch an import of
    seconds). A logging wrapper stands in front of the real interpreter; asked for peer:numpy, the same
    run starts it (the wrapper works)."""
    log = fresh("python-starts.log")
    python = work("python-logging-starts")
    with open(python, "w") as f:
        f.write("#!/bin/sh\necho \"$*\" >> %s\nexec /usr/bin/python3 \"$@\"\n" % log)
    os.chmod(python, 0o755)
    env = {"TFBENCH_PYTHON": python, "TFBENCH_TORCH_PYTHON": python}

    def starts():
        return open(log).read().splitlines() if os.path.exists(log) else []

    out = fresh("peers_unselected.h5")
    keep = ["--filter", "engine:auto|peer:eigen"]
    tfbench("run", config("peers_unselected.yaml"), *keep, "--out", out, env=env, expect=0)
    _, _, rows = rows_of(out)
    check(len(rows) == 3 and all(r["status"] == "ok" for r in rows), "the three rows ran")
    check(not starts(), "no Python peer started for a run that selects none: %s" % starts())
    tfbench("list", config("peers_unselected.yaml"), *keep, env=env, expect=0)
    check(not starts(), "nor for its listing: %s" % starts())

    out = fresh("peers_numpy.h5")
    tfbench("run", config("peers_unselected.yaml"), "--out", out, env=env, expect=0)
    started = starts()
    check(started and all("numpy_peer.py" in s for s in started), "peer:numpy selected starts NumPy's: %s" % started)


def duration_seconds(text):
    """Seconds of a duration as tfbench prints it: '850 ms', '42 s', '3 min 20 s', '2 h 05 min'."""
    units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}
    parts = text.split()
    check(len(parts) % 2 == 0 and all(u in units for u in parts[1::2]), "a duration: %r" % text)
    return sum(float(v) * units[u] for v, u in zip(parts[0::2], parts[1::2]))


def test_progress():
    """`run` prints its estimated time before the first row, and the estimate is the right size (within
    20x of the actual time: a sanity bound, not a speed target); `list` and `--dry-run` print it too. Output
    that is not a terminal (a CI log) has no carriage return or terminal escape (issue 18, item 2)."""
    tiny = config("tiny.yaml")
    for command in [["list", tiny], ["run", tiny, "--dry-run"]]:
        _, stdout, _ = tfbench(*command, expect=0)
        check(re.search(r"^estimated time: about \d", stdout, re.M), "%s prints the estimate: %s" % (command[0], stdout))
    out = fresh("progress.h5")
    started = time.time()
    proc = subprocess.run([ARGS.tfbench, "run", tiny, "--out", out], capture_output=True, timeout=600)
    actual = time.time() - started
    stdout, stderr = proc.stdout.decode(), proc.stderr.decode()
    check(proc.returncode == 0, "run: exit %d: %s" % (proc.returncode, stderr))
    check(b"\r" not in proc.stdout + proc.stderr and b"\033[" not in proc.stdout + proc.stderr,
          "no carriage return or escape sequence in output that is not a terminal")
    found = re.search(r"^estimated time: about (.+?) \(", stdout, re.M)
    check(found is not None and stdout.index(found.group(0)) < stdout.index("[1/"), "the estimate comes first: " + stdout)
    estimate = duration_seconds(found.group(1))
    print("estimated %.2f s, took %.2f s" % (estimate, actual))
    check(0 < estimate < 20 * actual and actual < 20 * estimate + 10,
          "estimate %.2f s for a run of %.2f s" % (estimate, actual))


def listed_skips(stdout):
    """{(threads, case id): reason} of the `[skipped: ...]` lines of `list` or `run --dry-run`."""
    skips = {}
    for m in re.finditer(r"^threads=(\d+) \S+  (\S+)  \(.*?\)  \[skipped: (.*)\]$", stdout, re.M):
        skips[(int(m.group(1)), m.group(2))] = m.group(3)
    return skips


def test_list_skips():
    """`list` and `run --dry-run` name the variants a worker skips, with the reason `run` records: engine
    strategies with no route at one thread are only known to a worker with Kokkos initialized, which the
    listing asks, and `run` plans from the same answer (issue 18 item 2, issue 17 item 3)."""
    skips_yaml = config("skips.yaml")
    _, listed, _ = tfbench("list", skips_yaml, expect=0)
    _, dry, _ = tfbench("run", skips_yaml, "--dry-run", expect=0)
    out = fresh("skips.h5")
    _, ran, _ = tfbench("run", skips_yaml, "--no-ceilings", "--out", out, expect=0)
    _, _, rows = rows_of(out)
    recorded = {(int(r["threads"]), r["case_id"]): r["error"] for r in rows if r["status"] == "skipped"}
    outer = [k for k in recorded if k[1].endswith("/engine:outer_parallel")]
    check(outer and all("one-thread context" in recorded[k] for k in outer), "run skips outer lanes: %s" % recorded)
    check(listed_skips(listed) == recorded, "list names what run skips:\n  list: %s\n  run:  %s"
          % (listed_skips(listed), recorded))
    check(listed_skips(dry) == recorded, "--dry-run names what run skips")
    check(re.search(r"^estimated time: .*%d skipped" % len(recorded), listed, re.M), "the estimate leaves them out")
    # run plans from the same dry query of its workers: its own estimate already knows the skips.
    check(re.search(r"^estimated time: .*; %d skipped" % len(recorded), ran, re.M),
          "run's estimate counts what its workers skip:\n%s" % ran)


def isa_line(info, label):
    match = re.search(r"^%s:\s+(.*)$" % label, info, re.M)
    check(match is not None, "tfbench info prints '%s':\n%s" % (label, info))
    return match.group(1).strip()


def test_isa():
    """The instruction-set gate: on a host without an extension the build uses (played by
    TFBENCH_ISA_SIMULATE_MISSING), run and worker refuse with exit 4 and a message that says what
    is missing and how to fix it, other commands warn; TFBENCH_ALLOW_ISA_MISMATCH=1 runs and the
    file records it. A genuine run records the build's and the host's instruction sets."""
    _, info, _ = tfbench("info", "--no-verify", expect=0)
    required = isa_line(info, "isa required").split(" (")[0]
    run_host = isa_line(info, "isa this host").split(",")
    check(isa_line(info, "isa missing") == "none", "the build host has what the build needs:\n" + info)
    genuine = fresh("isa-genuine.h5")
    tfbench("run", config("tiny.yaml"), "--threads", "1", "--no-ceilings", "--repetitions", "1", "--filter",
            "4096/kokkos", "--out", genuine, expect=0)
    attrs = rows_of(genuine)[0]
    for name in ["build_cpu_model", "build_arch", "build_isa", "build_host_isa", "run_isa", "isa_mismatch"]:
        check(name in attrs, "run attribute %s: %s" % (name, sorted(attrs)))
    check(attrs["isa_mismatch"] == "", "a genuine run has no mismatch: %r" % attrs["isa_mismatch"])
    check(attrs["build_cpu_model"] != "" and attrs["build_arch"] != "", "build host recorded")
    check(attrs["build_isa"] == ("" if required == "none" else required), "build_isa %r" % attrs["build_isa"])
    check(attrs["run_isa"].split(",") == run_host, "run_isa %r" % attrs["run_isa"])
    if required == "none":
        print("SKIP the refusal part: this build requires no extension (TFBENCH_ARCH=none)")
        return
    lacking = required.split(",")[-1]
    lack = {"TFBENCH_ISA_SIMULATE_MISSING": lacking}
    refused = fresh("isa-refused.h5")
    rc, stdout, stderr = tfbench("run", config("tiny.yaml"), "--out", refused, env=lack)
    check(rc == 4, "run on a host without %s exits 4, not %d: %s" % (lacking, rc, stderr))
    check(stderr.startswith("tfbench: refusing to run: ") and "uses %s, which this CPU" % lacking in stderr,
          "the refusal names the extension:\n" + stderr)
    check("rebuild on this node" in stderr and "TFBENCH_ARCH=x86-64-v3" in stderr, "and the fix:\n" + stderr)
    check(stdout == "" and not os.path.exists(refused), "refused before anything ran")
    rc, _, stderr = tfbench("worker", "--threads", "1", env=lack)
    check(rc == 4 and "refusing to run" in stderr, "a worker refuses too: %d %s" % (rc, stderr))
    rc, stdout, stderr = tfbench("validate", config("tiny.yaml"), env=lack)
    check(rc == 0 and ": ok" in stdout, "validate still works: %d %s" % (rc, stderr))
    check("warning" in stderr and lacking in stderr and "SIGILL" in stderr, "and warns:\n" + stderr)
    rc, stdout, stderr = tfbench("list", config("tiny.yaml"), "--threads", "1", env=lack)
    check(rc == 0 and "bandwidth_control" in stdout, "list (and its workers' query) still works: %d %s" % (rc, stderr))
    check(stderr.count("warning: this binary") == 1, "list warns once:\n" + stderr)
    allowed = fresh("isa-allowed.h5")
    _, _, stderr = tfbench("run", config("tiny.yaml"), "--threads", "1", "--no-ceilings", "--repetitions", "1",
                           "--filter", "4096/kokkos", "--out", allowed,
                           env=dict(lack, TFBENCH_ALLOW_ISA_MISMATCH="1"), expect=0)
    check("TFBENCH_ALLOW_ISA_MISMATCH=1" in stderr, "the override warns:\n" + stderr)
    attrs = rows_of(allowed)[0]
    check(attrs["isa_mismatch"] == lacking + " (TFBENCH_ALLOW_ISA_MISMATCH=1)", "recorded: %r" % attrs["isa_mismatch"])
    check(lacking not in attrs["run_isa"].split(","), "run_isa as the gate saw it: %r" % attrs["run_isa"])


def tuned_route(path):
    """The route metrics of the one engine:auto row of a tuned.yaml run."""
    _, _, rows = rows_of(path)
    check(len(rows) == 1 and rows[0]["status"] == "ok", "one ok row: %s" % [(r["case_id"], r["status"]) for r in rows])
    return json.loads(rows[0]["metrics"])


def test_tuning():
    """tfbench tune writes a tuning file for this machine and build; run --tuning FILE makes Auto follow
    the file's choice (here edited to kokkosbatched, never Auto's built-in choice on a host) and the row
    records it (route.tuned); a file from another CPU is ignored with the differing field; --tuning auto
    calibrates once on first use into TFBENCH_TUNING_DIR and reuses it (issue 19, item 1)."""
    tuning = fresh("tuning.json")
    tfbench("tune", "--threads", "1", "--sizes", "8", "--families", "gemm", "--levels", "l2", "--rounds", "1",
            "--min-time", "0.0005", "--dtypes", "f64", "-o", tuning, expect=0)
    with open(tuning) as f:
        data = json.load(f)
    check(data["format"] == "tfbench-tuning" and data["version"] == 4, "format and version")
    check(data["contraction"] == [], "--families gemm measures no contraction crossover")
    # The L2 spans a factor of 16-64 on current CPUs: measured at one size per factor of 8 (at most 3),
    # and in its top octave, where the operands begin to spill (unless the ladder is already there).
    classes = data["classes"]
    sizes = sorted(c["operand_bytes"] for c in classes)
    check(1 <= len(classes) <= 4 and len(set(sizes)) == len(sizes), "one class per size: %s" % sizes)
    l1, l2 = data["key"]["l1_bytes"], data["key"]["l2_bytes"]
    if l2 >= 8 * l1:  # the ladder's middles stay below the top octave of a range this wide
        check(l2 / 2 < sizes[-1] <= l2, "a class in the L2's top octave (%s, L2 %s)" % (sizes, l2))
    check(all(c["choice"] is not None and c["level"] == "l2" for c in classes), "every class measured")
    for c in classes:
        ran = [k for k in c["candidates"] if not k["skipped"]]
        check(ran and all(k["max_rel_error"] <= 1e-10 for k in ran), "candidates checked: %s" % ran)
        # libxsmm is measured with and without prefetching the next item; no other provider prefetches
        # 8 x 8 items (the specialized kernel's prefetch is for 16 x 16 and 32 x 32: prefetch_test.cpp).
        # Beyond the L1 it and the specialized kernel are measured with regular and streaming stores of C.
        xsmm = sorted((k["prefetch"], k["streaming_stores"]) for k in c["candidates"] if k["provider"] == "libxsmm")
        check(xsmm in ([], [(False, False), (False, True), (True, False), (True, True)]),
              "libxsmm with and without prefetch and streaming stores: %s" % c["candidates"])
        check(all(k["prefetch"] is None for k in c["candidates"] if k["provider"] != "libxsmm"),
              "prefetch only on libxsmm candidates: %s" % c["candidates"])
        check((c["choice"]["prefetch"] is None) == (c["choice"]["provider"] != "libxsmm"), "choice: %s" % c["choice"])
        storing = ("libxsmm", "specialized")
        # In AVX-512 builds the specialized kernel has f64 8 x 8 items in 512-bit and 256-bit vectors:
        # both widths measured (narrow_vectors true: the 256-bit one); f32 items have one width.
        spec = sorted((k.get("narrow_vectors") is True, k["streaming_stores"])
                      for k in c["candidates"] if k["provider"] == "specialized")
        widths = [(False, False), (False, True)]
        if c["dtype"] == "f64" and any(k.get("narrow_vectors") for k in c["candidates"]):
            widths += [(True, False), (True, True)]
        check(spec == widths, "specialized with regular and streaming stores (in each width): %s" % c["candidates"])
        check(all(k.get("narrow_vectors") is None for k in c["candidates"] if k["provider"] != "specialized"),
              "a kernel width only on specialized candidates: %s" % c["candidates"])
        check(all(k["streaming_stores"] is None for k in c["candidates"] if k["provider"] not in storing),
              "streaming stores only on specialized and libxsmm candidates: %s" % c["candidates"])
        check((c["choice"]["streaming_stores"] is None) == (c["choice"]["provider"] not in storing),
              "choice: %s" % c["choice"])
    _, shown, _ = tfbench("tune", "--show", "-o", tuning, expect=0)
    check("applies to this machine and build" in shown and " MiB " in shown, "tune --show:\n" + shown)
    one = fresh("tuning-one.json")
    tfbench("tune", "--threads", "1", "--sizes", "8", "--families", "gemm", "--levels", "l2", "--rounds", "1",
            "--min-time", "0.0005", "--sizes-per-level", "1", "-o", one, expect=0)
    with open(one) as f:
        by_dtype = sorted(c["dtype"] for c in json.load(f)["classes"])
    check(by_dtype == ["f32", "f64"], "--sizes-per-level 1: one class per dtype (f64 and f32 by default): %s" % by_dtype)
    single = fresh("tuning-f32.json")
    tfbench("tune", "--threads", "1", "--sizes", "8", "--families", "gemm,solve", "--levels", "l1", "--rounds", "1",
            "--min-time", "0.0005", "--dtypes", "f32", "-o", single, expect=0)
    with open(single) as f:
        f32 = json.load(f)["classes"]
    check(len(f32) == 2 and all(c["dtype"] == "f32" and c["choice"] is not None for c in f32), "f32 classes: %s" % f32)
    for c in f32:
        ran = [k for k in c["candidates"] if not k["skipped"]]
        check(ran and all(k["max_rel_error"] <= 1e-4 for k in ran), "f32 candidates checked: %s" % ran)

    # Auto follows the class measured nearest to the run's 128 x 8 x 8 batch (192 KiB), not another
    # size of the same level: kokkosbatched there (never Auto's built-in choice on a host), BLAS elsewhere.
    batch_bytes = 128 * 3 * 8 * 8 * 8
    nearest = min(classes, key=lambda c: abs(math.log(c["operand_bytes"] / batch_bytes)))
    # Without the candidates' times the nearest class decides (with them, a batch between two measured
    # sizes would take the candidate fastest by the interpolated times, whatever the edited choices).
    for c in classes:
        c["choice"] = {"provider": "blas", "strategy": "provider-items"}
        c["candidates"] = []
    nearest["choice"] = {"provider": "kokkosbatched", "strategy": "sequential"}
    with open(tuning, "w") as f:
        json.dump(data, f)
    out = fresh("tuned.h5")
    tfbench("run", config("tuned.yaml"), "--no-ceilings", "--tuning", tuning, "--out", out, expect=0)
    metrics = tuned_route(out)
    check(metrics.get("route.provider.kokkosbatched") == 1 and metrics.get("route.tuned") == 1,
          "Auto follows the file: %s" % metrics)
    attrs, _, _ = rows_of(out)
    with open(tuning, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    check(attrs["tuning_file"] == tuning and attrs["tuning_sha256"] == digest,
          "the run records the tuning file and its hash: %s %s" % (attrs.get("tuning_file"), attrs.get("tuning_sha256")))

    data["key"]["cpu_model"] = "Another CPU 9000"
    foreign = fresh("foreign-tuning.json")
    with open(foreign, "w") as f:
        json.dump(data, f)
    out = fresh("foreign.h5")
    _, _, err = tfbench("run", config("tuned.yaml"), "--no-ceilings", "--tuning", foreign, "--out", out, expect=0)
    check("another machine or build (cpu_model" in err and "Another CPU 9000" in err, "refused with why:\n" + err)
    metrics = tuned_route(out)
    check(metrics.get("route.tuned") == 0 and "route.provider.kokkosbatched" not in metrics,
          "a foreign file is not trusted: %s" % metrics)
    attrs, _, _ = rows_of(out)
    check(attrs["tuning_file"] == "" and attrs["tuning_sha256"] == "", "no tuning recorded for a refused file")
    _, shown, _ = tfbench("tune", "--show", "-o", foreign, expect=0)
    check("does NOT apply here: cpu_model" in shown, "tune --show on a foreign file:\n" + shown)

    # The contraction crossover: both routes checked and timed per size, and a run follows the file's
    # threshold (here edited to each extreme) in the route its steps take.
    crossing = fresh("tuning-contraction.json")
    tfbench("tune", "--threads", "1", "--families", "contraction", "--rounds", "1", "--min-time", "0.0005",
            "-o", crossing, expect=0)
    with open(crossing) as f:
        cdata = json.load(f)
    check(cdata["classes"] == [] and len(cdata["contraction"]) == 1, "only the crossover: %s" % cdata["contraction"])
    cross = cdata["contraction"][0]
    check(cross["threads"] == 1 and len(cross["points"]) >= 5, "a ladder of sizes: %s" % cross)
    check(all(p["max_rel_error"] <= 1e-12 and p["direct_s"] > 0 and p["gemm_s"] > 0 for p in cross["points"]),
          "both routes checked and timed: %s" % cross["points"])
    check(cross["direct_max_muladds"] in [0] + [p["muladds"] for p in cross["points"]], "a measured threshold: %s" % cross)

    def replay_routes(path):
        _, _, rows = rows_of(path)
        check(len(rows) == 1 and rows[0]["status"] == "ok", "one ok row: %s" % [(r["case_id"], r["status"]) for r in rows])
        m = json.loads(rows[0]["metrics"])
        return m.get("route.direct_per_call"), m.get("route.gemm_per_call")

    out = fresh("contraction-builtin.h5")
    tfbench("run", config("tuned_contraction.yaml"), "--no-ceilings", "--tuning", "off", "--out", out, expect=0)
    check(replay_routes(out) == (2, 0), "built in: both steps direct (<= 1331 multiply-adds, under 2048): %s" % (replay_routes(out),))
    for threshold, want in ((0, (0, 2)), (1e6, (2, 0))):
        cross["direct_max_muladds"] = threshold
        with open(crossing, "w") as f:
            json.dump(cdata, f)
        out = fresh("contraction-tuned.h5")
        tfbench("run", config("tuned_contraction.yaml"), "--no-ceilings", "--tuning", crossing, "--out", out, expect=0)
        check(replay_routes(out) == want, "threshold %g: direct, gemm per call %s" % (threshold, replay_routes(out)))

    cache = work("tuning-cache")
    shutil.rmtree(cache, ignore_errors=True)
    env = {"TFBENCH_TUNING": "auto", "TFBENCH_TUNING_DIR": cache}
    _, _, first = tfbench("run", config("tuned.yaml"), "--no-ceilings", "--out", fresh("auto1.h5"), env=env, expect=0)
    check("calibrating Auto first" in first and "tune: wrote " + cache in first, "first use calibrates:\n" + first)
    check(len(os.listdir(cache)) == 1, "one tuning file in %s: %s" % (cache, os.listdir(cache)))
    with open(os.path.join(cache, os.listdir(cache)[0])) as f:
        calibrated = json.load(f)
    check(len(calibrated["contraction"]) >= 1 and calibrated["classes"],
          "the first-use calibration measures the contraction crossover too: %s" % calibrated["contraction"])
    _, _, second = tfbench("run", config("tuned.yaml"), "--no-ceilings", "--out", fresh("auto2.h5"), env=env,
                           expect=0)
    check("calibrating" not in second, "the second run reuses the file:\n" + second)

    _, _, err = tfbench("tune", "--threads", "0", expect=2)
    check("--threads: '0'" in err, "bad thread count: " + err)
    _, _, err = tfbench("tune", "--levels", "l3", expect=2)
    check("--levels: 'l3' (expected l1, l2, llc or dram)" in err, "bad level: " + err)
    _, _, err = tfbench("tune", "--dtypes", "f16", expect=2)
    check("--dtypes: 'f16' (expected f64 or f32)" in err, "bad dtype: " + err)
    _, _, err = tfbench("run", config("tuned.yaml"), "--tuning", work("missing.json"), "--out", fresh("m.h5"),
                        expect=0)
    check("no tuning file" in err, "a missing file is reported: " + err)


def info_llc(stdout):
    """(LLC KiB, the parenthesis after it) of `tfbench info`'s caches line."""
    m = re.search(r"^caches: .* LLC (\d+) KiB \((.*)\)$", stdout, re.M)
    check(m is not None, "a caches line in info: %s" % stdout)
    return int(m.group(1)), m.group(2)


def test_llc_probe():
    """The LLC's capacity where sysfs lists no L3 (a VM whose CPUID report is the whole package's, 508 MiB
    on the EPYC VM): measured once per machine, kept, and used by the workers; $TFBENCH_LLC_BYTES wins over
    every source, and one that is not a byte count exits 2 naming it."""
    cache = work("llc-machine")
    shutil.rmtree(cache, ignore_errors=True)
    env = {"TFBENCH_MACHINE_DIR": cache}
    # Only the commands that size memory levels (run, tune, list, info) settle it.
    _, _, stderr = tfbench("validate", config("tiny.yaml"), env=env, expect=0)
    check("measuring" not in stderr and not os.path.exists(cache), "validate measures nothing: %s" % stderr)
    _, stdout, stderr = tfbench("info", "--no-verify", env=env, expect=0)
    kib, source = info_llc(stdout)
    if os.path.exists("/sys/devices/system/cpu/cpu0/cache/index3"):
        check("measuring" not in stderr and not os.path.exists(cache), "sysfs lists the L3: nothing measured")
        check(source.startswith("from sysfs"), "LLC from sysfs: %s" % source)
    else:
        check("measuring the last-level cache's capacity" in stderr, "the sweep is announced: %s" % stderr)
        files = os.listdir(cache)
        check(len(files) == 1 and files[0].startswith("llc-"), "one probe file: %s" % files)
        with open(os.path.join(cache, files[0])) as f:
            kept = json.load(f)
        # A sweep beside other work (a parallel ctest) is kept too, as provisional, with its load.
        busy = "on a busy host" in stderr
        check(busy == (kept["busy_load"] is not None) and (not busy or "provisional" in stderr),
              "a busy sweep is kept as provisional: %s %s" % (stderr, kept["busy_load"]))
        sweep = [p["bytes"] for p in kept["sweep"]]
        check(len(sweep) >= 1 and sweep == sorted(sweep), "the sweep's points, ascending: %s" % kept["sweep"])
        if kept["llc_bytes"] > 0:
            check(kib * 1024 == kept["llc_bytes"] and "LLC measured, reported" in source,
                  "info shows the measured LLC: %d KiB, %s, %s" % (kib, source, kept))
        _, _, again = tfbench("info", "--no-verify", env=env, expect=0)
        check("measuring" not in again, "measured once per machine: %s" % again)
        # A busy host's sweep is used, and said to be provisional, for an hour; then measured again.
        path = os.path.join(cache, files[0])
        for age, measured in ((60, False), (7200, True)):
            kept.update(busy_load={"other": 0.5, "steal": 0.0}, llc_bytes=77 * 1024 * 1024,
                        measured_unix=time.time() - age)
            with open(path, "w") as f:
                json.dump(kept, f)
            _, stdout, stderr = tfbench("info", "--no-verify", env=env, expect=0)
            if measured:
                check("measuring" in stderr, "a provisional LLC an hour old is measured again: %s" % stderr)
            else:
                check("measuring" not in stderr and "LLC 77 MiB as measured on a busy host 1 min ago" in stderr
                      and info_llc(stdout)[0] == 77 * 1024, "a provisional LLC is used and named: %s" % stderr)

    env["TFBENCH_LLC_BYTES"] = "24M"
    _, stdout, stderr = tfbench("info", "--no-verify", env=env, expect=0)
    kib, source = info_llc(stdout)
    check(kib == 24 * 1024 and "LLC TFBENCH_LLC_BYTES" in source, "the user's LLC: %d KiB (%s)" % (kib, source))
    # The workers size their levels by it too: the ceilings they measure record it.
    out = fresh("llc_user.h5")
    tfbench("run", config("tiny.yaml"), "--ceilings", "measure", "--out", out,
            env=dict(env, TFBENCH_CEILINGS_DIR=work("llc-ceilings"), TFBENCH_CEILINGS_SPREAD_LIMIT="1"), expect=0)
    _, workers, _ = rows_of(out)
    for w in workers:
        caches = json.loads(w["ceilings"])["caches"]
        check(caches["llc_bytes"] == 24 * 1024 * 1024, "worker's ceilings sized by the user's LLC: %s" % caches)

    rc, _, stderr = tfbench("info", "--no-verify", env=dict(env, TFBENCH_LLC_BYTES="lots"))
    check(rc == 2 and "TFBENCH_LLC_BYTES='lots'" in stderr and "32M" in stderr, "a bad LLC size: %d %s" % (rc, stderr))


def test_machine():
    """Measures what the other tests' runs share (the LLC where sysfs lists none) once, alone, before
    them (a ctest fixture run serially): every later run, in parallel or not, sizes its levels alike."""
    shutil.rmtree(work("machine-cache"), ignore_errors=True)
    _, stdout, stderr = tfbench("info", "--no-verify", expect=0)
    if "measuring" in stderr:
        check(len(os.listdir(work("machine-cache"))) == 1, "the capacity is kept: %s" % stderr)
        _, again, stderr = tfbench("info", "--no-verify", expect=0)
        check("measuring" not in stderr and info_llc(again) == info_llc(stdout), "and reused: %s" % stderr)


def test_roofline():
    """Every row is taken against the ceiling of the level its working set lives in (issue 19, item 2):
    --ceilings measure measures peaks and the L1, L2, LLC and DRAM bandwidths with their samples and
    caches them for this machine and build; the next run reuses them (no measuring); a cache file of
    another machine is ignored with the field that differs; --ceilings off leaves the roofline empty."""
    cache = work("roofline-ceilings")
    shutil.rmtree(cache, ignore_errors=True)
    # The samples may spread on a busy test machine: cache them anyway here (the default 0.3 refuses).
    env = {"TFBENCH_CEILINGS_DIR": cache, "TFBENCH_CEILINGS_SPREAD_LIMIT": "1"}
    first = fresh("roofline1.h5")
    _, stdout, _ = tfbench("run", config("roofline.yaml"), "--ceilings", "measure", "--out", first, env=env, expect=0)
    _, workers, rows = rows_of(first)
    check(len(workers) == 1, "one worker")
    w = workers[0]
    # OpenBLAS 0.3.21 reads some new CPUs as "Prescott" (SSE3 kernels, 4x slower); tfbench asks for the
    # kernels of the host's instruction set then, and the workers verify which they loaded.
    with open("/proc/cpuinfo") as f:
        flags = set(next(line for line in f if line.startswith("flags")).split())
    sse_era = {"prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "unknown"}
    if {"avx2", "fma"} <= flags:
        check(w["blas_core"].lower() not in sse_era, "the worker's OpenBLAS kernels: %s" % w["blas_core"])
    attrs1, _, _ = rows_of(first)
    check(attrs1["blas_coretype_forced"] == "" or "OpenBLAS detected" in attrs1["blas_coretype_forced"],
          "the correction is recorded: %s" % attrs1["blas_coretype_forced"])
    check(w["ceilings_source"] == "measured" and w["ceilings_s"] > 0, "measured: %s" % w["ceilings_source"])
    check(w["ceilings_measured"] == w["ceilings"], "nothing cached yet: its own ceilings are the row's")
    for column in ("ceiling_gflops", "ceiling_gflops_f32", "ceiling_l1_gbs", "ceiling_l2_gbs", "ceiling_llc_gbs",
                   "ceiling_gbs"):
        check(np.isfinite(w[column]) and w[column] > 0, "%s measured: %s" % (column, w[column]))
    detail = json.loads(w["ceilings"])
    levels = [detail["bandwidth"][level] for level in ("l1", "l2", "llc", "dram")]
    check([c["working_set_bytes"] for c in levels] == sorted(c["working_set_bytes"] for c in levels),
          "the levels' working sets grow: %s" % levels)
    for c in levels + [detail[k] for k in ("peak_f64", "peak_f32", "fma_f64", "fma_f32", "gemm_f64", "gemm_f32")]:
        check(c["samples"] == 5 and c["worst"] <= c["median"] <= c["best"], "samples with their spread: %s" % c)
    # The peak is the higher of the FMA throughput and the BLAS GEMM, both kept.
    for p in ("f64", "f32"):
        check(detail["peak_" + p]["best"] == max(detail["fma_" + p]["best"], detail["gemm_" + p]["best"]),
              "%s peak: the higher of fma and gemm: %s" % (p, detail))
    check(w["ceiling_gflops"] == detail["peak_f64"]["best"], "ceiling_gflops is the f64 peak")
    check(detail["bandwidth"]["dram"]["best"] == w["ceiling_gbs"], "ceiling_gbs is the DRAM level")
    # The LLC ladder: where the LLC is over twice the L2s (here one thread's), further LLC working sets
    # between the two, one per factor of 8 (at most 3, each the geometric middle of its part), ascending,
    # each measured like a level; a size within 1.5x of the LLC level's own working set is left out, so
    # a small LLC (a busy host's probe once read 2.9 MiB here) may have none.
    caches, ladder = detail["caches"], detail["llc_sizes"]
    lo, hi = detail["threads"] * caches["l2_bytes"], caches["llc_bytes"]
    llc_point = detail["bandwidth"]["llc"]["working_set_bytes"]
    expected = []
    if hi > 2 * lo:
        parts = min(3, max(1, math.ceil(math.log(hi / lo) / math.log(8))))
        for i in range(parts):
            ws = lo * math.exp(math.log(hi / lo) * (2 * i + 1) / (2 * parts))
            if max(ws, llc_point) / min(ws, llc_point) >= 1.5:
                expected.append(ws)
    sizes = [c["working_set_bytes"] for c in ladder]
    check(len(sizes) == len(expected) and all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(sizes, expected)),
          "the LLC ladder's sizes: %s, expected %s (caches %s, LLC level at %s)" % (sizes, expected, caches, llc_point))
    check(sizes == sorted(sizes) and all(caches["l2_bytes"] < ws < caches["llc_bytes"] for ws in sizes),
          "ladder sizes inside the LLC: %s" % sizes)
    check(all(c["samples"] == 5 and c["worst"] <= c["median"] <= c["best"] for c in ladder), "ladder samples")
    # Where each per-core cache ends: its bandwidth at 5/8, 3/4, 7/8 and all of its capacity (at the
    # worker's threads), each measured like a level.
    for level, capacity in (("l1", caches["l1_bytes"]), ("l2", caches["l2_bytes"])):
        edges = detail["cache_edges"][level]
        want = [f * capacity * detail["threads"] for f in (0.625, 0.75, 0.875, 1.0)]
        check(len(edges) == 4 and all(abs(c["working_set_bytes"] - w) < 1 for c, w in zip(edges, want)),
              "%s edges at 5/8 ... 1 of its capacity: %s" % (level, edges))
        check(all(c["samples"] == 5 and 0 < c["worst"] <= c["median"] <= c["best"] for c in edges),
              "%s edge samples" % level)
    files = os.listdir(cache)
    check(len(files) == 1, "one cache file: %s" % files)
    for r in rows:
        check(r["status"] == "ok", "%s ok" % r["case_id"])
        check(r["memory_level"] in ("l1", "l2", "llc", "dram"), "%s: level %s" % (r["case_id"], r["memory_level"]))
        check(np.isfinite(r["roofline_fraction"]) and r["roofline_fraction"] > 0, "%s: fraction" % r["case_id"])
        # Each round against the ceilings measured beside it in that round (their best rounds set the
        # bound): never below the bound over the median, inside its own interval.
        check(r["roofline_fraction"] >= r["roofline_bound_s"] / r["median_s"] * (1 - 1e-9),
              "%s: the rounds' fraction %s under bound / median %s"
              % (r["case_id"], r["roofline_fraction"], r["roofline_bound_s"] / r["median_s"]))
        check(r["roofline_fraction_lo"] <= r["roofline_fraction"] <= r["roofline_fraction_hi"],
              "%s: fraction %s in its interval [%s, %s]" % (r["case_id"], r["roofline_fraction"],
                                                            r["roofline_fraction_lo"], r["roofline_fraction_hi"]))
    gemm = [r for r in rows if r["family"] == "packed_small"][0]
    check(abs(gemm["arithmetic_intensity"] - gemm["flops"] / gemm["bytes"]) < 1e-12, "AI = flops / bytes")
    check(gemm["precision"] == "f64" and gemm["working_set_bytes"] == gemm["bytes"], "footprint of one pass")
    check(gemm["memory_level"] == "l2", "64 items of 3 8x8 doubles (96 kB) in L2: %s" % gemm["memory_level"])
    triad = [r for r in rows if r["family"] == "bandwidth_control"]
    check(all(r["roofline_ceiling"] == "bw_" + r["memory_level"] for r in triad), "a triad is bandwidth-bound")
    # Its level's bandwidth measured again in its own rounds bounds it, in place of the cached ceiling
    # (the triad stores `a` without reading it: from DRAM those bytes count twice).
    for r in triad:
        beside = r["bandwidth_beside_gbs"]
        check(np.isfinite(beside) and beside > 0, "%s: bandwidth beside it: %s" % (r["case_id"], beside))
        traffic = r["bytes"] + (r["write_allocate_bytes"] if r["memory_level"] == "dram" else 0.0)
        check(abs(r["roofline_bound_s"] - traffic / (beside * 1e9)) <= 1e-9 * r["roofline_bound_s"],
              "%s: bound from the bandwidth beside it" % r["case_id"])
    # A compute-bound row against the FMA peak measured in its own rounds, where the FMA sets the peak.
    fma_peak = detail["peak_f64"]["best"] == detail["fma_f64"]["best"]
    for r in rows:
        if r["roofline_ceiling"] != "peak_f64":
            check(not np.isfinite(r["peak_beside_gflops"]), "%s: no peak beside a bandwidth-bound row" % r["case_id"])
            continue
        if not fma_peak:
            continue
        beside = r["peak_beside_gflops"]
        check(np.isfinite(beside) and beside > 0, "%s: peak beside it: %s" % (r["case_id"], beside))
        check(abs(r["roofline_bound_s"] - r["flops"] / (beside * 1e9)) <= 1e-9 * r["roofline_bound_s"],
              "%s: bound from the peak beside it" % r["case_id"])
    check(all(r["precision"] == "" or r["flops"] > 0 for r in rows), "precision only with flops")

    second = fresh("roofline2.h5")
    _, stdout, _ = tfbench("run", config("roofline.yaml"), "--out", second, env=env, expect=0)
    _, workers2, rows2 = rows_of(second)
    w2 = workers2[0]
    check(w2["ceilings_source"].startswith("cached " + cache) and w2["ceilings_s"] == 0,
          "the second run reuses the cache: %s %s" % (w2["ceilings_source"], w2["ceilings_s"]))
    check(w2["ceiling_l2_gbs"] == w["ceiling_l2_gbs"] and w2["ceilings"] == w["ceilings"], "the same ceilings")
    check(w2["ceilings_measured"] == "", "a cached worker measured none: %r" % w2["ceilings_measured"][:80])
    check("ceilings from " + cache in stdout, "the run says where its ceilings came from:\n" + stdout)
    check("1 worker start(s), ceilings cached" in stdout,
          "the estimate counts no measuring for cached ceilings:\n" + stdout)
    _, listed, _ = tfbench("list", config("roofline.yaml"), env=env, expect=0)
    check("ceilings cached" in listed, "list estimates as run would:\n" + listed)
    _, report, _ = tfbench("report", second, expect=0)
    check("ceilings: peak" in report and "of bound" in report and "L2" in report and "GB/s beside)" in report,
          "report names them, and the bandwidth beside the triad:\n" + report)
    check(not ladder or " MiB: " in report, "report lists the LLC ladder:\n" + report)
    check("L1 holds " in report and "L2 holds " in report, "report says where the caches end:\n" + report)
    check(" (fma" in report or " (dgemm; fma " in report, "report names the peak's measurement:\n" + report)
    figures = work("roofline-figures")
    shutil.rmtree(figures, ignore_errors=True)
    plot = subprocess.run(["/usr/bin/python3", os.path.join(ARGS.source_dir, "scripts", "plot_results.py"), second,
                           "-o", figures], capture_output=True, text=True)
    png = os.path.join(figures, "roofline_threads1_openmp.png")
    check(plot.returncode == 0 and os.path.exists(png) and os.path.getsize(png) > 10000,
          "plot_results.py draws the roofline: %s %s" % (plot.stdout, plot.stderr))
    targets = subprocess.run(["/usr/bin/python3", os.path.join(ARGS.source_dir, "scripts", "target_report.py"),
                              second], capture_output=True, text=True)
    check(targets.returncode == 0 and "largest fraction of roofline" in targets.stdout,
          "target_report.py judges the fractions: %s %s" % (targets.stdout, targets.stderr))

    # Two threads: their worker measures the handoff (a cache line's round trip between two of its
    # threads) and bounds each row by the smaller of one thread's bound (the cache's one-thread entry,
    # copied from the runs above) and its own plus the handoff.
    if (os.cpu_count() or 1) >= 2:
        cache2 = work("roofline-ceilings-2t")
        shutil.rmtree(cache2, ignore_errors=True)
        shutil.copytree(cache, cache2)
        env2 = dict(env, TFBENCH_CEILINGS_DIR=cache2)
        both = fresh("roofline-2t.h5")
        tfbench("run", config("roofline.yaml"), "--threads", "1,2", "--filter", "packed_small", "--ceilings", "measure",
                "--out", both, env=env2, expect=0)
        _, workers3, rows3 = rows_of(both)
        by_threads = {int(w["threads"]): json.loads(w["ceilings"]) for w in workers3}
        # The one-thread ceilings the two-thread worker read (the one-thread worker ran first and kept
        # the best of each in the cache): a peak the BLAS GEMM set is not measured beside.
        with open(os.path.join(cache2, files[0])) as f:
            one_thread = next(e["ceilings"] for e in json.load(f)["entries"] if e["threads"] == 1)

        def gemm_set_peak(precision):
            return one_thread["peak_" + precision]["best"] == one_thread["gemm_" + precision]["best"]
        handoff = by_threads[2]["handoff"]
        check(handoff["samples"] == 5 and 0 < handoff["worst"] <= handoff["median"] <= handoff["best"],
              "two threads measure the handoff: %s" % handoff)
        check(by_threads[1]["handoff"]["samples"] == 0, "one thread hands nothing over: %s" % by_threads[1]["handoff"])
        for r in rows3:
            expected = (1,) if r["threads"] == 1 else (1, 2)
            check(r["roofline_threads"] in expected, "%s at %d threads: bound of %s thread(s)"
                  % (r["case_id"], r["threads"], r["roofline_threads"]))
            one_thread_beside = [r["bandwidth_beside_1t_gbs"], r["peak_beside_1t_gflops"]]
            if r["threads"] == 1 or r["status"] != "ok":
                check(not np.isfinite(r["handoff_beside_us"]), "%s at %d threads, %s: no handoff beside"
                      % (r["case_id"], r["threads"], r["status"]))
                check(not any(np.isfinite(one_thread_beside)), "%s at %d threads, %s: no one-thread ceiling beside"
                      % (r["case_id"], r["threads"], r["status"]))
                continue
            # Each case measures the handoff again in its rounds; its best round stands for the cached one.
            beside = r["handoff_beside_us"]
            check(np.isfinite(beside) and beside > 0, "%s: a handoff measured beside: %s" % (r["case_id"], beside))
            # ... and one thread's ceiling of one thread's bound (the cache holds one thread's ceilings),
            # unless that is a peak the GEMM set (on some hosts one thread's GEMM outruns the FMA chains).
            if r["precision"] and not any(np.isfinite(one_thread_beside)) and gemm_set_peak(r["precision"]):
                check(r["roofline_threads"] == 2 or r["roofline_ceiling"] == "peak_" + r["precision"],
                      "%s: no one-thread ceiling beside, yet bound by one thread's %s"
                      % (r["case_id"], r["roofline_ceiling"]))
            else:
                check(sum(np.isfinite(one_thread_beside)) == 1 and np.nanmax(one_thread_beside) > 0,
                      "%s: one thread's ceiling measured beside: %s" % (r["case_id"], one_thread_beside))
            if r["roofline_threads"] == 2:
                check(r["roofline_bound_s"] >= beside * 1e-6, "%s: the bound holds the handoff beside" % r["case_id"])
        _, report3, _ = tfbench("report", both, expect=0)
        check("handoff " in report3 and " us" in report3, "report prints the handoff:\n" + report3)
        if any(r["threads"] == 2 and r["roofline_threads"] == 2 for r in rows3):
            check(" us handoff)" in report3, "report names the handoff beside a bound of two threads:\n" + report3)
        if any(r["threads"] == 2 and r["roofline_threads"] == 1 and
               np.isfinite([r["bandwidth_beside_1t_gbs"], r["peak_beside_1t_gflops"]]).any() for r in rows3):
            check(re.search(r"\(1 thread, [^)]*(GB|GFLOP)/s beside", report3),
                  "report names one thread's ceiling beside a bound of one thread:\n" + report3)

        # Where one thread's GEMM outran its FMA chains (as on the CI's host), one thread's peak is the
        # GEMM's and is not measured beside: raise the cached one-thread dgemm a little above the FMA
        # peak; a two-thread row that one thread's peak bounds then has no one-thread ceiling beside it
        # (whether one thread's bound is the smaller depends on the host's two-thread peak and handoff,
        # both measured beside the row: on the 2-vCPU VM it is).
        cache3 = work("roofline-ceilings-gemm")
        shutil.rmtree(cache3, ignore_errors=True)
        shutil.copytree(cache2, cache3)
        with open(os.path.join(cache3, files[0])) as f:
            data3 = json.load(f)
        for e in data3["entries"]:
            if e["threads"] == 1:
                e["ceilings"]["gemm_f64"]["best"] = e["ceilings"]["peak_f64"]["best"] = \
                    1.05 * e["ceilings"]["fma_f64"]["best"]
        with open(os.path.join(cache3, files[0]), "w") as f:
            json.dump(data3, f)
        gemm_set = fresh("roofline-2t-gemm.h5")
        tfbench("run", config("roofline.yaml"), "--threads", "2", "--filter", "packed_small", "--out", gemm_set,
                env=dict(env, TFBENCH_CEILINGS_DIR=cache3), expect=0)
        _, _, rows_gemm = rows_of(gemm_set)
        check(rows_gemm and all(not np.isfinite(r["peak_beside_1t_gflops"]) for r in rows_gemm),
              "one thread's GEMM-set peak is never measured beside: %s" % [r["peak_beside_1t_gflops"] for r in rows_gemm])
        bound_by_one = [r for r in rows_gemm if r["roofline_threads"] == 1 and r["roofline_ceiling"] == "peak_f64"]
        for r in bound_by_one:
            check(not np.isfinite([r["bandwidth_beside_1t_gbs"], r["peak_beside_1t_gflops"]]).any(),
                  "%s: no one-thread ceiling beside a GEMM-set peak" % r["case_id"])
        if bound_by_one and len(bound_by_one) == len(rows_gemm):
            _, report_gemm, _ = tfbench("report", gemm_set, expect=0)
            check("peak_f64 (1 thread" in report_gemm and not re.search(r"\(1 thread, [^)]*beside", report_gemm),
                  "report names one thread's bound, nothing beside it:\n" + report_gemm)

    # Measuring again keeps the best of each ceiling: lower the cached L2 and raise the cached DRAM;
    # the run's rows and the cache then hold the new L2 and the cached DRAM.
    path = os.path.join(cache, files[0])
    with open(path) as f:
        data = json.load(f)
    entry = data["entries"][0]["ceilings"]
    entry["bandwidth"]["l2"]["best"] = 1e-3
    entry["bandwidth"]["dram"]["best"] = 1e6
    with open(path, "w") as f:
        json.dump(data, f)
    _, stdout, _ = tfbench("run", config("roofline.yaml"), "--ceilings", "measure", "--out", fresh("roofline-best.h5"),
                           env=env, expect=0)
    _, workers_b, _ = rows_of(work("roofline-best.h5"))
    wb = workers_b[0]
    check(wb["ceilings_source"].startswith("measured, with the best of " + cache),
          "measured and combined: %s" % wb["ceilings_source"])
    check(wb["ceiling_gbs"] == 1e6 and 1e-3 < wb["ceiling_l2_gbs"] < 1e6, "the best of each: dram %s, l2 %s"
          % (wb["ceiling_gbs"], wb["ceiling_l2_gbs"]))
    check("dram bandwidth" in stdout and "lower than the cached measurement" in stdout,
          "the run says which ceilings read lower:\n" + stdout)
    # The file keeps what this worker measured itself beside the combination, and report says which fell short.
    own = json.loads(wb["ceilings_measured"])["bandwidth"]
    check(0 < own["dram"]["best"] < 1e6 and own["l2"]["best"] == wb["ceiling_l2_gbs"],
          "its own measurement: dram %s, l2 %s" % (own["dram"]["best"], own["l2"]["best"]))
    _, report_b, _ = tfbench("report", work("roofline-best.h5"), expect=0)
    own_lines = [line for line in report_b.splitlines() if "this worker measured " in line]
    check(len(own_lines) == 1 and "dram bandwidth" in own_lines[0] and own_lines[0].endswith("than the best kept"),
          "report names the ceilings this worker measured short of the best kept:\n" + report_b)
    with open(path) as f:
        data = json.load(f)
    stored = data["entries"][0]["ceilings"]["bandwidth"]
    check(stored["dram"]["best"] == 1e6 and stored["l2"]["best"] == wb["ceiling_l2_gbs"], "stored combined")
    data["key"]["cpu_model"] = "Another CPU 9000"
    with open(path, "w") as f:
        json.dump(data, f)
    _, stdout, _ = tfbench("run", config("roofline.yaml"), "--out", fresh("roofline3.h5"), env=env, expect=0)
    check("another machine or build (cpu_model" in stdout and "Another CPU 9000" in stdout,
          "a foreign cache is ignored with why:\n" + stdout)
    _, workers3, _ = rows_of(work("roofline3.h5"))
    check(workers3[0]["ceilings_source"] == "measured", "and measured again")

    # The user's OPENBLAS_CORETYPE is never overridden.
    _, _, _ = tfbench("run", config("roofline.yaml"), "--ceilings", "off", "--out", fresh("roofline4.h5"),
                      env=dict(env, OPENBLAS_CORETYPE="Haswell"), expect=0)
    attrs4, workers4, rows4 = rows_of(work("roofline4.h5"))
    check(attrs4["blas_coretype_forced"] == "" and workers4[0]["blas_core"] == "Haswell",
          "the user's core: %s %s" % (attrs4["blas_coretype_forced"], workers4[0]["blas_core"]))
    check(workers4[0]["ceilings_source"] == "off" and not np.isfinite(workers4[0]["ceiling_gflops"]), "off")
    check(all(not np.isfinite(r["roofline_fraction"]) and r["roofline_ceiling"] == "" for r in rows4),
          "no roofline without ceilings")
    _, _, err = tfbench("run", config("roofline.yaml"), "--ceilings", "sometimes", "--out", fresh("r5.h5"), expect=2)
    check("--ceilings: expected cached, measure or off, found 'sometimes'" in err, "a bad mode: " + err)


TESTS = {
    "machine": test_machine,
    "roofline": test_roofline,
    "smoke": test_smoke,
    "host_load": test_host_load,
    "helper_settles": test_helper_settles,
    "tuning": test_tuning,
    "llc_probe": test_llc_probe,
    "verification": test_verification,
    "crash": test_crash,
    "compare_setup": test_compare_setup,
    "compare_aa": test_compare_aa,
    "compare_regression": test_compare_regression,
    "merge": test_merge,
    "interrupt": test_interrupt,
    "cli": test_cli,
    "option_values": test_option_values,
    "timeout": test_timeout,
    "writers": test_writers,
    "config_output": test_config_output,
    "full_disk": test_full_disk,
    "progress": test_progress,
    "list_skips": test_list_skips,
    "torch_skipped": test_torch_skipped,
    "peers_unselected": test_peers_unselected,
    "isa": test_isa,
}


def isolate_from_user_caches():
    """The environment every tfbench a test starts inherits, through tfbench() or not (a test adds to
    it): its caches in the work directory, never the user's; no calibration on first use unless a test
    asks for it (test_tuning), so that a run is as fast as its estimate even where the user's tuning is
    stale (a rebuilt tfbench); no injected faults or LLC size of the user's."""
    for name in ["TFBENCH_TUNING", "TFBENCH_TUNING_DIR", "TFBENCH_CEILINGS", "TFBENCH_FAULT_INJECT",
                 "TFBENCH_LLC_BYTES"]:
        os.environ.pop(name, None)
    os.environ["XDG_CACHE_HOME"] = work("xdg-cache")
    os.environ["TFBENCH_TUNING"] = "off"
    # Ceilings cached in the build tree (test_roofline uses its own directory).
    os.environ["TFBENCH_CEILINGS_DIR"] = work("ceilings-cache")
    # The LLC measured where sysfs lists none: once per build tree (the e2e_machine fixture).
    os.environ["TFBENCH_MACHINE_DIR"] = work("machine-cache")


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("test", choices=sorted(TESTS))
    parser.add_argument("--tfbench", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--work-dir", required=True)
    ARGS = parser.parse_args()
    os.makedirs(ARGS.work_dir, exist_ok=True)
    isolate_from_user_caches()
    TESTS[ARGS.test]()
    print("PASS: " + ARGS.test)


if __name__ == "__main__":
    main()
