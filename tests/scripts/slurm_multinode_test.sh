#!/usr/bin/env bash
# Integration test of scripts/slurm/ on a real two-node Slurm cluster on this machine
# (local-cluster.sh start --nodes 2): slurmctld in a private network namespace, two slurmd
# (node1, node2) each in its own network, UTS and mount namespaces with its own address, hostname
# and CPU (a cpuset cgroup where the kernel allows it). Submits three configs with submit.sh's
# defaults (--exclusive --mem=0, threads 1,max), a site profile and --build-on-node with a stub
# build command (one build for the one node type, reused by every other job), then checks:
#   - each node's slurmd -C ran inside its namespaces and named that node;
#   - every task and the merge job COMPLETED, the array exclusive (OverSubscribe=NO);
#   - the tasks ran on both nodes, and no two tasks held one node at the same time (Slurm's job
#     records: NodeList, StartTime, EndTime; and the result files' start/end times per hostname);
#   - each task's step ran on its node's CPU only, and its worker was pinned to that CPU;
#   - merged.h5 holds one complete run per config with ok rows, its hostname the node Slurm
#     says ran that task, run by the node build (the command line's binary);
#   - the control: the same configs as oversubscribable shared tasks (--share --oversubscribe) do
#     put two tasks on one node at once, so the exclusivity check can fail;
#   - after the teardown nothing is left: no daemon, no namespace holder, no process in a node's
#     namespace, no cgroup, no veth or bridge.
#
#   tests/scripts/slurm_multinode_test.sh WORK_DIR        (TFBENCH=path/to/tfbench)
#
# Exit 0 pass, 1 fail, 77 skipped (Slurm cannot be installed, or no root for the namespaces).
set -euo pipefail

work=${1:?usage: slurm_multinode_test.sh WORK_DIR}
timeout_s=${TFBENCH_SLURM_TIMEOUT:-300}
test_name=slurm_multinode
# shellcheck source=slurm_lib.sh
source "$(dirname "$0")/slurm_lib.sh"
here=$repo/tests/scripts
# shellcheck source=../../scripts/slurm/local-nodes.sh
source "$repo/scripts/slurm/local-nodes.sh"  # nodes_leftovers

if [ "${TFBENCH_SLURM_INNER:-0}" != 1 ]; then
  slurm_install_or_skip
  slurm_can_unshare || skip "two nodes need root and network namespaces (unshare --net)"
  for b in nsenter setsid taskset flock; do command -v $b >/dev/null || skip "no $b"; done
  slurm_reexec_in_private_netns "$0" "$@"
fi

slurm_fresh_work "$work"

started=0
teardown() {
  local rc=$? left
  trap - EXIT
  if [ $started = 1 ]; then
    slurm_stop_cluster $rc
    left=$(nodes_leftovers "$state")
    for f in "$state"/run/*.pid "$state"/munge/munged.pid; do
      [ -s "$f" ] && [ -d "/proc/$(cat "$f")" ] && left+=$'\n'"daemon $(basename "$f") (pid $(cat "$f"))"
    done
    if [ -n "${left//$'\n'/}" ]; then
      printf '[%s] FAILED: left after the teardown:%s\n' "$test_name" "${left//$'\n'/$'\n  '}" >&2
      rc=1
    else
      say "teardown complete: no daemon, namespace, cgroup or link left"
    fi
  fi
  [ $rc = 0 ] && say "PASSED in $((SECONDS - t_start)) s" || true
  exit $rc
}
t_start=$SECONDS
trap teardown EXIT
trap 'exit 143' TERM INT

rc=0
started=1
"$repo/scripts/slurm/local-cluster.sh" start "$state" --nodes 2 >/dev/null || rc=$?
[ $rc = 3 ] && skip "a two-node cluster cannot run here"
[ $rc = 0 ] || fail "the two-node cluster did not start (exit $rc)"
export SLURM_CONF=$state/etc/slurm.conf
mode=$(cat "$state/nodes/mode")
say "two nodes up, CPU confinement: $mode ($((SECONDS - t_start)) s)"
for i in 1 2; do
  grep -q "^NodeName=node$i " "$state/nodes/node$i.slurmd-C" ||
    fail "slurmd -C in node $i's namespaces: $(cat "$state/nodes/node$i.slurmd-C")"
done
[ "$(sinfo -h -N -o '%N %T' | sort | paste -sd' ')" = "node1 idle node2 idle" ] ||
  fail "sinfo: $(sinfo -N)"

# Three small configs: three tasks on two nodes, so that one node runs two of them in turn.
configs=()
for name in alpha beta gamma; do
  cat > "$work/$name.yaml" <<'YAML'
benchmarks:
  - family: bandwidth_control
    params: {elements: [4096, 16384]}
    repetitions: 3
    min_time: 0.001
YAML
  configs+=("$work/$name.yaml")
done
# The site profile (module load lines on a real site) and a stub node build: the real tfbench
# copied where scripts/build.sh would leave it (a real build per test would take many minutes).
printf 'export TFBENCH_TEST_PROFILE=%s\necho "profile: on $(hostname)"\n' "loaded" > "$work/site.profile"
cat > "$work/stub-build" <<EOF
#!/bin/sh
echo "\$(hostname) arch=\${TFBENCH_ARCH-unset}" >> "$work/builds"
mkdir -p build/default/harness && cp "$tfbench" build/default/harness/tfbench
EOF
chmod +x "$work/stub-build"

say "submitting ${#configs[@]} configs with the defaults (whole nodes), --build-on-node, a site profile"
TFBENCH_NODE_BUILD=$work/stub-build "$repo/scripts/slurm/submit.sh" --tfbench "$tfbench" \
  --out "$results" --time 10 --profile "$work/site.profile" --build-on-node \
  --build-cache "$work/node-builds" --run-args "--no-ceilings" "${configs[@]}" >/dev/null ||
  fail "submit.sh failed"
# shellcheck source=/dev/null
source "$results/jobs.env"
grep -q 'OverSubscribe=NO' <<< "$(scontrol show job "$ARRAY_JOBS")" ||
  fail "the array job is not exclusive: $(scontrol show job "$ARRAY_JOBS" | grep -o 'OverSubscribe=[A-Z]*' | sort -u)"
slurm_wait_jobs "$timeout_s" jobs "$ARRAY_JOBS" "$MERGE_JOB"
say "all jobs left the queue after $((SECONDS - t_start)) s"
s=$(slurm_state_of "$ARRAY_JOBS")
[ "$s" = "JobState=COMPLETED " ] || { cat "$LOGS"/*.out >&2 || true; fail "array job $ARRAY_JOBS: $s"; }
s=$(slurm_state_of "$MERGE_JOB")
[ "$s" = "JobState=COMPLETED " ] || { cat "$LOGS"/*.out >&2 || true; fail "merge job $MERGE_JOB: $s"; }

# The profile was sourced by every job; one node type, so one build that every other job reused.
[ "$(grep -l "sourced the site profile" "$LOGS"/*.out | wc -l)" = 4 ] ||
  fail "not every job sourced the site profile: $(grep -c "sourced the site profile" "$LOGS"/*.out)"
[ "$(wc -l < "$work/builds")" = 1 ] || fail "one node type, $(wc -l < "$work/builds") builds: $(cat "$work/builds")"
[ "$(grep -l "reusing .*node-builds/.*/tfbench" "$LOGS"/*.out | wc -l)" = 3 ] ||
  fail "the other three jobs did not reuse the node build: $(grep -h "tfbench-node-build" "$LOGS"/*.out)"

# Where and when each task ran (Slurm's records; no accounting database, so scontrol's), each
# task's step CPUs (its log), checked against the merged file.
scontrol -o show job "$ARRAY_JOBS" > "$work/tasks.txt"
for i in 0 1 2; do
  log=$LOGS/tfbench-${ARRAY_JOBS}_$i.out
  node=$(grep -oE '^tfbench-step: step [0-9.]+ on node[0-9]+' "$log" | awk '{print $NF}') ||
    { cat "$log" >&2; fail "task $i: no step line"; }
  cpu=$(cat "$state/nodes/$node.cpu")
  grep -qE "^tfbench-step: step [0-9.]+ on $node: CPUs $cpu \(1 core\(s\)\)" "$log" ||
    { cat "$log" >&2; fail "task $i on $node: the step was not confined to the node's CPU $cpu"; }
  echo "$i $node $cpu"
done > "$work/steps.txt"
REPO=$repo /usr/bin/python3 - "$MERGED" "$work/tasks.txt" "$work/steps.txt" "$work/node-builds" \
    "${configs[@]}" <<'PY' || fail "job records or merged file check failed"
import datetime
import os
import sys
sys.path.insert(0, os.path.join(os.environ["REPO"], "scripts"))
sys.path.insert(0, os.path.join(os.environ["REPO"], "tests", "scripts"))
from slurm_records import overlapping, read_tasks, task_overlaps
from tfbench_results import load

merged, tasks_file, steps_file, builds, configs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
problems = []
tasks = read_tasks(tasks_file)
steps = {int(i): (node, int(cpu)) for i, node, cpu in (l.split() for l in open(steps_file))}
if sorted(tasks) != list(range(len(configs))):
    problems.append(f"array tasks {sorted(tasks)}, expected 0..{len(configs) - 1}")
if {v[0] for v in tasks.values()} != {"node1", "node2"}:
    problems.append(f"tasks ran on {sorted({v[0] for v in tasks.values()})}, expected both nodes")
for a, b, node in task_overlaps(tasks):
    problems.append(f"{a} and {b} held {node} at the same time (Slurm's records)")
for i, (node, *_rest, over) in tasks.items():
    if over != "NO":
        problems.append(f"task {i}: OverSubscribe={over}")
    if steps.get(i, (None,))[0] != node:
        problems.append(f"task {i}: Slurm says {node}, its step log says {steps.get(i)}")

f = load(merged)
by_config = {run["config_paths"]: run for run in f.runs}
spans = []
for i, cfg in enumerate(configs):
    run = by_config.get(cfg)
    if run is None:
        problems.append(f"no run of {cfg} in the merged file")
        continue
    node, cpu = steps.get(i, ("?", -1))
    if run["hostname"] != node:
        problems.append(f"{cfg}: hostname {run['hostname']!r}, but task {i} ran on {node}")
    if run["status"] != "complete" or not any(r.ok for r in run.rows):
        problems.append(f"{cfg}: status {run['status']}, {sum(r.ok for r in run.rows)} ok rows")
    if not run["command_line"].startswith(builds + "/"):
        problems.append(f"{cfg}: not run by the node build: {run['command_line']}")
    for w in run.workers:
        if w["affinity_cpus"] != 1 or not (w.get("binding") or "").startswith(f"cores omp:{cpu}"):
            problems.append(f"{cfg}: worker affinity {w['affinity_cpus']} CPUs, binding "
                            f"{w.get('binding')!r}, expected CPU {cpu} of {node} alone")
    spans.append((run["hostname"], datetime.datetime.fromisoformat(run["start_utc"].rstrip("Z")),
                  datetime.datetime.fromisoformat(run["end_utc"].rstrip("Z")), cfg))
for a, b, node in overlapping(spans):
    problems.append(f"the runs of {a} and {b} overlap on {node} (result files)")
for p in problems:
    print("multinode check:", p, file=sys.stderr)
print("multinode check: " + "; ".join(
    f"task {i} on {tasks[i][0]} {tasks[i][1].time()}-{tasks[i][2].time()} "
    f"({sum(1 for r in by_config[c].rows if r.ok)} ok rows)"
    for i, c in enumerate(configs) if i in tasks and c in by_config))
sys.exit(1 if problems else 0)
PY
say "job records, step CPUs and merged file checked ($((SECONDS - t_start)) s)"

# The control: the same three configs on shared CPUs that the partition lets jobs oversubscribe
# (--share --oversubscribe, one thread each) do put two tasks on one node at once; so the check
# above can see what --exclusive prevents (each node has one allocatable CPU: without
# oversubscription CPU counts alone would keep the tasks apart).
"$repo/scripts/slurm/submit.sh" --tfbench "$tfbench" --out "$work/shared" --time 10 --threads 1 \
  --share --mem 1G --sbatch-arg --oversubscribe --run-args "--no-ceilings" "${configs[@]}" >"$work/shared.out" 2>&1 ||
  fail "submit.sh (the oversubscribed control) failed: $(cat "$work/shared.out")"
# shellcheck source=/dev/null
source "$work/shared/jobs.env"
slurm_wait_jobs "$timeout_s" "the oversubscribed control" "$ARRAY_JOBS" "$MERGE_JOB"
scontrol -o show job "$ARRAY_JOBS" > "$work/shared-tasks.txt"
shared=$(/usr/bin/python3 "$here/slurm_records.py" overlaps "$work/shared-tasks.txt")
[ -n "$shared" ] ||
  fail "control: oversubscribable tasks never shared a node, so the exclusivity check proves nothing: $(cat "$work/shared-tasks.txt")"
say "control: without --exclusive (oversubscribed) $(paste -sd';' <<< "$shared") at the same time"
