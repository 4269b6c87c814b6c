"""compare's Mann-Whitney U and sign-test p-values (harness/src/compare/stats.cpp) against SciPy's.

The C++ test is two-sided only (the only alternative `tfbench compare` uses). What SciPy must be
asked to match what stats.hpp says it computes:
- Mann-Whitney, no ties and m + n <= 60: the exact null distribution,
  mannwhitneyu(x, y, alternative="two-sided", method="exact");
- otherwise (ties, or more samples): the normal approximation with the tie correction of the
  variance and a continuity correction of 0.5, method="asymptotic", use_continuity=True;
- the sign test: the exact two-sided binomial test at p = 1/2, binomtest(above, above + below).
Both sides compute the same formulas in doubles, so the p-values must agree to RTOL; U (of the
first sample, ties counting 1/2) must be equal.

Needs TFBENCH_STATS_TOOL, the path of tests/harness/stats_pvalues_tool.cpp's executable.
"""

import json
import math
import os
import subprocess
import sys
import unittest

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "scripts"))
from tfbench_results import stats as tfbench_stats  # noqa: E402

RTOL = 1e-12
EXACT_MAX = 60  # kMannWhitneyExactMax
SIZES = [3, 4, 5, 6, 8, 10, 13, 17, 21, 25, 30]


def sample_sets():
    """(label, x, y): every kind of set for every pair of sizes 3..30, plus larger tie-free sets
    that take the normal approximation."""
    rng = np.random.default_rng(18)
    out = []
    for m in SIZES:
        for n in SIZES:
            x, y = rng.normal(size=m), rng.normal(size=n)
            out.append((f"random {m}x{n}", x, y))
            out.append((f"shifted {m}x{n}", x, rng.normal(loc=0.8, size=n)))
            out.append((f"separated {m}x{n}", np.arange(m), m + np.arange(n)))
            out.append((f"separated reversed {m}x{n}", n + np.arange(m), np.arange(n)))
            out.append((f"ties {m}x{n}", rng.integers(0, 4, size=m), rng.integers(1, 5, size=n)))
            if m == n:
                out.append((f"identical {m}", x, x.copy()))
    for m, n in [(31, 30), (40, 40), (30, 45), (60, 50)]:
        out.append((f"random {m}x{n}", rng.normal(size=m), rng.normal(size=n)))
        out.append((f"shifted {m}x{n}", rng.normal(size=m), rng.normal(loc=0.5, size=n)))
        out.append((f"separated {m}x{n}", np.arange(m), m + np.arange(n)))
    out.append(("all equal 5x7", np.ones(5), np.ones(7)))
    out.append(("one value differs 6x6", np.ones(6), np.r_[np.ones(5), 2.0]))
    return [(label, [float(v) for v in x], [float(v) for v in y]) for label, x, y in out]


def sign_pairs():
    return [(above, n - above) for n in range(31) for above in range(n + 1)]


def run_tool(mann_whitney, sign):
    tool = os.environ["TFBENCH_STATS_TOOL"]
    request = {"mann_whitney": [{"x": x, "y": y} for _, x, y in mann_whitney],
               "sign": [{"above": a, "below": b} for a, b in sign]}
    done = subprocess.run([tool], input=json.dumps(request), capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def scipy_mann_whitney(x, y):
    exact = len(set(x) | set(y)) == len(x) + len(y) and len(x) + len(y) <= EXACT_MAX
    with np.errstate(divide="ignore", invalid="ignore"):  # all values equal: zero variance
        r = stats.mannwhitneyu(x, y, alternative="two-sided", use_continuity=True,
                               method="exact" if exact else "asymptotic")
    p = 1.0 if np.isnan(r.pvalue) else float(r.pvalue)
    return float(r.statistic), p, exact


def scipy_sign(above, below):
    n = above + below
    return 1.0 if n == 0 else float(stats.binomtest(above, n, 0.5, alternative="two-sided").pvalue)


def relative_error(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


class StatsAgainstSciPy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sets = sample_sets()
        cls.pairs = sign_pairs()
        cls.out = run_tool(cls.sets, cls.pairs)

    def test_mann_whitney_matches_scipy(self):
        self.assertEqual(len(self.out["mann_whitney"]), len(self.sets))
        worst, exact_cases, approx_cases = 0.0, 0, 0
        for (label, x, y), got in zip(self.sets, self.out["mann_whitney"]):
            u, p, exact = scipy_mann_whitney(x, y)
            with self.subTest(label):
                self.assertEqual(got["exact"], exact, "exact distribution or normal approximation")
                self.assertEqual(got["u"], u, "U of the first sample")
                self.assertLessEqual(relative_error(got["p"], p), RTOL, f"p {got['p']!r} vs SciPy {p!r}")
            worst = max(worst, relative_error(got["p"], p))
            exact_cases += exact
            approx_cases += not exact
        # The grid reaches both methods and the extremes of p.
        self.assertGreater(exact_cases, 300)
        self.assertGreater(approx_cases, 100)
        ps = [g["p"] for g in self.out["mann_whitney"]]
        self.assertLess(min(ps), 1e-15)
        self.assertEqual(max(ps), 1.0)
        print(f"Mann-Whitney: {exact_cases} exact, {approx_cases} asymptotic, worst relative error {worst:.2e}")

    def test_sign_test_matches_scipy_binomtest(self):
        self.assertEqual(len(self.out["sign"]), len(self.pairs))
        worst = 0.0
        for (above, below), got in zip(self.pairs, self.out["sign"]):
            with self.subTest(above=above, below=below):
                p = scipy_sign(above, below)
                self.assertLessEqual(relative_error(got["p"], p), RTOL, f"p {got['p']!r} vs SciPy {p!r}")
                min_p = scipy_sign(above + below, 0)
                self.assertLessEqual(relative_error(got["min_p"], min_p), RTOL, "smallest p with n pairs")
                worst = max(worst, relative_error(got["p"], p))
        print(f"sign test: {len(self.pairs)} pairs, worst relative error {worst:.2e}")

    def test_median_interval_matches_target_report(self):
        """The roofline fraction's interval (rows.cpp) by the order statistics target_report.py takes
        (tfbench_results.stats.median_interval), for 1 to 40 rounds, ties included."""
        rng = np.random.default_rng(19)
        sets = [[float(v) for v in rng.normal(size=n)] for n in range(1, 41)]
        sets += [[float(v) for v in rng.integers(0, 3, size=n)] for n in (2, 5, 8, 11, 21)]
        request = {"mann_whitney": [], "sign": [], "median_interval": sets}
        done = subprocess.run([os.environ["TFBENCH_STATS_TOOL"]], input=json.dumps(request), capture_output=True,
                              text=True, check=True)
        got = json.loads(done.stdout)["median_interval"]
        self.assertEqual(len(got), len(sets))
        for values, g in zip(sets, got):
            median, (lo, hi) = tfbench_stats.median_interval(values)
            with self.subTest(n=len(values)):
                self.assertEqual(g["median"], median)
                if math.isfinite(lo):
                    self.assertEqual((g["lo"], g["hi"]), (lo, hi))
                else:
                    self.assertEqual((g["lo"], g["hi"]), (None, None))

    def test_tool_rejects_malformed_input(self):
        done = subprocess.run([os.environ["TFBENCH_STATS_TOOL"]], input='{"mann_whitney": [{"x": [1]}]}',
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("expected", done.stderr)


if __name__ == "__main__":
    unittest.main()
