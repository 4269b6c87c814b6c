#!/usr/bin/env bash
# The README's recipes for a user's own Kokkos: Kokkos_ROOT as an environment variable and as a CMake
# variable (Kokkos Kernels found in the same prefix), KokkosKernels_ROOT pointing elsewhere, and a
# clear error when Kokkos Kernels is not where KokkosKernels_ROOT says, and build.sh cuda's refusal of
# a Kokkos built without CUDA. Configure-only, on a cache
# folder without kokkos.env, so nothing but the recipe can find the Kokkos.
#   kokkos_root_test.sh SOURCE_DIR WORK_DIR KOKKOS_PREFIX
set -euo pipefail
src=$1 work=$2 prefix=$3
rm -rf "$work"; mkdir -p "$work/empty-cache"
export TFBENCH_CACHE=$work/empty-cache
unset Kokkos_ROOT KokkosKernels_ROOT
fail() { echo "FAIL: $*" >&2; exit 1; }

configure() {  # NAME [cmake args...]; leaves the log in $work/NAME.log
  local name=$1; shift
  cmake -S "$src" -B "$work/$name" -G Ninja -DTFBENCH_ENABLE_TESTS=OFF -DTFBENCH_ENABLE_FORMAT_CHECK=OFF "$@" \
    >"$work/$name.log" 2>&1
}
expect_found() {  # NAME: configured, and against this prefix
  grep -q "tfbench: Kokkos .* at $prefix" "$work/$1.log" || { cat "$work/$1.log"; fail "$1: Kokkos at $prefix not reported"; }
}

env Kokkos_ROOT="$prefix" bash -c "$(declare -f configure); work=$work src=$src; configure env_root" \
  || { cat "$work/env_root.log"; fail "Kokkos_ROOT in the environment did not configure"; }
expect_found env_root
echo "ok: Kokkos_ROOT environment variable"

# A regeneration without the variable (ninja re-running CMake) keeps that Kokkos.
cmake "$work/env_root" >"$work/env_root.log" 2>&1 || { cat "$work/env_root.log"; fail "reconfigure without Kokkos_ROOT failed"; }
expect_found env_root
echo "ok: the environment's Kokkos_ROOT is kept for later regenerations"

configure cmake_root -DKokkos_ROOT="$prefix" || { cat "$work/cmake_root.log"; fail "-DKokkos_ROOT did not configure"; }
expect_found cmake_root
echo "ok: Kokkos_ROOT CMake variable"

env Kokkos_ROOT="$prefix" KokkosKernels_ROOT="$prefix" bash -c "$(declare -f configure); work=$work src=$src; configure env_both" \
  || { cat "$work/env_both.log"; fail "Kokkos_ROOT + KokkosKernels_ROOT in the environment did not configure"; }
expect_found env_both
echo "ok: KokkosKernels_ROOT environment variable"

if env Kokkos_ROOT="$prefix" KokkosKernels_ROOT="$work/no-such-prefix" \
    bash -c "$(declare -f configure); work=$work src=$src; configure env_bad"; then
  fail "a KokkosKernels_ROOT without Kokkos Kernels configured"
fi
grep -q "Kokkos Kernels not found" "$work/env_bad.log" || { cat "$work/env_bad.log"; fail "no clear message for a bad KokkosKernels_ROOT"; }
echo "ok: a bad KokkosKernels_ROOT fails with a message"

if configure nothing; then fail "configured with no Kokkos at all"; fi
grep -q "Kokkos >= 3.4 not found" "$work/nothing.log" || { cat "$work/nothing.log"; fail "no clear message without a Kokkos"; }
echo "ok: no Kokkos fails with a message"
# scripts/build.sh cuda with a Kokkos that was not built with CUDA: refused before CMake runs. From a
# copy of the script in a tree without presets, so that a regression cannot reconfigure build/cuda.
# (A CUDA build's own ctest passes its CUDA Kokkos here: nothing to refuse then.)
if grep -qs '^#define KOKKOS_ENABLE_CUDA$' "$prefix/include/KokkosCore_config.h"; then
  echo "skip: build.sh cuda's refusal (this Kokkos is built with CUDA)"
  summary="6 passed, 0 failed, 1 skipped"
else
  mkdir -p "$work/tree/scripts" && cp "$src/scripts/build.sh" "$work/tree/scripts/"
  if Kokkos_ROOT="$prefix" "$work/tree/scripts/build.sh" cuda >"$work/cuda.log" 2>&1; then fail "build.sh cuda took a host Kokkos"; fi
  grep -q "is not a Kokkos built with CUDA" "$work/cuda.log" \
    || { cat "$work/cuda.log"; fail "no clear message for a host Kokkos_ROOT in build.sh cuda"; }
  echo "ok: build.sh cuda refuses a Kokkos built without CUDA"
  summary="7 passed, 0 failed"
fi
rm -rf "$work"
echo "$summary"
