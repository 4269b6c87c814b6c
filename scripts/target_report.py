#!/usr/bin/python3
"""Reads a result file of configs/targets.yaml (or any run with those families) and prints every
performance target of the issues beside the ratio measured in that run, one line per case and
thread configuration, with MET / MISSED. Ratios are taken within one worker, never across runs; the
one exception is the thread scaling of compute-bound batches (1 thread over the most), which needs
two thread configurations of the same run (one node; a merged Slurm file holds one such run per
array task, each scaled on its own).

Rounds are interleaved in the harness (every variant of a case once per round, in a fresh order), so
a ratio between two variants of one case is taken per round (paired), and the report gives the median
of those per-round ratios with a distribution-free 90% interval for it (order statistics of the
paired ratios). A verdict whose interval contains the bound is marked "within noise": the median met
or missed it, but this run cannot tell the two apart; more repetitions would.

After the targets come the run's measurement notes, and the cases they concern are marked on their
target lines: rows timed on a busy host (other work or the hypervisor's steal took more than 10% of
the worker's CPUs: the row's `host.other_cpu` / `host.steal` metrics), and an engine:auto row that
ran exactly the route of a forced engine variant of its case yet took a clearly different time (a
measurement artefact of that instance, not Auto's choice). A worker whose own ceilings fell more
than 10% short of the best kept in the ceilings cache (its `ceilings_measured` against `ceilings`)
gets a note too: its rows' roofline bounds use the best kept, which may be another hour's luck.

  target_report.py FILE [--markdown]

Exit 0 when the file could be read (missed targets are reported, not an error: targets live in
recorded results, not in a gate), 2 when it is unusable.
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tfbench_results import ResultsFormatError, load, stats  # noqa: E402

NO_INTERVAL = stats.NO_INTERVAL


def _metrics(row):
    try:
        return json.loads(row.get("metrics") or "{}")
    except ValueError:
        return {}


def _where(row):
    params = json.loads(row["params"])
    keep = {k: v for k, v in params.items() if k in ("n", "nrhs", "batch", "working_set_mib", "elements",
                                                     "op", "kind", "depth", "pass", "layout", "dtype")}
    shown = ",".join(f"{k}={v}" for k, v in sorted(keep.items()))
    return f"{row['family']} {shown} threads={row['threads']}"


def _by_group(rows):
    groups = {}
    for row in rows:
        groups.setdefault((row["group_id"], row["threads"], row["exec_space"]), {})[row["variant"]] = row
    return groups


def paired_ratio(numerator, denominator):
    """numerator / denominator time per round as (median, 90% interval): stats.paired_ratio on the
    rows' samples, or the ratio of medians and no interval when the rounds do not line up."""
    return stats.paired_ratio(numerator.get("samples"), denominator.get("samples"), numerator["median_s"],
                              denominator["median_s"])


def _ratio_target(groups, family, engine, peers, bound, what):
    """engine's speed over the fastest of `peers` (the peer with the lowest median time): the per-round
    ratio peer time / engine time >= bound."""
    out = []
    for variants in groups.values():
        row = variants.get(engine)
        if row is None or row["family"] != family:
            continue
        peer_rows = [variants[p] for p in peers if p in variants and variants[p]["status"] == "ok"]
        if row["status"] != "ok" or not peer_rows:
            out.append((_where(row), what, math.nan, bound, ">=", row.get("error") or "no ok peer",
                        NO_INTERVAL))
            continue
        best = min(peer_rows, key=lambda r: r["median_s"])
        ratio, interval = paired_ratio(best, row)
        out.append((_where(row), f"{what} vs {best['variant']}", ratio, bound, ">=", "", interval))
    return out


def _scaling_target(rows, bound):
    """Compute-bound batches (packed_small, cache-resident, n >= 16) under Auto: time at one thread
    over time at the most threads >= 2 of the same case in the same run, >= bound. The one ratio taken
    across workers (the two thread configurations cannot share one), never across runs: two runs
    may be two nodes."""
    by_case = {}
    for row in rows:
        if row["family"] != "packed_small" or row["variant"] != "engine:auto" or row["status"] != "ok":
            continue
        params = json.loads(row["params"])
        if params.get("working_set_mib", 0) or params.get("n", 0) < 16:
            continue
        by_case.setdefault((row.get("run_id"), row["group_id"], row["exec_space"]), {})[row["threads"]] = row
    out = []
    for threads in by_case.values():
        many = max(threads)
        if 1 not in threads or many < 2:
            continue
        one = threads[1]
        where = _where(one).replace("threads=1", f"threads=1->{many}") + f" run={one.get('run_id')}"
        out.append((where, f"Auto speed-up, 1 -> {many} threads", one["median_s"] / threads[many]["median_s"],
                    bound, ">=", "", NO_INTERVAL))
    return out


ROOFLINE_TOLERANCE = 1.05  # harness/include/tfbench/harness/rows.hpp kRooflineTolerance


def _fraction(row):
    """The row's fraction of its roofline bound with the 90% interval of its median: the file's
    (since results v1.13: over the rounds' fractions where the ceilings were measured beside the row in
    every round), else the samples' interval through the one bound (older files)."""
    frac = row.get("roofline_fraction")
    if row["status"] != "ok" or frac is None or not math.isfinite(frac):
        return None
    lo, hi = row.get("roofline_fraction_lo", math.nan), row.get("roofline_fraction_hi", math.nan)
    if math.isfinite(lo) and math.isfinite(hi):
        return frac, (lo, hi)
    _, (lo, hi) = stats.median_interval(list(row.get("samples", [])))
    bound = row["roofline_bound_s"]
    interval = (bound / hi, bound / lo) if math.isfinite(lo) and lo > 0 else NO_INTERVAL
    return frac, interval


def _roofline_targets(rows):
    """Issue 19 item 2: packed_small Auto reaches >= 0.8 of its roofline bound at n >= 16 and >= 0.4 at
    n <= 8; no row runs above 1.05 of its bound (one line for the largest fraction, one per row above)."""
    out, largest = [], None
    for row in rows:
        fraction = _fraction(row)
        if fraction is None:
            continue
        frac, interval = fraction
        # A multi-threaded worker's row bound by one thread's ceilings says so (results-format.md).
        one_thread = row.get("roofline_threads") == 1 and row.get("threads", 1) > 1
        what = f"fraction of roofline ({row['roofline_ceiling']}{', 1 thread' if one_thread else ''})"
        if row["family"] == "packed_small" and row["variant"] == "engine:auto":
            n = json.loads(row["params"]).get("n", 0)
            bound = 0.8 if n >= 16 else 0.4 if n <= 8 else None
            if bound is not None:
                out.append((_where(row), "Auto " + what, frac, bound, ">=", "", interval))
        if frac > ROOFLINE_TOLERANCE:
            out.append((_where(row) + " " + row["variant"], what, frac, ROOFLINE_TOLERANCE, "<=", "", interval))
        if largest is None or frac > largest[0]:
            largest = (frac, interval, row)
    if largest is not None:
        frac, interval, row = largest
        out.append(("every row with a roofline (largest: %s %s)" % (_where(row), row["variant"]),
                    "largest fraction of roofline", frac, ROOFLINE_TOLERANCE, "<=", "", interval))
    return out


def _all_peers(variants_seen, family):
    return sorted(v for (f, v) in variants_seen if f == family and v.startswith("peer:"))


def targets(rows):
    rows = list(rows)
    groups = _by_group(rows)
    seen = {(r["family"], r["variant"]) for r in rows}
    out = []
    out += _ratio_target(groups, "packed_small", "engine:auto", _all_peers(seen, "packed_small"), 1.0,
                         "auto / fastest peer")
    out += _ratio_target(groups, "batched_solve", "engine:auto", _all_peers(seen, "batched_solve"), 1.0,
                         "auto / fastest peer")
    out += _ratio_target(groups, "compute_control", "control:kokkosblas", ["peer:openblas"], 0.95,
                         "KokkosBlas / OpenBLAS")
    out += _ratio_target(groups, "compute_control", "engine:gemm", ["peer:openblas"], 0.95,
                         "engine gemm / OpenBLAS")
    out += _ratio_target(groups, "bandwidth_control", "kokkos", ["peer:openmp"], 0.97,
                         "Kokkos triad / hand-written")
    out += _scaling_target(rows, 1.8)
    out += _roofline_targets(rows)
    for variants in groups.values():
        for row in variants.values():
            m = _metrics(row)
            if row["family"] == "session_overhead" and "entry_ns" in m and row["threads"] == 1 \
                    and row["variant"] == "engine:with_session":
                out.append((_where(row), "session entry ns (1 thread)", m["entry_ns"], 100.0, "<", "",
                            NO_INTERVAL))
            if row["family"] == "ad" and "backward_over_forward" in m \
                    and json.loads(row["params"]).get("pass") == "forward_backward":
                out.append((_where(row), "AD backward / forward", m["backward_over_forward"], 2.5, "<=", "",
                            NO_INTERVAL))
        one, raw = variants.get("engine:one_session"), variants.get("peer:raw_kernels")
        if one and raw and one["status"] == "ok" and raw["status"] == "ok":
            ratio, interval = paired_ratio(one, raw)
            out.append((_where(one), "chain in one session / raw kernels", ratio, 1.1, "<=", "", interval))
    return sorted(out)


BUSY_HOST_SHARE = 0.10  # workloads/include/tfbench/workloads/host_load.hpp kBusyHostShare
# Auto and a forced variant on the same route differ clearly: the paired ratio beyond this factor and
# its 90% interval beyond ARTEFACT_INTERVAL (both sides of 1 alike).
ARTEFACT_RATIO, ARTEFACT_INTERVAL = 1.25, 1.1


def _route(row):
    """The route a batched engine row took, from its metrics (None: no route recorded)."""
    keys = {k: v for k, v in _metrics(row).items()
            if k.startswith("route.") and k not in ("route.tuned", "route.items", "route.first_lane_items",
                                                    "route.fan_out_withheld")}
    return tuple(sorted(keys.items())) or None


def _route_text(route):
    parts = []
    for key, value in route:
        name = key[len("route."):]
        if name.startswith(("provider.", "strategy.")):
            parts.append(name.split(".", 1)[1])
        elif name == "lanes":
            parts.append(f"{value:g} lane(s)")
        elif value:
            parts.append(name.replace("_", " "))
    return ", ".join(parts)


KEPT_SHORTFALL = 0.10  # workloads/include/tfbench/workloads/ceilings.hpp kKeptCeilingShortfall


def _ceiling_bests(ceilings_json):
    """{name: best} of a worker's ceilings JSON: the peaks, each level's bandwidth, the handoff rate."""
    c = json.loads(ceilings_json)
    bests = {f"{key[5:]} peak": c[key].get("best") for key in ("peak_f64", "peak_f32") if key in c}
    bests.update({f"{level} bandwidth": v.get("best") for level, v in c.get("bandwidth", {}).items()})
    if "handoff" in c:
        bests["handoff rate"] = c["handoff"].get("best")
    return {name: best for name, best in bests.items() if isinstance(best, (int, float)) and best > 0}


def ceiling_notes(workers):
    """(where, tag, text) for each worker that measured its ceilings and took the cache's better ones:
    those of its own more than KEPT_SHORTFALL below the best kept (files without `ceilings_measured`:
    none)."""
    notes = []
    for w in workers:
        own_json, kept_json = w.get("ceilings_measured") or "", w.get("ceilings") or ""
        if not own_json or not kept_json or own_json == kept_json:
            continue
        own, kept = _ceiling_bests(own_json), _ceiling_bests(kept_json)
        short = [f"{name} {100 * (1 - own[name] / best):.0f}% lower" for name, best in kept.items()
                 if name in own and own[name] < (1 - KEPT_SHORTFALL) * best]
        if short:
            notes.append((f"threads={w['threads']} {w['exec_space']}", "ceilings kept",
                          "this worker measured " + ", ".join(short) + " than the best kept in the ceilings "
                          "cache, which its rows' roofline bounds use"))
    return notes


def measurement_notes(rows, workers=()):
    """(where, tag, text) for each row timed on a busy host, each Auto row whose time disagrees with a
    forced variant's on the same route, and each worker whose own ceilings fell short of those kept."""
    notes = ceiling_notes(workers)
    for row in rows:
        if row["status"] != "ok":
            continue
        m = _metrics(row)
        other, steal = m.get("host.other_cpu"), m.get("host.steal")
        if (other or 0) > BUSY_HOST_SHARE or (steal or 0) > BUSY_HOST_SHARE:
            notes.append((_where(row), "busy host",
                          f"{row['variant']} timed on a busy host: other work {100 * (other or 0):.0f}% of "
                          f"the worker's CPUs, steal {100 * (steal or 0):.0f}%"))
    for variants in _by_group(rows).values():
        auto = variants.get("engine:auto")
        route = _route(auto) if auto is not None and auto["status"] == "ok" else None
        if route is None:
            continue
        for name, forced in sorted(variants.items()):
            if not name.startswith("engine:") or name == "engine:auto" or forced["status"] != "ok":
                continue
            if _route(forced) != route:
                continue
            ratio, (lo, hi) = paired_ratio(auto, forced)
            slower = ratio > ARTEFACT_RATIO and lo > ARTEFACT_INTERVAL
            faster = ratio < 1 / ARTEFACT_RATIO and hi < 1 / ARTEFACT_INTERVAL
            if slower or faster:
                notes.append((_where(auto), "same route, other time",
                              f"engine:auto ran the route of {name} ({_route_text(route)}) but took "
                              f"{ratio:.2f}x its time {_interval_text((lo, hi))}: a measurement artefact of "
                              "one instance, not Auto's choice; measure the case again"))
    return sorted(notes)


def _meets(value, bound, op):
    return {">=": value >= bound, "<": value < bound, "<=": value <= bound}[op]


def verdict(value, bound, op, interval):
    """MET or MISSED by the median; "within noise" when the 90% interval holds values on both sides
    of the bound."""
    if not math.isfinite(value):
        return "n/a"
    met = _meets(value, bound, op)
    lo, hi = interval
    noisy = math.isfinite(lo) and math.isfinite(hi) and _meets(lo, bound, op) != _meets(hi, bound, op)
    return ("MET" if met else "MISSED") + (" (within noise)" if noisy else "")


def _interval_text(interval):
    lo, hi = interval
    return f"[{lo:.3g}, {hi:.3g}]" if math.isfinite(lo) and math.isfinite(hi) else "-"


def _print_lines(lines, markdown, notes=()):
    tags = {}
    for where, tag, _ in notes:
        tags.setdefault(where, set()).add(tag)

    def marked(where):
        found = sorted({t for w, ts in tags.items() if where.startswith(w) for t in ts})
        return where + (" [" + "; ".join(found) + "]" if found else "")

    if markdown:
        print("| case | target | measured | 90% interval | bound | verdict |\n"
              "| --- | --- | --- | --- | --- | --- |")
    counts = {}
    for where, what, value, bound, op, note, interval in lines:
        v = verdict(value, bound, op, interval)
        counts[v] = counts.get(v, 0) + 1
        shown = f"{value:.3g}" if math.isfinite(value) else note
        where = marked(where)
        if markdown:
            print(f"| {where} | {what} | {shown} | {_interval_text(interval)} | {op} {bound:g} | {v} |")
        else:
            print(f"{v:22s} {what:38s} {shown:>8s} {_interval_text(interval):>16s} ({op} {bound:g})  {where}")
    summary = ", ".join(f"{counts[k]} {k}" for k in sorted(counts))
    print(f"\n{len(lines)} targets: {summary}")
    if notes:
        print(f"\nmeasurement notes ({len(notes)}):")
        for where, _, text in notes:
            print(f"- {where}: {text}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    try:
        result = load(args.file)
    except (OSError, ResultsFormatError) as e:
        print(f"target_report: {e}", file=sys.stderr)
        return 2
    rows = list(result.rows())
    lines = targets(rows)
    if not lines:
        print("target_report: no rows of a family with a target in this file", file=sys.stderr)
        return 2
    try:
        _print_lines(lines, args.markdown, measurement_notes(rows, [w for _, w in result.workers()]))
    except BrokenPipeError:  # a pager or `head` closed the pipe: not an error
        sys.stderr.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
