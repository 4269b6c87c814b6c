#!/usr/bin/env bash
# The one prepared GPU check (issue 14): what a lent GPU machine runs in one go.
#
#   scripts/gpu-check.sh pack     [BUNDLE]   here: the CUDA build as one self-contained bundle
#   scripts/gpu-check.sh run      [BUNDLE]   on the GPU machine: unpack, check, test, measure
#   scripts/gpu-check.sh rehearse [BUNDLE]   here: pack, then run every step up to the first GPU call
#
# BUNDLE defaults to build/gpu-bundle.tar.xz. The GPU machine has the CUDA 13 toolkit, a driver and a
# Python with PyTorch, but no Debian packages and no network, and takes at most 64 MiB of files. So
# the bundle carries the CUDA build's executables (tfbench, the engine and workload test programs)
# with every shared library they need from this Debian 12 machine, glibc and its loader included,
# except the driver's libcuda.so.1 and the toolkit's libcudart/libcublas/libcublasLt (hundreds of MiB,
# found there). The executables are patched (patchelf) to load through the bundled loader at a fixed
# path (/tmp/tfbench-gpu) with an RPATH of the bundle's lib/, so they run whatever glibc the machine
# has, and a worker that tfbench starts from /proc/self/exe loads the same way.
#
# `run` writes everything it learns into one folder, $OUT (the device tool's output folder) or
# results/gpu-check/<UTC date>: log.txt (every step and its exit status), system.txt (nvidia-smi,
# libraries found), tests/*.xml (JUnit of every test program on serial and OpenMP; the cuda runs
# report into log.txt; one tests.tar.gz under the device tool, which brings back 8 files), gpu.h5
# (configs/gpu.yaml: the GPU families with provenance), report.txt and summary.txt. Each step has a
# time limit, and no step runs past TFBENCH_GPU_CHECK_S (420 s) after the unpack: the cuda-space
# tests and the GPU families come first, the host-space tests with the time left.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=${1:-}
bundle=${2:-build/gpu-bundle.tar.xz}
budget_s=${TFBENCH_GPU_CHECK_S:-420}  # run: no step starts after this many seconds, none runs past them
stage_root=/tmp/tfbench-gpu  # fixed: the patched executables name their loader by absolute path
say() { echo "[gpu-check] $*" >&2; }
die() {
  say "error: $*"
  exit 1
}

# ---------------------------------------------------------------- pack (here)
bundle_programs() {
  echo build/cuda/harness/tfbench
  find build/cuda/tests/engine build/cuda/tests/workloads -type f -executable -name 'tfbench_*_tests' | sort
}

# Libraries an executable loads, as resolved here, minus the ones the GPU machine supplies.
bundle_libraries() {
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\/.*ld-linux/ {print $1}' |
    grep -Ev '/(libcuda\.so|libcudart\.so|libcublas\.so|libcublasLt\.so|libnvidia-)' || true
}

pack() {
  command -v patchelf >/dev/null || die "patchelf is missing (scripts/bootstrap.sh installs it)"
  [ -x build/cuda/harness/tfbench ] || die "no CUDA build: run scripts/build.sh cuda first"
  local stage=$stage_root lib
  rm -rf "$stage" && mkdir -p "$stage/bin" "$stage/lib" "$stage/share/scripts" "$stage/share/configs" ||
    die "cannot create $stage"
  local programs
  programs=$(bundle_programs)
  for p in $programs; do
    cp "$p" "$stage/bin/" || die "cannot copy $p"
    for lib in $(bundle_libraries "$p"); do
      [ -e "$stage/lib/$(basename "$lib")" ] || cp -L "$lib" "$stage/lib/" || die "cannot copy $lib"
    done
  done
  local loader
  loader=$(find "$stage/lib" -name 'ld-linux-x86-64.so.*' | head -n 1)
  [ -n "$loader" ] || die "no ld-linux loader among the libraries of tfbench"
  for p in "$stage"/bin/*; do
    patchelf --set-interpreter "$stage/lib/$(basename "$loader")" --force-rpath --set-rpath '$ORIGIN/../lib' "$p" ||
      die "patchelf failed on $p"
  done
  cp scripts/numpy_peer.py scripts/gpu-check.sh "$stage/share/scripts/"
  [ -f scripts/torch_peer.py ] && cp scripts/torch_peer.py "$stage/share/scripts/"
  cp configs/gpu.yaml "$stage/share/configs/"
  {
    echo "revision: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
    echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    echo "kokkos prefix: $(grep -m1 '^Kokkos_DIR' build/cuda/CMakeCache.txt | cut -d= -f2)"
    echo "programs:"
    for p in "$stage"/bin/*; do echo "  $(basename "$p")"; done
  } >"$stage/BUNDLE.txt"
  mkdir -p "$(dirname "$bundle")"
  say "packing $(du -sm "$stage" | cut -f1) MiB into $bundle (xz -9, one stream: the programs share most bytes)"
  tar -C /tmp -cf - tfbench-gpu | xz -9 -T1 >"$bundle.tmp" || die "packing failed"
  mv "$bundle.tmp" "$bundle"
  local mib
  mib=$(($(stat -c %s "$bundle") / 1048576))
  say "bundle: $bundle, $mib MiB"
  [ "$mib" -lt 56 ] || die "the bundle is $mib MiB; the GPU machine takes 64 MiB with the sources"
  # The device tool sends the tracked tree beside the bundle, 64 MiB in all; results/baselines is
  # most of the tree and the check needs none of it.
  local tree_mib baselines_mib
  tree_mib=$(git ls-files -z | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print int(s / 1048576)}')
  baselines_mib=$(git ls-files -z results/baselines | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print int(s / 1048576)}')
  if [ $((tree_mib + mib)) -ge 62 ]; then
    say "with the tracked tree ($tree_mib MiB, results/baselines $baselines_mib) $((tree_mib + mib)) MiB travel, over the device tool's 64:"
    say "  leave results/baselines out of the index for the call (docs/scripts.md, 'With the device tool')"
  fi
}

# ---------------------------------------------------------------- run (the GPU machine)
log=/dev/null
deadline=0  # SECONDS at which the check stops starting steps (TFBENCH_GPU_CHECK_S after the unpack)
step() {  # step NAME LIMIT_S CMD...: runs CMD within LIMIT_S and the deadline, logs it, records its status
  local name=$1 limit=$2
  shift 2
  local left=$((deadline - SECONDS))
  if [ "$left" -lt 10 ]; then
    printf "%-44s skipped: the check's %s s were used\n" "$name" "$budget_s" >>"$out/summary.txt"
    say "$name: skipped (the check's $budget_s s were used)"
    return 124
  fi
  [ "$limit" -le "$left" ] || limit=$left
  local t0=$SECONDS rc=0
  echo "=== $name: $*" >>"$log"
  timeout --kill-after=10 "$limit" "$@" >>"$log" 2>&1 || rc=$?
  echo "=== $name: exit $rc after $((SECONDS - t0)) s" >>"$log"
  printf '%-44s exit %3d  %4d s\n' "$name" "$rc" "$((SECONDS - t0))" >>"$out/summary.txt"
  say "$name: exit $rc ($((SECONDS - t0)) s)"
  return $rc
}

# The toolkit's libcublas.so.13 and libcudart.so.13, wherever this machine has them.
cuda_library_dir() {
  local d
  for d in ${CUDA_HOME:+$CUDA_HOME/lib64 $CUDA_HOME/lib} /usr/local/cuda/lib64 /usr/local/cuda/lib \
    /usr/local/cuda-13*/lib64 /usr/local/cuda-13*/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu; do
    [ -e "$d/libcublas.so.13" ] && [ -e "$d/libcudart.so.13" ] && { echo "$d"; return 0; }
  done
  if command -v nvcc >/dev/null; then
    d=$(dirname "$(dirname "$(command -v nvcc)")")
    for sub in lib64 lib targets/x86_64-linux/lib; do
      [ -e "$d/$sub/libcublas.so.13" ] && { echo "$d/$sub"; return 0; }
    done
  fi
  return 1
}

unpack() {
  [ -f "$bundle" ] || die "no bundle at $bundle (scripts/gpu-check.sh pack makes it)"
  rm -rf "$stage_root" && mkdir -p /tmp || die "cannot clear $stage_root"
  xz -dc "$bundle" | tar -C /tmp -xf - || die "cannot unpack $bundle"
}

# rehearse=1: stop before the first call that needs a GPU, with the toolkit's libcuda stub loaded.
run_check() {
  local rehearse=${1:-0}
  out=${OUT:-$root/results/gpu-check/$(date -u +%Y%m%dT%H%M%SZ)}
  [ "$rehearse" = 1 ] && out=${GPU_CHECK_REHEARSAL_OUT:-$root/build/gpu-check-rehearsal}
  mkdir -p "$out/tests" || die "cannot create $out"
  log=$out/log.txt
  : >"$log"
  : >"$out/summary.txt"
  local t_start=$SECONDS
  # The device tool brings back at most 8 files from $OUT: the JUnit files travel as one archive.
  [ -n "${OUT:-}" ] && trap 'tar -C "$out" -czf "$out/tests.tar.gz" tests && rm -rf "$out/tests"' EXIT
  unpack
  deadline=$((SECONDS + budget_s))
  local bin=$stage_root/bin
  cat "$stage_root/BUNDLE.txt" >>"$out/summary.txt"

  # 1. The libraries: the toolkit's cuBLAS first, then every program's dependencies resolved.
  local cudalib
  cudalib=$(cuda_library_dir) || {
    echo "libcublas.so.13 / libcudart.so.13: NOT FOUND (set CUDA_HOME)" >>"$out/summary.txt"
    die "libcublas.so.13 and libcudart.so.13 are not found (set CUDA_HOME to the CUDA 13 toolkit)"
  }
  export LD_LIBRARY_PATH=$cudalib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  if [ "$rehearse" = 1 ]; then
    # No driver here: the toolkit's stub stands in for libcuda.so.1 so that the programs load.
    local stub
    stub=$(find "$cudalib" "$cudalib/.." -path '*stubs/libcuda.so' 2>/dev/null | head -n 1)
    [ -n "$stub" ] || die "rehearsal: no stubs/libcuda.so beside $cudalib"
    mkdir -p "$out/stub" && ln -sf "$stub" "$out/stub/libcuda.so.1"
    export LD_LIBRARY_PATH=$out/stub:$LD_LIBRARY_PATH
  fi
  {
    echo "cuda libraries: $cudalib"
    echo "machine: $(uname -srm), glibc here: $(ldd --version 2>/dev/null | head -n 1)"
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  } >>"$out/system.txt" 2>&1
  local missing=0 p
  for p in "$bin"/*; do
    if "$stage_root"/lib/ld-linux-x86-64.so.2 --list "$p" | grep -q 'not found'; then
      "$stage_root"/lib/ld-linux-x86-64.so.2 --list "$p" | grep 'not found' | sed "s|^|$(basename "$p"): |" >>"$out/system.txt"
      missing=1
    fi
  done
  [ "$missing" = 0 ] || die "libraries not found (see $out/system.txt)"
  step "programs load (tfbench --help)" 30 "$bin/tfbench" --help || die "tfbench does not start"
  step "configs/gpu.yaml validates" 30 "$bin/tfbench" validate "$stage_root/share/configs/gpu.yaml" ||
    die "configs/gpu.yaml does not validate"

  export TFBENCH_NUMPY_PEER=$stage_root/share/scripts/numpy_peer.py
  export TFBENCH_TORCH_PEER=$stage_root/share/scripts/torch_peer.py
  # The Python peers load their own CUDA libraries (torch's wheels): the toolkit's directory, which
  # LD_LIBRARY_PATH would put before their RUNPATH, stays out of their environment.
  local python
  python=${TFBENCH_PYTHON:-$(command -v python3 || echo /usr/bin/python3)}
  printf '#!/bin/sh\nunset LD_LIBRARY_PATH\nexec "%s" "$@"\n' "$python" >"$stage_root/python3" &&
    chmod +x "$stage_root/python3" || die "cannot write $stage_root/python3"
  export TFBENCH_PYTHON=$stage_root/python3
  export TFBENCH_TORCH_PYTHON=${TFBENCH_TORCH_PYTHON:-$TFBENCH_PYTHON}
  df -h /dev/shm >>"$out/system.txt" 2>&1  # the Python peers' operands are files there
  export OMP_PROC_BIND=false OMP_WAIT_POLICY=passive
  if [ "$rehearse" = 1 ]; then
    say "rehearsal done in $((SECONDS - t_start)) s: the next step, '$bin/tfbench info', is the first GPU call"
    echo "rehearsal: stopped before the first GPU call (tfbench info)" >>"$out/summary.txt"
    return 0
  fi

  # 2. The device, then every test program on the cuda space (what no host run can check), with the
  # console reporter into log.txt: each test's name as it ends (--durations), so that a crash shows
  # where (a JUnit file is written only at a clean exit).
  step "tfbench info" 60 "$bin/tfbench" info
  local t name
  for t in "$bin"/tfbench_*_tests; do
    name=$(basename "$t")
    OMP_NUM_THREADS=1 step "$name [cuda-1]" 90 "$t" --space cuda --threads 1 -r console --durations yes
  done

  # 3. The GPU families, with provenance, and their report.
  step "tfbench run configs/gpu.yaml" 240 "$bin/tfbench" run "$stage_root/share/configs/gpu.yaml" -o "$out/gpu.h5" --case-timeout 60
  [ -f "$out/gpu.h5" ] && step "tfbench report" 30 sh -c "'$bin/tfbench' report '$out/gpu.h5' >'$out/report.txt'"
  command -v nvidia-smi >/dev/null && nvidia-smi >>"$out/system.txt" 2>&1

  # 4. The host spaces of the same programs on this machine's cores, with the time left.
  for t in "$bin"/tfbench_*_tests; do
    name=$(basename "$t")
    OMP_NUM_THREADS=1 step "$name [serial-1]" 60 "$t" --space serial --threads 1 -r junit -o "$out/tests/$name.serial-1.xml"
    OMP_NUM_THREADS=4 step "$name [openmp-4]" 60 "$t" --space openmp --threads 4 -r junit -o "$out/tests/$name.openmp-4.xml"
  done
  echo "total: $((SECONDS - t_start)) s" >>"$out/summary.txt"
  say "done in $((SECONDS - t_start)) s: $out/summary.txt"
  cat "$out/summary.txt" >&2
  grep -c ' exit   0 ' "$out/summary.txt" | sed 's/^/steps passed: /' >&2
}

case "$mode" in
  pack) pack ;;
  run) run_check 0 ;;
  rehearse)
    pack
    run_check 1
    ;;
  *)
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
