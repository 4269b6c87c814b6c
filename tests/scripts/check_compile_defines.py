#!/usr/bin/env python3
"""Fails when a compile unit carries the checkout's absolute path in a define without using it.

ccache's CCACHE_BASEDIR makes paths in arguments relative, not a define's value: every unit whose
flags hold the source path gets another cache key in every checkout, and a fresh clone (or a
perf-regression worktree) recompiles it, at nvcc's pace in a CUDA build. Only the units that read
TFBENCH_SOURCE_DIR or TFBENCH_PYTHON (directly, or through tests/support/doc_quote.hpp) may.

Usage: check_compile_defines.py BUILD_DIR/compile_commands.json SOURCE_DIR
"""
import json
import re
import sys


def uses_path(source):
    try:
        with open(source, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return False
    return any(word in text for word in ("TFBENCH_SOURCE_DIR", "TFBENCH_PYTHON", "doc_quote.hpp"))


def offenders(commands, source_dir):
    out = []
    for entry in commands:
        command = entry.get("command") or " ".join(entry.get("arguments", []))
        defines = [d for d in re.findall(r"-D\S+", command) if source_dir in d]
        if defines and not uses_path(entry["file"]):
            out.append((entry["file"], defines))
    return out


def main():
    path, source_dir = sys.argv[1], sys.argv[2].rstrip("/")
    with open(path) as f:
        commands = json.load(f)
    bad = offenders(commands, source_dir)
    for file, defines in bad:
        print("%s: %s (unused there: set it on the units that read it)" % (file, " ".join(defines)))
    print("%d of %d units carry the source path in a define they do not use" % (len(bad), len(commands)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
