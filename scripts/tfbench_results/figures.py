"""PNG figures of tfbench results (matplotlib, Agg backend): throughput versus size, thread
scaling, speedup versus the fastest peer, and a two-run comparison. Every figure carries the
provenance of the runs it shows in its footer."""

import json
import math
import os
from collections import OrderedDict, defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as ticker  # noqa: E402
import numpy as np  # noqa: E402

from . import provenance, stats  # noqa: E402
from .reader import finite  # noqa: E402

DPI = 120
SIZE_PARAMS = ("n", "size", "elements", "m", "k", "dim", "batch", "items", "length")
KIND_STYLE = {"engine": ("-", "o"), "peer": ("--", "s"), "control": (":", "^")}
VERDICT_COLORS = {"REGRESSION": "#d62728", "IMPROVEMENT": "#2ca02c", "NO_CHANGE": "#7f7f7f",
                  "INCONCLUSIVE": "#ff7f0e", None: "#1f77b4"}
MAX_PANELS = 6
FOOTER_CHAR_IN = 6.5 * 0.6 / 72  # width of one 6.5 pt monospace character in inches
MEMORY_BOUND_INTENSITY = 0.25  # flops per byte below which a family is plotted in GB/s


class Figure:
    """A written PNG and the caption a report shows under it."""

    def __init__(self, path, caption):
        self.path, self.caption = path, caption

    def __repr__(self):
        return f"Figure({self.path!r})"


def _colors(names):
    cmap = plt.get_cmap("tab10" if len(names) <= 10 else "tab20")
    return {n: cmap(i % cmap.N) for i, n in enumerate(sorted(names))}


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def size_param(cases):
    """The numeric parameter plotted on the x axis: a known size name that varies, else the
    numeric parameter with the most distinct values; None when no numeric parameter varies."""
    values = defaultdict(set)
    for c in cases:
        for k, v in c.params.items():
            if _is_number(v):
                values[k].add(v)
    varying = [k for k, vs in values.items() if len(vs) > 1]
    for name in SIZE_PARAMS:
        if name in varying:
            return name
    return max(varying, key=lambda k: (len(values[k]), k)) if varying else None


def series_params(cases, xparam):
    """Parameters that vary independently of x (several values at one x): one line per value.
    Constants and parameters derived from x (e.g. a working-set size) do not split lines."""
    seen = defaultdict(set)
    for c in cases:
        for k, v in c.params.items():
            if k != xparam:
                seen[(k, json.dumps(c.params.get(xparam), sort_keys=True))].add(
                    json.dumps(v, sort_keys=True))
    return sorted({k for (k, _), vs in seen.items() if len(vs) > 1})


def _rest(case, keys):
    """The values of the line-splitting parameters of a case."""
    return ",".join(f"{k}={case.params.get(k)}" for k in keys)


def metric_of(cases):
    """(attribute, axis label): GFLOP/s where every case counts flops, GB/s where every case
    counts bytes (and memory-bound families), else the median time per iteration."""
    intensity = [c.flops / c.bytes for c in cases if c.flops > 0 and c.bytes > 0]
    has_flops, has_bytes = all(c.flops > 0 for c in cases), all(c.bytes > 0 for c in cases)
    if not has_flops and not has_bytes:
        return "time", "time per iteration [s] (lower is better)"
    # Memory-bound families (triad: 1/12 flop per byte) read better in GB/s.
    if has_bytes and (not has_flops or (intensity and np.median(intensity) < MEMORY_BOUND_INTENSITY)):
        return "gbs", "bandwidth [GB/s]"
    return "gflops", "throughput [GFLOP/s]"


def _value(case, attr):
    if attr == "time":
        return case.median_s
    return getattr(case, attr)


def _finish(fig, files, path, title, footer_text=None):
    text = footer_text if footer_text is not None else provenance.footer(files)
    lines = text.count("\n") + 1
    width, height = fig.get_size_inches()
    need = 0.2 + FOOTER_CHAR_IN * max(len(line) for line in text.split("\n"))
    if need > width:  # widen rather than cut the provenance off
        fig.set_size_inches(min(need, 16.0), height)
    bottom = min(0.45, (lines * 0.14 + 0.15) / height)
    fig.suptitle(title, fontsize=11)
    fig.text(0.01, 0.005, text, fontsize=6.5, family="monospace", va="bottom", ha="left",
             color="#444444", wrap=False)
    fig.tight_layout(rect=(0, bottom, 1, 0.96))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def _panels(cases):
    """Cases by (exec_space, threads), in a stable order."""
    out = OrderedDict()
    for c in sorted(cases, key=lambda c: (c.exec_space, c.threads)):
        out.setdefault((c.exec_space, c.threads), []).append(c)
    return out


def _grid(n):
    cols = min(n, 3)
    return cols, int(math.ceil(n / cols))


def _size_label(v):
    """16777216 -> '16Mi', 48 -> '48'."""
    for unit, scale in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if v >= scale and v % scale == 0:
            return f"{v / scale:g}{unit}"
    return f"{v:g}"


def _set_x(ax, xs, xparam):
    xs = [x for x in xs if finite(x) and x > 0]
    if xs:
        if max(xs) / min(xs) >= 3:  # sizes sweep geometrically
            ax.set_xscale("log", base=2)
        ticks = sorted(set(xs))
        if len(ticks) > 12:
            ticks = ticks[:: int(math.ceil(len(ticks) / 12))]
        ax.set_xticks(ticks)
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: _size_label(v)))
    ax.set_xlabel(xparam if xparam else "case")


def _plain_log_ticks(axis):
    """Log-axis tick labels as plain numbers (0.5, 2) instead of powers."""
    def minor(v, _):
        lo, hi = sorted(axis.get_view_interval())
        if lo > 0 and hi / lo > 1000:
            return ""  # several decades: the powers of ten suffice
        if lo > 0 and hi / lo > 10 and f"{v:.1e}"[0] not in "25":
            return ""  # more than a decade: label 2x and 5x only
        return f"{v:.3g}"

    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:.4g}"))
    axis.set_minor_formatter(ticker.FuncFormatter(minor))


def case_labels(cases, groups):
    """Short labels of case groups: only the parameters that differ between them."""
    params = {c.group_id: c.params for c in cases}
    keys = sorted({k for g in groups for k in params[g]})
    varying = [k for k in keys if len({json.dumps(params[g].get(k)) for g in groups}) > 1]
    return [",".join(f"{k}={params[g].get(k)}" for k in varying) or g.split("/", 1)[-1]
            for g in groups]


def _case_axis(ax, cases, groups):
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(case_labels(cases, groups), rotation=20, ha="right", fontsize=7)
    ax.set_xlim(-0.5, len(groups) - 0.5)
    ax.set_xlabel("case")


def _maybe_log_y(ax, ys):
    ys = [y for y in ys if finite(y) and y > 0]
    if ys and max(ys) / min(ys) >= 20:
        ax.set_yscale("log")
        _plain_log_ticks(ax.yaxis)
    else:
        ax.set_ylim(0, max(ys) * 1.12 if ys else None)  # from zero, or small gaps look large


def throughput(files, cases, family, outdir):
    """Throughput versus size: one line per variant (and other-parameter combination), one panel
    per (execution space, thread count)."""
    xparam = size_param(cases)
    split = series_params(cases, xparam)
    attr, ylabel = metric_of(cases)
    panels = list(_panels(cases).items())[:MAX_PANELS]
    cols, rows = _grid(len(panels))
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.9 * rows + 1.0), squeeze=False)
    colors = _colors({c.variant for c in cases})
    groups = sorted({c.group_id for c in cases})
    for ax, ((space, threads), pcs) in zip(axes.flat, panels):
        series = OrderedDict()
        for c in pcs:
            series.setdefault((c.variant, _rest(c, split) if xparam else ""), []).append(c)
        all_x, all_y = [], []
        for (variant, rest), cs in sorted(series.items()):
            ls, mk = KIND_STYLE.get(cs[0].kind, ("-", "x"))
            if xparam:
                cs = sorted(cs, key=lambda c: c.params[xparam])
                xs = [c.params[xparam] for c in cs]
            else:  # no size to sweep: one column per case, markers only
                cs = sorted(cs, key=lambda c: groups.index(c.group_id))
                xs = [groups.index(c.group_id) for c in cs]
                ls = "none"
            ys = [_value(c, attr) for c in cs]
            label = variant + (f" [{rest}]" if rest and len({k[1] for k in series}) > 1 else "")
            ax.plot(xs, ys, linestyle=ls, marker=mk, ms=5, color=colors[variant], label=label)
            all_x += xs
            all_y += ys
        if xparam:
            _set_x(ax, all_x, xparam)
        else:
            _case_axis(ax, cases, groups)
        _maybe_log_y(ax, all_y)
        ax.set_ylabel(ylabel)
        ax.set_title(f"{space}, {threads} thread{'s' if threads != 1 else ''}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6.5, loc="best")
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    path = os.path.join(outdir, f"throughput_{family}.png")
    _finish(fig, files, path, f"{family}: {ylabel.split(' [')[0]} versus {xparam or 'case'}")
    return Figure(path, f"{family}: {ylabel} versus {xparam or 'case'} for each variant "
                        "(solid: engine strategies, dashed: peers, dotted: controls), "
                        "one panel per execution space and thread count; median of the samples.")


def scaling(files, cases, family, outdir):
    """Speedup of T threads over the smallest thread count, per variant, versus size."""
    by_key = {(c.exec_space, c.case_id): {} for c in cases}
    for c in cases:
        by_key[(c.exec_space, c.case_id)][c.threads] = c
    threads = sorted({c.threads for c in cases})
    if len(threads) < 2:
        return None
    base_t, others = threads[0], threads[1:][:MAX_PANELS]
    xparam = size_param(cases)
    split = series_params(cases, xparam)
    colors = _colors({c.variant for c in cases})
    cols, rows = _grid(len(others))
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.9 * rows + 1.0), squeeze=False)
    groups = sorted({c.group_id for c in cases})
    for ax, t in zip(axes.flat, others):
        series = defaultdict(list)
        for (space, case_id), per_t in by_key.items():
            if base_t in per_t and t in per_t:
                c1, ct = per_t[base_t], per_t[t]
                point, lo, hi = stats.bootstrap_ratio(c1.samples, ct.samples) \
                    if c1.samples.size and ct.samples.size else (c1.median_s / ct.median_s,) * 3
                x = c1.params.get(xparam, 0) if xparam else groups.index(c1.group_id)
                series[(c1.variant, space, _rest(c1, split) if xparam else "")].append(
                    (x, point, lo, hi, c1.kind))
        all_x = []
        several_rests = len({k[2] for k in series}) > 1
        for (variant, space, rest), pts in sorted(series.items()):
            pts.sort()
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            err = np.array([[max(0, p[1] - p[2]) if finite(p[2]) else 0 for p in pts],
                            [max(0, p[3] - p[1]) if finite(p[3]) else 0 for p in pts]])
            ls, mk = KIND_STYLE.get(pts[0][4], ("-", "x"))
            label = f"{variant} ({space})" + (f" [{rest}]" if several_rests else "")
            ax.errorbar(xs, ys, yerr=err, linestyle=ls, marker=mk, ms=4, capsize=2,
                        color=colors[variant], label=label)
            all_x += xs
        ax.axhline(t / base_t, color="k", linestyle=":", linewidth=1, label=f"ideal ({t / base_t:g}x)")
        ax.axhline(1.0, color="#999999", linewidth=0.8)
        if xparam:
            _set_x(ax, all_x, xparam)
        else:
            _case_axis(ax, cases, groups)
        ax.set_ylabel(f"speedup {t} vs {base_t} thread(s) [x]")
        ax.set_title(f"{t} threads over {base_t}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6.5, loc="best")
    for ax in list(axes.flat)[len(others):]:
        ax.set_visible(False)
    path = os.path.join(outdir, f"scaling_{family}.png")
    _finish(fig, files, path, f"{family}: thread scaling")
    return Figure(path, f"{family}: median time at {base_t} thread(s) divided by the median at more "
                        "threads (1 = no gain; dotted: ideal linear scaling); whiskers: 95% "
                        "bootstrap interval of the ratio of medians.")


def peer_ratio(files, cases, family, outdir):
    """Speedup of each engine variant over the fastest peer of its case (bars with the 95%
    bootstrap interval of the ratio of medians)."""
    groups = OrderedDict()
    for c in cases:
        groups.setdefault((c.exec_space, c.threads, c.group_id), []).append(c)
    panels = OrderedDict()
    for (space, t, gid), cs in groups.items():
        peers = [c for c in cs if c.kind == "peer"]
        engines = [c for c in cs if c.kind != "peer"]  # engine strategies and controls
        if not peers or not engines:
            continue
        best = min(peers, key=lambda c: c.median_s)
        entries = []
        for e in engines:
            point, lo, hi = stats.bootstrap_ratio(best.samples, e.samples) \
                if best.samples.size and e.samples.size else (best.median_s / e.median_s,) * 3
            entries.append((e.variant, point, lo, hi))
        panels.setdefault((space, t), []).append((gid, best, entries))
    if not panels:
        return None
    xparam = size_param(cases)
    panel_items = list(panels.items())[:MAX_PANELS]
    engines = sorted({v for _, items in panel_items for _, _, es in items for v, *_ in es})
    colors = _colors(engines)
    width_per_group = max(0.6, 0.18 * len(engines))
    max_groups = max(len(items) for _, items in panel_items)
    cols, rows = _grid(len(panel_items))
    fig_w = min(7.5, max(5.0, 1.2 + width_per_group * max_groups))
    fig, axes = plt.subplots(rows, cols, figsize=(fig_w * cols, 4.2 * rows + 1.0), squeeze=False)
    for ax, ((space, t), items) in zip(axes.flat, panel_items):
        if xparam:
            items = sorted(items, key=lambda it: it[1].params.get(xparam, 0))
        bw = min(0.8 / len(engines), 0.3)
        for j, eng in enumerate(engines):
            xs, ys, lo_err, hi_err = [], [], [], []
            for i, (gid, best, entries) in enumerate(items):
                for v, point, lo, hi in entries:
                    if v == eng:
                        xs.append(i - 0.4 + bw * (j + 0.5))
                        ys.append(point)
                        lo_err.append(point - lo if finite(lo) else 0)
                        hi_err.append(hi - point if finite(hi) else 0)
            # Bars grow from 1 (parity) up or down, which a log axis shows symmetrically.
            ax.bar(xs, [y - 1 for y in ys], bw * 0.92, bottom=1, color=colors[eng], label=eng)
            ax.errorbar(xs, ys, yerr=[lo_err, hi_err], fmt="none", ecolor="k", capsize=2,
                        elinewidth=0.8)
        ax.axhline(1.0, color="k", linewidth=0.9)
        ax.set_yscale("log")
        _plain_log_ticks(ax.yaxis)
        names = case_labels(cases, [gid for gid, _, _ in items])
        labels = []
        for (gid, best, _), name in zip(items, names):
            p = f"{xparam}={_size_label(best.params[xparam])}" if xparam else name
            labels.append(f"{p}\nvs {best.variant.split(':', 1)[-1]}")
        ax.set_xticks(range(len(items)))
        ax.set_xticklabels(labels, fontsize=6.5)
        ax.set_ylabel("speedup vs fastest peer [x] (>1: engine faster)")
        ax.set_title(f"{space}, {t} thread{'s' if t != 1 else ''}", fontsize=9)
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=6.5, loc="best")
    for ax in list(axes.flat)[len(panel_items):]:
        ax.set_visible(False)
    path = os.path.join(outdir, f"peer_ratio_{family}.png")
    _finish(fig, files, path, f"{family}: engine variants relative to the fastest peer")
    return Figure(path, f"{family}: median time of the fastest peer of each case divided by the "
                        "engine variant's (above 1: the engine is faster); whiskers: 95% bootstrap "
                        "interval of the ratio of medians from the raw samples.")


def family_figures(files, outdir):
    """Throughput, scaling and peer-ratio figures for every family in the files."""
    os.makedirs(outdir, exist_ok=True)
    rows = [r for f in files for r in f.rows()]
    cases = stats.pool(rows)
    by_family = OrderedDict()
    for c in cases:
        by_family.setdefault(c.family, []).append(c)
    out = []
    for family, fcases in by_family.items():
        for make in (throughput, scaling, peer_ratio):
            fig = make(files, fcases, family, outdir)
            if fig:
                out.append(fig)
    return out


def comparison(base_file, new_file, outdir, verdicts=None, threshold_pct=None, max_cases=40,
               name="comparison.png"):
    """new/base ratio of medians per matched case, with 95% bootstrap whiskers, coloured by the
    verdicts of `tfbench compare` when given ({(case_id, threads, exec_space): verdict})."""
    os.makedirs(outdir, exist_ok=True)
    base = {c.key: c for c in stats.pool(base_file.rows())}
    new = {c.key: c for c in stats.pool(new_file.rows())}
    items = []
    for key in base.keys() & new.keys():
        b, n = base[key], new[key]
        if b.samples.size and n.samples.size:
            point, lo, hi = stats.bootstrap_ratio(n.samples, b.samples)
        else:
            point, lo, hi = n.median_s / b.median_s, math.nan, math.nan
        items.append((key, point, lo, hi, (verdicts or {}).get(key)))
    if not items:
        return None
    gm = stats.geomean([it[1] for it in items])
    items.sort(key=lambda it: -abs(math.log(it[1])) if it[1] > 0 else 0)
    omitted = max(0, len(items) - max_cases)
    items = sorted(items[:max_cases], key=lambda it: it[1])
    fig_h = 1.6 + 0.22 * len(items) + 1.2
    fig, ax = plt.subplots(figsize=(9.5, fig_h))
    ys = np.arange(len(items))
    colors = [VERDICT_COLORS.get(it[4], VERDICT_COLORS[None]) for it in items]
    lo = [it[1] - it[2] if finite(it[2]) else 0 for it in items]
    hi = [it[3] - it[1] if finite(it[3]) else 0 for it in items]
    ax.barh(ys, [it[1] - 1 for it in items], left=1, color=colors, height=0.7, zorder=2)
    ax.errorbar([it[1] for it in items], ys, xerr=[lo, hi], fmt="none", ecolor="k", capsize=2,
                elinewidth=0.8)
    ax.axvline(1.0, color="k", linewidth=0.9)
    if threshold_pct:
        ax.axvspan(1 / (1 + threshold_pct / 100), 1 + threshold_pct / 100, color="#e6e6e6",
                   zorder=0)
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{k[0]} [{k[2]}, {k[1]}t]" for k, *_ in items], fontsize=6.5)
    ax.set_xscale("log")
    _plain_log_ticks(ax.xaxis)
    ax.set_xlabel("time ratio new / base [x] (>1: slower)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=VERDICT_COLORS[v]) for v in VERDICT_COLORS
               if any(it[4] == v for it in items)]
    names = [v or "no verdict" for v in VERDICT_COLORS if any(it[4] == v for it in items)]
    if threshold_pct:
        handles.append(plt.Rectangle((0, 0), 1, 1, color="#e6e6e6"))
        names.append(f"threshold ±{threshold_pct:g}%")
    ax.legend(handles, names, fontsize=7, loc="lower right")
    ax.grid(True, axis="x", which="both", alpha=0.3)
    note = f" ({omitted} cases with the smallest change omitted)" if omitted else ""
    path = os.path.join(outdir, name)
    _finish(fig, [base_file, new_file], path,
            f"new / base median time per case, geometric mean {gm:.3f}x{note}",
            footer_text=f"BASE {base_file.path}\n{provenance.footer([base_file], 2)}\n"
                        f"NEW {new_file.path}\n{provenance.footer([new_file], 2)}")
    return Figure(path, "Ratio of median times new/base for every case present in both runs "
                        "(above 1: slower), whiskers: 95% bootstrap interval; colour: the "
                        "verdict of `tfbench compare`; footer: provenance of both runs.")
