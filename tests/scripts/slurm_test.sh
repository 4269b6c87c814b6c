#!/usr/bin/env bash
# Integration test of scripts/slurm/ on a real single-node Slurm cluster on this machine:
# installs slurm-wlm + munge if missing, starts munged/slurmctld/slurmd under a test-owned state
# folder (inside a private network namespace when possible, so loopback is all they can reach),
# submits two configs at 1 and N threads as job arrays plus the dependent merge job, waits, checks
# the merged file (every task's run present with its provenance, thread counts verified), and
# tears the cluster down.
#
#   tests/scripts/slurm_test.sh WORK_DIR        (TFBENCH=path/to/tfbench)
#
# Exit 0 pass, 1 fail, 77 skipped (Slurm cannot be installed or started here: no root, no sudo).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${1:?usage: slurm_test.sh WORK_DIR}
timeout_s=${TFBENCH_SLURM_TIMEOUT:-900}
say() { printf '[slurm_test] %s\n' "$*" >&2; }
fail() { printf '[slurm_test] FAILED: %s\n' "$*" >&2; exit 1; }
skip() { printf '[slurm_test] SKIPPED: %s\n' "$*" >&2; exit 77; }
export PATH=$PATH:/usr/sbin:/sbin

tfbench=${TFBENCH:-$repo/build/default/harness/tfbench}
[ -x "$tfbench" ] || fail "tfbench not built: $tfbench (set TFBENCH)"

if [ "${TFBENCH_SLURM_INNER:-0}" != 1 ]; then
  t0=$SECONDS
  rc=0
  "$repo/scripts/slurm/local-cluster.sh" install || rc=$?
  [ $rc = 3 ] && skip "Slurm is not installed and cannot be installed here (needs root or sudo)"
  [ $rc = 0 ] || fail "scripts/slurm/local-cluster.sh install failed (exit $rc)"
  say "Slurm present ($((SECONDS - t0)) s)"
  export TFBENCH_SLURM_INNER=1
  # A private network namespace: the daemons can only ever listen on its loopback.
  # Slurm resolves 127.0.0.1 with AI_ADDRCONFIG, which glibc answers only when some IPv4
  # address other than 127.0.0.1 exists: give lo a second, private one.
  if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && unshare --net true 2>/dev/null; then
    say "running the cluster in a private network namespace (loopback only)"
    # shellcheck disable=SC2016
    exec unshare --net -- bash -c 'ip link set lo up && ip addr add 10.254.254.254/32 dev lo &&
      exec "$0" "$@"' "$0" "$@"
  fi
  say "no private network namespace (needs root): daemons bind to all interfaces on random ports; only holders of the test's munge key can talk to them"
fi

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
state=$work/cluster
results=$work/results

started=0
teardown() {
  local rc=$?
  if [ $started = 1 ]; then
    [ $rc != 1 ] || "$repo/scripts/slurm/local-cluster.sh" diagnose "$state" || true
    "$repo/scripts/slurm/local-cluster.sh" stop "$state" || true
  fi
  [ $rc = 0 ] && say "PASSED in $((SECONDS - t_start)) s" || true
  exit $rc
}
t_start=$SECONDS
trap teardown EXIT

rc=0
"$repo/scripts/slurm/local-cluster.sh" start "$state" >/dev/null || rc=$?
started=1
[ $rc = 3 ] && skip "the Slurm daemons cannot run as $(id -un) here"
[ $rc = 0 ] || fail "the local cluster did not start (exit $rc)"
export SLURM_CONF=$state/etc/slurm.conf
cpus=$(sinfo -h -o %c | tr -d '+ ')

# Two small configs (distinct families' worth of provenance: each its own run and config text).
cat > "$work/triad_small.yaml" <<'YAML'
benchmarks:
  - family: bandwidth_control
    params: {elements: [4096, 65536]}
    repetitions: 5
    min_time: 0.002
YAML
cat > "$work/triad_large.yaml" <<'YAML'
benchmarks:
  - family: bandwidth_control
    params: {elements: [1048576]}
    repetitions: 5
    min_time: 0.002
YAML
configs=("$work/triad_small.yaml" "$work/triad_large.yaml")
threads=1
[ "$cpus" -ge 2 ] && threads=1,max

say "submitting ${#configs[@]} configs at threads $threads (node: $cpus CPUs)"
# --run-args reaches every task's `tfbench run` (here: skip the machine ceilings, for speed).
"$repo/scripts/slurm/submit.sh" --tfbench "$tfbench" --threads "$threads" --out "$results" \
  --time 15 --run-args "--no-ceilings" "${configs[@]}" || fail "submit.sh failed"
# shellcheck source=/dev/null
source "$results/jobs.env"
read -r -a all_jobs <<< "$ARRAY_JOBS $MERGE_JOB"

deadline=$((SECONDS + timeout_s))
while [ -n "$(squeue -h -j "$(IFS=,; echo "${all_jobs[*]}")" 2>/dev/null)" ]; do
  [ $SECONDS -lt $deadline ] || fail "jobs still queued or running after $timeout_s s"
  sleep 2
done
say "all jobs left the queue after $((SECONDS - t_start)) s"

state_of() {  # the distinct states of a job (of every task of an array)
  scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort -u | tr '\n' ' '
}
for j in $ARRAY_JOBS; do
  s=$(state_of "$j")
  [ "$s" = "JobState=COMPLETED " ] || { cat "$LOGS"/*.out >&2 || true; fail "array job $j: $s"; }
done
s=$(state_of "$MERGE_JOB")
[ "$s" = "JobState=COMPLETED " ] || { cat "$LOGS"/*.out >&2 || true; fail "merge job $MERGE_JOB: $s"; }
[ -s "$MERGED" ] || fail "no merged file at $MERGED"

# The merged file: one complete, verified run per (config, thread configuration), provenance kept.
REPO=$repo /usr/bin/python3 - "$MERGED" "$threads" "$cpus" "${configs[@]}" <<'PY' || fail "merged file check failed"
import os
import sys
sys.path.insert(0, os.path.join(os.environ["REPO"], "scripts"))
from tfbench_results import load
merged, threads, cpus, configs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
want_threads = sorted({1 if t == "1" else cpus for t in threads.split(",")})
f = load(merged)
seen = set()
problems = []
for run in f.runs:
    cfg = run["config_paths"]
    ts = sorted({int(w["threads"]) for w in run.workers})
    if len(ts) != 1:
        problems.append(f"{run.id}: workers at {ts}, expected one thread configuration")
        continue
    seen.add((cfg, ts[0]))
    for w in run.workers:
        if not (w.verified and w["kokkos_threads"] == ts[0] and w["blas_threads"] == ts[0]):
            problems.append(f"{run.id}: worker not verified: {dict(w)}")
        if w["affinity_cpus"] != ts[0]:
            problems.append(f"{run.id}: affinity {w['affinity_cpus']} CPUs for {ts[0]} threads "
                            "(task/affinity binds a task to its --cpus-per-task)")
    for attr in ("git_revision", "hostname", "cpu_model", "command_line", "start_utc", "end_utc"):
        if not run[attr]:
            problems.append(f"{run.id}: provenance attribute {attr} empty")
    if run["status"] != "complete":
        problems.append(f"{run.id}: status {run['status']}")
    for arg in (f"--threads {ts[0]}", "--no-ceilings"):
        if arg not in run["command_line"]:
            problems.append(f"{run.id}: command line lacks {arg}: {run['command_line']}")
    if not any(r.ok for r in run.rows):
        problems.append(f"{run.id}: no ok rows")
    if not run.configs or "bandwidth_control" not in run.configs[0]:
        problems.append(f"{run.id}: config text not kept")
expected = {(c, t) for c in configs for t in want_threads}
if seen != expected:
    problems.append(f"runs for {sorted(seen)}, expected {sorted(expected)}")
for p in problems:
    print("merged check:", p, file=sys.stderr)
print(f"merged check: {len(f.runs)} runs, (config, threads) = {sorted(seen)}")
sys.exit(1 if problems else 0)
PY
say "merged file checked ($((SECONDS - t_start)) s)"

# Failure policy: a task that fails does not block the merge (afterany); the merge job merges what
# exists, names what is missing, and ends FAILED.
cat > "$work/broken.yaml" <<'YAML'
benchmarks:
  - family: no_such_family
YAML
"$repo/scripts/slurm/submit.sh" --tfbench "$tfbench" --threads 1 --out "$work/partial" \
  --time 15 "$work/triad_small.yaml" "$work/broken.yaml" >/dev/null || fail "submit.sh (partial) failed"
# shellcheck source=/dev/null
source "$work/partial/jobs.env"
deadline=$((SECONDS + timeout_s))
while [ -n "$(squeue -h -j "${ARRAY_JOBS// /,},$MERGE_JOB" 2>/dev/null)" ]; do
  [ $SECONDS -lt $deadline ] || fail "partial submission still queued after $timeout_s s"
  sleep 2
done
s=$(state_of "$MERGE_JOB")
[ "$s" = "JobState=FAILED " ] || fail "merge job of a set with a failed task: $s, expected FAILED"
grep -q "INCOMPLETE: missing .*broken-t1.h5" "$LOGS"/tfbench-merge-*.out ||
  { cat "$LOGS"/*.out >&2; fail "the merge log does not name the missing part"; }
/usr/bin/python3 "$repo/scripts/check_results.py" "$MERGED" --runs 1 --threads 1 >/dev/null ||
  fail "the partial merge does not hold the one good run"
say "failure policy checked: merge job FAILED, good run merged, missing part named"
