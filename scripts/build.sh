#!/usr/bin/env bash
# Sets up dependencies (scripts/bootstrap.sh) and builds one CMake preset (default: "default").
#   scripts/build.sh [PRESET] [TARGET...]
# TFBENCH_ARCH=<value> (native, none, or a -march= value such as x86-64-v3) sets the -march of all
# measured code and of the Kokkos that bootstrap builds; unset, the build tree keeps the value it was
# configured with (default native). A binary refuses to run on a CPU without what it was built for.
# With TFBENCH_ARCH=native the ccache objects are kept apart per CPU type (TFBENCH_CCACHE_PER_CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
shift || true
# Kokkos is built for the same -march as the tree (bootstrap keeps one build per value).
cached_arch=$(sed -n 's/^TFBENCH_ARCH:STRING=//p' "build/$preset/CMakeCache.txt" 2>/dev/null || true)
arch=${TFBENCH_ARCH:-${cached_arch:-native}}
if [ "$preset" = cuda ]; then
  # The preset compiles with the CUDA Kokkos's nvcc_wrapper: without a Kokkos_ROOT, the one bootstrap
  # --cuda builds (or finds in its cache), as the preset's description says.
  if [ -z "${Kokkos_ROOT:-}" ]; then
    Kokkos_ROOT=$(scripts/bootstrap.sh --cuda | tail -n 1 | sed -n 's/^TFBENCH_KOKKOS_PREFIX=//p')
    [ -n "$Kokkos_ROOT" ] || { echo "[build] cuda preset: scripts/bootstrap.sh --cuda gave no Kokkos prefix" >&2; exit 1; }
    export Kokkos_ROOT
  fi
  # Every Kokkos installs bin/nvcc_wrapper; only a CUDA one defines KOKKOS_ENABLE_CUDA.
  grep -qs '^#define KOKKOS_ENABLE_CUDA$' "$Kokkos_ROOT/include/KokkosCore_config.h" ||
    { echo "[build] cuda preset: $Kokkos_ROOT is not a Kokkos built with CUDA (no KOKKOS_ENABLE_CUDA in its KokkosCore_config.h)" >&2; exit 1; }
  # nvcc_wrapper calls nvcc from PATH and g++ as the host compiler.
  cuda_home=${CUDA_HOME:-}
  if [ -z "$cuda_home" ] && command -v nvcc >/dev/null 2>&1; then cuda_home=$(dirname "$(dirname "$(command -v nvcc)")"); fi
  cuda_home=${cuda_home:-/usr/local/cuda}
  [ -x "$cuda_home/bin/nvcc" ] || { echo "[build] cuda preset: no nvcc (set CUDA_HOME)" >&2; exit 1; }
  export PATH="$cuda_home/bin:$PATH" NVCC_WRAPPER_DEFAULT_COMPILER=${NVCC_WRAPPER_DEFAULT_COMPILER:-g++}
else
  TFBENCH_ARCH=$arch scripts/bootstrap.sh >/dev/null
fi
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}   # relative paths: worktrees of other revisions share hits
export CCACHE_DIR=${CCACHE_DIR:-${TFBENCH_CACHE:-$HOME/.cache/tfbench}/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
echo "[build] configuring preset '$preset'" >&2
# A TFBENCH_ARCH from the environment is a build for a chosen node type (a Slurm build step): with
# native, its ccache objects are kept per CPU type, as a cache in a cluster's home is shared.
cmake --preset "$preset" ${TFBENCH_ARCH:+"-DTFBENCH_ARCH=$TFBENCH_ARCH" -DTFBENCH_CCACHE_PER_CPU=ON} >/dev/null
echo "[build] TFBENCH_ARCH=$arch" >&2
echo "[build] building preset '$preset'${*:+ (targets: $*)}" >&2
jobs=${TFBENCH_JOBS:-$(nproc)}
if [ $# -gt 0 ]; then
  cmake --build "build/$preset" -j "$jobs" --target "$@"
else
  cmake --build "build/$preset" -j "$jobs"
fi
