#!/usr/bin/env bash
# Submits tfbench configs to Slurm: one job array per thread configuration (one task per config,
# --cpus-per-task = that thread count, each task writing its own result file and checking the
# thread counts its workers verified), and one merge job that runs after all of them
# (--dependency=afterany) and combines the files with `tfbench merge`.
#
#   scripts/slurm/submit.sh [options] CONFIG...
#
# Options:
#   --threads LIST      thread configurations, e.g. 1,2,8 or 1,max (max: the CPUs of the
#                       partition's smallest node) [default: 1]
#   --out DIR           where results land [default: results/slurm/<UTC timestamp>]
#   --tfbench PATH      the tfbench executable, on a filesystem the nodes share
#                       [default: $TFBENCH or build/default/harness/tfbench]
#   --partition P       --time T  --account A  --mem M  --qos Q   passed to every sbatch
#   --exclusive         each array task gets whole nodes (no neighbours disturbing the timing)
#   --run-args "ARGS"   extra `tfbench run` arguments, e.g. "--repetitions 10 --filter gemm"
#   --sbatch-arg ARG    one extra sbatch argument (repeatable)
#   --dry-run           print the sbatch commands and the files they would use; submit and write nothing
#
# Prints the job ids and where every file will land, and writes them to DIR/jobs.env
# (ARRAY_JOBS, MERGE_JOB, MERGED, PARTS, LOGS) for scripts. Exit 0 submitted, 2 usage error,
# 1 sbatch failed (jobs submitted before the failure are cancelled).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "submit: error: $*" >&2; exit 2; }
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }

threads=1 out="" bin=${TFBENCH:-$repo/build/default/harness/tfbench} run_args="" dry=0
common=() configs=() exclusive=()
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --tfbench) bin=${2:?}; shift 2 ;;
    --partition|--time|--account|--mem|--qos) common+=("$1=${2:?}"); shift 2 ;;
    --exclusive) exclusive=(--exclusive); shift ;;
    --run-args) run_args=${2-}; shift 2 ;;
    --sbatch-arg) common+=("${2:?}"); shift 2 ;;
    --dry-run) dry=1; shift ;;
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
command -v sbatch >/dev/null || [ $dry = 1 ] || die "sbatch not found: is Slurm's client installed and SLURM_CONF set?"

# Absolute config paths, with distinct stems (a task's file is named <stem>-t<threads>.h5).
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

# Thread list: integers, or max = CPUs of the partition's smallest node.
resolved=()
for t in ${threads//,/ }; do
  if [ "$t" = max ]; then
    part_opt=()
    for o in "${common[@]}"; do case "$o" in --partition=*) part_opt=(-p "${o#--partition=}") ;; esac; done
    # Not in a pipeline: under `set -e -o pipefail` a failing sinfo would end the script silently.
    command -v sinfo >/dev/null || die "cannot resolve 'max': sinfo not found; give a number"
    errors=$(mktemp)
    if ! cpus=$(sinfo -h "${part_opt[@]}" -o '%c' 2>"$errors"); then
      why=$(head -n1 "$errors")
      rm -f "$errors"
      die "cannot resolve 'max': sinfo failed${why:+: $why}; give a number"
    fi
    rm -f "$errors"
    t=$(echo "$cpus" | sort -n | head -n1 | tr -d '+ ')
    [[ "$t" =~ ^[0-9]+$ ]] || die "cannot resolve 'max': sinfo printed no CPU count ('$t'); give a number"
  fi
  [[ "$t" =~ ^[1-9][0-9]*$ ]] || die "bad thread count '$t' in --threads $threads"
  [[ " ${resolved[*]} " == *" $t "* ]] || resolved+=("$t")
done
thread_list=$(IFS=,; echo "${resolved[*]}")

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
TFBENCH_PARTS=$(printf %q "$out/parts")
TFBENCH_MERGED=$(printf %q "$out/merged.h5")
TFBENCH_RUN_ARGS=$(printf %q "$run_args")
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
array_jobs=()
for t in "${resolved[@]}"; do
  env_file=$out/job-t$t.env
  if [ $dry = 1 ]; then echo "dry run: would write $env_file" >&2; else
    { cat "$out/job.env"; echo "TFBENCH_THREADS=$t"; } >"$env_file"
  fi
  id=$(sb --array=0-$((n - 1)) --cpus-per-task="$t" "${exclusive[@]}" "${common[@]}" \
    --job-name="tfbench-t$t" --chdir="$out" --output="$out/logs/%x-%A_%a.out" \
    --export=ALL,TFBENCH_JOB_ENV="$env_file" "$here/tfbench-array.sbatch")
  submitted+=("$id")
  array_jobs+=("$id")
  echo "array job $id: $n task(s) at $t thread(s) -> $out/parts/<config>-t$t.h5"
done
dep=afterany:$(IFS=:; echo "${array_jobs[*]}")
merge=$(sb --dependency="$dep" --kill-on-invalid-dep=yes "${common[@]}" --job-name=tfbench-merge \
  --chdir="$out" --output="$out/logs/%x-%j.out" --export=ALL,TFBENCH_JOB_ENV="$out/job.env" \
  "$here/tfbench-merge.sbatch")
submitted+=("$merge")
echo "merge job $merge ($dep) -> $out/merged.h5"
echo "logs: $out/logs/   configs: $n   thread configurations: $thread_list"
emit "$out/jobs.env" <<ENV
ARRAY_JOBS="${array_jobs[*]}"
MERGE_JOB=$merge
MERGED=$out/merged.h5
PARTS=$out/parts
LOGS=$out/logs
ENV
