#!/usr/bin/env bash
# scripts/slurm/submit.sh without a cluster: `--threads max` when sinfo fails or prints nothing
# exits 2 with a message (it exited 1 silently), and `--dry-run` prints the sbatch commands and
# writes no file (it created the output folder and its env files). A stub sinfo on PATH stands in
# for Slurm.
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
submit() {  # submit SINFO_SCRIPT ARGS...: runs submit.sh with that stub sinfo; sets rc, stderr
  printf '#!/bin/sh\n%s\n' "$1" >"$work/bin/sinfo"
  chmod +x "$work/bin/sinfo"
  shift
  rc=0
  PATH=$work/bin:$PATH "$repo/scripts/slurm/submit.sh" --tfbench "$tfbench" "$@" "$config" \
    >"$work/stdout" 2>"$work/stderr" || rc=$?
  stderr=$(cat "$work/stderr")
}

submit 'echo "sinfo: error: Unable to contact slurm controller" >&2; exit 1' --threads max --out "$work/a"
[ "$rc" = 2 ] || fail "failing sinfo: exit $rc, expected 2 ($stderr)"
[[ "$stderr" == *"cannot resolve 'max': sinfo failed: sinfo: error: Unable to contact slurm controller"* ]] ||
  fail "failing sinfo: message '$stderr'"
[ ! -e "$work/a" ] || fail "failing sinfo: $work/a was created"

submit 'exit 0' --threads 1,max --dry-run --out "$work/b"
[ "$rc" = 2 ] && [[ "$stderr" == *"sinfo printed no CPU count"* ]] || fail "empty sinfo: exit $rc ($stderr)"

submit 'echo 8; echo "4+"' --threads 1,max --dry-run --out "$work/c"
[ "$rc" = 0 ] || fail "dry run: exit $rc ($stderr)"
[ ! -e "$work/c" ] || fail "dry run wrote $(find "$work/c" | tr '\n' ' ')"
[[ "$stderr" == *"sbatch --array=0-0 --cpus-per-task=4 "* ]] || fail "dry run: 'max' is the smallest node's 4 CPUs: $stderr"
[[ "$stderr" == *"dry run: would write $work/c/jobs.env"* ]] || fail "dry run names the files: $stderr"
grep -q "merge job DRY3" "$work/stdout" || fail "dry run prints the merge job: $(cat "$work/stdout")"
echo "[submit_test] PASSED"
