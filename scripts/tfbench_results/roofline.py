"""The roofline figure (issue 19, item 2): GFLOP/s against arithmetic intensity on log-log axes, the
worker's measured ceilings as lines (the f64 peak flat; each memory level's bandwidth a diagonal
bent flat at the peak) and every measured variant as a point, filled when it is an engine variant.
One figure per run and thread configuration whose worker measured its ceilings."""

import json
import math
import os

from matplotlib.lines import Line2D
import numpy as np

from . import figures
from .reader import finite

LEVELS = (("l1", "ceiling_l1_gbs", "L1"), ("l2", "ceiling_l2_gbs", "L2"), ("llc", "ceiling_llc_gbs", "LLC"),
          ("dram", "ceiling_gbs", "DRAM"))
LEVEL_COLORS = {"l1": "#2ca02c", "l2": "#1f77b4", "llc": "#9467bd", "dram": "#d62728"}


def _ceilings(worker):
    peak = worker.get("ceiling_gflops")
    levels = [(key, label, worker.get(col)) for key, col, label in LEVELS if finite(worker.get(col))]
    return (peak, levels) if finite(peak) and levels else None


def _llc_sizes(worker):
    """The LLC's bandwidth at further working sets, from the ceilings JSON: [(MiB, GB/s), ...]."""
    try:
        sizes = json.loads(worker.get("ceilings") or "{}").get("llc_sizes") or []
    except ValueError:
        return []
    return [(c["working_set_bytes"] / 2**20, c["best"]) for c in sizes
            if finite(c.get("best")) and finite(c.get("working_set_bytes"))]


def _points(rows):
    out = []
    for r in rows:
        ai, gflops = r.get("arithmetic_intensity"), r.get("gflops")
        if r.get("status") == "ok" and finite(ai) and finite(gflops) and ai > 0 and gflops > 0:
            out.append(r)
    return out


def _figure(files, run, threads, space, worker, rows, outdir):
    plt = figures.plt
    peak, levels = _ceilings(worker)
    points = _points(rows)
    if not points:
        return None
    ais = [r["arithmetic_intensity"] for r in points]
    lo = min(min(ais) / 4, min(peak / bw for _, _, bw in levels) / 4)
    hi = max(max(ais) * 4, max(peak / bw for _, _, bw in levels) * 4)
    x = np.logspace(math.log10(lo), math.log10(hi), 200)
    fig, ax = plt.subplots(figsize=(8.0, 5.6))
    ax.set_xscale("log")
    ax.set_yscale("log")
    handles, labels = [], []
    peak_f32 = worker.get("ceiling_gflops_f32")
    if any(r.get("precision") == "f32" for r in points) and finite(peak_f32):
        ax.axhline(peak_f32, color="#555555", linestyle=":", linewidth=1.2)
        handles.append(Line2D([], [], color="#555555", linestyle=":"))
        labels.append(f"f32 peak {peak_f32:.3g} GFLOP/s")
    for key, label, bw in levels:
        line, = ax.plot(x, np.minimum(peak, bw * x), color=LEVEL_COLORS[key], linewidth=1.5)
        handles.append(line)
        labels.append(f"{label} {bw:.3g} GB/s")
    for mib, bw in _llc_sizes(worker):
        line, = ax.plot(x, np.minimum(peak, bw * x), color=LEVEL_COLORS["llc"], linewidth=1.0, linestyle="--")
        handles.append(line)
        labels.append(f"LLC at {mib:.3g} MiB {bw:.3g} GB/s")
    ax.axhline(peak, color="black", linewidth=1.0, alpha=0.4)
    handles.append(Line2D([], [], color="black", alpha=0.4))
    labels.append(f"f64 peak {peak:.3g} GFLOP/s")
    families = sorted({r["family"] for r in points})
    colors = figures._colors(families)
    above = 0
    for r in points:
        filled = r.get("variant_kind") == "engine"
        c = colors[r["family"]]
        ax.plot(r["arithmetic_intensity"], r["gflops"], linestyle="none",
                marker=figures.KIND_STYLE.get(r.get("variant_kind"), ("-", "o"))[1], markersize=5,
                markeredgecolor=c, markerfacecolor=c if filled else "none")
        if finite(r.get("roofline_fraction")) and r["roofline_fraction"] > 1.05:
            above += 1
            ax.annotate("!", (r["arithmetic_intensity"], r["gflops"]), textcoords="offset points", xytext=(4, 2),
                        color="#d62728", fontsize=9)
    ax.set_xlabel("arithmetic intensity [flop per byte the level moves]")
    ax.set_ylabel("throughput [GFLOP/s]")
    ax.grid(True, which="both", alpha=0.25)
    fam_handles = [Line2D([], [], color=colors[f], marker="o", linestyle="none") for f in families]
    kind_handles = [Line2D([], [], color="#444444", marker=figures.KIND_STYLE[k][1], linestyle="none",
                           markerfacecolor="#444444" if k == "engine" else "none") for k in ("engine", "peer", "control")]
    name = f"roofline_{run.id}_threads{threads}_{space}.png" if len(files) > 1 or len(files[0].runs) > 1 \
        else f"roofline_threads{threads}_{space}.png"
    path = os.path.join(outdir, name.replace("/", "_"))
    skipped = sum(1 for r in rows if r.get("status") == "ok" and not finite(r.get("gflops")))
    note = []
    if skipped:
        note.append(f"not drawn: {skipped} row(s) without flops (bytes only; their fraction of the "
                    "bandwidth of their level is in the results)")
    if above:
        note.append(f"'!': {above} point(s) above 1.05 of their bound, a modelling error (see tfbench report)")
    source = worker.get("ceilings_source") or "measured"
    layout = figures._finish(fig, files, path, f"roofline, threads={threads} {space} (ceilings: {source})",
                             legends=[(handles, labels, "ceilings"), (fam_handles, families, "family"),
                                      (kind_handles, ["engine (filled)", "peer", "control"], "kind")],
                             note=note)
    caption = (f"Roofline at threads={threads} on {space}: {len(points)} variant(s) against the measured peak "
               f"and {', '.join(label for _, label, _ in levels)} bandwidths; a point's bound is the line of the "
               "level its working set lives in (for the LLC, the dashed line measured nearest its working set).")
    return figures.Figure(path, caption, layout)


def roofline_figures(files, outdir):
    """One roofline per run and (threads, space) whose worker has measured ceilings."""
    os.makedirs(outdir, exist_ok=True)
    out = []
    for f in files:
        for run in f.runs:
            seen = set()
            for w in run.workers:
                key = (int(w["threads"]), w["exec_space"])
                if key in seen or _ceilings(w) is None:
                    continue
                seen.add(key)
                rows = [r for r in run.rows if (int(r["threads"]), r["exec_space"]) == key]
                fig = _figure(files, run, key[0], key[1], w, rows, outdir)
                if fig:
                    out.append(fig)
    return out
