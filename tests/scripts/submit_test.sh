#!/usr/bin/env bash
# scripts/slurm/submit.sh without a cluster: stub sinfo and sbatch on PATH stand in for Slurm (the
# stub sbatch records its arguments and prints a job id). Checks: whole nodes (--exclusive, --mem=0)
# by default and no sinfo needed; --share asks for --cpus-per-task = the largest count with
# --hint=nomultithread, and its `max` is the smallest node's physical cores (sockets x cores from
# sinfo %z, not its hardware threads); a failing or empty sinfo there exits 2 with a message;
# --no-pin reaches `tfbench run`; an invalid config is refused by `tfbench validate` before anything
# is queued or written; --dry-run writes nothing.
#
#   tests/scripts/submit_test.sh WORK_DIR        (TFBENCH=path/to/tfbench)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${1:?usage: submit_test.sh WORK_DIR}
tfbench=${TFBENCH:?set TFBENCH to the tfbench executable}
fail() { printf '[submit_test] FAILED: %s\n' "$*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/bin"
config=$repo/tests/e2e/configs/tiny.yaml
cat >"$work/bin/sbatch" <<EOF2
#!/bin/sh
echo "\$*" >> "$work/sbatch.calls"
n=\$(wc -l < "$work/sbatch.calls")
echo "\$((100 + n))"
EOF2
chmod +x "$work/bin/sbatch"
submit() {  # submit SINFO_SCRIPT ARGS... (configs included): runs submit.sh; sets rc, stderr
  printf '#!/bin/sh\n%s\n' "$1" >"$work/bin/sinfo"
  chmod +x "$work/bin/sinfo"
  shift
  rm -f "$work/sbatch.calls"
  rc=0
  PATH=$work/bin:$PATH "$repo/scripts/slurm/submit.sh" --tfbench "$tfbench" "$@" \
    >"$work/stdout" 2>"$work/stderr" || rc=$?
  stderr=$(cat "$work/stderr")
}
no_sinfo='echo "sinfo must not be called" >&2; exit 1'

# Whole nodes by default: no sinfo, `max` is left to the node.
submit "$no_sinfo" --dry-run --out "$work/a" "$config"
[ "$rc" = 0 ] || fail "default dry run: exit $rc ($stderr)"
[ ! -e "$work/a" ] || fail "dry run wrote $(find "$work/a" | tr '\n' ' ')"
[[ "$stderr" == *"sbatch --array=0-0 --nodes=1 --ntasks=1 --exclusive --mem=0 "* ]] ||
  fail "default: whole nodes with all their memory: $stderr"
[[ "$stderr" == *"dry run: would write $work/a/jobs.env"* ]] || fail "dry run names the files: $stderr"
grep -q "each at threads 1,max on one node" "$work/stdout" || fail "default threads 1,max: $(cat "$work/stdout")"
grep -q "merge job DRY2" "$work/stdout" || fail "dry run prints the merge job: $(cat "$work/stdout")"

# --share: max = physical cores of the smallest node (2 sockets x 8 cores x 2 threads, 1 x 4 x 2).
submit 'echo "2:8:2"; echo "1:4:2"' --share --threads 1,max --dry-run --out "$work/b" "$config"
[ "$rc" = 0 ] || fail "--share dry run: exit $rc ($stderr)"
[[ "$stderr" == *"--cpus-per-task=4 --hint=nomultithread --mem=8G "* ]] ||
  fail "--share: 'max' is the smallest node's 4 cores, one thread each: $stderr"
[[ "$stderr" != *"--exclusive"* ]] || fail "--share still asks for --exclusive: $stderr"

submit 'echo "sinfo: error: Unable to contact slurm controller" >&2; exit 1' --share --threads max \
  --out "$work/c" "$config"
[ "$rc" = 2 ] || fail "failing sinfo: exit $rc, expected 2 ($stderr)"
[[ "$stderr" == *"cannot resolve 'max' under --share: sinfo failed: sinfo: error: Unable to contact slurm controller"* ]] ||
  fail "failing sinfo: message '$stderr'"
[ ! -e "$work/c" ] || fail "failing sinfo: $work/c was created"

submit 'exit 0' --share --threads 1,max --dry-run --out "$work/d" "$config"
[ "$rc" = 2 ] && [[ "$stderr" == *"sinfo printed no socket:core:thread counts"* ]] ||
  fail "empty sinfo: exit $rc ($stderr)"

# A real submission (stub sbatch): the files and the arguments every job gets.
submit "$no_sinfo" --no-pin --threads 1,2 --mem 4G --partition p --out "$work/e" "$config"
[ "$rc" = 0 ] || fail "submission: exit $rc ($stderr)"
[ "$(wc -l < "$work/sbatch.calls")" = 2 ] || fail "expected 2 sbatch calls: $(cat "$work/sbatch.calls")"
head -n1 "$work/sbatch.calls" | grep -q -- "--exclusive --mem=4G --partition=p .*tfbench-array.sbatch" ||
  fail "array job arguments: $(head -n1 "$work/sbatch.calls")"
sed -n 2p "$work/sbatch.calls" | grep -q -- "--dependency=afterany:101 .*tfbench-merge.sbatch" ||
  fail "merge job arguments: $(sed -n 2p "$work/sbatch.calls")"
grep -q '^TFBENCH_THREAD_LIST=1,2$' "$work/e/job.env" && grep -q '^TFBENCH_PIN=0$' "$work/e/job.env" &&
  grep -q '^TFBENCH_RUN_ARGS=--no-pin$' "$work/e/job.env" || fail "job.env: $(cat "$work/e/job.env")"
grep -q 'ARRAY_JOBS="101"' "$work/e/jobs.env" && grep -q 'MERGE_JOB=102' "$work/e/jobs.env" ||
  fail "jobs.env: $(cat "$work/e/jobs.env")"

# An invalid config: validate's message shown, exit 2, nothing queued, nothing written.
printf 'benchmarks:\n  - family: no_such_family\n' >"$work/broken.yaml"
submit "$no_sinfo" --out "$work/f" "$config" "$work/broken.yaml"
[ "$rc" = 2 ] || fail "invalid config: exit $rc, expected 2 ($stderr)"
[[ "$stderr" == *"broken.yaml:2:13: benchmarks[0].family: unknown family 'no_such_family'"* ]] ||
  fail "invalid config: validate's message not shown: $stderr"
[[ "$stderr" == *"nothing submitted"* ]] || fail "invalid config: $stderr"
[ ! -e "$work/sbatch.calls" ] || fail "invalid config: sbatch was called: $(cat "$work/sbatch.calls")"
[ ! -e "$work/f" ] || fail "invalid config: $work/f was created"
echo "[submit_test] PASSED"
