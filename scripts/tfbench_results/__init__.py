"""Reading, describing and drawing tfbench result files (docs/results-format.md).

Run with Debian's /usr/bin/python3 (python3-h5py, python3-numpy, python3-matplotlib).
"""

from .reader import (SCHEMA, SCHEMA_VERSION, ResultFile, ResultsFormatError, Row, Run, Worker,
                     load)

__all__ = ["SCHEMA", "SCHEMA_VERSION", "ResultFile", "ResultsFormatError", "Row", "Run", "Worker",
           "load"]
