#!/usr/bin/python3
"""Checks one Slurm array task's result file: one complete run whose workers ran exactly the thread
counts of the step (each verified: Kokkos and BLAS counts, affinity mask), with rows at every one of
them, and each worker's threads pinned one per core (its `binding`) unless the run was unpinned.

  check_part.py FILE --threads 1,8 [--expect-unpinned]

Exit 0 all checks pass, 1 a check failed (each printed), 2 the file is unusable.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from check_results import check  # noqa: E402
from tfbench_results import ResultsFormatError, load  # noqa: E402


def binding_problems(worker, pinned):
    """What is wrong with a worker's recorded binding: `off`, or `<places> omp:<cpus>,... ...` with
    one distinct place per OpenMP thread."""
    where = f"worker {worker['threads']}t/{worker['exec_space']}"
    binding = worker.get("binding")
    if binding is None:
        return [f"{where}: no binding recorded (a tfbench from before pinning?)"]
    if not pinned:
        return [] if binding == "off" else [f"{where}: binding {binding!r}, expected 'off' (--no-pin)"]
    fields = dict(f.split(":", 1) for f in binding.split()[1:] if ":" in f)
    places = fields.get("omp", "").split(",") if fields.get("omp") else []
    if binding.split()[:1] not in (["cores"], ["threads"]):
        return [f"{where}: not pinned (binding {binding!r})"]
    if len(places) != int(worker["threads"]) or len(set(places)) != len(places):
        return [f"{where}: binding {binding!r}: expected {worker['threads']} distinct places"]
    return []


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--threads", required=True, help="the thread counts, e.g. 1,8")
    ap.add_argument("--expect-unpinned", action="store_true", help="the run was made with --no-pin")
    args = ap.parse_args(argv)
    want = sorted({int(t) for t in args.threads.split(",")})
    try:
        result = load(args.file)
    except (ResultsFormatError, OSError) as e:
        print(f"check_part: error: {e}", file=sys.stderr)
        return 2
    problems = check(result, runs=1, require_affinity=True)
    for run in result.runs:
        have = sorted({int(w["threads"]) for w in run.workers})
        if have != want:
            problems.append(f"run {run.id}: workers at {have} thread(s), expected {want}")
        rows_at = sorted({int(r["threads"]) for r in run.rows if r.ok})
        if rows_at != want:
            problems.append(f"run {run.id}: ok rows at {rows_at} thread(s), expected {want}")
        for w in run.workers:
            problems += [f"run {run.id}: {p}" for p in binding_problems(w, not args.expect_unpinned)]
    for p in problems:
        print(f"check_part: {args.file}: {p}", file=sys.stderr)
    if not problems:
        bindings = "; ".join(f"{w['threads']}t {w.get('binding')}" for r in result.runs for w in r.workers)
        print(f"check_part: {args.file}: ok, threads {want}, {bindings}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
