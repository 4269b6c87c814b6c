"""Descriptive statistics for figures and target reports: pooled cases, rates, bootstrap spread of
ratios, and per-round (paired) ratios with a distribution-free interval for their median.

Verdicts (regression or not) are not decided here: they come from `tfbench compare`, the one
statistical implementation of the project. This module only describes what a figure shows.
"""

import math
from collections import OrderedDict

import numpy as np

from .reader import finite

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20240229


class Case:
    """All ok rows of one key (case_id, threads, exec_space) pooled, e.g. over merged rounds."""

    def __init__(self, rows):
        first = rows[0]
        self.rows = rows
        self.key = first.key
        self.case_id, self.threads, self.exec_space = self.key
        self.group_id, self.family = first["group_id"], first["family"]
        self.variant, self.kind = first["variant"], first["variant_kind"]
        self.strategy = first.get("strategy") or ""
        self.params = first.param_values
        self.flops, self.bytes = float(first["flops"]), float(first["bytes"])
        pooled = [r["samples"] for r in rows if len(r["samples"])]
        self.samples = np.concatenate(pooled) if pooled else np.array([])
        self.samples = self.samples[np.isfinite(self.samples) & (self.samples > 0)]
        if self.samples.size:
            self.median_s = float(np.median(self.samples))
        else:  # a writer that kept no samples: fall back on the row's own median
            self.median_s = float(np.median([r["median_s"] for r in rows]))

    @property
    def gflops(self):
        return self.flops / self.median_s / 1e9 if self.flops > 0 and self.median_s > 0 else math.nan

    @property
    def gbs(self):
        return self.bytes / self.median_s / 1e9 if self.bytes > 0 and self.median_s > 0 else math.nan


def pool(rows):
    """Groups ok rows by key, keeping first-seen order."""
    by_key = OrderedDict()
    for r in rows:
        if r.ok and finite(r["median_s"]):
            by_key.setdefault(r.key, []).append(r)
    return [Case(v) for v in by_key.values()]


def bootstrap_ratio(num, den, resamples=BOOTSTRAP_RESAMPLES, seed=BOOTSTRAP_SEED, level=0.95):
    """median(num)/median(den) and its percentile-bootstrap confidence interval.

    Both sample sets are resampled independently; with fewer than 3 samples on a side the
    interval is (nan, nan): too few to say anything about spread.
    """
    num, den = np.asarray(num, float), np.asarray(den, float)
    point = float(np.median(num) / np.median(den))
    if num.size < 3 or den.size < 3:
        return point, math.nan, math.nan
    rng = np.random.default_rng(seed)
    a = rng.choice(num, size=(resamples, num.size), replace=True)
    b = rng.choice(den, size=(resamples, den.size), replace=True)
    ratios = np.median(a, axis=1) / np.median(b, axis=1)
    lo, hi = np.percentile(ratios, [50 * (1 - level), 50 * (1 + level)])
    return point, float(lo), float(hi)


NO_INTERVAL = (math.nan, math.nan)


def _binomial_cdf_below(k, n):
    """P(Binomial(n, 1/2) < k)."""
    return sum(math.comb(n, i) for i in range(k)) / 2.0 ** n


def median_interval(values, confidence=0.90):
    """The median of `values` and a distribution-free interval for it: the order statistics x(k) and
    x(n + 1 - k) for the largest k whose coverage 1 - 2 P(Binomial(n, 1/2) < k) is at least
    `confidence` (k = 1, the whole range, when even that falls short: n < 5 at 90%). No
    resampling, so it holds for any distribution, skewed timing noise included."""
    x = sorted(v for v in values if math.isfinite(v))
    n = len(x)
    if n == 0:
        return math.nan, NO_INTERVAL
    mid = x[n // 2] if n % 2 else 0.5 * (x[n // 2 - 1] + x[n // 2])
    if n < 2:
        return mid, NO_INTERVAL
    k = 1
    while k + 1 <= (n + 1) // 2 and 1.0 - 2.0 * _binomial_cdf_below(k + 1, n) >= confidence:
        k += 1
    return mid, (x[k - 1], x[n - k])


def paired_ratio(num_samples, den_samples, num_median=math.nan, den_median=math.nan, confidence=0.90):
    """The ratio of two variants of one case measured in interleaved rounds (the i-th samples of
    both ran side by side in round i): the median of the per-round ratios and its interval
    (median_interval). Drift of the machine between rounds cancels in each pair. Without aligned
    samples (a variant dropped out of later rounds): num_median / den_median and no interval."""
    if num_samples is not None and den_samples is not None and len(num_samples) == len(den_samples) \
            and len(num_samples) > 0:
        return median_interval([a / b for a, b in zip(num_samples, den_samples) if b > 0], confidence)
    return num_median / den_median, NO_INTERVAL


def geomean(values):
    v = np.asarray([x for x in values if finite(x) and x > 0], float)
    return float(np.exp(np.mean(np.log(v)))) if v.size else math.nan
