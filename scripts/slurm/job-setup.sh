# shellcheck shell=bash
# Sourced by tfbench-array.sbatch and tfbench-merge.sbatch once they have sourced job.env: the site
# profile (`module load` lines and the like; submit.sh --profile / TFBENCH_SLURM_PROFILE) and, with
# --build-on-node, this node type's tfbench (tfbench-node-build.sh), exported as TFBENCH_NODE_BIN
# for the srun step (which sources job.env again).
if [ -n "${TFBENCH_PROFILE:-}" ]; then
  [ -r "$TFBENCH_PROFILE" ] || fail "site profile not readable on $(hostname): $TFBENCH_PROFILE"
  set +u  # module scripts read unset variables
  # shellcheck source=/dev/null
  source "$TFBENCH_PROFILE" || fail "site profile $TFBENCH_PROFILE exited $?"
  set -u
  echo "$(basename "$0"): sourced the site profile $TFBENCH_PROFILE"
fi
if [ "${TFBENCH_BUILD_ON_NODE:-0}" = 1 ]; then
  TFBENCH_NODE_BIN=$("$TFBENCH_SCRIPTS/slurm/tfbench-node-build.sh") ||
    fail "no tfbench for this node type (tfbench-node-build.sh exited $?)"
  export TFBENCH_NODE_BIN
  TFBENCH_BIN=$TFBENCH_NODE_BIN
  echo "$(basename "$0"): this node type's tfbench: $TFBENCH_BIN"
fi
