"""`tfbench export --format csv` loads with pandas.read_csv as it is: one row per result row,
params and metrics as columns, units in the header, values equal to the HDF5 file's."""

import json
import math
import os
import tempfile
import unittest

import h5py
import numpy as np
import pandas as pd

import export_helpers as h


def header_units(columns):
    """{column name: unit} from headers `name [unit]`; plain `name` has none."""
    out = {}
    for c in columns:
        name, _, unit = c.partition(" [")
        out[name] = unit[:-1] if unit else ""
    return out


@unittest.skipUnless(h.TFBENCH, "needs TFBENCH=path/to/tfbench (set by CTest)")
class SyntheticFile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tfbench-export-csv-")
        rng = np.random.default_rng(5)
        run = h.fixtures.make_run("20260301T100000Z-node01-1", rng,
                                  crash_case="bandwidth_control/*=1048576/peer:*")
        # Text that needs quoting, and metrics of several kinds.
        run["rows"][0]["error"] = 'a, "quoted"\nsecond line'
        run["rows"][0]["metrics"] = json.dumps({"route.items": 512, "hit_rate": 0.25, "kind": "x"})
        cls.h5 = h.fixtures.write(os.path.join(cls.tmp.name, "run.h5"), [run])
        cls.csv = os.path.join(cls.tmp.name, "run.csv")
        h.export(cls.h5, "csv", "-o", cls.csv)
        cls.df = pd.read_csv(cls.csv)
        cls.rows = h.rows_of(cls.h5)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_one_row_per_result_row_in_file_order(self):
        self.assertEqual(len(self.df), len(self.rows))
        self.assertEqual(list(self.df["case_id"]), [r["case_id"] for _, r, _ in self.rows])
        self.assertEqual(set(self.df["run_id"]), {"20260301T100000Z-node01-1"})

    def test_params_are_columns_with_their_types(self):
        for (_, r, _), (_, line) in zip(self.rows, self.df.iterrows()):
            params = json.loads(r["params"])
            for key in ("batch", "n", "elements"):
                if key in params:
                    self.assertEqual(line[f"param.{key}"], params[key])
                else:
                    self.assertTrue(math.isnan(line[f"param.{key}"]))
        self.assertNotIn("params", self.df.columns)
        self.assertNotIn("metrics", self.df.columns)

    def test_metrics_are_columns(self):
        first = self.df.iloc[0]
        self.assertEqual(first["metric.route.items"], 512)
        self.assertEqual(first["metric.hit_rate"], 0.25)
        self.assertEqual(first["metric.kind"], "x")
        self.assertTrue(self.df["metric.hit_rate"].iloc[1:].isna().all())

    def test_units_in_the_header_and_values_as_in_the_file(self):
        units = header_units(self.df.columns)
        self.assertEqual(units["median_s"], "s")
        self.assertEqual(units["gbs"], "GB/s")
        self.assertEqual(units["flops"], "flop")
        self.assertEqual(units["cv"], "")
        # pandas' default (fast) float parser is off by up to ~1e-12; float_precision="round_trip"
        # reads the shortest round-trip text tfbench writes back exactly.
        np.testing.assert_allclose(self.df["median_s [s]"],
                                   [r["median_s"] for _, r, _ in self.rows], rtol=1e-11)
        exact = pd.read_csv(self.csv, float_precision="round_trip")
        np.testing.assert_array_equal(exact["median_s [s]"], [r["median_s"] for _, r, _ in self.rows])
        self.assertTrue(self.df["median_s [s]"][self.df["status"] == "crashed"].isna().all())
        self.assertEqual(self.df["threads"].dtype, np.int64)
        self.assertEqual(self.df["iterations"].dtype, np.int64)

    def test_text_that_needs_quoting_survives(self):
        self.assertEqual(self.df["error"].iloc[0], 'a, "quoted"\nsecond line')

    def test_a_file_of_an_older_writer_has_every_column(self):
        # fixtures.py writes no v1.1 columns: the export still has them, NaN or 0.
        self.assertTrue(self.df["overhead_s [s]"].isna().all())
        self.assertTrue((self.df["worker_pid"] == 0).all())


@unittest.skipUnless(h.TFBENCH, "needs TFBENCH=path/to/tfbench (set by CTest)")
class RealRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tfbench-export-csv-real-")
        (cls.h5,) = h.real_runs(cls.tmp.name, names=("run",))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_loads_and_matches_the_file(self):
        path = os.path.join(self.tmp.name, "run.csv")
        with open(path, "w") as fh:
            fh.write(h.export(self.h5, "csv").stdout)
        df = pd.read_csv(path)
        rows = h.rows_of(self.h5)
        self.assertEqual(len(df), len(rows))
        np.testing.assert_allclose(df["median_s [s]"], [r["median_s"] for _, r, _ in rows], rtol=1e-11)
        self.assertTrue((df["param.elements"] > 0).all())
        # The header's units are the ones the file records for its columns.
        with h5py.File(self.h5, "r") as f:
            table = next(iter(f["runs"].values()))["results"]
            for name, unit in header_units(df.columns).items():
                if name.startswith(("param.", "metric.")) or name == "run_id":
                    continue
                recorded = table.attrs[f"{name}.units"]
                self.assertEqual(unit, "" if recorded == "1" else recorded, name)


if __name__ == "__main__":
    unittest.main()
