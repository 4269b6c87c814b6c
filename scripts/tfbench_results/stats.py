"""Descriptive statistics for figures: pooled cases, rates, and bootstrap spread of ratios.

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


def geomean(values):
    v = np.asarray([x for x in values if finite(x) and x > 0], float)
    return float(np.exp(np.mean(np.log(v)))) if v.size else math.nan
