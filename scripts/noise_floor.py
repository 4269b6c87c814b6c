#!/usr/bin/python3
"""The noise floor of an A/A comparison (the same build measured against itself) and the
regression threshold it supports.

  noise_floor.py COMPARE.json [--json OUT.json]

COMPARE.json is `tfbench compare A.h5 B.h5 --format json` of two sides that ran the same binary.
Every |new/base - 1| is pure noise. A case becomes a verdict only when its shift exceeds the
threshold AND its p-value is below alpha, so the threshold this machine supports is the largest
shift among the A/A cases with p < alpha, rounded up to a whole percent: any lower threshold would
have raised a false alarm here. The conservative figure is the largest shift of any case (a noisy
case can reach significance in another run). Prints the distribution (median, 90th and 95th
percentile, max), the cases that moved most, the verdicts the A/A got (any REGRESSION or
IMPROVEMENT is a false positive) and both thresholds. Exit 0 when no false REGRESSION, 1
otherwise, 2 on unusable input.
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from tfbench_results.tool import Comparison, ToolError  # noqa: E402


def noise_floor(cmp):
    rows = [(abs(Comparison.ratio(c) - 1.0) * 100.0, c) for c in cmp.cases
            if math.isfinite(Comparison.ratio(c))]
    if not rows:
        raise ToolError("no case with a finite ratio in the comparison")
    dev = np.array([d for d, _ in rows])
    top = sorted(rows, key=lambda dc: -dc[0])[:5]
    alpha = cmp.alpha if isinstance(cmp.alpha, (int, float)) else 0.05
    # Only a significant shift can become a verdict: the threshold must lie above those.
    significant = [d for d, c in rows if isinstance(c.get("p"), (int, float)) and c["p"] < alpha]
    supported = max(1.0, math.ceil(max(significant))) if significant else 1.0
    return {
        "cases": len(rows),
        "median_pct": float(np.median(dev)),
        "p90_pct": float(np.percentile(dev, 90)),
        "p95_pct": float(np.percentile(dev, 95)),
        "max_pct": float(dev.max()),
        "significant_cases": len(significant),
        "supported_threshold_pct": float(supported),
        "conservative_threshold_pct": float(max(1.0, math.ceil(dev.max()))),
        "threshold_pct": cmp.threshold_pct,
        # Cases may carry their own threshold (config threshold_pct): the smallest one applied.
        "threshold_in_use_pct": min((c["threshold_pct"] for _, c in rows
                                     if isinstance(c.get("threshold_pct"), (int, float))),
                                    default=cmp.threshold_pct),
        "verdicts": {v: cmp.count(v) for v in ("REGRESSION", "IMPROVEMENT", "NO_CHANGE",
                                                "INCONCLUSIVE")},
        "largest": [{"case_id": c["case_id"], "threads": c["threads"],
                     "exec_space": c["exec_space"], "change_pct": (Comparison.ratio(c) - 1) * 100,
                     "p": c.get("p"), "verdict": c["verdict"]} for _, c in top],
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("compare_json")
    ap.add_argument("--json", metavar="OUT", help="also write the numbers as JSON")
    args = ap.parse_args(argv)
    try:
        with open(args.compare_json) as fh:
            cmp = Comparison(json.load(fh))
        nf = noise_floor(cmp)
    except (OSError, json.JSONDecodeError, ToolError) as e:
        print(f"noise_floor: error: {e}", file=sys.stderr)
        return 2
    print(f"A/A noise floor over {nf['cases']} case(s): |new/base - 1| median {nf['median_pct']:.1f}%, "
          f"p90 {nf['p90_pct']:.1f}%, p95 {nf['p95_pct']:.1f}%, max {nf['max_pct']:.1f}%")
    for c in nf["largest"]:
        p = c["p"]
        print(f"  {c['change_pct']:+6.1f}%  p {p if p is None else format(p, '.3g')}  "
              f"{c['verdict']:<12} {c['case_id']} [{c['exec_space']}, {c['threads']}t]")
    v = nf["verdicts"]
    print(f"A/A verdicts: {v['REGRESSION']} REGRESSION, {v['IMPROVEMENT']} IMPROVEMENT (both false "
          f"positives), {v['NO_CHANGE']} NO_CHANGE, {v['INCONCLUSIVE']} INCONCLUSIVE")
    thr = nf["threshold_in_use_pct"]
    line = (f"supported threshold: >= {nf['supported_threshold_pct']:g}% (the largest shift among the "
            f"{nf['significant_cases']} A/A case(s) with p < alpha; any threshold below it would "
            f"have raised a false alarm here); conservative: >= "
            f"{nf['conservative_threshold_pct']:g}% (the largest A/A shift of any case)")
    if isinstance(thr, (int, float)):
        line += (f"; the smallest threshold in use ({thr:g}%) is " +
                 ("above it (ok)" if thr >= nf["supported_threshold_pct"] else
                  "BELOW it: expect false alarms, raise --threshold or the cases' threshold_pct"))
    print(line)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(nf, fh, indent=2)
    return 1 if v["REGRESSION"] else 0


if __name__ == "__main__":
    sys.exit(main())
