"""target_report.py on synthetic result files: each target beside its bound, MET / MISSED from the
per-round ratios in the file, "within noise" when the interval of those ratios straddles the bound,
the 1 -> 2 thread scaling of compute-bound batches, Markdown output, exit codes."""

import contextlib
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts")
sys.path.insert(0, HERE)

import fixtures  # noqa: E402

PY = "/usr/bin/python3"
REPORT = os.path.join(SCRIPTS, "target_report.py")
sys.path.insert(0, SCRIPTS)

import target_report  # noqa: E402
from tfbench_results import stats  # noqa: E402


def report(*args):
    return subprocess.run([PY, REPORT, *args], capture_output=True, text=True)


class TargetReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tfbench-targets-")
        rng = np.random.default_rng(5)
        # The fixture's Auto runs at 9 GFLOP/s-equivalents against libxsmm's 12 at one thread (0.75x:
        # MISSED) and scales 1.9x to two threads, where the peers do not scale (1.4x: MET).
        cls.both = fixtures.write(os.path.join(cls.tmp.name, "both.h5"), [fixtures.make_run(
            "20260301T100000Z-node01-1", rng, families=("packed_small",))])
        cls.one = fixtures.write(os.path.join(cls.tmp.name, "one.h5"), [fixtures.make_run(
            "20260301T100000Z-node01-2", rng, threads=(1,), families=("packed_small",))])
        # A merged Slurm file: two tasks (nodes), each a run at 1 and 2 threads; then the old layout,
        # one run per thread count, which has no run to scale within.
        cls.merged = fixtures.write(os.path.join(cls.tmp.name, "merged.h5"), [
            fixtures.make_run(f"20260301T10000{i}Z-node0{i}-1", rng, families=("packed_small",))
            for i in (1, 2)])
        cls.split = fixtures.write(os.path.join(cls.tmp.name, "split.h5"), [
            fixtures.make_run(f"20260301T10000{t}Z-node01-{t}", rng, threads=(t,), families=("packed_small",))
            for t in (1, 2)])
        # Auto within 2% of libxsmm, with 30% noise per sample: no verdict this run can stand by.
        cls.noisy = fixtures.write(os.path.join(cls.tmp.name, "noisy.h5"), [fixtures.make_run(
            "20260301T100000Z-node01-3", rng, threads=(1,), noise=0.3, slowdown={"*/engine:auto": 0.765},
            families=("packed_small",))])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def lines(self, path):
        r = report(path)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.splitlines()

    def test_peer_ratio_missed_and_scaling_met(self):
        lines = self.lines(self.both)
        auto = [l for l in lines if "auto / fastest peer vs peer:libxsmm" in l]
        self.assertEqual(len(auto), 10)  # 5 sizes x 2 thread configurations
        for line in auto:
            self.assertTrue(line.startswith("MISSED" if line.endswith("threads=1") else "MET"), line)
            self.assertNotIn("within noise", line)  # 2% noise against a 25% gap: clear either way
        scaling = [l for l in lines if "Auto speed-up, 1 -> 2 threads" in l]
        self.assertEqual(len(scaling), 2, lines)  # compute-bound only: n = 16 and 32
        self.assertTrue(all(l.startswith("MET") for l in scaling), scaling)
        self.assertTrue(any("n=16" in l for l in scaling) and any("n=32" in l for l in scaling))
        value = float(scaling[0].split("threads")[1].split()[0])
        self.assertAlmostEqual(value, 1.9, delta=0.1)

    def test_ratio_within_noise(self):
        auto = [l for l in self.lines(self.noisy) if "auto / fastest peer" in l]
        self.assertEqual(len(auto), 5)
        for line in auto:
            self.assertRegex(line, r"^(MET|MISSED) \(within noise\)", line)
        self.assertIn("5 targets", self.lines(self.noisy)[-1])

    def test_median_interval(self):
        mid, (lo, hi) = stats.median_interval(range(1, 12))  # 11 values: x(3), x(9) cover 93%
        self.assertEqual((mid, lo, hi), (6, 3, 9))
        mid, (lo, hi) = stats.median_interval([4, 1, 3, 2, 7, 5, 6])  # 7: only x(1), x(7) do
        self.assertEqual((mid, lo, hi), (4, 1, 7))
        mid, (lo, hi) = stats.median_interval([2.0, 1.0])
        self.assertEqual((mid, lo, hi), (1.5, 1.0, 2.0))
        mid, (lo, hi) = stats.median_interval([3.0])
        self.assertEqual(mid, 3.0)
        self.assertTrue(math.isnan(lo) and math.isnan(hi))

    def test_paired_ratio_uses_rounds(self):
        # The machine slowed down in round 2 for both variants alike: the per-round ratio stays 2.
        a = {"samples": [2.0, 20.0, 2.2], "median_s": 2.2}
        b = {"samples": [1.0, 10.0, 1.1], "median_s": 1.1}
        ratio, (lo, hi) = target_report.paired_ratio(a, b)
        self.assertAlmostEqual(ratio, 2.0)
        self.assertAlmostEqual(lo, 2.0)
        self.assertAlmostEqual(hi, 2.0)
        b["samples"] = [1.0, 1.1]  # dropped out of a round: the ratio of medians, no interval
        ratio, (lo, hi) = target_report.paired_ratio(a, b)
        self.assertAlmostEqual(ratio, 2.0)
        self.assertTrue(math.isnan(lo))

    def test_no_scaling_line_without_two_thread_configurations(self):
        lines = self.lines(self.one)
        self.assertFalse(any("speed-up" in l for l in lines), lines)
        self.assertTrue(any("auto / fastest peer" in l for l in lines))

    def test_scaling_within_each_run_of_a_merged_file(self):
        scaling = [l for l in self.lines(self.merged) if "Auto speed-up, 1 -> 2 threads" in l]
        self.assertEqual(len(scaling), 4, scaling)  # n = 16 and 32 in each of the two runs
        for node in ("node01", "node02"):
            self.assertEqual(sum(f"-{node}-1" in l for l in scaling), 2, scaling)
        self.assertFalse(any("speed-up" in l for l in self.lines(self.split)))  # never across runs

    def test_markdown(self):
        r = report(self.both, "--markdown")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("| case | target | measured | 90% interval | bound | verdict |"))
        self.assertIn("| >= 1.8 | MET |", r.stdout)

    def test_unusable_file_exits_2(self):
        r = report(os.path.join(self.tmp.name, "missing.h5"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("target_report:", r.stderr)



class RooflineTargetsTest(unittest.TestCase):
    """Issue 19 item 2: Auto's fraction of its roofline bound by n, and no row above 1.05."""

    @staticmethod
    def row(variant, n, fraction, kind="engine"):
        samples = np.full(5, 1.0)
        return {"family": "packed_small", "variant": variant, "variant_kind": kind, "status": "ok",
                "params": '{"n": %d, "batch": 512}' % n, "threads": 1, "group_id": "packed_small/n=%d" % n,
                "exec_space": "openmp", "samples": samples, "median_s": 1.0, "roofline_bound_s": fraction,
                "roofline_fraction": fraction, "roofline_ceiling": "peak_f64"}

    def test_bounds_by_size_and_the_largest_fraction(self):
        rows = [self.row("engine:auto", 16, 0.85), self.row("engine:auto", 8, 0.3),
                self.row("peer:libxsmm", 8, 1.2, "peer"), self.row("engine:auto", 12, 0.5)]
        lines = target_report._roofline_targets(rows)
        verdicts = {(line[1], line[3], line[0].split(" ")[1]): target_report.verdict(line[2], line[3], line[4], line[6])
                    for line in lines}
        self.assertEqual(verdicts[("Auto fraction of roofline (peak_f64)", 0.8, "batch=512,n=16")], "MET")
        self.assertEqual(verdicts[("Auto fraction of roofline (peak_f64)", 0.4, "batch=512,n=8")], "MISSED")
        # n = 12 has no bound of its own; the peer above 1.05 is a line of its own, and the largest.
        self.assertFalse(any(k[2] == "batch=512,n=12" and k[1] != 1.05 for k in verdicts))
        largest = [line for line in lines if line[1] == "largest fraction of roofline"]
        self.assertEqual(len(largest), 1)
        self.assertAlmostEqual(largest[0][2], 1.2)
        self.assertIn("peer:libxsmm", largest[0][0])
        self.assertEqual(target_report.verdict(largest[0][2], 1.05, "<=", largest[0][6]), "MISSED")

    def test_a_bound_of_one_thread_is_named(self):
        two = dict(self.row("engine:auto", 4, 0.5), threads=2, roofline_threads=1, roofline_ceiling="bw_l2")
        spread = dict(self.row("engine:auto", 8, 0.5), threads=2, roofline_threads=2)
        whats = [line[1] for line in target_report._roofline_targets([two, spread]) if line[3] == 0.4]
        self.assertEqual(whats, ["Auto fraction of roofline (bw_l2, 1 thread)",
                                 "Auto fraction of roofline (peak_f64)"])

    def test_the_files_interval_of_the_rounds_fractions(self):
        """Since results v1.13 the fraction's interval comes from the file (the rounds' fractions where
        the ceilings were measured in every round); without it, from the samples through the bound."""
        spread = dict(self.row("engine:auto", 8, 0.5), samples=np.array([0.9, 1.0, 1.0, 1.0, 1.1]))
        line = [line for line in target_report._roofline_targets([spread]) if line[3] == 0.4][0]
        self.assertAlmostEqual(line[6][0], 0.5 / 1.1)
        self.assertAlmostEqual(line[6][1], 0.5 / 0.9)
        paired = dict(spread, roofline_fraction=0.45, roofline_fraction_lo=0.38, roofline_fraction_hi=0.47)
        line = [line for line in target_report._roofline_targets([paired]) if line[3] == 0.4][0]
        self.assertEqual((line[2], line[6]), (0.45, (0.38, 0.47)))
        self.assertEqual(target_report.verdict(line[2], line[3], line[4], line[6]), "MET (within noise)")

    def test_rows_without_a_roofline_add_nothing(self):
        row = self.row("engine:auto", 16, math.nan)
        self.assertEqual(target_report._roofline_targets([row]), [])
        del row["roofline_fraction"]  # a file of an older writer
        self.assertEqual(target_report._roofline_targets([row]), [])


class MeasurementNotesTest(unittest.TestCase):
    """Rows timed on a busy host, and Auto measured off a forced variant that ran its very route."""

    ROUTE = {"route.lanes": 2, "route.items": 512, "route.provider.specialized": 1,
             "route.strategy.outer-parallel": 1}

    @staticmethod
    def row(variant, factor, metrics, threads=2):
        samples = factor * np.linspace(0.98, 1.02, 9)
        return {"family": "packed_small", "variant": variant, "variant_kind": "engine", "status": "ok",
                "params": '{"n": 8, "batch": 512}', "threads": threads, "group_id": "packed_small/n=8",
                "exec_space": "openmp", "samples": samples, "median_s": float(np.median(samples)),
                "metrics": json.dumps(metrics)}

    def test_busy_host_rows(self):
        rows = [self.row("engine:auto", 1.0, {"host.other_cpu": 0.3, "host.steal": 0.0}),
                self.row("engine:sequential", 1.0, {"host.other_cpu": 0.02, "host.steal": 0.2}),
                self.row("peer:libxsmm", 1.0, {"host.other_cpu": 0.05, "host.steal": 0.05}),
                self.row("peer:eigen", 1.0, {})]  # a file of an older writer: nothing measured
        notes = target_report.measurement_notes(rows)
        self.assertEqual([n[1] for n in notes], ["busy host", "busy host"], notes)
        texts = " ".join(n[2] for n in notes)
        self.assertIn("engine:auto timed on a busy host: other work 30%", texts)
        self.assertIn("engine:sequential timed on a busy host: other work 2% of the worker's CPUs, steal 20%",
                      texts)

    def test_ceilings_kept_better_than_the_workers_own(self):
        def ceilings(dram, handoff):
            return json.dumps({"peak_f64": {"best": 100.0}, "bandwidth": {"l1": {"best": 400.0}, "dram": {"best": dram}},
                               "handoff": {"best": handoff}})
        kept = ceilings(60.0, 8e6)
        workers = [{"threads": 2, "exec_space": "openmp", "ceilings": kept, "ceilings_measured": ceilings(40.0, 2.4e6)},
                   {"threads": 1, "exec_space": "openmp", "ceilings": kept, "ceilings_measured": ceilings(57.0, 8e6)},
                   {"threads": 1, "exec_space": "serial", "ceilings": kept, "ceilings_measured": ""},
                   {"threads": 4, "exec_space": "openmp", "ceilings": kept}]  # a file of an older writer
        notes = target_report.ceiling_notes(workers)
        self.assertEqual(len(notes), 1, notes)  # 5% short is no note; cached or older: nothing to compare
        where, tag, text = notes[0]
        self.assertEqual((where, tag), ("threads=2 openmp", "ceilings kept"))
        self.assertIn("this worker measured dram bandwidth 33% lower, handoff rate 70% lower than the best kept", text)
        self.assertNotIn("l1", text)
        self.assertEqual(target_report.measurement_notes([], workers), notes)

    def test_same_route_other_time(self):
        # Lane 0's items are the learned split of the last call, not the route: they may differ.
        tuned = dict(self.ROUTE, **{"route.tuned": 1, "route.first_lane_items": 262})
        rows = [self.row("engine:auto", 2.5, tuned), self.row("engine:outer_parallel", 1.0, self.ROUTE),
                self.row("engine:sequential", 1.6, {"route.lanes": 1, "route.items": 512,
                                                    "route.provider.specialized": 1,
                                                    "route.strategy.sequential": 1})]
        notes = target_report.measurement_notes(rows)
        self.assertEqual(len(notes), 1, notes)  # not against sequential: another route
        where, tag, text = notes[0]
        self.assertEqual(tag, "same route, other time")
        self.assertIn("engine:auto ran the route of engine:outer_parallel (2 lane(s), specialized, "
                      "outer-parallel) but took 2.5", text)
        # Within the agreement band, or on another route: nothing to say.
        close = [self.row("engine:auto", 1.1, tuned), self.row("engine:outer_parallel", 1.0, self.ROUTE)]
        self.assertEqual(target_report.measurement_notes(close), [])
        other = dict(self.ROUTE, **{"route.streaming_stores": 1})
        apart = [self.row("engine:auto", 2.5, other), self.row("engine:outer_parallel", 1.0, self.ROUTE)]
        self.assertEqual(target_report.measurement_notes(apart), [])
        # Faster by as much is as suspect.
        fast = [self.row("engine:auto", 0.4, tuned), self.row("engine:outer_parallel", 1.0, self.ROUTE)]
        self.assertEqual(len(target_report.measurement_notes(fast)), 1)

    def test_marked_target_lines_and_the_notes_section(self):
        rows = [self.row("engine:auto", 2.5, dict(self.ROUTE, **{"host.other_cpu": 0.4, "host.steal": 0.0})),
                self.row("engine:outer_parallel", 1.0, self.ROUTE)]
        lines = [(target_report._where(rows[0]), "auto / fastest peer", 0.9, 1.0, ">=", "", stats.NO_INTERVAL),
                 ("packed_small batch=512,n=16 threads=2", "auto / fastest peer", 1.1, 1.0, ">=", "",
                  stats.NO_INTERVAL)]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            target_report._print_lines(lines, False, target_report.measurement_notes(rows))
        text = out.getvalue().splitlines()
        self.assertTrue(text[0].endswith("threads=2 [busy host; same route, other time]"), text[0])
        self.assertTrue(text[1].endswith("n=16 threads=2"), text[1])
        self.assertIn("measurement notes (2):", text)


if __name__ == "__main__":
    unittest.main()
