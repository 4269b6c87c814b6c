"""`tfbench export --format json` validates against its documented schema
(docs/results-export.schema.json), the schema describes every field it writes, and the document
holds the whole file: provenance, configs, workers, rows and their samples."""

import copy
import json
import math
import os
import tempfile
import unittest

import h5py
import jsonschema
import numpy as np

import export_helpers as h

SCHEMA_PATH = os.path.join(h.ROOT, "docs", "results-export.schema.json")
with open(SCHEMA_PATH, encoding="utf-8") as fh:
    SCHEMA = json.load(fh)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def undescribed(doc):
    """Keys of the document's objects that the schema does not list (it allows more, for later
    compatible versions, so validation alone would not notice)."""
    defs = SCHEMA["$defs"]
    missing = set(doc) - set(SCHEMA["properties"])
    for run in doc["runs"]:
        missing |= {f"run.{k}" for k in set(run) - set(defs["run"]["properties"])}
        for w in run["workers"]:
            missing |= {f"worker.{k}" for k in set(w) - set(defs["worker"]["properties"])}
        for r in run["results"]:
            missing |= {f"result.{k}" for k in set(r) - set(defs["result"]["properties"])}
    return missing


class SchemaItself(unittest.TestCase):
    def test_is_a_valid_draft_2020_12_schema(self):
        jsonschema.Draft202012Validator.check_schema(SCHEMA)

    def test_every_property_is_described_or_constant(self):
        def walk(props, where):
            for name, p in props.items():
                with self.subTest(property=f"{where}.{name}"):
                    self.assertTrue("description" in p or "const" in p or "$ref" in p.get("items", {}))
        walk(SCHEMA["properties"], "document")
        for name, d in SCHEMA["$defs"].items():
            walk(d["properties"], name)


@unittest.skipUnless(h.TFBENCH, "needs TFBENCH=path/to/tfbench (set by CTest)")
class SyntheticFile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tfbench-export-json-")
        cls.h5, _ = h.synthetic_pair(cls.tmp.name)
        cls.doc = json.loads(h.export(cls.h5, "json").stdout)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_validates_and_every_field_is_in_the_schema(self):
        VALIDATOR.validate(self.doc)
        self.assertEqual(undescribed(self.doc), set())

    def test_holds_every_row_with_its_samples_and_parsed_params(self):
        rows = h.rows_of(self.h5)
        exported = [r for run in self.doc["runs"] for r in run["results"]]
        self.assertEqual(len(exported), len(rows))
        for e, (_, r, samples) in zip(exported, rows):
            self.assertEqual(e["case_id"], r["case_id"])
            self.assertEqual(e["samples"], samples)
            self.assertEqual(e["params"], json.loads(r["params"]))
            if math.isnan(r["median_s"]):
                self.assertIsNone(e["median_s"])  # NaN is null
            else:
                self.assertEqual(e["median_s"], r["median_s"])

    def test_holds_the_provenance_configs_and_workers(self):
        run = self.doc["runs"][0]
        with h5py.File(self.h5, "r") as f:
            (run_id, group), = f["runs"].items()
            self.assertEqual(run["run_id"], run_id)
            for key in ("git_revision", "hostname", "cpu_model", "command_line"):
                self.assertEqual(run[key], group.attrs[key])
            self.assertEqual(run["configs"], [group["configs"]["0"][()].decode()])
            self.assertEqual(len(run["workers"]), len(group["workers"]))
        self.assertEqual(self.doc["units"]["results"]["median_s"], "s")
        self.assertEqual(self.doc["source"], self.h5)

    def test_the_schema_refuses_an_incomplete_or_mistyped_document(self):
        broken = []
        doc = copy.deepcopy(self.doc)
        del doc["runs"][0]["results"][0]["median_s"]
        broken.append(doc)
        doc = copy.deepcopy(self.doc)
        doc["runs"][0]["results"][0]["threads"] = "2"
        broken.append(doc)
        doc = copy.deepcopy(self.doc)
        del doc["runs"][0]["git_revision"]
        broken.append(doc)
        doc = copy.deepcopy(self.doc)
        doc["runs"][0]["workers"][0]["ceiling_gbs"] = "fast"
        broken.append(doc)
        for i, doc in enumerate(broken):
            with self.subTest(case=i):
                self.assertFalse(VALIDATOR.is_valid(doc))


@unittest.skipUnless(h.TFBENCH, "needs TFBENCH=path/to/tfbench (set by CTest)")
class RealRun(unittest.TestCase):
    def test_a_real_run_validates_with_its_units(self):
        with tempfile.TemporaryDirectory(prefix="tfbench-export-json-real-") as d:
            (path,) = h.real_runs(d, names=("run",))
            doc = json.loads(h.export(path, "json").stdout)
            VALIDATOR.validate(doc)
            self.assertEqual(undescribed(doc), set())
            run = doc["runs"][0]
            self.assertTrue(all(r["samples"] for r in run["results"] if r["status"] == "ok"))
            self.assertTrue(np.isfinite([w["startup_s"] for w in run["workers"]]).all())
            with h5py.File(path, "r") as f:
                table = f["runs"][run["run_id"]]["results"]
                for name, unit in doc["units"]["results"].items():
                    self.assertEqual(table.attrs[f"{name}.units"], unit, name)


if __name__ == "__main__":
    unittest.main()
