"""Reader, figures and check_results.py on synthetic files that follow docs/results-format.md.

Run: /usr/bin/python3 -m unittest tests/scripts/test_plots.py
"""

import math
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
from tfbench_results import figures, stats  # noqa: E402

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
    def test_no_roofline_without_level_ceilings(self):
        """A file of an older writer has one DRAM ceiling and no levels: no roofline is drawn."""
        from tfbench_results import roofline
        self.assertEqual(roofline.roofline_figures([load(self.base)], os.path.join(self.dir, "roof")), [])

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


class FigureLayoutTest(Files):
    """What the figures show, read back from their artists (Figure.layout): on a sweep over n and
    layout with a variant skipped everywhere and a family that counts no work."""

    SKIPPED = "engine:outer_parallel"

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(11)
        cls.sweep = fixtures.write(os.path.join(cls.dir, "sweep2.h5"), [fixtures.make_run(
            "20260302T100000Z-node01-21", rng, sizes=(4, 8, 16), layouts=("packed", "strided"),
            skip_case=f"packed_small/*/{cls.SKIPPED}",
            families=("packed_small", "session_overhead"))])
        cls.figs = {os.path.basename(f.path): f for f in
                    figures.family_figures([load(cls.sweep)], os.path.join(cls.dir, "layout"))}

    def layout(self, name):
        self.assertIn(name, self.figs)
        return self.figs[name].layout

    def all_legend_labels(self, lay):
        return [t for leg in lay["legends"] for t in leg["labels"]] + \
            [t for ax in lay["axes"] for t in ax["legend"]]

    def test_lines_differing_in_a_parameter_look_different(self):
        for name in ("throughput_packed_small.png", "scaling_packed_small.png"):
            lay = self.layout(name)
            for ax in lay["axes"]:
                styles = [(ln["color"], ln["linestyle"], ln["marker"]) for ln in ax["lines"]]
                self.assertGreaterEqual(len(styles), 8, name)
                self.assertEqual(len(set(styles)), len(styles), f"{name}: two lines look alike")
                by = {ln["label"]: ln for ln in ax["lines"]}
                packed = by["engine:auto [layout=packed]"]
                strided = by["engine:auto [layout=strided]"]
                self.assertEqual(packed["color"], strided["color"])  # colour: the variant
                self.assertNotEqual((packed["linestyle"], packed["marker"]),
                                    (strided["linestyle"], strided["marker"]))
                self.assertTrue(packed["filled"])  # engine strategies filled, peers open
                self.assertFalse(by["peer:libxsmm [layout=packed]"]["filled"])
            # A legend says which style is which layout.
            blocks = {leg["title"]: leg["labels"] for leg in lay["legends"]}
            self.assertEqual(blocks.get("layout"), ["layout=packed", "layout=strided"], name)

    def test_peer_ratio_labels_name_the_differing_parameter(self):
        lay = self.layout("peer_ratio_packed_small.png")
        for ax in lay["axes"]:
            ticks = ax["xticklabels"]
            self.assertEqual(len(ticks), 6)  # 3 sizes x 2 layouts
            self.assertEqual(len(set(ticks)), len(ticks), ticks)
            self.assertEqual(sum("layout=strided" in t for t in ticks), 3, ticks)
            self.assertTrue(all(t.startswith("n=") and "\nvs " in t for t in ticks), ticks)

    def test_time_axes_use_engineering_units(self):
        lay = self.layout("throughput_session_overhead.png")
        for ax in lay["axes"]:
            self.assertIn("[µs]", ax["ylabel"])
            ys = [y for ln in ax["lines"] for y in ln["y"]]
            self.assertTrue(ys and all(1 <= y < 1000 for y in ys), ys)  # 2 .. 120 µs
            self.assertFalse([t for t in ax["yticklabels"] if "e-" in t or "e+" in t])
        self.assertIn("[µs]", self.figs["throughput_session_overhead.png"].caption)
        self.assertEqual(figures._time_unit([5e-5]), (1e-6, "µs"))
        self.assertEqual(figures._time_unit([2e-6, 3e-3]), (1e-6, "µs"))
        self.assertEqual(figures._time_unit([4e-3, 0.2]), (1e-3, "ms"))
        self.assertEqual(figures._time_unit([3.0, math.nan]), (1.0, "s"))
        self.assertEqual(figures._time_unit([5e-10]), (1e-9, "ns"))

    def test_skipped_variants_are_a_note_not_a_legend_entry(self):
        for name in ("throughput_packed_small.png", "scaling_packed_small.png",
                     "peer_ratio_packed_small.png"):
            lay = self.layout(name)
            self.assertFalse([t for t in self.all_legend_labels(lay) if self.SKIPPED in t], name)
            for ax in lay["axes"]:
                drawn = [x["label"] for x in ax["lines"] + ax["bars"]]
                self.assertTrue(drawn, name)
                self.assertFalse([d for d in drawn if self.SKIPPED in d], name)
            note = [t for t in lay["texts"] if t.startswith("Not drawn")]
            self.assertEqual(len(note), 1, lay["texts"])
            self.assertIn(f"{self.SKIPPED} skipped at 1t, 2t (6 cases)", note[0])
            self.assertIn("OuterParallel forced in a one-thread context", note[0])
            self.assertNotIn("tfbench::ops", note[0])
        self.assertFalse([t for t in self.layout("throughput_session_overhead.png")["texts"]
                          if t.startswith("Not drawn")])

    def test_legends_are_below_the_axes(self):
        for name, fig in self.figs.items():
            lay = fig.layout
            self.assertTrue(lay["legends"], name)
            self.assertFalse([ax for ax in lay["axes"] if ax["legend"]], f"{name}: legend on axes")
            axes_bottom = min(ax["bbox"][1] for ax in lay["axes"])
            for leg in lay["legends"]:
                self.assertLessEqual(leg["bbox"][3], axes_bottom + 1e-3, name)
                self.assertGreaterEqual(leg["bbox"][1], 0.0, name)
                self.assertGreaterEqual(leg["bbox"][0], 0.0, name)
                self.assertLessEqual(leg["bbox"][2], 1.0, name)

    def test_panels_share_their_y_axis(self):
        lay = self.layout("throughput_packed_small.png")
        ax1, ax2 = lay["axes"]
        self.assertEqual((ax1["title"], ax2["title"]), ("openmp, 1 thread", "openmp, 2 threads"))
        self.assertEqual(ax1["ylim"], ax2["ylim"])  # one scale: 1 and 2 threads compare by eye
        lo, hi = ax1["ylim"]
        every = [y for ax in (ax1, ax2) for ln in ax["lines"] for y in ln["y"]]
        self.assertLessEqual(lo, min(every))
        self.assertGreaterEqual(hi, max(every))
        self.assertTrue(ax2["yticklabels"])  # still labelled on the right-hand panel
        for name in ("peer_ratio_packed_small.png", "throughput_session_overhead.png"):
            lims = {ax["ylim"] for ax in self.layout(name)["axes"]}
            self.assertEqual(len(lims), 1, name)

    def test_comparison_legend_below_and_skipped_in_a_note(self):
        rng = np.random.default_rng(13)
        base = fixtures.write(os.path.join(self.dir, "cmp_base.h5"), [fixtures.make_run(
            "20260303T100000Z-node01-31", rng, skip_case=f"packed_small/*/{self.SKIPPED}")])
        fig = figures.comparison(load(base), load(self.new), os.path.join(self.dir, "cmp2"),
                                 threshold_pct=5)
        lay = fig.layout
        self.check_legend_below(lay)
        self.assertFalse([t for t in self.all_legend_labels(lay) if self.SKIPPED in t])
        self.assertEqual(self.all_legend_labels(lay), ["no verdict", "threshold ±5%"])
        note = [t for t in lay["texts"] if t.startswith("Not compared")]
        self.assertEqual(len(note), 1, lay["texts"])
        self.assertIn(f"base: {self.SKIPPED} skipped at 1t, 2t (5 cases)", note[0])

    def check_legend_below(self, lay):
        self.assertFalse(lay["axes"][0]["legend"])
        for leg in lay["legends"]:
            self.assertLessEqual(leg["bbox"][3], lay["axes"][0]["bbox"][1] + 1e-3)

    def test_cli_writes_them(self):
        out = os.path.join(self.dir, "layout_cli")
        r = self.run_script("plot_results.py", self.sweep, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("line style and marker: layout", r.stdout)
        for n in os.listdir(out):
            PlotTest.check_png(self, os.path.join(out, n))


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
