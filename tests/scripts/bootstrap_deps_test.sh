#!/usr/bin/env bash
# scripts/bootstrap.sh --kokkos 4.6.99 before it builds anything: an absent snapshot folder exits 3 (the
# CI stage then skips with a message), a corrupted snapshot fails its checksum, an unknown version is
# refused. Runs on an empty cache with TFBENCH_SKIP_APT=1, so nothing is installed or built.
#   bootstrap_deps_test.sh REPO_DIR WORK_DIR [DEPS_DIR]
set -uo pipefail
repo=$1 work=$2 deps=${3:-}
rm -rf "$work"; mkdir -p "$work/cache"
export TFBENCH_CACHE=$work/cache TFBENCH_SKIP_APT=1
unset Kokkos_ROOT KokkosKernels_ROOT
fail() { echo "FAIL: $*" >&2; exit 1; }
passed=0

TFBENCH_DEPS=$work/no-such-folder "$repo/scripts/bootstrap.sh" --kokkos 4.6.99 >"$work/absent.log" 2>&1
rc=$?
[ "$rc" = 3 ] || { cat "$work/absent.log"; fail "absent snapshots: exit $rc, expected 3"; }
grep -q "not found (set TFBENCH_DEPS" "$work/absent.log" || { cat "$work/absent.log"; fail "absent snapshots: no message"; }
echo "ok: absent snapshots exit 3 with a message"; passed=$((passed + 1))

"$repo/scripts/bootstrap.sh" --kokkos 5.0.0 >"$work/version.log" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q "supported are 3.4.1" "$work/version.log" || { cat "$work/version.log"; fail "unknown version not refused"; }
echo "ok: an unknown version is refused"; passed=$((passed + 1))

if [ -n "$deps" ] && [ -f "$deps/SHA256SUMS" ]; then
  mkdir -p "$work/bad"
  cp "$deps"/*.tar.gz "$deps/SHA256SUMS" "$work/bad/" && chmod u+w "$work/bad"/*
  printf 'x' >>"$work/bad/kokkos-4.6.99-28848dfa8.tar.gz"
  TFBENCH_DEPS=$work/bad "$repo/scripts/bootstrap.sh" --kokkos 4.6.99 >"$work/bad.log" 2>&1
  rc=$?
  [ "$rc" = 1 ] && grep -q "checksum mismatch" "$work/bad.log" || { cat "$work/bad.log"; fail "a corrupted snapshot was not refused (exit $rc)"; }
  [ ! -e "$work/cache/src" ] || [ -z "$(ls -A "$work/cache/src" 2>/dev/null | grep -v '\.tmp$')" ] \
    || fail "a corrupted snapshot left sources in the cache"
  echo "ok: a corrupted snapshot fails its checksum"; passed=$((passed + 1))
else
  echo "skipped: no snapshot folder to corrupt a copy of"
fi
rm -rf "$work"
echo "$passed passed, 0 failed"
