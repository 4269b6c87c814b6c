#!/usr/bin/env bash
# The whole test suite: set up everything, build, run every test (CTest, every execution space).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh default
echo "[test] ctest (default preset)" >&2
ctest --preset default -j "${TFBENCH_JOBS:-$(nproc)}"
