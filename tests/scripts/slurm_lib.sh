# shellcheck shell=bash
# Sourced by the Slurm integration tests (slurm_test.sh, slurm_multinode_test.sh): messages,
# Slurm present or the test skipped, the private network namespace, waiting on jobs; sets `repo`
# and `tfbench` ($TFBENCH, else this checkout's build). The sourcing script sets `test_name` first.
say() { printf '[%s] %s\n' "$test_name" "$*" >&2; }
fail() { printf '[%s] FAILED: %s\n' "$test_name" "$*" >&2; exit 1; }
skip() { printf '[%s] SKIPPED: %s\n' "$test_name" "$*" >&2; exit 77; }
export PATH=$PATH:/usr/sbin:/sbin
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tfbench=${TFBENCH:-$repo/build/default/harness/tfbench}
[ -x "$tfbench" ] || fail "tfbench not built: $tfbench (set TFBENCH)"

slurm_install_or_skip() {  # local-cluster.sh install; skip (77) where it cannot
  local t0=$SECONDS rc=0
  "$repo/scripts/slurm/local-cluster.sh" install || rc=$?
  [ $rc = 3 ] && skip "Slurm is not installed and cannot be installed here (needs root or sudo)"
  [ $rc = 0 ] || fail "scripts/slurm/local-cluster.sh install failed (exit $rc)"
  say "Slurm present ($((SECONDS - t0)) s)"
}

slurm_fresh_work() {  # $1 = WORK_DIR, emptied; sets work (absolute), state (the cluster's), results
  rm -rf "$1"
  mkdir -p "$1"
  work=$(cd "$1" && pwd)
  state=$work/cluster
  results=$work/results
}

slurm_stop_cluster() {  # $1 = the test's exit status so far: the diagnosis on a failure, then stop
  [ "$1" != 1 ] || "$repo/scripts/slurm/local-cluster.sh" diagnose "$state" || true
  "$repo/scripts/slurm/local-cluster.sh" stop "$state" || true
}

slurm_can_unshare() { [ "$(id -u)" = 0 ] && command -v ip >/dev/null && unshare --net true 2>/dev/null; }

# Re-executes the test ($@ = "$0" and its arguments) in a private network namespace: the daemons
# can only ever listen there. Slurm resolves 127.0.0.1 with AI_ADDRCONFIG, which glibc answers only
# when some IPv4 address other than 127.0.0.1 exists: lo gets a second, private one.
slurm_reexec_in_private_netns() {
  export TFBENCH_SLURM_INNER=1
  # shellcheck disable=SC2016
  exec unshare --net -- bash -c 'ip link set lo up && ip addr add 10.254.254.254/32 dev lo &&
    exec "$0" "$@"' "$@"
}

slurm_wait_jobs() {  # $1 = timeout (s), $2 = what, $3.. = job ids: until none is queued or running
  local timeout=$1 what=$2 deadline
  shift 2
  deadline=$((SECONDS + timeout))
  while [ -n "$(squeue -h -j "$(IFS=,; echo "$*")" 2>/dev/null)" ]; do
    [ $SECONDS -lt $deadline ] || fail "$what still queued or running after $timeout s"
    sleep 2
  done
}

slurm_state_of() {  # the distinct states of a job (of every task of an array)
  scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort -u | tr '\n' ' '
}
