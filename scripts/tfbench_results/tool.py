"""Finding and calling the tfbench executable. Verdicts always come from `tfbench compare`, so the
project has one statistical implementation."""

import json
import os
import shutil
import subprocess

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_BINARY = os.path.join(REPO_ROOT, "build", "default", "harness", "tfbench")
VERDICTS = ("REGRESSION", "IMPROVEMENT", "NO_CHANGE", "INCONCLUSIVE")


class ToolError(Exception):
    """tfbench missing, failing, or answering something unreadable."""

    def __init__(self, message, exit_code=2):
        super().__init__(message)
        self.exit_code = exit_code


def locate(explicit=None):
    """--tfbench PATH, else $TFBENCH, else build/default/harness/tfbench, else tfbench on PATH."""
    for cand, origin in ((explicit, "--tfbench"), (os.environ.get("TFBENCH"), "$TFBENCH"),
                         (DEFAULT_BINARY, "the default build")):
        if cand:
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return os.path.abspath(cand)
            if origin != "the default build":
                raise ToolError(f"tfbench given by {origin} is not an executable file: {cand}")
    found = shutil.which("tfbench")
    if found:
        return found
    raise ToolError("tfbench not found: pass --tfbench PATH, set $TFBENCH, or build it "
                    f"(scripts/build.sh default tfbench -> {DEFAULT_BINARY})")


class Comparison:
    """The parsed `tfbench compare --format json` answer."""

    def __init__(self, doc):
        self.doc = doc
        self.command = "tfbench compare"
        cases = doc.get("rows")
        if not isinstance(cases, list):
            raise ToolError("tfbench compare JSON has no 'rows' list")
        self.cases = []
        for i, c in enumerate(cases):
            try:
                verdict = str(c["verdict"]).upper()
                key = (str(c["case_id"]), int(c["threads"]), str(c["exec_space"]))
            except (KeyError, TypeError, ValueError) as e:
                raise ToolError(f"tfbench compare JSON: rows[{i}] lacks {e}") from None
            if verdict not in VERDICTS:
                raise ToolError(f"tfbench compare JSON: rows[{i}] has unknown verdict {verdict!r}")
            c = dict(c, verdict=verdict)
            c["key"] = key
            self.cases.append(c)
        self.summary = doc.get("summary", {}) or {}
        self.threshold_pct = doc.get("threshold_pct")
        self.alpha = doc.get("alpha")
        self.paired_rounds = bool(doc.get("paired_rounds", False))
        self.not_compared = doc.get("not_compared", []) or []
        self.notes = doc.get("notes", []) or []

    def verdicts(self):
        return {c["key"]: c["verdict"] for c in self.cases}

    def count(self, verdict):
        return sum(1 for c in self.cases if c["verdict"] == verdict)

    @staticmethod
    def ratio(case):
        """new/base ratio of medians of one case (NaN when the harness gave none)."""
        v = case.get("ratio")
        return float(v) if isinstance(v, (int, float)) else float("nan")


def compare(binary, base, new, threshold=None, alpha=None, extra=()):
    """Runs `tfbench compare BASE NEW --format json`; returns a Comparison.

    Exit 2 from tfbench (unusable input) becomes a ToolError carrying its message and code 2.
    """
    cmd = [binary, "compare", str(base), str(new), "--format", "json"]
    if threshold is not None:
        cmd += ["--threshold", str(threshold)]
    if alpha is not None:
        cmd += ["--alpha", str(alpha)]
    cmd += list(extra)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise ToolError(f"cannot run {binary}: {e}") from None
    if proc.returncode not in (0, 1):
        why = (proc.stderr or proc.stdout).strip()
        raise ToolError(f"`{' '.join(cmd)}` exited {proc.returncode}: {why}")
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise ToolError(f"`{' '.join(cmd)}` printed no JSON ({e}): {proc.stdout[:300]!r}") from None
    result = Comparison(doc)
    result.command = " ".join([os.path.basename(cmd[0])] + cmd[1:])
    return result


def load_comparison(path):
    """A saved `tfbench compare --format json` output."""
    try:
        with open(path) as fh:
            doc = json.load(fh)
    except (OSError, json.JSONDecodeError) as e:
        raise ToolError(f"{path}: not a tfbench compare JSON output ({e})") from None
    result = Comparison(doc)
    result.command = f"tfbench compare (saved in {path})"
    return result
