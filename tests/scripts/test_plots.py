"""Reader, figures and check_results.py on synthetic files that follow docs/results-format.md.

Run: /usr/bin/python3 -m unittest tests/scripts/test_plots.py
"""

import os
import subprocess
import sys
import tempfile
import unittest

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts")
sys.path.insert(0, HERE)
sys.path.insert(0, SCRIPTS)

import fixtures  # noqa: E402
from tfbench_results import ResultsFormatError, load  # noqa: E402
from tfbench_results import stats  # noqa: E402

PY = "/usr/bin/python3"


def png_stats(path):
    """(width, height, fraction of non-white pixels, distinct colours) of a PNG."""
    import matplotlib.image as mpimg
    img = mpimg.imread(path)
    h, w = img.shape[:2]
    rgb = img[..., :3]
    nonwhite = float(np.mean(np.any(rgb < 0.97, axis=-1)))
    colours = len(np.unique((rgb.reshape(-1, 3) * 255).astype(np.uint8), axis=0))
    return w, h, nonwhite, colours


class Files(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tfbench-plots-")
        cls.dir = cls.tmp.name
        rng = np.random.default_rng(7)
        cls.base_run = fixtures.make_run("20260301T100000Z-node01-11", rng)
        cls.base = fixtures.write(os.path.join(cls.dir, "base.h5"), [cls.base_run])
        cls.new = fixtures.write(os.path.join(cls.dir, "new.h5"), [fixtures.make_run(
            "20260301T110000Z-node01-12", rng, start="2026-03-01T11:00:00Z",
            slowdown={"packed_small/batch=1000,n=8/engine:auto": 1.5})])
        cls.bad_worker = fixtures.write(os.path.join(cls.dir, "badworker.h5"), [fixtures.make_run(
            "20260301T120000Z-node01-13", rng, failed_worker_threads=2,
            crash_case="packed_small/*n=4*/engine:sequential")])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_script(self, *args):
        return subprocess.run([PY, os.path.join(SCRIPTS, args[0]), *args[1:]],
                              capture_output=True, text=True)


class ReaderTest(Files):
    def test_round_trip(self):
        f = load(self.base)
        self.assertEqual(len(f.runs), 1)
        run = f.runs[0]
        self.assertEqual(run["hostname"], "node01")
        self.assertEqual(run["git_revision"], self.base_run["attrs"]["git_revision"])
        self.assertEqual(len(run.rows), len(self.base_run["rows"]))
        for row, ref in zip(run.rows, self.base_run["rows"]):
            self.assertEqual(row["case_id"], ref["case_id"])
            self.assertEqual(len(row["samples"]), ref["sample_count"])
            self.assertAlmostEqual(float(np.median(row["samples"])), ref["median_s"])
        self.assertTrue(all(w.verified for w in run.workers))
        self.assertEqual(run.configs, ["family: packed_small\n"])

    def test_pooling_merged_rounds(self):
        rng = np.random.default_rng(3)
        path = fixtures.write(os.path.join(self.dir, "rounds.h5"), [
            fixtures.make_run(f"2026030{i}T100000Z-node01-{i}", rng, reps=5,
                              start=f"2026-03-0{i}T10:00:00Z") for i in (1, 2, 3)])
        cases = stats.pool(load(path).rows())
        self.assertTrue(cases)
        self.assertTrue(all(c.samples.size == 15 for c in cases))

    def test_bootstrap_interval_brackets_ratio(self):
        rng = np.random.default_rng(5)
        a = 2.0 * np.exp(rng.normal(0, 0.05, 30))
        b = 1.0 * np.exp(rng.normal(0, 0.05, 30))
        point, lo, hi = stats.bootstrap_ratio(a, b)
        self.assertTrue(lo < point < hi)
        self.assertTrue(1.8 < lo and hi < 2.2)
        self.assertTrue(np.isnan(stats.bootstrap_ratio(a[:2], b)[1]))

    def _corrupt(self, name, mutate):
        path = os.path.join(self.dir, name)
        fixtures.write(path, [self.base_run])
        with h5py.File(path, "r+") as f:
            mutate(f)
        return path

    def test_errors_say_where_and_why(self):
        def wrong_schema(f):
            f.attrs["schema"] = "something-else"

        def newer_version(f):
            f.attrs["schema_version"] = np.int64(2)

        def missing_field(f):
            g = f["runs"][list(f["runs"])[0]]
            rows = g["results"][...]
            names = [n for n in rows.dtype.names if n != "median_s"]
            del g["results"]
            g.create_dataset("results", data=rows[names])

        def samples_overflow(f):
            g = f["runs"][list(f["runs"])[0]]
            del g["samples"]
            g.create_dataset("samples", data=np.zeros(3))

        cases = [(wrong_schema, "/", "schema"), (newer_version, "/", "schema_version"),
                 (missing_field, "/results", "median_s"), (samples_overflow, "/results[", "outside")]
        for mutate, where, why in cases:
            path = self._corrupt(f"bad_{mutate.__name__}.h5", mutate)
            with self.assertRaises(ResultsFormatError) as ctx:
                load(path)
            self.assertIn(where, ctx.exception.where, mutate.__name__)
            self.assertIn(why, ctx.exception.why, mutate.__name__)
        r = self.run_script("plot_results.py", self._corrupt("bad2.h5", newer_version), "-o",
                            os.path.join(self.dir, "nofig"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("schema_version", r.stderr)
        r = self.run_script("plot_results.py", os.path.join(self.dir, "absent.h5"))
        self.assertEqual(r.returncode, 2)


class PlotTest(Files):
    def check_png(self, path, min_w=500, min_h=350):
        self.assertTrue(os.path.isfile(path), path)
        w, h, nonwhite, colours = png_stats(path)
        self.assertGreaterEqual(w, min_w, path)
        self.assertGreaterEqual(h, min_h, path)
        self.assertGreater(nonwhite, 0.03, f"{path}: almost blank ({nonwhite:.3f} non-white)")
        self.assertGreater(colours, 8, f"{path}: only {colours} colours")

    def test_family_figures(self):
        out = os.path.join(self.dir, "fig")
        r = self.run_script("plot_results.py", self.base, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        names = sorted(os.listdir(out))
        for family in ("packed_small", "bandwidth_control"):
            for kind in ("throughput", "scaling", "peer_ratio"):
                self.assertIn(f"{kind}_{family}.png", names)
                self.assertIn(os.path.join(out, f"{kind}_{family}.png"), r.stdout)
        for n in names:
            self.check_png(os.path.join(out, n))

    def test_comparison_figure(self):
        out = os.path.join(self.dir, "cmp")
        r = self.run_script("plot_results.py", "--compare", self.base, self.new, "-o", out,
                            "--threshold", "5")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.check_png(os.path.join(out, "comparison.png"), 800, 600)

    def test_failed_worker_and_crashed_case_are_left_out(self):
        out = os.path.join(self.dir, "partial")
        r = self.run_script("plot_results.py", self.bad_worker, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        # One verified thread count: no scaling figure, the others still drawn.
        self.assertNotIn("scaling_packed_small.png", os.listdir(out))
        self.check_png(os.path.join(out, "throughput_packed_small.png"))


class CheckResultsTest(Files):
    def test_good_file_passes(self):
        r = self.run_script("check_results.py", self.base, "--runs", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("all checks passed", r.stdout)

    def test_thread_mismatch_and_failed_worker_fail(self):
        r = self.run_script("check_results.py", self.base, "--threads", "1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("threads = 2, expected 1", r.stderr)
        r = self.run_script("check_results.py", self.bad_worker)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not verified", r.stderr)
        self.assertIn("crashed", r.stderr)
        r = self.run_script("check_results.py", self.base, "--runs", "2")
        self.assertEqual(r.returncode, 1)


if __name__ == "__main__":
    unittest.main()
