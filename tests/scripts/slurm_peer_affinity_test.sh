#!/usr/bin/env bash
# The Python peer stays inside the CPU set the worker was given (Slurm's binding, taskset): it
# used to be widened to every CPU of the machine. Runs one peer:numpy case under `taskset -c C`
# (C = the last CPU this test may use) with the interpreter replaced by a wrapper that records its
# own Cpus_allowed_list before it execs /usr/bin/python3; that list must be exactly C. Pinned and
# unpinned (--no-pin) workers both; and without taskset a pinned worker's peer (started from a
# thread pinned to one core) still gets the whole set the test was given, not that one core.
#
#   tests/scripts/slurm_peer_affinity_test.sh WORK_DIR        (TFBENCH=path/to/tfbench)
#
# Exit 0 pass, 1 fail, 77 skipped (one CPU only, or no /usr/bin/python3 with NumPy).
set -euo pipefail

work=${1:?usage: slurm_peer_affinity_test.sh WORK_DIR}
tfbench=${TFBENCH:?set TFBENCH to the tfbench executable}
fail() { printf '[peer_affinity] FAILED: %s\n' "$*" >&2; exit 1; }
skip() { printf '[peer_affinity] SKIPPED: %s\n' "$*" >&2; exit 77; }

[ "$(nproc)" -ge 2 ] || skip "one CPU: a narrowed set cannot differ from the whole machine"
/usr/bin/python3 -c 'import numpy' 2>/dev/null || skip "/usr/bin/python3 has no NumPy"
cpu=$(awk '/^Cpus_allowed_list/{print $2}' /proc/self/status | tr ',' '\n' | tail -n1)
cpu=${cpu##*-}
whole=$(awk '/^Cpus_allowed_list/{print $2}' /proc/self/status)

rm -rf "$work"
mkdir -p "$work"
cat > "$work/python" <<WRAP
#!/bin/sh
grep '^Cpus_allowed_list' /proc/self/status | awk '{print \$2}' >> "$work/peer_cpus"
exec /usr/bin/python3 "\$@"
WRAP
chmod +x "$work/python"
cat > "$work/peer.yaml" <<'YAML'
benchmarks:
  - family: compute_control
    params: {n: 16}
    variants: [peer:numpy]
    repetitions: 2
    min_time: 0.001
YAML

for mode in pinned unpinned whole; do
  rm -f "$work/peer_cpus"
  args=() expect=$cpu launcher=(taskset -c "$cpu")
  [ $mode != unpinned ] || args=(--no-pin)
  [ $mode != whole ] || { expect=$whole launcher=(); }
  TFBENCH_PYTHON=$work/python "${launcher[@]}" "$tfbench" run "$work/peer.yaml" --threads 1 \
    --no-ceilings --out "$work/$mode.h5" "${args[@]}" >"$work/$mode.log" 2>&1 ||
    { cat "$work/$mode.log" >&2; fail "$mode: tfbench run ${launcher[*]} failed"; }
  [ -s "$work/peer_cpus" ] || { cat "$work/$mode.log" >&2; fail "$mode: the peer never started"; }
  got=$(sort -u "$work/peer_cpus" | paste -sd' ')
  [ "$got" = "$expect" ] ||
    fail "$mode: the Python peer's allowed CPUs are '$got', expected '$expect' (${launcher[*]:-no taskset})"
  echo "[peer_affinity] $mode: peer allowed CPUs $got (${launcher[*]:-no taskset}, worker ${args[*]:-pinned})"
done
echo "[peer_affinity] PASSED"
