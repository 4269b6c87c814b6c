#!/usr/bin/env bash
# The whole test suite: set up everything, build, run every test (CTest, every execution space),
# then the performance-regression gate against the previous commit (docs/perf-regression.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh default
echo "[test] ctest (default preset)" >&2
ctest --preset default -j "${TFBENCH_JOBS:-$(nproc)}"
# After CTest, alone on the machine: HEAD~1 vs HEAD, interleaved (TFBENCH_PERF_GATE=0 skips it).
if [ "${TFBENCH_PERF_GATE:-1}" = 0 ]; then
  echo "[test] perf gate skipped: TFBENCH_PERF_GATE=0" >&2
elif ! git rev-parse -q --verify HEAD~1 >/dev/null 2>&1; then
  echo "[test] perf gate skipped: HEAD has no parent commit (or this is not a git checkout)" >&2
else
  echo "[test] perf gate: scripts/perf-regression.sh HEAD~1 HEAD" >&2
  scripts/perf-regression.sh HEAD~1 HEAD
fi
