"""`tfbench export --format gbench` read as Google Benchmark's tools/compare.py reads a file
(gbench_format.py, written from Google Benchmark's documentation): every key it reads, entries
matched by name, a slowdown showing as compare.py's `(new - old) / |old|`."""

import copy
import json
import os
import tempfile
import unittest

import numpy as np

import export_helpers as h
import gbench_format as gb

try:
    from scipy.stats import mannwhitneyu
except ImportError:  # compare.py's U test needs SciPy; the format checks do not
    mannwhitneyu = None


def load_export(path, *args):
    return gb.check(json.loads(h.export(path, "gbench", *args).stdout), path)


def case_of(name):
    """The case id of an entry name `<case_id>/threads:<n>/space:<space>[_<aggregate>]`."""
    return name.split("/threads:")[0]


@unittest.skipUnless(h.TFBENCH, "needs TFBENCH=path/to/tfbench (set by CTest)")
class SyntheticFiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tfbench-export-gbench-")
        cls.base, cls.new = h.synthetic_pair(cls.tmp.name)
        cls.doc_base, cls.doc_new = load_export(cls.base), load_export(cls.new)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_one_iteration_per_sample_of_every_ok_row_and_four_aggregates(self):
        rows = [(r, s) for _, r, s in h.rows_of(self.base) if r["status"] == "ok"]
        entries = self.doc_base["benchmarks"]
        iterations = [e for e in entries if e["run_type"] == "iteration"]
        self.assertEqual(len(iterations), sum(len(s) for _, s in rows))
        self.assertEqual(len(entries) - len(iterations), 4 * len(rows))
        for row, samples in rows:
            name = f"{row['case_id']}/threads:{row['threads']}/space:{row['exec_space']}"
            mine = [e for e in iterations if e["name"] == name]
            self.assertEqual([e["repetition_index"] for e in mine], list(range(len(samples))))
            np.testing.assert_allclose([gb.seconds(e) for e in mine], samples, rtol=1e-12)
            self.assertTrue(all(e["iterations"] == row["iterations"] for e in mine))
            self.assertTrue(all(e["repetitions"] == len(samples) for e in mine))
            aggregates = {e["aggregate_name"]: e for e in entries
                          if e["run_type"] == "aggregate" and e["run_name"] == name}
            self.assertEqual(set(aggregates), {"mean", "median", "stddev", "cv"})
            s = np.asarray(samples)
            self.assertAlmostEqual(gb.seconds(aggregates["mean"]) / s.mean(), 1.0, places=12)
            self.assertAlmostEqual(gb.seconds(aggregates["median"]) / np.median(s), 1.0, places=12)
            self.assertAlmostEqual(gb.seconds(aggregates["stddev"]) / s.std(ddof=1), 1.0, places=12)
            self.assertAlmostEqual(aggregates["cv"]["real_time"], s.std(ddof=1) / s.mean(), places=12)
            self.assertEqual(aggregates["cv"]["aggregate_unit"], "percentage")

    def test_rows_not_ok_are_left_out(self):
        crashed = [r["case_id"] for _, r, _ in h.rows_of(self.base) if r["status"] != "ok"]
        self.assertTrue(crashed)
        names = {case_of(e["name"]) for e in self.doc_base["benchmarks"]}
        self.assertFalse(names & set(crashed))

    def test_compare_pairs_every_entry_and_shows_the_slowdown(self):
        diff = gb.difference(self.doc_base, self.doc_new)
        self.assertEqual(len(diff), len({e["name"] for e in self.doc_base["benchmarks"]}))
        slow = [d for d in diff if case_of(d["name"]).startswith("packed_small/batch=1000,n=8/")]
        self.assertTrue(slow)
        for d in diff:
            if d["aggregate_name"] in ("stddev", "cv"):
                continue
            changes = [p[2] for p in d["pairs"]]
            if d in slow:
                self.assertAlmostEqual(float(np.median(changes)), 0.5, delta=0.1, msg=d["name"])
            else:
                self.assertLess(abs(float(np.median(changes))), 0.1, msg=d["name"])
            self.assertEqual([p[2] for p in d["pairs"]], [p[3] for p in d["pairs"]])  # cpu = real

    def test_aggregates_only_shows_four_rows_per_instance(self):
        diff = gb.difference(self.doc_base, self.doc_new, aggregates_only=True)
        instances = {e["run_name"] for e in self.doc_base["benchmarks"]}
        self.assertEqual(len(diff), 4 * len(instances))
        self.assertEqual({d["aggregate_name"] for d in diff}, {"mean", "median", "stddev", "cv"})

    @unittest.skipUnless(mannwhitneyu, "needs SciPy (python3-scipy)")
    def test_the_u_test_on_the_iterations_finds_the_slowdown(self):
        for d in gb.difference(self.doc_base, self.doc_new):
            if d["run_type"] != "iteration":
                continue
            p = mannwhitneyu(d["base_times"], d["new_times"], alternative="two-sided").pvalue
            slow = case_of(d["name"]).startswith("packed_small/batch=1000,n=8/")
            if slow:
                self.assertLess(p, 0.05, d["name"])

    def test_one_time_unit_for_every_entry(self):
        ms = load_export(self.base, "--time-unit", "ms")
        self.assertEqual({e["time_unit"] for e in ms["benchmarks"]}, {"ms"})
        self.assertEqual({e["time_unit"] for e in self.doc_base["benchmarks"]}, {"ns"})
        for a, b in zip(ms["benchmarks"], self.doc_base["benchmarks"]):
            self.assertEqual(a["name"], b["name"])
            if a.get("aggregate_name") != "cv":
                self.assertAlmostEqual(gb.seconds(a) / gb.seconds(b), 1.0, places=12)

    def test_context_names_the_machine(self):
        c = self.doc_base["context"]
        self.assertEqual(c["host_name"], "node01")
        self.assertEqual(c["num_cpus"], 2)
        self.assertEqual(c["date"], "2026-03-01T10:00:00+00:00")
        self.assertEqual(c["json_schema_version"], 1)
        self.assertEqual(c["library_build_type"], "release")

    def test_runs_of_one_case_are_pooled(self):
        rng = np.random.default_rng(3)
        path = os.path.join(self.tmp.name, "rounds.h5")
        h.fixtures.write(path, [
            h.fixtures.make_run("r1", rng, families=("bandwidth_control",), threads=(1,)),
            h.fixtures.make_run("r2", rng, families=("bandwidth_control",), threads=(1,),
                                start="2026-03-01T11:00:00Z")])
        doc = load_export(path)
        iterations = [e for e in doc["benchmarks"] if e["run_type"] == "iteration"]
        first = iterations[0]["name"]
        mine = [e for e in iterations if e["name"] == first]
        self.assertEqual([e["repetition_index"] for e in mine], list(range(18)))
        self.assertEqual({e["repetitions"] for e in mine}, {18})
        self.assertEqual(doc["context"]["tfbench_runs"], "r1;r2")


class CheckerRefusesIncompleteFiles(unittest.TestCase):
    """The checker has teeth: a file missing what compare.py reads fails it."""

    DOC = {
        "context": {"date": "2026-03-01T10:00:00+00:00", "host_name": "h", "executable": "x",
                    "num_cpus": 2, "mhz_per_cpu": 0, "caches": [], "load_avg": [],
                    "library_build_type": "release", "json_schema_version": 1},
        "benchmarks": [
            {"name": "a", "family_index": 0, "per_family_instance_index": 0, "run_name": "a",
             "run_type": "iteration", "repetitions": 2, "repetition_index": i, "threads": 1,
             "iterations": 10, "real_time": 1.0 + i, "cpu_time": 1.0 + i, "time_unit": "ns"}
            for i in range(2)] + [
            {"name": "a_mean", "family_index": 0, "per_family_instance_index": 0,
             "run_name": "a", "run_type": "aggregate", "repetitions": 2, "threads": 1,
             "aggregate_name": "mean", "aggregate_unit": "time", "iterations": 2,
             "real_time": 1.5, "cpu_time": 1.5, "time_unit": "ns"}],
    }

    def test_the_complete_document_passes(self):
        gb.check(copy.deepcopy(self.DOC))

    def test_each_missing_key_fails(self):
        def without(path):
            doc = copy.deepcopy(self.DOC)
            obj = doc
            for p in path[:-1]:
                obj = obj[p]
            del obj[path[-1]]
            return doc
        cases = [("benchmarks",), ("context",), ("context", "num_cpus"),
                 ("benchmarks", 0, "time_unit"), ("benchmarks", 0, "run_type"),
                 ("benchmarks", 0, "real_time"), ("benchmarks", 0, "cpu_time"),
                 ("benchmarks", 0, "name"), ("benchmarks", 0, "repetition_index"),
                 ("benchmarks", 1, "iterations"), ("benchmarks", 2, "aggregate_name"),
                 ("benchmarks", 2, "aggregate_unit"), ("benchmarks", 2, "family_index")]
        for path in cases:
            with self.subTest(missing=path):
                with self.assertRaises(gb.FormatError):
                    gb.check(without(path))

    def test_wrong_values_fail(self):
        for path, value in ((("benchmarks", 0, "run_type"), "iterations"),
                            (("benchmarks", 0, "time_unit"), "sec"),
                            (("benchmarks", 0, "real_time"), "1.0"),
                            (("benchmarks", 2, "name"), "a_median"),
                            (("context", "json_schema_version"), 2)):
            with self.subTest(path=path, value=value):
                doc = copy.deepcopy(self.DOC)
                obj = doc
                for p in path[:-1]:
                    obj = obj[p]
                obj[path[-1]] = value
                with self.assertRaises(gb.FormatError):
                    gb.check(doc)

    def test_a_tfbench_result_file_is_not_one(self):
        with self.assertRaises(gb.FormatError):
            gb.check({"format": "tfbench-export", "runs": []})


@unittest.skipUnless(h.TFBENCH, "needs TFBENCH=path/to/tfbench (set by CTest)")
class RealRuns(unittest.TestCase):
    """Two real runs, a delay injected into one case of the second."""

    CASE = "bandwidth_control/elements=4096/kokkos"

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tfbench-export-gbench-real-")
        cls.base, cls.new = h.real_runs(cls.tmp.name, inject={"new": f"delay:{cls.CASE}:300"})

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_compare_sees_every_case_and_the_delay(self):
        out = os.path.join(self.tmp.name, "base.json")
        h.export(self.base, "gbench", "-o", out)
        base, new = gb.load(out), load_export(self.new)
        diff = gb.difference(base, new)
        ok = {r["case_id"] for _, r, _ in h.rows_of(self.base) if r["status"] == "ok"}
        self.assertEqual({case_of(d["name"]) for d in diff}, ok)
        median = [d for d in diff if d["aggregate_name"] == "median"
                  and case_of(d["name"]) == self.CASE]
        self.assertEqual(len(median), 1)
        self.assertGreater(median[0]["pairs"][0][2], 0.5)  # 300 us on top of a few us


if __name__ == "__main__":
    unittest.main()
