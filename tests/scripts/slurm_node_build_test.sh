#!/usr/bin/env bash
# scripts/slurm/tfbench-node-build.sh (submit.sh --build-on-node / --arch) without a cluster and
# without a real build: a stub build command (TFBENCH_NODE_BUILD) records each build and leaves an
# executable where scripts/build.sh would, and fake /proc/cpuinfo files stand for node types.
# Checks: three concurrent tasks of one node type make one build and get one path (the lock); a
# later task reuses it; another CPU's ISA flags or another --arch is another node type, built
# again, with TFBENCH_ARCH passed to the build; a failing build fails the task, marks nothing, and
# the next task builds again; the build is a clone at the repository's HEAD. And submit.sh writes
# --build-on-node, --arch, --build-cache and --profile into job.env (stub sbatch).
#
#   tests/scripts/slurm_node_build_test.sh WORK_DIR        (TFBENCH=path/to/tfbench)
set -euo pipefail

fail() { printf '[node_build] FAILED: %s\n' "$*" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$repo/scripts/slurm/tfbench-node-build.sh
tfbench=${TFBENCH:?set TFBENCH to the tfbench executable}
work=${1:?usage: slurm_node_build_test.sh WORK_DIR}

rm -rf "$work"
mkdir -p "$work/bin"
cat > "$work/stub-build" <<EOF2
#!/bin/sh
# A stand-in for scripts/build.sh: records where and for which TFBENCH_ARCH it ran.
[ -z "\${STUB_FAIL:-}" ] || { echo "stub build fails" >&2; exit 1; }
echo "arch=\${TFBENCH_ARCH-unset} pwd=\$PWD" >> "$work/builds"
sleep 1
mkdir -p build/default/harness
printf '#!/bin/sh\necho stub tfbench\n' > build/default/harness/tfbench
chmod +x build/default/harness/tfbench
EOF2
chmod +x "$work/stub-build"
cpuinfo() {  # $1 = file, $2 = flags
  printf 'processor\t: 0\nmodel name\t: Test CPU 9000\nflags\t\t: %s\n\n' "$2" > "$1"
}
cpuinfo "$work/cpu-a" "fpu sse2 avx2 fma"
cpuinfo "$work/cpu-b" "fpu sse2 avx2 fma avx512f"
job_env() {  # $1 = file, $2 = arch
  cat > "$1" <<ENV
TFBENCH_SCRIPTS=$repo/scripts
TFBENCH_BUILD_CACHE=$work/cache
TFBENCH_NODE_ARCH=$2
TFBENCH_NODE_BUILD=$work/stub-build
ENV
}
job_env "$work/job.env" ""
job_env "$work/job-v3.env" "x86-64-v3"
job_env "$work/job-v4.env" "x86-64-v4"
builds() { [ -f "$work/builds" ] && wc -l < "$work/builds" || echo 0; }

# Three tasks of one node type at once: one build, one path.
for i in 1 2 3; do
  TFBENCH_JOB_ENV=$work/job.env TFBENCH_CPUINFO=$work/cpu-a "$build" >"$work/path$i" 2>"$work/err$i" &
done
wait
[ "$(builds)" = 1 ] || fail "3 concurrent tasks of one node type: $(builds) builds: $(cat "$work/builds")"
a=$(cat "$work/path1")
[ "$(cat "$work/path2")" = "$a" ] && [ "$(cat "$work/path3")" = "$a" ] ||
  fail "the tasks got different paths: $(cat "$work"/path*)"
[ -x "$a" ] && [ "$("$a")" = "stub tfbench" ] || fail "no executable at $a"
# Without --arch the build still gets TFBENCH_ARCH=native: build.sh keys its ccache per CPU then.
grep -q "arch=native pwd=$work/cache/.*/src" "$work/builds" || fail "build ran elsewhere: $(cat "$work/builds")"
[ "$(git -C "$(dirname "$a")/../../.." rev-parse HEAD)" = "$(git -C "$repo" rev-parse HEAD)" ] ||
  fail "the build's sources are not a clone at the repository's HEAD"
grep -q "reusing $a" "$work"/err* || fail "no task reported reusing the build: $(cat "$work"/err*)"

# A later task of that type reuses it.
TFBENCH_JOB_ENV=$work/job.env TFBENCH_CPUINFO=$work/cpu-a "$build" >"$work/path4" 2>"$work/err4"
[ "$(builds)" = 1 ] && [ "$(cat "$work/path4")" = "$a" ] || fail "not reused: $(builds) builds"

# Another ISA (avx512f): another node type, another build and path.
TFBENCH_JOB_ENV=$work/job.env TFBENCH_CPUINFO=$work/cpu-b "$build" >"$work/path5" 2>/dev/null
b=$(cat "$work/path5")
[ "$(builds)" = 2 ] && [ "$b" != "$a" ] || fail "other flags: $(builds) builds, path $b (first $a)"

# --arch: another key, and TFBENCH_ARCH reaches the build.
TFBENCH_JOB_ENV=$work/job-v3.env TFBENCH_CPUINFO=$work/cpu-a "$build" >"$work/path6" 2>/dev/null
c=$(cat "$work/path6")
[ "$(builds)" = 3 ] && [ "$c" != "$a" ] && tail -n1 "$work/builds" | grep -q "^arch=x86-64-v3 " ||
  fail "--arch x86-64-v3: $(builds) builds, path $c: $(tail -n1 "$work/builds")"
grep -q "arch=x86-64-v3" "$(dirname "$c")/../../../../node-type.txt" || fail "node-type.txt lacks the arch"

# A failing build: the task fails, nothing is marked, the next task builds.
rc=0
STUB_FAIL=1 TFBENCH_JOB_ENV=$work/job-v4.env TFBENCH_CPUINFO=$work/cpu-a "$build" >/dev/null \
  2>"$work/err7" || rc=$?
[ $rc = 1 ] || fail "failing build: exit $rc, expected 1"
grep -q "FAILED: .*failed after" "$work/err7" || fail "failing build: $(cat "$work/err7")"
TFBENCH_JOB_ENV=$work/job-v4.env TFBENCH_CPUINFO=$work/cpu-a "$build" >"$work/path8" 2>/dev/null
[ "$(builds)" = 4 ] && tail -n1 "$work/builds" | grep -q "^arch=x86-64-v4 " ||
  fail "after a failed build the next task did not build again: $(builds) builds"

# submit.sh: the options reach job.env (stub sbatch; --dry-run would write nothing).
cat > "$work/bin/sbatch" <<'EOF2'
#!/bin/sh
echo 7
EOF2
chmod +x "$work/bin/sbatch"
printf 'module load gcc/12\n' > "$work/site.profile"
PATH=$work/bin:$PATH TFBENCH_SLURM_PROFILE=$work/site.profile "$repo/scripts/slurm/submit.sh" \
  --tfbench "$tfbench" --arch x86-64-v3 --build-cache "$work/nodes" --out "$work/sub" \
  "$repo/tests/e2e/configs/tiny.yaml" >"$work/submit.out" 2>&1 || fail "submit.sh: $(cat "$work/submit.out")"
for line in "TFBENCH_BUILD_ON_NODE=1" "TFBENCH_NODE_ARCH=x86-64-v3" "TFBENCH_BUILD_CACHE=$work/nodes" \
    "TFBENCH_PROFILE=$work/site.profile"; do
  grep -qxF "$line" "$work/sub/job.env" || fail "job.env lacks $line: $(cat "$work/sub/job.env")"
done
grep -q "built on each node type (TFBENCH_ARCH x86-64-v3)" "$work/submit.out" || fail "$(cat "$work/submit.out")"
rc=0
PATH=$work/bin:$PATH "$repo/scripts/slurm/submit.sh" --tfbench "$tfbench" --profile "$work/none" \
  --out "$work/sub2" "$repo/tests/e2e/configs/tiny.yaml" >/dev/null 2>"$work/submit2.err" || rc=$?
[ $rc = 2 ] && grep -q "site profile not readable" "$work/submit2.err" && [ ! -e "$work/sub2" ] ||
  fail "a missing profile: exit $rc, $(cat "$work/submit2.err")"
echo "[node_build] PASSED ($(builds) stub builds for 4 node types, 8 tasks)"
