#!/usr/bin/env bash
# Sets up dependencies (scripts/bootstrap.sh) and builds one CMake preset (default: "default").
#   scripts/build.sh [PRESET] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
shift || true
scripts/bootstrap.sh >/dev/null
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
