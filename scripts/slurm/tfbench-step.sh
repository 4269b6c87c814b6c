#!/usr/bin/env bash
# The srun step of one array task (tfbench-array.sbatch): resolves `max` to the physical cores of
# the step's CPU set, runs `tfbench run CONFIG --threads LIST` into the task's result file and checks
# it (scripts/slurm/check_part.py: one run, workers at exactly these thread counts, verified, pinned
# unless --no-pin). The run writes PARTS/<config>.partial.h5, renamed to <config>.h5 once checked:
# the merge job takes only checked files.
#   tfbench-step.sh CONFIG          (environment: TFBENCH_JOB_ENV, as the array task has it)
set -euo pipefail

fail() { echo "tfbench-step: FAILED: $*" >&2; exit 1; }
config=${1:?usage: tfbench-step.sh CONFIG}
# shellcheck source=/dev/null
source "${TFBENCH_JOB_ENV:?}"
TFBENCH_BIN=${TFBENCH_NODE_BIN:-$TFBENCH_BIN}  # --build-on-node: the array task's build for this node

# Physical cores in this step's CPU set: hardware threads of one core count once (sinfo's %c and
# SLURM_CPUS_ON_NODE count threads).
mask=$(awk '/^Cpus_allowed_list/{print $2}' /proc/self/status)
declare -A core_seen=()
for range in ${mask//,/ }; do
  for ((cpu = ${range%-*}; cpu <= ${range#*-}; cpu++)); do
    topo=/sys/devices/system/cpu/cpu$cpu/topology
    if [ -r "$topo/core_id" ] && [ -r "$topo/physical_package_id" ]; then
      core_seen["$(<"$topo/physical_package_id"):$(<"$topo/core_id")"]=1
    else
      core_seen["cpu$cpu"]=1  # no topology (some containers): every CPU its own core
    fi
  done
done
cores=${#core_seen[@]}

resolved=()
for t in ${TFBENCH_THREAD_LIST//,/ }; do
  [ "$t" = max ] && t=$cores
  [ "$t" -le "$cores" ] ||
    fail "$t thread(s) asked for, but this step holds $cores physical core(s) (CPUs $mask)"
  [[ " ${resolved[*]-} " == *" $t "* ]] || resolved+=("$t")
done
threads=$(IFS=,; echo "${resolved[*]}")
stem=$(basename "${config%.*}")
out="$TFBENCH_PARTS/$stem.partial.h5"
echo "tfbench-step: step ${SLURM_JOB_ID:-?}.${SLURM_STEP_ID:-?} on $(hostname): CPUs $mask ($cores core(s)), Slurm binding ${SLURM_CPU_BIND:-none}; threads $threads"

rm -f "$out" "$TFBENCH_PARTS/$stem.h5"
pin_args=()
[ "${TFBENCH_PIN:-1}" = 1 ] || pin_args=(--expect-unpinned)
# shellcheck disable=SC2086
"$TFBENCH_BIN" run "$config" --threads "$threads" --out "$out" $TFBENCH_RUN_ARGS ||
  fail "tfbench run exited $? ($config, threads $threads)"
"$TFBENCH_PYTHON" "$TFBENCH_SCRIPTS/slurm/check_part.py" "$out" --threads "$threads" "${pin_args[@]}" ||
  fail "$out: the workers' verified thread counts or binding do not match the step"
mv "$out" "$TFBENCH_PARTS/$stem.h5"
echo "tfbench-step: wrote $TFBENCH_PARTS/$stem.h5"
