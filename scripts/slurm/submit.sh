#!/usr/bin/env bash
# Submits tfbench configs to Slurm: one job array with one task per config, each task on its own
# node (--exclusive) running every thread count of --threads in one `tfbench run` inside an srun
# step (--cpu-bind=cores), so that scaling is measured on one node in one run; then one merge job
# that runs after all tasks (--dependency=afterany) and combines their files with `tfbench merge`.
# Every config is checked with `tfbench validate` first: an invalid one queues nothing.
#
#   scripts/slurm/submit.sh [options] CONFIG...
#
# Options:
#   --threads LIST      thread counts every task runs, e.g. 1,2,8 or 1,max [default: 1,max]; max is
#                       the physical cores of the task's allocation, counted on the node
#   --share             do not ask for whole nodes: each task gets --cpus-per-task = the largest
#                       thread count, one per core (--hint=nomultithread); a `max` is then the
#                       physical cores of the partition's smallest node (sinfo)
#   --mem M             memory per task [default: 0 (all of the node) with whole nodes, 8G with --share]
#   --no-pin            leave the workers' threads unpinned (`tfbench run --no-pin`)
#   --out DIR           where results land [default: results/slurm/<UTC timestamp>]
#   --tfbench PATH      the tfbench executable, on a filesystem the nodes share
#                       [default: $TFBENCH or build/default/harness/tfbench]
#   --partition P       --time T  --account A  --qos Q   passed to every sbatch
#   --run-args "ARGS"   extra `tfbench run` arguments, e.g. "--repetitions 10 --filter gemm"
#   --sbatch-arg ARG    one extra sbatch argument for every job (repeatable)
#   --profile FILE      a bash file every batch job sources first, e.g. `module load` lines
#                       [default: $TFBENCH_SLURM_PROFILE, else none]
#   --build-on-node     every task (and the merge job) builds tfbench on its node, once per node
#                       type (CPU model + ISA flags + --arch + sources), into --build-cache, and runs
#                       that build (tfbench-node-build.sh); --tfbench still validates the configs
#   --arch VALUE        TFBENCH_ARCH for those builds (implies --build-on-node)
#   --build-cache DIR   where the node builds are cached, on a filesystem the nodes share
#                       [default: build/nodes in this repository]
#   --dry-run           validate, print the sbatch commands and the files they would use; submit
#                       and write nothing
#
# Prints the job ids and where every file will land, and writes them to DIR/jobs.env
# (ARRAY_JOBS, MERGE_JOB, MERGED, PARTS, LOGS) for scripts. Exit 0 submitted, 2 usage error or an
# invalid config (nothing submitted, nothing written), 1 sbatch failed (jobs submitted before the
# failure are cancelled).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "submit: error: $*" >&2; exit 2; }
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }

threads=1,max out="" bin=${TFBENCH:-$repo/build/default/harness/tfbench} run_args="" dry=0
share=0 mem="" pin=1 build_on_node=0 arch="" build_cache=$repo/build/nodes
profile=${TFBENCH_SLURM_PROFILE:-}
common=() configs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --tfbench) bin=${2:?}; shift 2 ;;
    --partition|--time|--account|--qos) common+=("$1=${2:?}"); shift 2 ;;
    --mem) mem=${2:?}; shift 2 ;;
    --share) share=1; shift ;;
    --exclusive) share=0; shift ;;  # the default; kept for old command lines
    --no-pin) pin=0; shift ;;
    --run-args) run_args=${2-}; shift 2 ;;
    --sbatch-arg) common+=("${2:?}"); shift 2 ;;
    --dry-run) dry=1; shift ;;
    --profile) profile=${2:?}; shift 2 ;;
    --build-on-node) build_on_node=1; shift ;;
    --arch) arch=${2:?}; build_on_node=1; shift 2 ;;
    --build-cache) build_cache=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    --) shift; configs+=("$@"); break ;;
    -*) die "unknown option $1" ;;
    *) configs+=("$1"); shift ;;
  esac
done
[ ${#configs[@]} -gt 0 ] || usage
[ -x "$bin" ] || die "tfbench executable not found: $bin (build it, or pass --tfbench / set TFBENCH)"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
python=${TFBENCH_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || die "$python not found (set TFBENCH_PYTHON to a python3 with h5py)"
if [ -n "$profile" ]; then
  [ -r "$profile" ] || die "site profile not readable: $profile (--profile / TFBENCH_SLURM_PROFILE)"
  profile=$(cd "$(dirname "$profile")" && pwd)/$(basename "$profile")
fi
[[ "$arch" =~ ^[A-Za-z0-9_.,+=-]*$ ]] || die "--arch '$arch': letters, digits and _.,+=- only"
build_cache=$(realpath -m "$build_cache")
command -v sbatch >/dev/null || [ $dry = 1 ] || die "sbatch not found: is Slurm's client installed and SLURM_CONF set?"

# Absolute config paths, with distinct stems (a task's file is named <stem>.h5).
declare -A stems=()
abs_configs=()
for c in "${configs[@]}"; do
  [ -r "$c" ] || die "config not readable: $c"
  a=$(cd "$(dirname "$c")" && pwd)/$(basename "$c")
  s=$(basename "${a%.*}")
  [ -z "${stems[$s]:-}" ] || die "two configs named '$s' ($a, ${stems[$s]}): rename one"
  stems[$s]=$a
  abs_configs+=("$a")
done

# Every config must be valid before anything is queued: a task that dies on its config hours later,
# in a queue, is the expensive way to find a typo.
if ! errors=$("$bin" validate "${abs_configs[@]}" 2>&1 >/dev/null); then
  printf '%s\n' "$errors" >&2
  die "tfbench validate rejected the config(s) above; nothing submitted"
fi

# Physical cores (sockets x cores per socket) of the partition's smallest node: `max` under --share.
# Not sinfo's %c, which counts hardware threads.
smallest_node_cores() {
  local part_opt=() o errors lines
  for o in "${common[@]}"; do case "$o" in --partition=*) part_opt=(-p "${o#--partition=}") ;; esac; done
  # Not in a pipeline: under `set -e -o pipefail` a failing sinfo would end the script silently.
  command -v sinfo >/dev/null || die "cannot resolve 'max' under --share: sinfo not found; give a number"
  errors=$(mktemp)
  if ! lines=$(sinfo -h "${part_opt[@]}" -o '%z' 2>"$errors"); then
    why=$(head -n1 "$errors")
    rm -f "$errors"
    die "cannot resolve 'max' under --share: sinfo failed${why:+: $why}; give a number"
  fi
  rm -f "$errors"
  awk -F: '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $1 * $2 }' <<< "$lines" | sort -n | head -n1
}

# Thread list: integers and at most one `max` (resolved on the node, or here under --share).
resolved=() largest=0
for t in ${threads//,/ }; do
  if [ "$t" = max ] && [ $share = 1 ]; then
    t=$(smallest_node_cores)
    [[ "$t" =~ ^[0-9]+$ ]] || die "cannot resolve 'max' under --share: sinfo printed no socket:core:thread counts; give a number"
  fi
  [ "$t" = max ] || [[ "$t" =~ ^[1-9][0-9]*$ ]] || die "bad thread count '$t' in --threads $threads"
  [[ " ${resolved[*]-} " == *" $t "* ]] || resolved+=("$t")
  [ "$t" = max ] || [ "$t" -le "$largest" ] || largest=$t
done
[ ${#resolved[@]} -gt 0 ] || die "--threads '$threads' names no thread count"
thread_list=$(IFS=,; echo "${resolved[*]}")

if [ $share = 1 ]; then
  placement=(--cpus-per-task="$largest" --hint=nomultithread --mem="${mem:-8G}")
else
  placement=(--exclusive --mem="${mem:-0}")
fi
[ $pin = 1 ] || run_args="--no-pin${run_args:+ $run_args}"

[ -n "$out" ] || out=$repo/results/slurm/$(date -u +%Y%m%dT%H%M%SZ)
# A dry run writes nothing: every file goes through emit, which then only names it.
emit() {  # emit PATH < content
  if [ $dry = 1 ]; then
    cat >/dev/null
    echo "dry run: would write $1" >&2
  else
    cat >"$1"
  fi
}
if [ $dry = 1 ]; then
  out=$(realpath -m "$out")
else
  mkdir -p "$out/parts" "$out/logs"
  out=$(cd "$out" && pwd)
fi
printf '%s\n' "${abs_configs[@]}" | emit "$out/configs.txt"
emit "$out/job.env" <<ENV
# Written by scripts/slurm/submit.sh; sourced by the batch scripts.
TFBENCH_BIN=$(printf %q "$bin")
TFBENCH_SCRIPTS=$(printf %q "$repo/scripts")
TFBENCH_PYTHON=$(printf %q "$python")
TFBENCH_CONFIG_LIST=$(printf %q "$out/configs.txt")
TFBENCH_THREAD_LIST=$thread_list
TFBENCH_PIN=$pin
TFBENCH_PARTS=$(printf %q "$out/parts")
TFBENCH_MERGED=$(printf %q "$out/merged.h5")
TFBENCH_RUN_ARGS=$(printf %q "$run_args")
TFBENCH_PROFILE=$(printf %q "$profile")
TFBENCH_BUILD_ON_NODE=$build_on_node
TFBENCH_NODE_ARCH=$(printf %q "$arch")
TFBENCH_BUILD_CACHE=$(printf %q "$build_cache")
TFBENCH_NODE_BUILD=$(printf %q "${TFBENCH_NODE_BUILD:-scripts/build.sh default tfbench}")
ENV

submitted=()
cancel_submitted() {
  [ ${#submitted[@]} -eq 0 ] || scancel "${submitted[@]}" 2>/dev/null || true
}
sb() {  # prints the job id
  if [ $dry = 1 ]; then
    echo "sbatch $*" >&2
    echo "DRY$((${#submitted[@]} + 1))"
    return
  fi
  local id
  if ! id=$(sbatch --parsable "$@"); then
    echo "submit: sbatch failed: sbatch $*" >&2
    cancel_submitted
    exit 1
  fi
  echo "${id%%;*}"
}

n=${#abs_configs[@]}
array=$(sb --array=0-$((n - 1)) --nodes=1 --ntasks=1 "${placement[@]}" "${common[@]}" \
  --job-name=tfbench --chdir="$out" --output="$out/logs/%x-%A_%a.out" \
  --export=ALL,TFBENCH_JOB_ENV="$out/job.env" "$here/tfbench-array.sbatch")
submitted+=("$array")
echo "array job $array: $n task(s), each at threads $thread_list on one node -> $out/parts/<config>.h5"
merge=$(sb --dependency="afterany:$array" --kill-on-invalid-dep=yes --mem=2G "${common[@]}" \
  --job-name=tfbench-merge --chdir="$out" --output="$out/logs/%x-%j.out" \
  --export=ALL,TFBENCH_JOB_ENV="$out/job.env" "$here/tfbench-merge.sbatch")
submitted+=("$merge")
echo "merge job $merge (afterany:$array) -> $out/merged.h5"
echo "logs: $out/logs/   configs: $n   threads: $thread_list   $([ $share = 1 ] && echo "shared nodes" || echo "whole nodes")$([ $pin = 1 ] || echo ", unpinned")"
[ $build_on_node = 0 ] || echo "built on each node type (TFBENCH_ARCH ${arch:-unset}) into $build_cache/<node type>"
[ -z "$profile" ] || echo "site profile: $profile"
emit "$out/jobs.env" <<ENV
ARRAY_JOBS="$array"
MERGE_JOB=$merge
MERGED=$out/merged.h5
PARTS=$out/parts
LOGS=$out/logs
ENV
