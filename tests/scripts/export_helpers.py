"""What the `tfbench export` tests share: the tfbench under test (CTest sets $TFBENCH), the
export itself, synthetic files with known samples (fixtures.py), and real runs of a small config."""

import os
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import fixtures  # noqa: E402

TFBENCH = os.environ.get("TFBENCH")
SLOW = "packed_small/batch=1000,n=8/*"


def export(path, fmt, *args, check=True):
    """`tfbench export PATH --format FMT ARGS...`: the CompletedProcess (stdout as text)."""
    r = subprocess.run([TFBENCH, "export", path, "--format", fmt, *args], capture_output=True,
                       text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"tfbench export {path} --format {fmt} {args}: exit {r.returncode}\n"
                             f"{r.stderr}")
    return r


def synthetic_pair(directory):
    """base.h5 and new.h5: the same cases, SLOW 1.5x slower in new, one crashed row in each."""
    rng = np.random.default_rng(7)
    base = fixtures.write(os.path.join(directory, "base.h5"), [fixtures.make_run(
        "20260301T100000Z-node01-1", rng, crash_case="bandwidth_control/*=1048576/peer:*")])
    new = fixtures.write(os.path.join(directory, "new.h5"), [fixtures.make_run(
        "20260301T110000Z-node01-2", rng, start="2026-03-01T11:00:00Z", slowdown={SLOW: 1.5},
        crash_case="bandwidth_control/*=1048576/peer:*")])
    return base, new


def rows_of(path):
    """Every result row of a file as (run_id, dict of columns, samples), read with h5py."""
    out = []
    with h5py.File(path, "r") as f:
        for run_id, run in f["runs"].items():
            samples = run["samples"][...]
            for r in run["results"][...]:
                row = {k: (r[k].decode() if isinstance(r[k], bytes) else r[k].item())
                       for k in r.dtype.names}
                off, n = row["sample_offset"], row["sample_count"]
                out.append((run_id, row, samples[off:off + n].tolist()))
    return out


def real_runs(directory, names=("base", "new"), inject=None):
    """Runs tests/scripts/gate.yaml once per name (small bandwidth cases at one thread);
    `inject` maps a name to its TFBENCH_FAULT_INJECT. Returns the file paths."""
    paths = []
    for name in names:
        out = os.path.join(directory, name + ".h5")
        env = dict(os.environ)
        env.pop("TFBENCH_FAULT_INJECT", None)
        if inject and name in inject:
            env["TFBENCH_FAULT_INJECT"] = inject[name]
        r = subprocess.run([TFBENCH, "run", os.path.join(HERE, "gate.yaml"), "--out", out,
                            "--repetitions", "9", "--no-ceilings"], capture_output=True, text=True,
                           env=env)
        if r.returncode != 0:
            raise AssertionError(r.stdout + r.stderr)
        paths.append(out)
    return paths
