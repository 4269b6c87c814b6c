"""target_report.py on synthetic result files: each target beside its bound, MET / MISSED from the
ratios in the file, the 1 -> 2 thread scaling of compute-bound batches, Markdown output, exit codes."""

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
        scaling = [l for l in lines if "Auto speed-up, 1 -> 2 threads" in l]
        self.assertEqual(len(scaling), 2, lines)  # compute-bound only: n = 16 and 32
        self.assertTrue(all(l.startswith("MET") for l in scaling), scaling)
        self.assertTrue(any("n=16" in l for l in scaling) and any("n=32" in l for l in scaling))
        value = float(scaling[0].split("threads")[1].split()[0])
        self.assertAlmostEqual(value, 1.9, delta=0.1)

    def test_no_scaling_line_without_two_thread_configurations(self):
        lines = self.lines(self.one)
        self.assertFalse(any("speed-up" in l for l in lines), lines)
        self.assertTrue(any("auto / fastest peer" in l for l in lines))

    def test_markdown(self):
        r = report(self.both, "--markdown")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("| case | target | measured | bound | verdict |"))
        self.assertIn("| >= 1.8 | MET |", r.stdout)

    def test_unusable_file_exits_2(self):
        r = report(os.path.join(self.tmp.name, "missing.h5"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("target_report:", r.stderr)


if __name__ == "__main__":
    unittest.main()
