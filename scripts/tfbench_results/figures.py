"""PNG figures of tfbench results (matplotlib, Agg backend): throughput versus size, thread
scaling, speedup versus the fastest peer, and a two-run comparison. Every figure carries the
provenance of the runs it shows in its footer."""

import json
import math
import os
import textwrap
from collections import OrderedDict, defaultdict
from itertools import product

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as ticker  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
import numpy as np  # noqa: E402

from . import provenance, stats  # noqa: E402
from .reader import finite  # noqa: E402

DPI = 120
SIZE_PARAMS = ("n", "size", "elements", "m", "k", "dim", "batch", "items", "length")
KIND_STYLE = {"engine": ("-", "o"), "peer": ("--", "s"), "control": (":", "^")}
# Line styles and markers of the parameter combinations of a family (layout=packed vs strided):
# the first eight differ in both, so two lines of one variant never look alike.
SERIES_LS = ("-", "--", ":", "-.")
SERIES_MK = ("o", "s", "^", "D", "v", "P", "X", "*")
SERIES_STYLES = [(SERIES_LS[i % 4], SERIES_MK[i]) for i in range(8)]
SERIES_STYLES += [p for p in product(SERIES_LS, SERIES_MK) if p not in SERIES_STYLES]
TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))
NOTE_FONT = 7
NOTE_CHAR_IN = NOTE_FONT * 0.5 / 72  # mean width of a 7 pt DejaVu Sans character, roughly
MAX_NOTE_LINES = 6
VERDICT_COLORS = {"REGRESSION": "#d62728", "IMPROVEMENT": "#2ca02c", "NO_CHANGE": "#7f7f7f",
                  "INCONCLUSIVE": "#ff7f0e", None: "#1f77b4"}
MAX_PANELS = 6
FOOTER_CHAR_IN = 6.5 * 0.6 / 72  # width of one 6.5 pt monospace character in inches
MEMORY_BOUND_INTENSITY = 0.25  # flops per byte below which a family is plotted in GB/s


class Figure:
    """A written PNG and the caption a report shows under it; `layout` describes what was drawn
    (axes, lines, tick labels, legends, texts: see _describe) for tests."""

    def __init__(self, path, caption, layout=None):
        self.path, self.caption, self.layout = path, caption, layout

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
        return "time", "time per iteration [{unit}] (lower is better)"
    # Memory-bound families (triad: 1/12 flop per byte) read better in GB/s.
    if has_bytes and (not has_flops or (intensity and np.median(intensity) < MEMORY_BOUND_INTENSITY)):
        return "gbs", "bandwidth [GB/s]"
    return "gflops", "throughput [GFLOP/s]"


def _value(case, attr):
    if attr == "time":
        return case.median_s
    return getattr(case, attr)


def _time_unit(values):
    """(seconds per unit, unit) for an axis of times: the largest unit in which the geometric
    middle of their range is at least 1, so an axis reads 50 µs rather than 5e-05 s."""
    vs = [v for v in values if finite(v) and v > 0]
    mid = math.sqrt(min(vs) * max(vs)) if vs else 1.0
    for unit, scale in TIME_UNITS:
        if mid >= scale:
            return scale, unit
    return TIME_UNITS[-1][1], TIME_UNITS[-1][0]


def _short_reason(error):
    """A row's error without the C++ function that raised it, first clause only."""
    parts = str(error or "").split(": ")
    while len(parts) > 1 and "::" in parts[0]:
        parts.pop(0)
    text = ": ".join(parts).split(";")[0].strip()
    return text if len(text) <= 100 else text[:97] + "..."


def not_drawn(files, family=None, drawn=()):
    """One note line per (variant, status) of the rows without an ok result (skipped variants,
    failed cases) that no pooled case covers: at which thread counts, how many cases, and why."""
    drawn, seen, groups = set(drawn), set(), OrderedDict()
    for f in files:
        for r in f.rows():
            if r.ok or (family and r["family"] != family) or r.key in drawn or r.key in seen:
                continue
            seen.add(r.key)
            g = groups.setdefault((r["variant"], r["status"]), dict(
                threads=set(), cases=set(), reason=_short_reason(r["error"])))
            g["threads"].add(int(r["threads"]))
            g["cases"].add(r["group_id"])
    lines = []
    for (variant, status), g in groups.items():
        n = len(g["cases"])
        at = ", ".join(f"{t}t" for t in sorted(g["threads"]))
        lines.append(f"{variant} {status} at {at} ({n} case{'s' if n != 1 else ''})"
                     + (f": {g['reason']}" if g["reason"] else ""))
    if len(lines) > MAX_NOTE_LINES:
        lines = lines[:MAX_NOTE_LINES - 1] + [f"... and {len(lines) - MAX_NOTE_LINES + 1} more"]
    return lines


def _styles(keys):
    """(linestyle, marker) per parameter combination (keys: one per case); None when there is
    only one. The combination with the most cases gets the first style (solid, circles)."""
    counts = defaultdict(int)
    for k in keys:
        counts[k] += 1
    keys = sorted(counts, key=lambda k: (-counts[k], k))
    if len(keys) < 2:
        return None
    return {k: SERIES_STYLES[i % len(SERIES_STYLES)] for i, k in enumerate(keys)}


def _series_style(kind, key, styles):
    """(linestyle, marker, filled) of one line. With one parameter combination the style tells the
    kind (solid engine, dashed peer, dotted control); with several it tells the combination, and
    the marker's fill the kind (filled: engine strategies, open: peers and controls)."""
    if styles is None:
        ls, mk = KIND_STYLE.get(kind, ("-", "x"))
        return ls, mk, True
    ls, mk = styles[key]
    return ls, mk, kind == "engine"


def _line_kw(color, ls, mk, filled):
    return dict(color=color, linestyle=ls, marker=mk, markeredgecolor=color,
                markerfacecolor=color if filled else "white")


def _variant_legends(drawn, colors, styles, style_title, used_keys):
    """Legend blocks for lines: one handle per variant (its line style when the kind is the style,
    else a colour swatch), then one per parameter combination drawn."""
    variants = sorted(drawn)
    if styles is None:
        handles = [Line2D([], [], ms=5, **_line_kw(colors[v], *drawn[v])) for v in variants]
        return [(handles, variants, None)]
    blocks = [([Patch(color=colors[v]) for v in variants], variants,
               "variant (filled markers: engine strategies, open: peers and controls)")]
    keys = [k for k in styles if k in used_keys]
    blocks.append(([Line2D([], [], ms=5, **_line_kw("#444444", *styles[k], True)) for k in keys],
                   [k.replace(",", ", ") for k in keys], style_title))
    return blocks


def _legend(fig, handles, labels, title, width, renderer):
    """A figure legend as wide as fits the figure (columns balanced), for placing below the axes."""
    ncol = len(handles)
    while True:
        leg = fig.legend(handles, labels, title=title, loc="upper center", ncol=ncol, fontsize=7,
                         title_fontsize=7, frameon=False, handlelength=2.6, columnspacing=1.4)
        w = leg.get_window_extent(renderer).width / fig.dpi
        if ncol == 1 or w <= width - 0.25:
            rows = math.ceil(len(handles) / ncol)
            balanced = math.ceil(len(handles) / rows)
            if balanced == ncol:
                return leg
            leg.remove()
            return fig.legend(handles, labels, title=title, loc="upper center", ncol=balanced,
                              fontsize=7, title_fontsize=7, frameon=False, handlelength=2.6,
                              columnspacing=1.4)
        leg.remove()
        ncol = max(1, min(ncol - 1, int(ncol * (width - 0.25) / w)))


def _describe(fig):
    """What a figure shows, read back from its artists (for tests): per visible axes its labels,
    scale, limits, tick labels, lines (colour, style, marker, fill) and bars; the figure's
    legends and texts."""
    hexc = matplotlib.colors.to_hex

    def line(ln, label):
        return dict(label=label, color=hexc(ln.get_color()), linestyle=ln.get_linestyle(),
                    marker=ln.get_marker(), filled=hexc(ln.get_markerfacecolor()) != "#ffffff",
                    x=[float(v) for v in ln.get_xdata()], y=[float(v) for v in ln.get_ydata()])

    renderer = fig.canvas.get_renderer()
    to_fig = fig.transFigure.inverted()

    def box(artist):  # (x0, y0, x1, y1) in figure fractions, labels and titles included
        return tuple(float(v) for v in to_fig.transform(artist.get_tightbbox(renderer)).ravel())

    axes = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        lines = [line(ln, ln.get_label()) for ln in ax.get_lines()
                 if not ln.get_label().startswith("_")]
        bars = []
        for c in ax.containers:
            if isinstance(c, ErrorbarContainer) and not (c.get_label() or "_").startswith("_"):
                lines.append(line(c.lines[0], c.get_label()))
            elif isinstance(c, BarContainer) and c.patches:
                bars.append(dict(label=c.get_label(), color=hexc(c.patches[0].get_facecolor()),
                                 count=len(c.patches)))
        axes.append(dict(title=ax.get_title(), xlabel=ax.get_xlabel(), ylabel=ax.get_ylabel(),
                         bbox=box(ax),
                         yscale=ax.get_yscale(), ylim=tuple(ax.get_ylim()),
                         xticklabels=[t.get_text() for t in ax.get_xticklabels()],
                         yticklabels=_visible_tick_labels(ax.yaxis, ax.get_ylim()),
                         lines=lines, bars=bars,
                         legend=[t.get_text() for t in ax.get_legend().get_texts()]
                         if ax.get_legend() else []))
    legends = [dict(title=leg.get_title().get_text(), bbox=box(leg),
                    labels=[t.get_text() for t in leg.get_texts()]) for leg in fig.legends]
    return dict(axes=axes, legends=legends, texts=[t.get_text() for t in fig.texts],
                title=fig._suptitle.get_text() if fig._suptitle else "")


def _visible_tick_labels(axis, lim):
    """The tick labels shown (in view, not hidden, not empty), major and minor."""
    lo, hi = sorted(lim)
    out = []
    for tick in axis.get_major_ticks() + axis.get_minor_ticks():
        if lo <= tick.get_loc() <= hi and tick.label1.get_visible() and tick.label1.get_text():
            out.append(tick.label1.get_text())
    return out


def _finish(fig, files, path, title, footer_text=None, legends=(), note=()):
    """Saves the figure with its title, the legends below the axes (never over data), a note
    (what is not drawn and why) and the provenance footer; the figure grows to hold them rather
    than shrinking its axes. Returns _describe's account of what was drawn."""
    text = footer_text if footer_text is not None else provenance.footer(files)
    width, height = fig.get_size_inches()
    need = 0.2 + FOOTER_CHAR_IN * max(len(line) for line in text.split("\n"))
    width = max(width, min(need, 16.0))  # widen rather than cut the provenance off
    footer_in = (text.count("\n") + 1) * 0.14 + 0.15
    renderer = fig.canvas.get_renderer()
    legs = []
    for handles, labels, ltitle in legends:
        if handles:
            leg = _legend(fig, handles, labels, ltitle, width, renderer)
            legs.append((leg, leg.get_window_extent(renderer).height / fig.dpi + 0.06))
    wrap = max(40, int((width - 0.3) / NOTE_CHAR_IN))
    note_lines = [w for line in note for w in textwrap.wrap(line, wrap, subsequent_indent="    ")]
    note_in = len(note_lines) * NOTE_FONT * 1.35 / 72 + (0.1 if note_lines else 0)
    below = footer_in + note_in + sum(h for _, h in legs)
    height += below - footer_in  # the callers' sizes already hold the footer
    fig.set_size_inches(width, height)
    fig.suptitle(title, fontsize=11)
    fig.text(0.01, 0.005, text, fontsize=6.5, family="monospace", va="bottom", ha="left",
             color="#444444", wrap=False)
    if note_lines:
        fig.text(0.01, (footer_in + note_in - 0.05) / height, "\n".join(note_lines),
                 fontsize=NOTE_FONT, va="top", ha="left", color="#333333")
    fig.tight_layout(rect=(0, below / height, 1, 1 - 0.22 / height))
    top = below
    for leg, h in legs:
        leg.set_bbox_to_anchor((0.5, top / height), transform=fig.transFigure)
        top -= h
    fig.savefig(path, dpi=DPI)
    layout = _describe(fig)
    plt.close(fig)
    return layout


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
        return _plain(float(f"{v:.3g}"))

    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: _plain(v)))
    axis.set_minor_formatter(ticker.FuncFormatter(minor))


def _plain(v):
    """10000 -> '10000' (not '1e+04'), 0.05 -> '0.05'."""
    return f"{v:.0f}" if v >= 1 and v == round(v) else f"{v:.4g}"


def _narrow_log(axis, lo, hi):
    """A log axis over less than a factor of 5 has at most one or two decade ticks: label it at
    evenly spaced round values instead."""
    if lo > 0 and hi / lo < 5:
        axis.set_major_locator(ticker.MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))
        axis.set_minor_locator(ticker.NullLocator())
        axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:.3g}"))


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


def _maybe_log_y(axes, ys):
    """Log y when the values span a factor of 20, else linear from zero (or small gaps look
    large); one decision for all panels of a figure, which share their y axis."""
    ys = [y for y in ys if finite(y) and y > 0]
    log = bool(ys) and max(ys) / min(ys) >= 20
    for ax in axes:
        if log:
            ax.set_yscale("log")
            _plain_log_ticks(ax.yaxis)
        else:
            ax.set_ylim(0, max(ys) * 1.12 if ys else None)


def _subplots(n, panel_w, panel_h):
    """A grid for n panels sharing one y axis, so that panels (thread counts) compare by eye."""
    cols, rows = _grid(n)
    fig, axes = plt.subplots(rows, cols, figsize=(panel_w * cols, panel_h * rows + 1.0),
                             squeeze=False, sharey=True)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    for ax in list(axes.flat)[:n]:
        ax.yaxis.set_tick_params(which="both", labelleft=True)  # each panel stays readable
    return fig, list(axes.flat)[:n]


def _threads(t):
    return f"{t} thread{'s' if t != 1 else ''}"


def _dodge(variant, group_id, cases, step=0.06):
    """Offset of a variant within its case's column (centred over the variants measured there),
    so that equal values do not hide each other."""
    variants = sorted({c.variant for c in cases if c.group_id == group_id})
    return step * (variants.index(variant) - (len(variants) - 1) / 2)


def throughput(files, cases, family, outdir):
    """Throughput versus size: one line per variant and other-parameter combination (colour: the
    variant; style: the combination), one panel per (execution space, thread count)."""
    xparam = size_param(cases)
    split = series_params(cases, xparam) if xparam else []
    attr, ylabel = metric_of(cases)
    scale = 1.0
    if attr == "time":
        scale, unit = _time_unit([c.median_s for c in cases])
        ylabel = ylabel.format(unit=unit)
    panels = list(_panels(cases).items())[:MAX_PANELS]
    fig, axes = _subplots(len(panels), 5.2, 3.9)
    colors = _colors({c.variant for c in cases})
    groups = sorted({c.group_id for c in cases})
    styles = _styles([_rest(c, split) for c in cases])
    drawn, used, all_y = {}, set(), []
    for ax, ((space, threads), pcs) in zip(axes, panels):
        series = OrderedDict()
        for c in pcs:
            series.setdefault((c.variant, _rest(c, split)), []).append(c)
        all_x = []
        for (variant, rest), cs in sorted(series.items()):
            ls, mk, filled = _series_style(cs[0].kind, rest, styles)
            if xparam:
                cs = sorted(cs, key=lambda c: c.params[xparam])
                xs = [c.params[xparam] for c in cs]
            else:  # no size to sweep: one column per case, markers only
                cs = sorted(cs, key=lambda c: groups.index(c.group_id))
                xs = [groups.index(c.group_id) + _dodge(variant, c.group_id, pcs) for c in cs]
                ls = "none"
            ys = [_value(c, attr) / scale for c in cs]
            label = variant + (f" [{rest}]" if styles else "")
            ax.plot(xs, ys, ms=5, label=label, **_line_kw(colors[variant], ls, mk, filled))
            drawn.setdefault(variant, (ls, mk, filled))
            used.add(rest)
            all_x += xs
            all_y += ys
        if xparam:
            _set_x(ax, all_x, xparam)
        else:
            _case_axis(ax, cases, groups)
        ax.set_ylabel(ylabel)
        ax.set_title(f"{space}, {_threads(threads)}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    _maybe_log_y(axes, all_y)
    path = os.path.join(outdir, f"throughput_{family}.png")
    style_title = ", ".join(split)
    layout = _finish(fig, files, path,
                     f"{family}: {ylabel.split(' [')[0]} versus {xparam or 'case'}",
                     legends=_variant_legends(drawn, colors, styles, style_title, used),
                     note=_note(files, family, cases))
    how = (f"colour: variant, line style and marker: {style_title}, filled markers: engine "
           "strategies, open: peers and controls" if styles else
           "solid: engine strategies, dashed: peers, dotted: controls")
    return Figure(path, f"{family}: {ylabel} versus {xparam or 'case'} for each variant ({how}), "
                        "one panel per execution space and thread count; median of the samples.",
                  layout)


def _note(files, family, cases):
    lines = not_drawn(files, family, {c.key for c in cases})
    return ["Not drawn (no ok row): " + lines[0]] + lines[1:] if lines else []


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
    split = series_params(cases, xparam) if xparam else []
    several_spaces = len({c.exec_space for c in cases}) > 1

    def key_of(c):  # what, beside the variant, tells lines apart
        parts = [f"space={c.exec_space}"] if several_spaces else []
        return ",".join(parts + ([_rest(c, split)] if split else []))

    colors = _colors({c.variant for c in cases})
    styles = _styles([key_of(c) for c in cases])
    fig, axes = _subplots(len(others), 5.2, 3.9)
    groups = sorted({c.group_id for c in cases})
    drawn, used = {}, set()
    for ax, t in zip(axes, others):
        series = defaultdict(list)
        for (space, case_id), per_t in by_key.items():
            if base_t in per_t and t in per_t:
                c1, ct = per_t[base_t], per_t[t]
                point, lo, hi = stats.bootstrap_ratio(c1.samples, ct.samples) \
                    if c1.samples.size and ct.samples.size else (c1.median_s / ct.median_s,) * 3
                x = c1.params.get(xparam, 0) if xparam else \
                    groups.index(c1.group_id) + _dodge(c1.variant, c1.group_id, cases)
                series[(c1.variant, key_of(c1))].append((x, point, lo, hi, c1.kind))
        all_x = []
        for (variant, key), pts in sorted(series.items()):
            pts.sort()
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            err = np.array([[max(0, p[1] - p[2]) if finite(p[2]) else 0 for p in pts],
                            [max(0, p[3] - p[1]) if finite(p[3]) else 0 for p in pts]])
            ls, mk, filled = _series_style(pts[0][4], key, styles)
            if not xparam:
                ls = "none"
            ax.errorbar(xs, ys, yerr=err, ms=4, capsize=2,
                        label=variant + (f" [{key}]" if styles else ""),
                        **_line_kw(colors[variant], ls, mk, filled))
            drawn.setdefault(variant, (ls, mk, filled))
            used.add(key)
            all_x += xs
        ideal = t / base_t
        ax.axhline(ideal, color="k", linestyle=":", linewidth=1)
        ax.axhline(1.0, color="#999999", linewidth=0.8)
        if xparam:
            _set_x(ax, all_x, xparam)
        else:
            _case_axis(ax, cases, groups)
        ax.set_ylabel(f"speedup over {_threads(base_t)} [x]")
        ax.set_title(f"{t} threads over {base_t} (ideal {ideal:g}x)", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    style_title = ", ".join((["space"] if several_spaces else []) + split)
    legends = _variant_legends(drawn, colors, styles, style_title, used)
    handles, labels, title = legends[0]
    legends[0] = (handles + [Line2D([], [], color="k", linestyle=":", linewidth=1)],
                  labels + ["ideal (linear scaling)"], title)
    path = os.path.join(outdir, f"scaling_{family}.png")
    layout = _finish(fig, files, path, f"{family}: thread scaling", legends=legends,
                     note=_note(files, family, cases))
    how = (f"; colour: variant, line style and marker: {style_title}, filled markers: engine "
           "strategies, open: peers and controls" if styles else "")
    return Figure(path, f"{family}: median time at {base_t} thread(s) divided by the median at "
                        "more threads (1 = no gain; dotted: ideal linear scaling); whiskers: 95% "
                        f"bootstrap interval of the ratio of medians{how}.", layout)


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
    split = series_params(cases, xparam) if xparam else []
    panel_items = list(panels.items())[:MAX_PANELS]
    engines = sorted({v for _, items in panel_items for _, _, es in items for v, *_ in es})
    colors = _colors(engines)
    width_per_group = max(0.6, 0.18 * len(engines))
    max_groups = max(len(items) for _, items in panel_items)
    fig_w = min(7.5, max(5.0, 1.2 + width_per_group * max_groups))
    fig, axes = _subplots(len(panel_items), fig_w, 4.2)
    for ax, ((space, t), items) in zip(axes, panel_items):
        if xparam:
            items = sorted(items, key=lambda it: (it[1].params.get(xparam, 0), _rest(it[1], split)))
        # Each case's bars side by side, centred on it: only the variants measured there take a
        # slot (one skipped or absent leaves no gap).
        bw = min(0.8 / max(len(es) for _, _, es in items), 0.3)
        bars = defaultdict(lambda: ([], [], [], []))
        for i, (gid, best, entries) in enumerate(items):
            entries = sorted(entries)
            for j, (v, point, lo, hi) in enumerate(entries):
                xs, ys, lo_err, hi_err = bars[v]
                xs.append(i + bw * (j + 0.5 - len(entries) / 2))
                ys.append(point)
                lo_err.append(point - lo if finite(lo) else 0)
                hi_err.append(hi - point if finite(hi) else 0)
        for eng in engines:
            if eng in bars:
                xs, ys, lo_err, hi_err = bars[eng]
                # Bars grow from 1 (parity) up or down, which a log axis shows symmetrically.
                ax.bar(xs, [y - 1 for y in ys], bw * 0.92, bottom=1, color=colors[eng],
                       label=eng)
                ax.errorbar(xs, ys, yerr=[lo_err, hi_err], fmt="none", ecolor="k", capsize=2,
                            elinewidth=0.8)
        ax.axhline(1.0, color="k", linewidth=0.9)
        ax.set_yscale("log")
        _plain_log_ticks(ax.yaxis)
        names = case_labels(cases, [gid for gid, _, _ in items])
        labels = []
        for (gid, best, _), name in zip(items, names):
            # The size and every other parameter that splits lines, one per line.
            p = "\n".join([f"{xparam}={_size_label(best.params[xparam])}"]
                          + [f"{k}={best.params.get(k)}" for k in split]) if xparam \
                else name.replace(",", "\n")
            labels.append(f"{p}\nvs {best.variant.split(':', 1)[-1]}")
        ax.set_xticks(range(len(items)))
        ax.set_xticklabels(labels, fontsize=6.5)
        ax.set_xlim(-0.5, len(items) - 0.5)
        ax.set_ylabel("speedup vs fastest peer [x] (>1: engine faster)")
        ax.set_title(f"{space}, {_threads(t)}", fontsize=9)
        ax.grid(True, axis="y", which="both", alpha=0.3)
    # Bars stick to parity: keep 1 off the frame so that bars all below it still read as such.
    lo, hi = axes[0].get_ylim()
    axes[0].set_ylim(min(lo, 1 / 1.2), max(hi, 1.2))
    _narrow_log(axes[0].yaxis, *axes[0].get_ylim())
    path = os.path.join(outdir, f"peer_ratio_{family}.png")
    layout = _finish(fig, files, path, f"{family}: engine variants relative to the fastest peer",
                     legends=[([Patch(color=colors[e]) for e in engines], engines, None)],
                     note=_note(files, family, cases))
    return Figure(path, f"{family}: median time of the fastest peer of each case divided by the "
                        "engine variant's (above 1: the engine is faster); whiskers: 95% bootstrap "
                        "interval of the ratio of medians from the raw samples.", layout)


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
    fig_h = 1.6 + 0.22 * len(items) + 0.8
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
    _narrow_log(ax.xaxis, *ax.get_xlim())
    ax.set_xlabel("time ratio new / base [x] (>1: slower)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=VERDICT_COLORS[v]) for v in VERDICT_COLORS
               if any(it[4] == v for it in items)]
    names = [v or "no verdict" for v in VERDICT_COLORS if any(it[4] == v for it in items)]
    if threshold_pct:
        handles.append(plt.Rectangle((0, 0), 1, 1, color="#e6e6e6"))
        names.append(f"threshold ±{threshold_pct:g}%")
    ax.grid(True, axis="x", which="both", alpha=0.3)
    # Cases without an ok row on a side (skipped variants, failures) are named in a note.
    compared = base.keys() & new.keys()
    nb = not_drawn([base_file], drawn=compared)
    nn = not_drawn([new_file], drawn=compared)
    skipped = ([f"base and new: {x}" for x in nb if x in nn]
               + [f"base: {x}" for x in nb if x not in nn]
               + [f"new: {x}" for x in nn if x not in nb])
    if skipped:
        skipped[0] = "Not compared (no ok row): " + skipped[0]
    omitted_note = f" ({omitted} cases with the smallest change omitted)" if omitted else ""
    path = os.path.join(outdir, name)
    layout = _finish(fig, [base_file, new_file], path,
                     f"new / base median time per case, geometric mean {gm:.3f}x{omitted_note}",
                     footer_text=f"BASE {base_file.path}\n{provenance.footer([base_file], 2)}\n"
                                 f"NEW {new_file.path}\n{provenance.footer([new_file], 2)}",
                     legends=[(handles, names, "verdict of tfbench compare" if verdicts else None)],
                     note=skipped[:MAX_NOTE_LINES])
    return Figure(path, "Ratio of median times new/base for every case present in both runs "
                        "(above 1: slower), whiskers: 95% bootstrap interval; colour: the "
                        "verdict of `tfbench compare`; footer: provenance of both runs.", layout)
