#!/usr/bin/env bash
# The whole test suite: set up everything, build, run every test (CTest, every execution space),
# the engine's, the workloads' and the harness's unit tests and the end-to-end tests again under
# ASan+UBSan (debug preset) and under TSan (tsan preset, with LLVM's Archer for the OpenMP runtime:
# cmake/TfbenchThreadSanitizer.cmake), the same project against Kokkos 4.6.99 + Kokkos Kernels
# 4.7.99 (kokkos4 preset; the snapshots in ../shared/deps), then the performance-regression gate on
# the latest commit that changed what it builds or runs, against that commit's parent
# (docs/perf-regression.md).
# The CUDA stage compiles the whole project for CUDA (cuda preset) and runs its tests where a GPU is
# present. By default it runs where this machine has built the CUDA Kokkos, with a time budget for the
# build (TFBENCH_CUDA_BUILD_S seconds; default: up to 30 minutes, and never past 75 minutes of this
# script, so that the gate and CI's 90 still fit): with ccache holding the revision's units a fresh
# checkout's CUDA build takes 1.5 minutes, a cold one 45-60 minutes of 2 cores; past the budget the
# stage stops and says so (not a failure: the units compiled stay in ccache, and the next run goes on
# from them), while a compile error fails it. TFBENCH_CUDA=1 forces the stage (no budget unless
# TFBENCH_CUDA_BUILD_S is set), TFBENCH_CUDA=0 skips it.
# TFBENCH_SANITIZERS=0 leaves the sanitizer stages out, TFBENCH_KOKKOS4=0 the Kokkos 4 stage,
# TFBENCH_PERF_GATE=0 the gate.
set -euo pipefail
cd "$(dirname "$0")/.."
# Runs here are tests of behaviour, not of this machine's calibration: no `run` calibrates Auto on
# first use (e2e_tuning tests calibration and tuning files explicitly; docs/tuning.md).
export TFBENCH_TUNING=off
scripts/build.sh default
echo "[test] ctest (default preset)" >&2
ctest --preset default -j "${TFBENCH_JOBS:-$(nproc)}"
if [ "${TFBENCH_SANITIZERS:-1}" = 0 ]; then
  echo "[test] sanitizer stages skipped: TFBENCH_SANITIZERS=0" >&2
else
  # The engine's, the workloads' and the harness's unit tests in a sanitized preset, then the end-to-end
  # tests on its tfbench (workers included: they are the same binary; extra targets after the preset).
  # Left out: compare_aa and compare_regression, whose verdicts rest on timing ratios that the
  # instrumentation distorts (an injected slow-down of 30x and more reads as 3x under TSan), and
  # tuning, a calibration of 3.5-4.5 minutes there whose tuning-file code the harness's unit tests
  # cover (e2e_smoke's workers run the same worker code).
  sanitized_stage() {
    local preset=$1
    shift
    scripts/build.sh "$preset" tfbench_core_tests tfbench_storage_tests tfbench_exec_tests tfbench_exec_alloc_tests \
      tfbench_exec_concurrency_tests tfbench_ops_tests tfbench_ops_alloc_tests tfbench_batched_tests tfbench_ad_tests \
      tfbench_workloads_tests tfbench_harness_tests tfbench "$@"
    ctest --preset "$preset" -L 'engine|workloads' -j "${TFBENCH_JOBS:-$(nproc)}"
    ctest --preset "$preset" -R '^tfbench_harness_tests' -j "${TFBENCH_JOBS:-$(nproc)}"
    ctest --preset "$preset" -L e2e -E '^e2e_(compare_aa|compare_regression|tuning)$' -j "${TFBENCH_JOBS:-$(nproc)}"
  }
  echo "[test] ASan+UBSan: engine, workloads and harness unit tests, end-to-end tests (debug preset)" >&2
  sanitized_stage debug
  echo "[test] TSan: engine, workloads and harness unit tests, end-to-end tests (tsan preset, OpenMP through Archer)" >&2
  sanitized_stage tsan tfbench_tsan_canary
fi
# The prefix from scripts/bootstrap.sh's output (its last TFBENCH_KOKKOS_PREFIX= line).
prefix_of() { printf '%s\n' "$1" | sed -n 's/^TFBENCH_KOKKOS_PREFIX=//p' | tail -n 1; }

# Kokkos 4: the same sources against the Kokkos HPC sites run; every test but the script tests (which
# do not depend on the Kokkos), and the smoke run must give the rows the Kokkos 3.4.1 build gives.
kokkos4_stage() {
  local out rc=0 prefix
  out=$(scripts/bootstrap.sh --kokkos 4.6.99) || rc=$?
  if [ "$rc" = 3 ]; then
    echo "[test] Kokkos 4 stage skipped: the Kokkos 4.6.99 / Kokkos Kernels 4.7.99 snapshots are not there (TFBENCH_DEPS, default ../shared/deps)" >&2
    return 0
  fi
  [ "$rc" = 0 ] || { echo "[test] Kokkos 4 stage: scripts/bootstrap.sh --kokkos 4.6.99 failed" >&2; return 1; }
  prefix=$(prefix_of "$out")
  # The Kokkos_ROOT environment recipe of the README, on the project's own Kokkos 4 prefix.
  Kokkos_ROOT=$prefix scripts/build.sh kokkos4
  ctest --preset kokkos4 -LE 'scripts|lint' -j "${TFBENCH_JOBS:-$(nproc)}"
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/tfbench-kokkos4.XXXXXX")
  build/default/harness/tfbench run configs/smoke.yaml --repetitions 1 --no-ceilings --out "$dir/kokkos3.h5" >/dev/null
  build/kokkos4/harness/tfbench run configs/smoke.yaml --repetitions 1 --no-ceilings --out "$dir/kokkos4.h5" >/dev/null
  build/kokkos4/harness/tfbench compare "$dir/kokkos3.h5" "$dir/kokkos4.h5" --fail-on-missing >"$dir/compare.txt" \
    || { cat "$dir/compare.txt"; echo "[test] Kokkos 4 smoke rows differ from Kokkos 3.4.1's ($dir)" >&2; return 1; }
  echo "[test] Kokkos 4 smoke: $(tail -n 1 "$dir/compare.txt")" >&2
  rm -rf "$dir"
}
if [ "${TFBENCH_KOKKOS4:-1}" = 0 ]; then
  echo "[test] Kokkos 4 stage skipped: TFBENCH_KOKKOS4=0" >&2
else
  echo "[test] Kokkos 4.6.99 + Kokkos Kernels 4.7.99: build and tests (kokkos4 preset)" >&2
  t0=$SECONDS
  kokkos4_stage
  echo "[test] Kokkos 4 stage took $((SECONDS - t0)) s" >&2
fi

# CUDA: Kokkos 4.6.99 with the Cuda space (scripts/bootstrap.sh --cuda) and every target compiled by
# nvcc, so the CUDA code cannot rot; run only where a GPU is (a CUDA build aborts in
# Kokkos::initialize without one).
cuda_stage() {
  local out rc=0 prefix
  out=$(scripts/bootstrap.sh --cuda) || rc=$?
  case $rc in
    0) ;;
    3) echo "[test] CUDA stage skipped: the Kokkos 4.6.99 snapshots are not there (TFBENCH_DEPS)" >&2; return 0 ;;
    4) echo "[test] CUDA stage skipped: no CUDA toolkit (CUDA_HOME, nvcc on PATH, /usr/local/cuda)" >&2; return 0 ;;
    *) echo "[test] CUDA stage: scripts/bootstrap.sh --cuda failed" >&2; return 1 ;;
  esac
  prefix=$(prefix_of "$out")
  local budget=${1:-0}
  rc=0
  # A budget of 0 disables timeout; past one, it signals its whole process group (ninja and every nvcc).
  Kokkos_ROOT=$prefix timeout "$budget" scripts/build.sh cuda || rc=$?
  if [ "$rc" = 124 ]; then
    echo "[test] CUDA stage stopped: the CUDA build did not finish in its budget of $budget s (ccache cold for" \
      "this revision); no unit failed to compile so far, and the ones compiled are in ccache for the next run" >&2
    return 0
  fi
  [ "$rc" = 0 ] || { echo "[test] CUDA stage: scripts/build.sh cuda failed" >&2; return 1; }
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    ctest --preset cuda -LE 'scripts|lint' -j "${TFBENCH_JOBS:-$(nproc)}"
  else
    echo "[test] CUDA build compiled (engine, workloads, harness, every test); no GPU here, so none of it ran" >&2
  fi
  # The prepared GPU check, rehearsed up to its first GPU call: the bundle packs, unpacks, loads its
  # libraries through its own loader and validates configs/gpu.yaml (TFBENCH_GPU_REHEARSAL=0 skips).
  if [ "${TFBENCH_GPU_REHEARSAL:-1}" != 0 ]; then
    scripts/gpu-check.sh rehearse || { echo "[test] scripts/gpu-check.sh rehearse failed" >&2; return 1; }
  fi
}
cuda_cached() { ls "${TFBENCH_CACHE:-$HOME/.cache/tfbench}"/kokkos-4.6.99-cuda-*/.tfbench-complete >/dev/null 2>&1; }
# The CUDA build's budget in seconds (0: none). Whether ccache holds this revision's units is known
# only by building (a fresh clone ran ~60 min of 2 cores on 2026-12-04, when a define carried the
# checkout's path in 103 units; since 2e1e45f only 7 do, and on 2026-12-05 a fresh clone built in
# 92 s), so the build gets what CI can spare: at most 30 minutes, ending by 75 minutes of this script.
cuda_build_budget() {
  if [ -n "${TFBENCH_CUDA_BUILD_S:-}" ]; then
    echo "$TFBENCH_CUDA_BUILD_S"
  elif [ "${TFBENCH_CUDA:-auto}" = 1 ]; then
    echo 0
  else
    local left=$((75 * 60 - SECONDS))
    echo $((left < 30 * 60 ? left : 30 * 60))
  fi
}
if [ "${TFBENCH_CUDA:-auto}" = 0 ]; then
  echo "[test] CUDA stage skipped: TFBENCH_CUDA=0" >&2
elif [ "${TFBENCH_CUDA:-auto}" = auto ] && ! cuda_cached; then
  echo "[test] CUDA stage skipped: no CUDA Kokkos built on this machine yet (scripts/bootstrap.sh --cuda, ~8 min, then a cold CUDA build of tfbench ~45 min; TFBENCH_CUDA=1 forces the stage)" >&2
else
  case ${TFBENCH_CUDA_BUILD_S-0} in
    '' | *[!0-9]*) echo "[test] TFBENCH_CUDA_BUILD_S: expected whole seconds (0: no limit), got '$TFBENCH_CUDA_BUILD_S'" >&2; exit 2 ;;
  esac
  budget=$(cuda_build_budget)
  # A budget of its own is the caller's to set; CI's is worth a build only from 5 minutes up.
  if [ -z "${TFBENCH_CUDA_BUILD_S:-}" ] && [ "$budget" -ne 0 ] && [ "$budget" -lt 300 ]; then
    echo "[test] CUDA stage skipped: $((SECONDS / 60)) minutes in, under 5 minutes of CI's time are left for a CUDA build (TFBENCH_CUDA_BUILD_S sets its budget)" >&2
  else
    echo "[test] CUDA: Kokkos 4.6.99 (Cuda, OpenMP, Serial) + Kokkos Kernels 4.7.99 (cuBLAS): compile everything (cuda preset)$([ "$budget" -gt 0 ] && echo ", the build within $budget s")" >&2
    t0=$SECONDS
    cuda_stage "$budget"
    echo "[test] CUDA stage took $((SECONDS - t0)) s" >&2
  fi
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
