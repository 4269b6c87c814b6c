"""`tfbench export` as a command: bad input is one clear line and exit 2, -o replaces its file
whole and never the input, markdown is the report's table."""

import os
import subprocess
import tempfile
import unittest

import export_helpers as h


@unittest.skipUnless(h.TFBENCH, "needs TFBENCH=path/to/tfbench (set by CTest)")
class ExportCommand(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tfbench-export-cli-")
        cls.h5, _ = h.synthetic_pair(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def assert_refused(self, args, message):
        r = subprocess.run([h.TFBENCH, "export", *args], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn(message, r.stderr)
        self.assertNotIn("terminate called", r.stderr)
        return r

    def test_unusable_inputs_exit_2_with_one_line(self):
        text = self.path("notes.h5")
        with open(text, "w") as fh:
            fh.write("not hdf5\n")
        for args, message in (([self.path("missing.h5"), "--format", "csv"], "no such file"),
                              ([text, "--format", "json"], "is not an HDF5 file"),
                              ([self.h5, "--format", "xml"], "xml"),
                              ([self.h5], "--format is required"),
                              ([self.h5, "--format", "csv", "--time-unit", "ms"],
                               "--time-unit applies to --format gbench only"),
                              ([self.h5, "--format", "gbench", "--time-unit", "min"], "min")):
            with self.subTest(args=args):
                r = self.assert_refused(args, message)
                if message in ("no such file", "is not an HDF5 file"):
                    self.assertEqual(len(r.stderr.strip().splitlines()), 1)
                    self.assertTrue(r.stderr.startswith("tfbench export: "))

    def test_out_replaces_its_file_whole_and_never_the_input(self):
        out = self.path("sub/dir/out.json")
        h.export(self.h5, "gbench", "-o", out)
        with open(out) as fh:
            self.assertEqual(fh.read(), h.export(self.h5, "gbench").stdout)
        self.assert_refused([self.h5, "--format", "csv", "-o", out], "exists (--overwrite replaces it)")
        h.export(self.h5, "csv", "-o", out, "--overwrite")
        with open(out) as fh:
            self.assertTrue(fh.readline().startswith("run_id,case_id,"))
        self.assertEqual([n for n in os.listdir(os.path.dirname(out)) if ".tmp-" in n], [])
        size = os.path.getsize(self.h5)
        self.assert_refused([self.h5, "--format", "csv", "-o", self.h5, "--overwrite"],
                            "is the input file")
        self.assertEqual(os.path.getsize(self.h5), size)

    def test_out_dash_is_stdout(self):
        cwd = self.path("dash")
        os.makedirs(cwd)
        r = subprocess.run([h.TFBENCH, "export", self.h5, "--format", "csv", "-o", "-"], capture_output=True,
                           text=True, cwd=cwd)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, h.export(self.h5, "csv").stdout)
        self.assertEqual(os.listdir(cwd), [])  # no file named "-"

    def test_markdown_is_the_report_table(self):
        md = h.export(self.h5, "markdown").stdout
        self.assertTrue(md.startswith("# "))
        self.assertIn("| case | variant |", md)
        self.assertIn("| packed_small/batch=1000,n=8 |", md)

    def test_help_names_every_format(self):
        r = subprocess.run([h.TFBENCH, "export", "--help"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0)
        for fmt in ("csv", "json", "gbench", "markdown", "--overwrite", "--time-unit", "-o"):
            self.assertIn(fmt, r.stdout)


if __name__ == "__main__":
    unittest.main()
