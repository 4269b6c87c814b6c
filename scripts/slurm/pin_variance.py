#!/usr/bin/python3
"""Measures what pinning does to the noise of a node: runs one config ROUNDS times pinned and
ROUNDS times with `--no-pin`, alternating (pinned, unpinned, pinned, ...) so both see the same
neighbours, then prints per case and thread count the median within-run cv of each mode and the
run-to-run cv of the row's median time. Run it on the node to judge (inside an allocation on a
cluster: `srun --exclusive ... pin_variance.py ...`).

  pin_variance.py CONFIG [--rounds 4] [--threads 1,max] [--tfbench PATH] [--out DIR]

Exit 0 measured, 1 a run failed, 2 usage.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tfbench_results import load  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cv(values):
    values = [v for v in values if v == v]
    if len(values) < 2 or statistics.mean(values) == 0:
        return float("nan")
    return statistics.stdev(values) / statistics.mean(values)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("config")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--threads", default="1,max")
    ap.add_argument("--tfbench", default=os.environ.get("TFBENCH",
                                                        os.path.join(REPO, "build/default/harness/tfbench")))
    ap.add_argument("--out", help="keep the result files here (default: a temporary folder)")
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="tfbench-pin-")
    os.makedirs(out, exist_ok=True)
    files = {"pinned": [], "unpinned": []}
    for r in range(args.rounds):
        for mode in ("pinned", "unpinned"):
            path = os.path.join(out, f"{mode}-{r}.h5")
            cmd = [args.tfbench, "run", args.config, "--threads", args.threads, "--no-ceilings",
                   "--overwrite", "-o", path] + (["--no-pin"] if mode == "unpinned" else [])
            done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                print(f"pin_variance: {' '.join(cmd)} exited {done.returncode}:\n{done.stderr}", file=sys.stderr)
                return 1
            files[mode].append(path)
    # (case_id, threads) -> mode -> [(cv, median_s) per run]
    table = {}
    bindings = {}
    for mode, paths in files.items():
        for path in paths:
            for run in load(path).runs:
                for w in run.workers:
                    bindings.setdefault((mode, int(w["threads"])), w.get("binding"))
                for row in run.rows:
                    if row.ok:
                        table.setdefault((row["case_id"], int(row["threads"])), {}).setdefault(mode, []).append(
                            (float(row["cv"]), float(row["median_s"])))
    print(f"{args.rounds} rounds, alternating; files in {out}")
    for (mode, t), b in sorted(bindings.items()):
        print(f"  {mode:8s} {t}t binding: {b}")
    print(f"{'case':70s} {'thr':>3s}  {'cv pinned':>9s} {'cv unpinned':>11s}  {'run-to-run pinned':>17s} "
          f"{'unpinned':>8s}")
    for (case, t), modes in sorted(table.items()):
        p, u = modes.get("pinned", []), modes.get("unpinned", [])
        within = [statistics.median([c for c, _ in m]) if m else float("nan") for m in (p, u)]
        across = [cv([s for _, s in m]) for m in (p, u)]
        print(f"{case[:70]:70s} {t:3d}  {within[0]:9.2%} {within[1]:11.2%}  {across[0]:17.2%} {across[1]:8.2%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
