#!/usr/bin/python3
"""A Markdown report comparing two tfbench result files, for posting on a pull request.

  compare_results.py BASE.h5 NEW.h5 [-o report.md] [--figures DIR] [--threshold PCT] [--alpha A]
                     [--tfbench PATH] [--fail-on-regression]

Verdicts and the geometric mean come from `tfbench compare --format json` (the project's one
statistical implementation; found via --tfbench, $TFBENCH, build/default/harness/tfbench or PATH).
The report adds figures (--figures DIR: comparison.png and the family figures of NEW), the
provenance of both runs, and tables of regressions, improvements and every matched case.

Exit: 0 report written; 1 with --fail-on-regression when a case regressed; 2 unusable input or
tfbench missing/failing.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tfbench_results import ResultsFormatError, load  # noqa: E402
from tfbench_results import figures, provenance, tool  # noqa: E402

ICON = {"REGRESSION": "🔴", "IMPROVEMENT": "🟢", "NO_CHANGE": "⚪", "INCONCLUSIVE": "🟠"}


def _num(c, *names):
    for n in names:
        v = c.get(n)
        if v is not None:
            try:
                return float(v)
            except (TypeError, ValueError):
                pass
    return math.nan


def _time(s):
    if not (isinstance(s, float) and math.isfinite(s)):
        return "n/a"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def _fmt(v, spec):
    return format(v, spec) if isinstance(v, float) and math.isfinite(v) else "n/a"


def case_table(cases):
    out = ["| case | threads | space | base median | new median | new/base | p | verdict | why |",
           "|---|---:|---|---:|---:|---:|---:|---|---|"]
    for c in cases:
        ratio = tool.Comparison.ratio(c)
        out.append("| `{}` | {} | {} | {} | {} | {} | {} | {} {} | {} |".format(
            c["case_id"], c["threads"], c["exec_space"],
            _time(_num(c, "base_median_s")), _time(_num(c, "new_median_s")), _fmt(ratio, ".3f"),
            _fmt(_num(c, "p"), ".3g"), ICON[c["verdict"]], c["verdict"],
            str(c.get("reason", "")).replace("|", "\\|")))
    return "\n".join(out)


def _order(c):
    r = tool.Comparison.ratio(c)
    return -abs(math.log(r)) if r > 0 else 0.0




def report(base, new, cmp, figs, report_dir, args):
    n = len(cmp.cases)
    regressions = sorted((c for c in cmp.cases if c["verdict"] == "REGRESSION"), key=_order)
    improvements = sorted((c for c in cmp.cases if c["verdict"] == "IMPROVEMENT"), key=_order)
    gm = cmp.summary.get("geomean_ratio")
    gm = float(gm) if isinstance(gm, (int, float)) else math.nan
    headline = (f"❌ **{len(regressions)} regression(s)**" if regressions
                else "✅ **no regression**")
    test = ("paired rounds: median of the per-round ratios, two-sided sign test over the rounds"
            if cmp.paired_rounds else "two-sided Mann-Whitney U on the samples")
    counts = ", ".join(f"{cmp.count(v)} {v.lower().replace('_', ' ')}" for v in tool.VERDICTS)
    lines = [
        "## tfbench comparison", "",
        f"{headline} in {n} matched case(s): {counts}.", "",
        f"Geometric mean of new/base median time over the cases compared on samples: "
        f"**{_fmt(gm, '.3f')}x** ({_fmt((gm - 1) * 100, '+.1f')}%; above 1: slower).",
        "",
        f"Base `{base.path}` ({', '.join(provenance.short_rev(r) for r in base.runs)}) -> "
        f"new `{new.path}` ({', '.join(provenance.short_rev(r) for r in new.runs)}). "
        f"Threshold {_fmt(_num({'t': cmp.threshold_pct}, 't'), 'g')}% (unless a case's config sets "
        f"its own), {test} at alpha {_fmt(_num({'a': cmp.alpha}, 'a'), 'g')}; "
        f"verdicts from `{cmp.command}`.",
    ]
    if cmp.not_compared:
        reasons = {}
        for nc in cmp.not_compared:
            reasons[nc.get("reason", "?")] = reasons.get(nc.get("reason", "?"), 0) + 1
        lines += ["", f"Not compared: {len(cmp.not_compared)} case(s) ("
                  + "; ".join(f"{n} {r}" for r, n in sorted(reasons.items())) + ")."]
    for note in cmp.notes:
        lines += ["", f"Note from tfbench compare: {note}"]
    if regressions:
        lines += ["", "### Regressions", "", case_table(regressions)]
    if improvements:
        lines += ["", "### Improvements", "", case_table(improvements)]
    if figs:
        lines += ["", "### Figures", ""]
        for fig in figs:
            rel = os.path.relpath(fig.path, report_dir)
            lines += [f"![{os.path.basename(fig.path)}]({rel})", "", f"*{fig.caption}*", ""]
    lines += ["", f"<details><summary>All {n} matched cases</summary>", "",
              case_table(sorted(cmp.cases, key=lambda c: (c["case_id"], c["threads"]))), "",
              "</details>", "", "### Provenance", "",
              provenance.markdown_table({"base": base.runs, "new": new.runs}), ""]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("base", metavar="BASE.h5")
    ap.add_argument("new", metavar="NEW.h5")
    ap.add_argument("-o", "--output", help="write the report here (default: stdout)")
    ap.add_argument("--figures", metavar="DIR", help="draw figures into DIR and link them")
    ap.add_argument("--threshold", type=float, help="passed to tfbench compare (percent)")
    ap.add_argument("--alpha", type=float, help="passed to tfbench compare")
    ap.add_argument("--tfbench", metavar="PATH", help="the tfbench executable")
    ap.add_argument("--compare-json", metavar="FILE",
                    help="use this saved `tfbench compare BASE NEW --format json` output instead "
                         "of running tfbench (e.g. the one perf-regression.sh wrote)")
    ap.add_argument("--fail-on-regression", action="store_true",
                    help="exit 1 when tfbench compare reports a regression")
    args = ap.parse_args(argv)
    try:
        base, new = load(args.base), load(args.new)
        if args.compare_json:
            cmp = tool.load_comparison(args.compare_json)
        else:
            cmp = tool.compare(tool.locate(args.tfbench), args.base, args.new, args.threshold,
                               args.alpha)
        figs = []
        if args.figures:
            thr = cmp.threshold_pct
            fig = figures.comparison(base, new, args.figures, cmp.verdicts(),
                                     thr if isinstance(thr, (int, float)) else None)
            figs = ([fig] if fig else []) + figures.family_figures([new], args.figures)
        report_dir = os.path.dirname(os.path.abspath(args.output)) if args.output else os.getcwd()
        text = report(base, new, cmp, figs, report_dir, args)
    except (ResultsFormatError, tool.ToolError, OSError) as e:
        print(f"compare_results: error: {e}", file=sys.stderr)
        return 2
    if args.output:
        with open(args.output, "w") as fh:
            fh.write(text)
        print(f"compare_results: wrote {args.output} ({cmp.count('REGRESSION')} regression(s), "
              f"{len(figs)} figure(s))", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 1 if args.fail_on_regression and cmp.count("REGRESSION") else 0


if __name__ == "__main__":
    sys.exit(main())
