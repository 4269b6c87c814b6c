#!/usr/bin/env bash
# The whole test suite: set up everything, build, run every test (CTest, every execution space),
# the engine's tests again under ASan+UBSan (debug preset) and its concurrent session, phase and
# lane tests under TSan (tsan preset), then the performance-regression gate on the latest commit
# that changed what it builds or runs, against that commit's parent (docs/perf-regression.md).
# TFBENCH_SANITIZERS=0 leaves the sanitizer stages out.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh default
echo "[test] ctest (default preset)" >&2
ctest --preset default -j "${TFBENCH_JOBS:-$(nproc)}"
if [ "${TFBENCH_SANITIZERS:-1}" = 0 ]; then
  echo "[test] sanitizer stages skipped: TFBENCH_SANITIZERS=0" >&2
else
  echo "[test] ASan+UBSan: engine tests (debug preset)" >&2
  scripts/build.sh debug tfbench_core_tests tfbench_storage_tests tfbench_exec_tests tfbench_exec_alloc_tests \
    tfbench_exec_concurrency_tests tfbench_ops_tests tfbench_ops_alloc_tests tfbench_batched_tests tfbench_ad_tests
  ctest --preset debug -L engine -j "${TFBENCH_JOBS:-$(nproc)}"
  echo "[test] TSan: session, phase and lane tests (tsan preset)" >&2
  scripts/build.sh tsan tfbench_exec_tests tfbench_exec_alloc_tests tfbench_exec_concurrency_tests
  ctest --preset tsan -L exec -j "${TFBENCH_JOBS:-$(nproc)}"
fi
# After CTest, alone on the machine, interleaved (TFBENCH_PERF_GATE=0 skips it).
if [ "${TFBENCH_PERF_GATE:-1}" = 0 ]; then
  echo "[test] perf gate skipped: TFBENCH_PERF_GATE=0" >&2
elif ! git rev-parse -q --verify HEAD~1 >/dev/null 2>&1; then
  echo "[test] perf gate skipped: HEAD has no parent commit (or this is not a git checkout)" >&2
else
  echo "[test] perf gate: scripts/perf-regression.sh --last-change HEAD" >&2
  scripts/perf-regression.sh --last-change HEAD
fi
