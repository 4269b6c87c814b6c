#!/usr/bin/env bash
# Sets up dependencies (scripts/bootstrap.sh) and builds one CMake preset (default: "default").
#   scripts/build.sh [PRESET] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
shift || true
scripts/bootstrap.sh >/dev/null
if [ "$preset" = cuda ]; then
  # nvcc_wrapper calls nvcc from PATH and g++ as the host compiler.
  cuda_home=${CUDA_HOME:-}
  if [ -z "$cuda_home" ] && command -v nvcc >/dev/null 2>&1; then cuda_home=$(dirname "$(dirname "$(command -v nvcc)")"); fi
  cuda_home=${cuda_home:-/usr/local/cuda}
  [ -x "$cuda_home/bin/nvcc" ] || { echo "[build] cuda preset: no nvcc (set CUDA_HOME)" >&2; exit 1; }
  export PATH="$cuda_home/bin:$PATH" NVCC_WRAPPER_DEFAULT_COMPILER=${NVCC_WRAPPER_DEFAULT_COMPILER:-g++}
fi
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}   # relative paths: worktrees of other revisions share hits
export CCACHE_DIR=${CCACHE_DIR:-${TFBENCH_CACHE:-$HOME/.cache/tfbench}/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
echo "[build] configuring preset '$preset'" >&2
cmake --preset "$preset" >/dev/null
echo "[build] building preset '$preset'${*:+ (targets: $*)}" >&2
jobs=${TFBENCH_JOBS:-$(nproc)}
if [ $# -gt 0 ]; then
  cmake --build "build/$preset" -j "$jobs" --target "$@"
else
  cmake --build "build/$preset" -j "$jobs"
fi
