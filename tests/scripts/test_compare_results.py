"""compare_results.py and noise_floor.py.

With $TFBENCH (a built tfbench) the verdicts come from `tfbench compare` on real `tfbench run`
output (see test_gate.sh for the runs); without it, from a saved compare JSON document
(--compare-json), which is how perf-regression.sh calls the report.
"""

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
sys.path.insert(0, SCRIPTS)

import fixtures  # noqa: E402
from tfbench_results import load  # noqa: E402

PY = "/usr/bin/python3"
SLOW = "packed_small/batch=1000,n=8/engine:auto"


def saved_compare_json(base, new, regressed):
    """A document in the shape `tfbench compare --format json` prints (harness/src/compare)."""
    b = {r.key: r for r in load(base).rows()}
    n = {r.key: r for r in load(new).rows()}
    rows = []
    for key in sorted(b.keys() & n.keys()):
        rb, rn = b[key], n[key]
        ratio = rn["median_s"] / rb["median_s"]
        verdict = "REGRESSION" if rb["case_id"] == regressed else "NO_CHANGE"
        rows.append({"case_id": key[0], "threads": key[1], "exec_space": key[2],
                     "family": rb["family"], "variant": rb["variant"], "base_status": "ok",
                     "new_status": "ok", "base_median_s": rb["median_s"],
                     "new_median_s": rn["median_s"], "base_samples": len(rb["samples"]),
                     "new_samples": len(rn["samples"]), "ratio": ratio,
                     "change_pct": (ratio - 1) * 100, "p": 0.0004 if verdict == "REGRESSION"
                     else 0.5, "u": 1.0, "exact": True, "threshold_pct": 10.0,
                     "threshold_from_config": False, "verdict": verdict,
                     "reason": "slower beyond threshold 10%" if verdict == "REGRESSION"
                     else "within threshold 10%"})
    gm = math.exp(np.mean([math.log(r["ratio"]) for r in rows]))
    return {"base": {"path": base, "runs": []}, "new": {"path": new, "runs": []},
            "threshold_pct": 10.0, "alpha": 0.05, "rows": rows,
            "not_compared": [{"case_id": "x/y/z", "threads": 1, "exec_space": "openmp",
                              "reason": "only in base"}],
            "summary": {"REGRESSION": 2, "IMPROVEMENT": 0, "NO_CHANGE": len(rows) - 2,
                        "INCONCLUSIVE": 0, "compared": len(rows), "geomean_ratio": gm},
            "notes": []}


class CompareResultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tfbench-cmp-")
        d = cls.tmp.name
        rng = np.random.default_rng(11)
        cls.base = fixtures.write(os.path.join(d, "base.h5"), [fixtures.make_run(
            "20260301T100000Z-node01-1", rng, families=("packed_small",))])
        cls.new = fixtures.write(os.path.join(d, "new.h5"), [fixtures.make_run(
            "20260301T110000Z-node01-2", rng, families=("packed_small",),
            revision="fedcba9876543210fedcba9876543210fedcba98", slowdown={SLOW: 1.6})])
        cls.json = os.path.join(d, "compare.json")
        with open(cls.json, "w") as fh:
            json.dump(saved_compare_json(cls.base, cls.new, SLOW), fh)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_report_from_saved_verdicts(self):
        d = self.tmp.name
        out = os.path.join(d, "report", "report.md")
        os.makedirs(os.path.dirname(out))
        r = subprocess.run([PY, os.path.join(SCRIPTS, "compare_results.py"), self.base, self.new,
                            "--compare-json", self.json, "-o", out, "--figures",
                            os.path.join(d, "report", "fig"), "--fail-on-regression"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stderr)  # a regression, and --fail-on-regression
        with open(out) as fh:
            text = fh.read()
        self.assertIn("2 regression(s)", text)
        self.assertIn("### Regressions", text)
        self.assertIn(f"`{SLOW}` | 1 | openmp", text)
        self.assertIn(f"`{SLOW}` | 2 | openmp", text)
        self.assertIn("REGRESSION", text)
        self.assertIn("Geometric mean", text)
        self.assertIn("Not compared: 1 case(s) (1 only in base)", text)
        self.assertIn("![comparison.png](fig/comparison.png)", text)
        self.assertIn("fedcba987654", text)  # new's revision in the provenance table
        self.assertIn("0123456789ab", text)  # base's
        self.assertTrue(os.path.isfile(os.path.join(d, "report", "fig", "comparison.png")))
        # Same report without --fail-on-regression: exit 0.
        r = subprocess.run([PY, os.path.join(SCRIPTS, "compare_results.py"), self.base, self.new,
                            "--compare-json", self.json], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("## tfbench comparison", r.stdout)
        self.assertIn("two-sided Mann-Whitney U on the samples", r.stdout)

    def test_report_names_the_paired_rounds_test(self):
        doc = saved_compare_json(self.base, self.new, SLOW)
        doc["paired_rounds"] = True
        path = os.path.join(self.tmp.name, "compare-paired.json")
        with open(path, "w") as fh:
            json.dump(doc, fh)
        r = subprocess.run([PY, os.path.join(SCRIPTS, "compare_results.py"), self.base, self.new,
                            "--compare-json", path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("two-sided sign test over the rounds", r.stdout)
        self.assertNotIn("Mann-Whitney", r.stdout)

    def test_unusable_input_exits_2(self):
        r = subprocess.run([PY, os.path.join(SCRIPTS, "compare_results.py"), self.base,
                            os.path.join(self.tmp.name, "missing.h5"), "--compare-json",
                            self.json], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        r = subprocess.run([PY, os.path.join(SCRIPTS, "compare_results.py"), self.base, self.new,
                            "--tfbench", "/nonexistent/tfbench"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not an executable file", r.stderr)

    def test_noise_floor(self):
        out = os.path.join(self.tmp.name, "noise.json")
        r = subprocess.run([PY, os.path.join(SCRIPTS, "noise_floor.py"), self.json, "--json", out],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stderr)  # REGRESSION verdicts in an "A/A": false alarm
        with open(out) as fh:
            nf = json.load(fh)
        self.assertGreater(nf["max_pct"], 50)  # the injected 1.6x
        self.assertEqual(nf["supported_threshold_pct"], math.ceil(nf["max_pct"]))  # p < alpha
        self.assertEqual(nf["significant_cases"], 2)
        self.assertEqual(nf["conservative_threshold_pct"], math.ceil(nf["max_pct"]))
        self.assertIn(SLOW, nf["largest"][0]["case_id"])
        self.assertIn("BELOW it", r.stdout)


@unittest.skipUnless(os.environ.get("TFBENCH"), "needs TFBENCH=path/to/tfbench (set by CTest)")
class MergedRoundsTest(unittest.TestCase):
    """What the gate relies on: `tfbench compare` reads files written to docs/results-format.md
    (here by the fixture writer) and pools the samples of a case repeated over a file's runs
    (merged rounds); a failure in any round is a regression."""

    def test_rounds_are_pooled_and_a_failed_round_regresses(self):
        with tempfile.TemporaryDirectory(prefix="tfbench-pool-") as d:
            rng = np.random.default_rng(17)
            fam = ("packed_small",)

            def rounds(prefix, crash=None):
                return [fixtures.make_run(f"2026030{i}T10000{i}Z-node01-{prefix}{i}", rng, reps=7,
                                          families=fam, sizes=(4, 8), threads=(1,),
                                          start=f"2026-03-0{i}T10:00:0{i}Z",
                                          crash_case=crash if i == 2 else None)
                        for i in (1, 2, 3)]

            base = fixtures.write(os.path.join(d, "base.h5"), rounds("1"))
            new = fixtures.write(os.path.join(d, "new.h5"), rounds("2", crash=SLOW))
            r = subprocess.run([os.environ["TFBENCH"], "compare", base, new, "--format", "json"],
                               capture_output=True, text=True)
            self.assertIn(r.returncode, (0, 1), r.stderr)
            doc = json.loads(r.stdout)
            rows = {(x["case_id"], x["threads"]): x for x in doc["rows"]}
            other = rows[("packed_small/batch=1000,n=4/engine:auto", 1)]
            self.assertEqual(other["base_samples"], 21)  # 3 rounds x 7 samples
            self.assertEqual(other["new_samples"], 21)
            self.assertTrue(any("pooled" in n for n in doc["notes"]), doc["notes"])
            crashed = rows[(SLOW, 1)]
            self.assertEqual(crashed["new_status"], "crashed")
            self.assertEqual(crashed["verdict"], "REGRESSION")


@unittest.skipUnless(os.environ.get("TFBENCH"), "needs TFBENCH=path/to/tfbench (set by CTest)")
class RealTfbenchTest(unittest.TestCase):
    """`tfbench run` twice (one with a delay injected into one case), then compare_results.py
    obtains the verdicts from `tfbench compare` itself, and plot_results.py draws the runs."""

    CASE = "bandwidth_control/elements=4096/kokkos"

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tfbench-cmp-real-")
        d, tfbench = cls.tmp.name, os.environ["TFBENCH"]
        cls.base, cls.new = os.path.join(d, "base.h5"), os.path.join(d, "new.h5")
        for out, inject in ((cls.base, None), (cls.new, f"delay:{cls.CASE}:200")):
            env = dict(os.environ)
            env.pop("TFBENCH_FAULT_INJECT", None)
            if inject:
                env["TFBENCH_FAULT_INJECT"] = inject
            r = subprocess.run([tfbench, "run", os.path.join(HERE, "gate.yaml"), "--out", out,
                                "--repetitions", "12"], capture_output=True, text=True, env=env)
            assert r.returncode == 0, r.stdout + r.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_report_verdicts_come_from_tfbench_compare(self):
        d = self.tmp.name
        out = os.path.join(d, "report.md")
        r = subprocess.run([PY, os.path.join(SCRIPTS, "compare_results.py"), self.base, self.new,
                            "-o", out, "--figures", os.path.join(d, "fig"), "--threshold", "40",
                            "--fail-on-regression"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stderr)
        with open(out) as fh:
            text = fh.read()
        self.assertIn("### Regressions", text)
        regressions = text.split("### Regressions", 1)[1].split("###", 1)[0]
        self.assertIn(f"`{self.CASE}` | 1 | openmp", regressions)
        self.assertIn("REGRESSION", regressions)
        self.assertIn("verdicts from `tfbench compare", text)
        self.assertIn("Threshold 40%", text)
        with open(os.path.join(d, "cmp.json"), "w") as fh:
            fh.write(subprocess.run([os.environ["TFBENCH"], "compare", self.base, self.new,
                                     "--threshold", "40", "--format", "json"],
                                    capture_output=True, text=True).stdout)
        with open(os.path.join(d, "cmp.json")) as fh:
            doc = json.load(fh)
        verdict = {r["case_id"]: r["verdict"] for r in doc["rows"]}[self.CASE]
        self.assertEqual(verdict, "REGRESSION")  # the same verdict as the report shows
        for name in ("comparison.png", "throughput_bandwidth_control.png",
                     "peer_ratio_bandwidth_control.png"):
            self.assertTrue(os.path.isfile(os.path.join(d, "fig", name)), name)

    def test_plots_of_a_real_run(self):
        from test_plots import png_stats
        out = os.path.join(self.tmp.name, "plots")
        r = subprocess.run([PY, os.path.join(SCRIPTS, "plot_results.py"), self.base, "-o", out],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        for name in os.listdir(out):
            w, h, nonwhite, colours = png_stats(os.path.join(out, name))
            self.assertGreater(w, 500)
            self.assertGreater(h, 350)
            self.assertGreater(nonwhite, 0.03, name)


if __name__ == "__main__":
    unittest.main()
