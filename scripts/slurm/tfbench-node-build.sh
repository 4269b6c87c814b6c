#!/usr/bin/env bash
# Builds tfbench on this compute node, once per node type, and prints the executable's path: the
# array and merge jobs of `submit.sh --build-on-node` (or --arch) run their work with it, so that
# an -march build of one node type never runs on another.
#
#   tfbench-node-build.sh        (environment: TFBENCH_JOB_ENV, as the batch scripts have it)
#
# The node type is the CPU model, the sorted ISA flags and the machine of /proc/cpuinfo, plus the
# TFBENCH_ARCH asked for (--arch); with the sources' revision (git HEAD and a hash of the
# uncommitted diff) their SHA-256 names the cache folder CACHE/<key>/ (CACHE = submit.sh's
# --build-cache, on a filesystem the nodes share). There a copy of the repository (src/: a
# `git clone --shared` at HEAD with the working tree's files laid over it, so that the binary's
# provenance keeps the revision and its dirty flag) is built with
# `TFBENCH_ARCH=<arch> scripts/build.sh default tfbench` (or the submission's TFBENCH_NODE_BUILD
# command), then marked `ok`; a folder marked ok is reused. A lock
# (flock on CACHE/<key>.lock) makes the tasks of one node type wait for one build instead of racing;
# a failed build leaves no mark, and the next task tries again.
#
# Exit 0 (the path on stdout), 1 the build failed (its log: CACHE/<key>/build.log).
set -euo pipefail

say() { echo "tfbench-node-build: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }
# shellcheck source=/dev/null
source "${TFBENCH_JOB_ENV:?TFBENCH_JOB_ENV not set (submit with scripts/slurm/submit.sh)}"
cache=${TFBENCH_BUILD_CACHE:?job.env names no TFBENCH_BUILD_CACHE}
arch=${TFBENCH_NODE_ARCH:-}
build_cmd=${TFBENCH_NODE_BUILD:-scripts/build.sh default tfbench}
cpuinfo=${TFBENCH_CPUINFO:-/proc/cpuinfo}  # a test names a fake one
repo=$(cd "$TFBENCH_SCRIPTS/.." && pwd)

model=$(awk -F': *' '/^model name/ {print $2; exit}' "$cpuinfo")
flags=$(awk -F': *' '/^(flags|Features)/ {print $2; exit}' "$cpuinfo" | tr ' ' '\n' | sed '/^$/d' | sort -u | paste -sd' ')
machine=$(uname -m)
node_type="model=${model:-unknown} machine=$machine arch=${arch:-default} flags=$flags"
rev=""
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  rev=$(git -C "$repo" rev-parse HEAD)
  sources="$rev+$(git -C "$repo" diff HEAD --binary | sha256sum | cut -c1-12)"
else
  sources="no-git:$(find "$repo" -path "$repo/build" -prune -o -path "$repo/results" -prune -o \
    -type f -printf '%P %s %T@\n' | sort | sha256sum | cut -c1-12)"
fi
key=$(printf '%s\n%s' "$node_type" "$sources" | sha256sum | cut -c1-16)
dir=$cache/$key
bin=$dir/src/build/default/harness/tfbench

reuse() {  # true (and prints the path) when this node type's build is done
  [ -f "$dir/ok" ] && [ -x "$bin" ] || return 1
  say "$(hostname): node type $key (${model:-unknown}, arch ${arch:-default}): reusing $bin"
  echo "$bin"
}
reuse && exit 0

mkdir -p "$cache"
exec 9>"$cache/$key.lock"
say "$(hostname): node type $key: waiting for the build lock"
flock 9
reuse && exit 0  # another task of this node type built it while we waited

say "$(hostname): node type $key (${model:-unknown}, arch ${arch:-default}): building into $dir"
rm -rf "$dir"
mkdir -p "$dir"
printf '%s\nsources=%s\n' "$node_type" "$sources" > "$dir/node-type.txt"
# The sources only (what git tracks and what it does not ignore), never another build folder.
if [ -n "$rev" ]; then
  git clone -q --shared --no-checkout "$repo" "$dir/src"
  git -C "$dir/src" checkout -q --detach "$rev"
  git -C "$repo" ls-files -z --cached --others --exclude-standard |
    tar -C "$repo" --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -C "$dir/src" -xf -
else
  mkdir -p "$dir/src"
  tar -C "$repo" --exclude=./build --exclude=./results -cf - . | tar -C "$dir/src" -xf -
fi
t0=$SECONDS
# TFBENCH_ARCH is always set (native without --arch): build.sh then keeps this node type's ccache
# objects apart from other CPUs' (with a shared home, -march=native objects of one node type would
# otherwise be handed to another).
# shellcheck disable=SC2086
if ! (cd "$dir/src" && env TFBENCH_ARCH="${arch:-native}" $build_cmd) >"$dir/build.log" 2>&1; then
  tail -n 20 "$dir/build.log" >&2 || true
  fail "'$build_cmd' (TFBENCH_ARCH=${arch:-native}) failed after $((SECONDS - t0)) s; log: $dir/build.log"
fi
[ -x "$bin" ] || fail "'$build_cmd' left no executable at $bin"
date -u +%Y-%m-%dT%H:%M:%SZ > "$dir/ok"
say "built $bin in $((SECONDS - t0)) s"
echo "$bin"
