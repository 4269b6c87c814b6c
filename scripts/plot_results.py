#!/usr/bin/python3
"""PNG figures of tfbench result files, for reports.

  plot_results.py RESULTS.h5... [-o DIR]
      per family: throughput_<family>.png (GFLOP/s or GB/s versus size per strategy and peer),
      scaling_<family>.png (speedup over the smallest thread count, when several were run),
      peer_ratio_<family>.png (speedup versus the fastest peer, 95% bootstrap whiskers);
      per thread configuration: roofline_threads<N>_<space>.png (GFLOP/s versus arithmetic intensity,
      log-log, the worker's measured peak and L1/L2/LLC/DRAM bandwidths as lines, each variant a point)
  plot_results.py --compare BASE.h5 NEW.h5 [-o DIR] [--verdicts COMPARE.json]
      comparison.png: new/base time ratio per case (colours from `tfbench compare --format json`)

Rows of the same (case, threads, space) in several runs or files are pooled (merged rounds).
Prints one line per figure written: its path and caption. Exit 2 on unusable input.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tfbench_results import ResultsFormatError, load  # noqa: E402
from tfbench_results import figures, roofline  # noqa: E402
from tfbench_results.tool import Comparison, ToolError  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("files", nargs="*", metavar="RESULTS.h5")
    ap.add_argument("--compare", nargs=2, metavar=("BASE.h5", "NEW.h5"))
    ap.add_argument("--verdicts", metavar="COMPARE.json",
                    help="output of `tfbench compare --format json` for --compare colours")
    ap.add_argument("--threshold", type=float, help="shade this +-PCT band on the comparison")
    ap.add_argument("-o", "--out-dir", default="figures", help="where PNGs go (default: figures)")
    args = ap.parse_args(argv)
    if not args.files and not args.compare:
        ap.error("give result files, or --compare BASE NEW")
    try:
        written = []
        if args.files:
            files = [load(p) for p in args.files]
            hosts = {r["hostname"] for f in files for r in f.runs}
            if len(hosts) > 1:
                print(f"plot_results: note: pooling runs from {len(hosts)} hosts "
                      f"({', '.join(sorted(map(str, hosts)))})", file=sys.stderr)
            written += figures.family_figures(files, args.out_dir)
            written += roofline.roofline_figures(files, args.out_dir)
        if args.compare:
            base, new = (load(p) for p in args.compare)
            verdicts = None
            if args.verdicts:
                with open(args.verdicts) as fh:
                    verdicts = Comparison(json.load(fh)).verdicts()
            fig = figures.comparison(base, new, args.out_dir, verdicts, args.threshold)
            if fig is None:
                print("plot_results: no case is present in both files", file=sys.stderr)
                return 2
            written.append(fig)
    except (ResultsFormatError, ToolError, OSError, json.JSONDecodeError) as e:
        print(f"plot_results: error: {e}", file=sys.stderr)
        return 2
    if not written:
        print("plot_results: no ok result rows to plot", file=sys.stderr)
        return 2
    for fig in written:
        print(f"{fig.path}: {fig.caption}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
