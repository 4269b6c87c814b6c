#!/usr/bin/python3
"""Checks a tfbench result file: every worker ran with the thread counts it asked for, runs are
complete, and (optionally) the expected number of runs and thread configurations are there.
Cluster jobs run it after `tfbench run` and after `tfbench merge`.

  check_results.py FILE [--threads N] [--runs K] [--allow-incomplete] [--min-ok-rows R]

Prints one line per run. Exit 0 all checks pass, 1 a check failed (each failure printed),
2 the file is unusable.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tfbench_results import ResultsFormatError, load  # noqa: E402
from tfbench_results.provenance import short_rev, thread_summary  # noqa: E402


def check(result, threads=None, runs=None, allow_incomplete=False, min_ok_rows=1,
          require_affinity=False):
    """Returns the list of failed checks (empty: all passed)."""
    problems = []
    if runs is not None and len(result.runs) != runs:
        problems.append(f"{len(result.runs)} run(s), expected {runs}")
    if not result.runs:
        problems.append("no runs")
    for run in result.runs:
        where = f"run {run.id}"
        if run["status"] != "complete" and not allow_incomplete:
            problems.append(f"{where}: status {run['status']!r}, expected 'complete'")
        if not run.workers:
            problems.append(f"{where}: no workers")
        for w in run.workers:
            wt = f"{where}: worker {w['threads']}t/{w['exec_space']}"
            if not w.verified:
                problems.append(f"{wt}: thread counts not verified (exit {w['exit']!r}, kokkos "
                                f"{w['kokkos_threads']}, blas {w['blas_threads']} of "
                                f"{w.get('blas_threads_requested')})")
            elif not w.ok:
                problems.append(f"{wt}: worker pid {w.get('pid')} ended with {w['exit']!r}")
            if threads is not None:
                for field in ("threads", "kokkos_threads", "blas_threads"):
                    if int(w[field]) != threads:
                        problems.append(f"{wt}: {field} = {w[field]}, expected {threads}")
            if require_affinity and int(w.get("affinity_cpus", 0)) < int(w["threads"]):
                problems.append(f"{wt}: {w.get('affinity_cpus')} CPU(s) in its affinity mask for "
                                f"{w['threads']} thread(s)")
        ok = sum(1 for r in run.rows if r.ok)
        if ok < min_ok_rows:
            problems.append(f"{where}: {ok} ok result row(s), expected at least {min_ok_rows}")
        bad = [r for r in run.rows if r["variant_kind"] != "peer" and r["status"] in
               ("check_failed", "error", "crashed", "timed_out")]
        for r in bad[:5]:
            problems.append(f"{where}: {r['case_id']} [{r['threads']}t] {r['status']}: {r['error']}")
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--threads", type=int, help="every worker must have run exactly N threads")
    ap.add_argument("--runs", type=int, help="the file must hold exactly K runs")
    ap.add_argument("--allow-incomplete", action="store_true",
                    help="accept runs whose status is not 'complete'")
    ap.add_argument("--min-ok-rows", type=int, default=1, help="ok rows each run needs (default 1)")
    ap.add_argument("--require-affinity", action="store_true",
                    help="each worker's affinity mask must hold at least its thread count")
    args = ap.parse_args(argv)
    try:
        result = load(args.file)
    except (ResultsFormatError, OSError) as e:
        print(f"check_results: error: {e}", file=sys.stderr)
        return 2
    for run in result.runs:
        ok = sum(1 for r in run.rows if r.ok)
        print(f"{run.id}: {run['status']}, rev {short_rev(run)}, host {run['hostname']}, "
              f"{ok}/{len(run.rows)} rows ok, {thread_summary(run)}")
    problems = check(result, args.threads, args.runs, args.allow_incomplete, args.min_ok_rows,
                     args.require_affinity)
    for p in problems:
        print(f"check_results: FAILED: {p}", file=sys.stderr)
    if not problems:
        print(f"check_results: {args.file}: {len(result.runs)} run(s), all checks passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
