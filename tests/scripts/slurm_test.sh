#!/usr/bin/env bash
# Integration test of scripts/slurm/ on a real single-node Slurm cluster on this machine:
# installs slurm-wlm + munge if missing, starts munged/slurmctld/slurmd under a test-owned state
# folder (inside a private network namespace when possible, so loopback is all they can reach),
# submits two configs as a job array (whole nodes, each task running 1 and N threads in one srun
# step) plus the dependent merge job, waits, checks the merged file (every task's run present with
# its provenance, workers at 1 and N threads verified and pinned, a 1 -> N scaling target computed
# by target_report.py), that an invalid config queues nothing, and the failure policy; then tears
# the cluster down.
#
#   tests/scripts/slurm_test.sh WORK_DIR        (TFBENCH=path/to/tfbench)
#
# Exit 0 pass, 1 fail, 77 skipped (Slurm cannot be installed or started here: no root, no sudo).
set -euo pipefail

work=${1:?usage: slurm_test.sh WORK_DIR}
timeout_s=${TFBENCH_SLURM_TIMEOUT:-900}
# shellcheck disable=SC2034  # read by slurm_lib.sh
test_name=slurm_test
# shellcheck source=slurm_lib.sh
source "$(dirname "$0")/slurm_lib.sh"

if [ "${TFBENCH_SLURM_INNER:-0}" != 1 ]; then
  slurm_install_or_skip
  if slurm_can_unshare; then
    say "running the cluster in a private network namespace (loopback only)"
    slurm_reexec_in_private_netns "$0" "$@"
  fi
  say "no private network namespace (needs root): daemons bind to all interfaces on random ports; only holders of the test's munge key can talk to them"
fi

slurm_fresh_work "$work"

started=0
teardown() {
  local rc=$?
  if [ $started = 1 ]; then
    slurm_stop_cluster $rc
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
# A compute-bound batch under Auto: target_report.py's 1 -> N scaling target.
cat > "$work/scaling.yaml" <<'YAML'
benchmarks:
  - family: packed_small
    params: {n: 16, batch: 256}
    variants: [engine:auto]
    repetitions: 5
    min_time: 0.002
YAML
configs=("$work/triad_small.yaml" "$work/scaling.yaml")
jobs_known() { scontrol show job 2>/dev/null | grep -c '^JobId=' || true; }

# An invalid config is refused before anything is queued, with validate's message.
cat > "$work/broken.yaml" <<'YAML'
benchmarks:
  - family: no_such_family
YAML
rc=0
"$repo/scripts/slurm/submit.sh" --tfbench "$tfbench" --out "$work/refused" --time 15 \
  "$work/triad_small.yaml" "$work/broken.yaml" 2>"$work/refused.err" || rc=$?
[ $rc = 2 ] || fail "submit.sh with an invalid config: exit $rc, expected 2"
grep -q "unknown family 'no_such_family'" "$work/refused.err" ||
  fail "validate's message not shown: $(cat "$work/refused.err")"
[ "$(jobs_known)" = 0 ] || fail "an invalid config queued jobs: $(squeue -h)"
[ ! -e "$work/refused" ] || fail "an invalid config wrote $work/refused"
say "invalid config refused before queueing (exit 2, validate's message, no job)"

say "submitting ${#configs[@]} configs, whole nodes, threads 1,max (node: $cpus CPUs)"
# --run-args reaches every task's `tfbench run` (here: skip the machine ceilings, for speed).
"$repo/scripts/slurm/submit.sh" --tfbench "$tfbench" --out "$results" \
  --time 15 --run-args "--no-ceilings" "${configs[@]}" || fail "submit.sh failed"
# shellcheck source=/dev/null
source "$results/jobs.env"
read -r -a all_jobs <<< "$ARRAY_JOBS $MERGE_JOB"
grep -q 'OverSubscribe=NO' <<< "$(scontrol show job "$ARRAY_JOBS")" ||
  fail "the array job is not exclusive: $(scontrol show job "$ARRAY_JOBS" | grep -o 'OverSubscribe=[A-Z]*' | sort -u)"

slurm_wait_jobs "$timeout_s" jobs "${all_jobs[@]}"
say "all jobs left the queue after $((SECONDS - t_start)) s"

for j in $ARRAY_JOBS; do
  s=$(slurm_state_of "$j")
  [ "$s" = "JobState=COMPLETED " ] || { cat "$LOGS"/*.out >&2 || true; fail "array job $j: $s"; }
done
s=$(slurm_state_of "$MERGE_JOB")
[ "$s" = "JobState=COMPLETED " ] || { cat "$LOGS"/*.out >&2 || true; fail "merge job $MERGE_JOB: $s"; }
[ -s "$MERGED" ] || fail "no merged file at $MERGED"
# Each task ran as an srun step bound to cores (the array task prints the srun line, the step its
# step id and the binding Slurm gave it).
for i in 0 1; do
  log=$LOGS/tfbench-${ARRAY_JOBS}_$i.out
  grep -q "tfbench-array: srun .*--cpu-bind=cores" "$log" &&
    grep -qE "tfbench-step: step [0-9]+\.0 on .*Slurm binding .*mask_cpu" "$log" ||
    { cat "$log" >&2; fail "task $i did not run as an srun step bound with --cpu-bind=cores"; }
done

# The merged file: one complete, verified run per (config, thread configuration), provenance kept.
REPO=$repo /usr/bin/python3 - "$MERGED" "$cpus" "${configs[@]}" <<'PY' || fail "merged file check failed"
import os
import sys
sys.path.insert(0, os.path.join(os.environ["REPO"], "scripts"))
from tfbench_results import load
merged, cpus, configs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
want_threads = sorted({1, cpus})
f = load(merged)
seen = set()
problems = []
for run in f.runs:
    cfg = run["config_paths"]
    ts = sorted({int(w["threads"]) for w in run.workers})
    if ts != want_threads:
        problems.append(f"{run.id}: workers at {ts}, expected {want_threads} in one run")
    rows_at = sorted({int(r["threads"]) for r in run.rows if r.ok})
    if rows_at != want_threads:
        problems.append(f"{run.id}: ok rows at {rows_at} threads, expected {want_threads}")
    seen.add(cfg)
    for w in run.workers:
        t = int(w["threads"])
        if not (w.verified and w["kokkos_threads"] == t and w["blas_threads"] == t):
            problems.append(f"{run.id}: worker not verified: {dict(w)}")
        if w["affinity_cpus"] != cpus:
            problems.append(f"{run.id}: affinity {w['affinity_cpus']} CPUs, expected the whole node's "
                            f"{cpus} (--exclusive, the step bound to all its cores)")
        places = (w.get("binding") or "").split(" ")
        omp = places[1].split(":")[1].split(",") if len(places) > 1 and ":" in places[1] else []
        if places[0] != "cores" or len(omp) != t or len(set(omp)) != t:
            problems.append(f"{run.id}: {t}-thread worker not pinned one thread per core: "
                            f"binding {w.get('binding')!r}")
    for attr in ("git_revision", "hostname", "cpu_model", "command_line", "start_utc", "end_utc"):
        if not run[attr]:
            problems.append(f"{run.id}: provenance attribute {attr} empty")
    if run["status"] != "complete":
        problems.append(f"{run.id}: status {run['status']}")
    for arg in ("--threads " + ",".join(map(str, want_threads)), "--no-ceilings"):
        if arg not in run["command_line"]:
            problems.append(f"{run.id}: command line lacks {arg}: {run['command_line']}")
    if not any(r.ok for r in run.rows):
        problems.append(f"{run.id}: no ok rows")
    if not run.configs or run.configs[0].strip() != open(cfg).read().strip():
        problems.append(f"{run.id}: config text not kept")
if seen != set(configs) or len(f.runs) != len(configs):
    problems.append(f"{len(f.runs)} runs for {sorted(seen)}, expected one per config {sorted(configs)}")
for p in problems:
    print("merged check:", p, file=sys.stderr)
print(f"merged check: {len(f.runs)} runs, threads {want_threads} each; bindings: " +
      "; ".join(f"{w['threads']}t {w.get('binding')}" for r in f.runs for w in r.workers))
sys.exit(1 if problems else 0)
PY
say "merged file checked ($((SECONDS - t_start)) s)"
if [ "$cpus" -ge 2 ]; then
  report=$(/usr/bin/python3 "$repo/scripts/target_report.py" "$MERGED") || fail "target_report.py failed"
  grep -q "Auto speed-up, 1 -> $cpus threads" <<< "$report" ||
    fail "target_report.py computed no 1 -> $cpus scaling target from the merged file: $report"
  say "target_report.py: $(grep "Auto speed-up" <<< "$report" | head -n1)"
fi

# Failure policy: a task that fails does not block the merge (afterany); the merge job merges what
# exists, names what is missing, and ends FAILED. The failing task's config is valid; its worker is
# made to crash (fault injection, exported to the job). Unpinned (--no-pin), on shared nodes.
cat > "$work/crashing.yaml" <<'YAML'
benchmarks:
  - family: bandwidth_control
    params: {elements: [1048576]}
    repetitions: 3
    min_time: 0.002
YAML
TFBENCH_FAULT_INJECT='crash:bandwidth_control/elements=1048576/*' \
  "$repo/scripts/slurm/submit.sh" --tfbench "$tfbench" --threads 1 --share --no-pin --mem 1G \
  --out "$work/partial" --time 15 --run-args "--no-ceilings" "$work/triad_small.yaml" \
  "$work/crashing.yaml" >/dev/null || fail "submit.sh (partial) failed"
# shellcheck source=/dev/null
source "$work/partial/jobs.env"
# shellcheck disable=SC2086
slurm_wait_jobs "$timeout_s" "the partial submission" $ARRAY_JOBS "$MERGE_JOB"
s=$(slurm_state_of "$MERGE_JOB")
[ "$s" = "JobState=FAILED " ] || fail "merge job of a set with a failed task: $s, expected FAILED"
grep -q "INCOMPLETE: missing .*crashing.h5 .*unchecked output: .*crashing.partial.h5" \
  "$LOGS"/tfbench-merge-*.out || { cat "$LOGS"/*.out >&2; fail "the merge log does not name the missing part"; }
/usr/bin/python3 "$repo/scripts/check_results.py" "$MERGED" --runs 1 --threads 1 >/dev/null ||
  fail "the partial merge does not hold the one good run"
/usr/bin/python3 "$repo/scripts/slurm/check_part.py" "$MERGED" --threads 1 --expect-unpinned >/dev/null ||
  fail "the --no-pin run's worker is not recorded unpinned (binding 'off')"
say "failure policy checked: merge job FAILED, good (unpinned) run merged, missing part named"
