#!/usr/bin/env bash
# shellcheck disable=SC2034  # inject_*, nc_*, cfg_*, bin_* are read indirectly: ${!name}
# Performance-regression gate: builds two revisions in separate build trees, runs the CI benchmark
# config for both INTERLEAVED (rounds of one `tfbench run` per side, order alternating
# base,head / head,base so that machine drift hits both alike), merges each side's rounds with
# `tfbench merge`, and gates with `tfbench compare --fail-on-regression`.
#
#   scripts/perf-regression.sh [options] BASE_REV [HEAD_REV]     gate HEAD_REV (default HEAD)
#   scripts/perf-regression.sh --last-change [options] [HEAD_REV]
#                         gate the latest commit at or before HEAD_REV that changed what the gate
#                         builds or runs (every path but docs/ tests/ scripts/ examples/ results/
#                         .ci/ *.md, dotfiles and configs/ other than ci.yaml): BASE_REV is its
#                         parent. What CI runs, so that a docs-only commit still gates the code.
#   scripts/perf-regression.sh --aa [options] [REV]              A/A: REV (default HEAD) against
#                                                                itself; reports the noise floor
# Options:
#   --rounds N            interleaved rounds per side [3]
#   --confirm-rounds N    a REGRESSION must show again in N fresh interleaved rounds per side of
#                         just the regressed cases before the gate fails, judged round by round
#                         (tfbench compare --paired-rounds: sign test over the rounds) [6; 0: no
#                         confirmation; otherwise at least the 6 a sign test needs at alpha 0.05]
#   --config FILE         benchmark config for both sides [each revision's own configs/ci.yaml]
#   --threshold PCT       tfbench compare's default threshold (cases may set their own)
#   --alpha A             significance level of compare's tests (Mann-Whitney U; sign test in the
#                         confirmation)
#   --run-args "ARGS"     extra `tfbench run` arguments (e.g. "--repetitions 9")
#   --out DIR             results, logs and report [results/perf-regression/<base>-<head>]
#   --work-dir DIR        worktrees and build trees, reused between calls
#                         [${TFBENCH_CACHE:-~/.cache/tfbench}/perf-regression]
#   --tfbench-base PATH   use this tfbench for the base side instead of building BASE_REV
#   --tfbench-head PATH   use this tfbench for the head side instead of building HEAD_REV
#   --inject-base SPEC    TFBENCH_FAULT_INJECT=SPEC for the base side's runs (testing the gate)
#   --inject-head SPEC    TFBENCH_FAULT_INJECT=SPEC for the head side's runs (testing the gate)
#   --inject-first-only   inject in the first rounds only, not in the confirmation rounds (tests a
#                         regression that does not reproduce)
#   --report              also write report.md + figures with scripts/compare_results.py
#   --ceilings            measure the machine ceilings in every run (default: --no-ceilings
#                         where the side's tfbench has it; they do not enter the comparison)
#   --jobs N              build jobs [TFBENCH_JOBS or nproc]
#   --clean               remove this call's worktrees afterwards (default: keep them, the 6 most
#                         recently used, so that the next call rebuilds incrementally)
#
# Exit: 0 no regression (also: SKIPPED, when the base revision has no benchmark to run or does not build);
#       1 regression (A/A: the noise of this machine exceeds the threshold);
#       2 usage, build or run error.
# Builds use ccache with CCACHE_BASEDIR set to each worktree, so files unchanged between the two
# revisions (and between calls) are cache hits.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
say() { printf '[perf-regression] %s\n' "$*" >&2; }
die() { printf '[perf-regression] ERROR: %s\n' "$*" >&2; exit 2; }
usage() { awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0" >&2; exit 2; }
t_start=$SECONDS

aa=0 last_change=0 rounds=3 confirm_rounds=6 config="" threshold="" alpha="" run_args="" out="" report=0 ceilings=0 clean=0
work=${TFBENCH_CACHE:-$HOME/.cache/tfbench}/perf-regression
bin_base="" bin_head="" inject_base="" inject_head="" inject_first_only=0 jobs=${TFBENCH_JOBS:-$(nproc)}
revs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --aa) aa=1; shift ;;
    --last-change) last_change=1; shift ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --confirm-rounds) confirm_rounds=${2:?}; shift 2 ;;
    --config) config=${2:?}; shift 2 ;;
    --threshold) threshold=${2:?}; shift 2 ;;
    --alpha) alpha=${2:?}; shift 2 ;;
    --run-args) run_args=${2-}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --work-dir) work=${2:?}; shift 2 ;;
    --tfbench-base) bin_base=${2:?}; shift 2 ;;
    --tfbench-head) bin_head=${2:?}; shift 2 ;;
    --inject-base) inject_base=${2:?}; shift 2 ;;
    --inject-head) inject_head=${2:?}; shift 2 ;;
    --inject-first-only) inject_first_only=1; shift ;;
    --report) report=1; shift ;;
    --ceilings) ceilings=1; shift ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --clean) clean=1; shift ;;
    -h|--help) usage ;;
    -*) say "unknown option $1"; usage ;;
    *) revs+=("$1"); shift ;;
  esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds wants a positive integer, got '$rounds'"
[[ "$confirm_rounds" =~ ^[0-9]+$ ]] || die "--confirm-rounds wants an integer >= 0, got '$confirm_rounds'"
# The confirmation's sign test over n rounds can reach at best p = 2 / 2^n: fewer rounds than it
# needs would let every regression pass unconfirmed.
rounds_for() {  # $1 = significance level -> the fewest rounds whose best p is below it
  awk -v a="$1" 'BEGIN { n = 1; while (2 / 2 ^ n >= a && n < 64) n++; print n }'
}
needed=$(rounds_for "${alpha:-0.05}")
[ "$confirm_rounds" = 0 ] || [ "$confirm_rounds" -ge "$needed" ] ||
  die "--confirm-rounds $confirm_rounds: a sign test over $confirm_rounds rounds cannot reach p < ${alpha:-0.05} (its smallest p is 2/2^$confirm_rounds); use $needed or more, or 0 for no confirmation"
[ $((aa + last_change)) -le 1 ] || die "--aa and --last-change exclude each other"
resolve() {  # rev -> full sha
  git -C "$repo" rev-parse --verify --quiet "$1^{commit}" || die "not a revision of $repo: '$1'"
}

if [ $last_change = 1 ]; then
  [ ${#revs[@]} -le 1 ] || die "--last-change takes at most one revision (HEAD_REV)"
  head_rev=${revs[0]:-HEAD}
  resolve "$head_rev" >/dev/null
  # What the gate builds (the tfbench target, tests off) and runs (configs/ci.yaml); Kokkos comes
  # from this checkout's bootstrap for both sides, so scripts/ does not enter either binary.
  code=$(git -C "$repo" rev-list -1 "$head_rev" -- . ':!docs' ':!tests' ':!scripts' ':!examples' \
    ':!results' ':!.ci' ':!configs' ':!*.md' ':!.*')
  cfg_change=$(git -C "$repo" rev-list -1 "$head_rev" -- configs/ci.yaml)
  if [ -n "$cfg_change" ] && { [ -z "$code" ] || git -C "$repo" merge-base --is-ancestor "$code" "$cfg_change"; }; then
    code=$cfg_change
  fi
  [ -n "$code" ] || die "no commit at or before $head_rev changed what the gate builds or runs"
  if ! git -C "$repo" rev-parse -q --verify "$code^" >/dev/null; then
    say "SKIPPED: the latest change to what the gate builds or runs (${code:0:12}) is the first commit: nothing to compare against"
    exit 0
  fi
  later=$(git -C "$repo" rev-list --count "$code..$head_rev")
  say "--last-change: ${code:0:12} is the latest commit at or before $head_rev that changed what the gate builds or runs ($later later commit(s) did not): base = its parent"
  revs=("$code^" "$head_rev")
fi
if [ $aa = 1 ]; then
  [ ${#revs[@]} -le 1 ] || die "--aa takes one revision"
  base_rev=${revs[0]:-HEAD} head_rev=$base_rev
  [ -z "$bin_base" ] || [ -z "$bin_head" ] || [ "$bin_base" = "$bin_head" ] ||
    die "--aa runs one binary on both sides: give --tfbench-head only"
  bin_head=${bin_head:-$bin_base} bin_base=${bin_head:-$bin_base}
else
  [ ${#revs[@]} -ge 1 ] && [ ${#revs[@]} -le 2 ] || usage
  base_rev=${revs[0]} head_rev=${revs[1]:-HEAD}
fi
[ -z "$config" ] || config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config") ||
  die "config not found: $config"

base_sha=$(resolve "$base_rev")
head_sha=$(resolve "$head_rev")
label="${base_sha:0:12}-${head_sha:0:12}"
[ $aa = 0 ] || label="aa-${head_sha:0:12}"
out=${out:-$repo/results/perf-regression/$label}
mkdir -p "$out/runs" "$out/logs" "$work"
out=$(cd "$out" && pwd)
work=$(cd "$work" && pwd)
rm -f "$out"/runs/*.h5 "$out"/*.h5 "$out/verdict.txt"
skip() { say "SKIPPED: $*"; echo "SKIPPED: $*" > "$out/verdict.txt"; exit 0; }
exec 9>"$work/.lock"
flock -w 3600 9 || die "another perf-regression holds $work/.lock"
if [ $aa = 1 ]; then
  say "A/A: ${head_sha:0:12} ($head_rev) against itself, $rounds round(s) per side -> $out"
else
  say "base ${base_sha:0:12} ($base_rev) vs head ${head_sha:0:12} ($head_rev), $rounds round(s) -> $out"
fi
if [ "$head_rev" = HEAD ] && [ -z "$bin_head" ] && [ -n "$(git -C "$repo" status --porcelain -uno)" ]; then
  say "note: the working tree has uncommitted changes; HEAD is measured as committed"
fi

# ------------------------------------------------------------------ build one revision
build() {  # $1 = sha, $2 = side; prints the tfbench path
  local sha=$1 side=$2 src="$work/src/${1:0:12}" log="$out/logs/build-$2.log"
  git -C "$repo" worktree prune
  if [ ! -e "$src/.git" ]; then
    rm -rf "$src"
    git -C "$repo" worktree add --detach --force "$src" "$sha" >"$log" 2>&1 ||
      die "git worktree add for $side ${sha:0:12} failed (log: $log)"
  fi
  touch "$src"  # recently used: kept by the pruning below
  echo "$src" >> "$work/.used-$$"
  [ -f "$src/CMakePresets.json" ] || die "$side ${sha:0:12} has no CMakePresets.json"
  local t0=$SECONDS
  say "building $side ${sha:0:12} in $src/build/default (log: $log)"
  if ! (cd "$src" &&
        export CCACHE_BASEDIR=$src CCACHE_DIR=${CCACHE_DIR:-${TFBENCH_CACHE:-$HOME/.cache/tfbench}/ccache} &&
        cmake --preset default -DTFBENCH_ENABLE_TESTS=OFF -DTFBENCH_ENABLE_FORMAT_CHECK=OFF &&
        cmake --build build/default -j "$jobs" --target tfbench) >>"$log" 2>&1; then
    tail -n 25 "$log" >&2
    # A base that does not build cannot be compared (the head's own build is what CI checks).
    [ "$side" = base ] && { say "build of base ${sha:0:12} failed (log: $log)"; return 3; }
    die "build of $side ${sha:0:12} failed (log: $log)"
  fi
  say "built $side in $((SECONDS - t0)) s"
  echo "$src/build/default/harness/tfbench"
}

no_injection=""
remove_used_worktrees() {  # --clean: the worktrees this call built in
  local src
  if [ "$clean" = 1 ] && [ -f "$work/.used-$$" ]; then
    while read -r src; do
      git -C "$repo" worktree remove --force "$src" 2>/dev/null || rm -rf "$src"
    done < <(sort -u "$work/.used-$$")
    git -C "$repo" worktree prune
  fi
  rm -f "$work/.used-$$"
}
trap remove_used_worktrees EXIT

prune_worktrees() {  # keep the 6 most recently used worktrees
  local old
  # shellcheck disable=SC2012
  for old in $(ls -1dt "$work"/src/* 2>/dev/null | tail -n +7); do
    git -C "$repo" worktree remove --force "$old" 2>/dev/null || rm -rf "$old"
  done
  git -C "$repo" worktree prune
}

# A revision with nothing to benchmark cannot regress: skip (exit 0) rather than fail CI forever.
if [ -z "$bin_base" ]; then
  git -C "$repo" cat-file -e "$base_sha:CMakePresets.json" 2>/dev/null ||
    skip "base ${base_sha:0:12} has no CMakePresets.json (predates the build)"
  [ -n "$config" ] || git -C "$repo" cat-file -e "$base_sha:configs/ci.yaml" 2>/dev/null ||
    skip "base ${base_sha:0:12} has no configs/ci.yaml"
fi
[ -f "${TFBENCH_CACHE:-$HOME/.cache/tfbench}/kokkos.env" ] ||
  "$repo/scripts/bootstrap.sh" >/dev/null || die "scripts/bootstrap.sh failed"

t_build=$SECONDS
if [ -z "$bin_base" ]; then
  rc=0; bin_base=$(build "$base_sha" base) || rc=$?
  [ $rc = 3 ] && skip "base ${base_sha:0:12} does not build: nothing to compare against"
  [ $rc = 0 ] || exit $rc
fi
if [ $aa = 1 ]; then bin_head=$bin_base
elif [ -z "$bin_head" ]; then
  if [ "$head_sha" = "$base_sha" ]; then bin_head=$bin_base; else bin_head=$(build "$head_sha" head); fi
fi
prune_worktrees
t_build=$((SECONDS - t_build))
# Whether a help text mentions something. The text is read whole first: `help | grep -q` under
# pipefail fails at random once the text is longer than one pipe write (grep exits at the first
# match and tfbench dies of SIGPIPE writing the rest).
help_mentions() {  # $1 = pattern (ERE), $2... = the tfbench command line that prints the help
  local pattern=$1 text
  shift
  text=$("$@" --help 2>&1) || true
  grep -qE -- "$pattern" <<<"$text"
}
has_command() {  # $1 = tfbench, $2 = subcommand: listed by `tfbench --help`
  help_mentions "^[[:space:]]+$2[[:space:]]" "$1"
}
for side in base head; do
  b=bin_$side
  [ -x "${!b}" ] || die "$side tfbench not executable: ${!b}"
  if ! has_command "${!b}" run; then
    [ "$side" = base ] && [ $aa = 0 ] && skip "base ${base_sha:0:12}'s tfbench has no 'run' command"
    die "$side tfbench (${!b}) has no 'run' command"
  fi
done

for sub in merge compare; do
  has_command "$bin_head" $sub || die "head tfbench ($bin_head) has no '$sub' command"
done

cfg_of() {  # $1 = side
  if [ -n "$config" ]; then echo "$config"; return; fi
  local b=bin_$1 src
  src=$(cd "$(dirname "${!b}")/../../.." && pwd)
  if [ -f "$src/configs/ci.yaml" ]; then echo "$src/configs/ci.yaml"
  elif [ -f "$repo/configs/ci.yaml" ]; then echo "$repo/configs/ci.yaml"
  else echo ""; fi
}
cfg_base=$(cfg_of base) cfg_head=$(cfg_of head)
[ -n "$cfg_head" ] || die "no configs/ci.yaml for the head side (give --config)"
[ -n "$cfg_base" ] || skip "no configs/ci.yaml for the base side"

# Machine ceilings (a dgemm and a triad per worker) do not enter the comparison: skip them where
# the side's tfbench can.
nc_base="" nc_head=""
for side in base head; do
  b=bin_$side
  if [ "$ceilings" = 0 ] && help_mentions --no-ceilings "${!b}" run; then
    printf -v "nc_$side" '%s' --no-ceilings
  fi
done

# Workers unpinned where the side's tfbench pins by default: on a shared CI machine a pinned thread
# stalls whenever another process takes its core (docs/cli.md, "Pinning": within-run cv 37% pinned
# against 21% unpinned on the 2-core development machine), and the gate compares two sides, not
# the machine's best (TFBENCH_PERF_PIN=1 keeps pinning).
if [ "${TFBENCH_PERF_PIN:-0}" != 1 ]; then
  for side in base head; do
    b=bin_$side
    if help_mentions --no-pin "${!b}" run; then
      v=nc_$side
      printf -v "nc_$side" '%s' "${!v:+${!v} }--no-pin"
    fi
  done
fi

# Auto on its built-in preference on both sides: a calibration of each side would compare two
# calibrations (each a noisy measurement) rather than two revisions' code (docs/tuning.md).
export TFBENCH_TUNING=off

# ------------------------------------------------------------------ interleaved runs
t_runs=$SECONDS
run_side() {  # $1 = side, $2 = round name (r1, r2, ... ; c1, ... for confirmation), $3 = --filter REGEX
  local side=$1 r=$2 b=bin_$1 inj=inject_$1 cfg=cfg_$1
  local file="$out/runs/$side-$r.h5" log="$out/logs/run-$side-$r.log" t0=$SECONDS rc=0
  local extra=nc_$1 filter=()
  [ -z "${3-}" ] || filter=(--filter "$3")
  [ "$inject_first_only" = 0 ] || [ "${r:0:1}" = r ] || inj=no_injection
  # shellcheck disable=SC2086
  env ${!inj:+TFBENCH_FAULT_INJECT="${!inj}"} "${!b}" run "${!cfg}" --out "$file" ${!extra} "${filter[@]}" \
    $run_args >"$log" 2>&1 || rc=$?
  [ -s "$file" ] || { tail -n 20 "$log" >&2; die "$side round $r wrote no result file (exit $rc, log: $log)"; }
  local note=""
  [ $rc = 0 ] || note=", exit $rc"
  say "round $r $side: $((SECONDS - t0)) s$note${!inj:+ (fault injection: ${!inj})}"
}
interleave() {  # $1 = round prefix, $2 = rounds, $3 = --filter REGEX (optional)
  local r
  for r in $(seq 1 "$2"); do
    if [ $((r % 2)) = 1 ]; then run_side base "$1$r" "${3-}"; run_side head "$1$r" "${3-}"
    else run_side head "$1$r" "${3-}"; run_side base "$1$r" "${3-}"; fi
  done
}
merge_rounds() {  # $1 = round prefix, $2 = output suffix
  local side
  for side in base head; do
    "$bin_head" merge "$out"/runs/"$side"-"$1"*.h5 -o "$out/$side$2.h5" >"$out/logs/merge-$side$2.log" 2>&1 ||
      { cat "$out/logs/merge-$side$2.log" >&2; die "tfbench merge of the $side rounds failed"; }
  done
}
interleave r "$rounds"
t_runs=$((SECONDS - t_runs))
merge_rounds r ""

# ------------------------------------------------------------------ gate
cmp_args=()
[ -z "$threshold" ] || cmp_args+=(--threshold "$threshold")
[ -z "$alpha" ] || cmp_args+=(--alpha "$alpha")
rc=0
"$bin_head" compare "$out/base.h5" "$out/head.h5" "${cmp_args[@]}" --format json >"$out/compare.json" \
  2>"$out/logs/compare.log" || rc=$?
[ $rc -le 1 ] || { cat "$out/logs/compare.log" >&2; die "tfbench compare failed (exit $rc)"; }
"$bin_head" compare "$out/base.h5" "$out/head.h5" "${cmp_args[@]}" --format markdown >"$out/compare.md" 2>/dev/null || true
if [ "$rounds" -gt 1 ] && grep -q "the latest run's row is used" "$out/compare.json"; then
  say "WARNING: this tfbench compare does not pool the rounds of a merged file (it uses each side's"
  say "         latest round only), so the gate sees one process per side and is noisier than designed"
fi
rc=0
"$bin_head" compare "$out/base.h5" "$out/head.h5" "${cmp_args[@]}" --format table --fail-on-regression || rc=$?
[ $rc -le 1 ] || die "tfbench compare --fail-on-regression failed (exit $rc)"

# A shared machine drifts: one case moved +25.5% (p 2e-5) between two revisions that differed only
# in docs. So a regression has to show again in fresh interleaved rounds of just the regressed cases
# before the gate fails; the verdict is that of the confirmation rounds alone, judged round by round
# (--paired-rounds): samples of one process share its state, so pooled samples overstate the
# evidence (a CI run confirmed +45%, p 7e-7, between two builds of the same code).
confirm_note=""
if [ $rc = 1 ] && [ $aa = 0 ] && [ "$confirm_rounds" -gt 0 ]; then
  paired=(--paired-rounds)
  if ! help_mentions --paired-rounds "$bin_head" compare; then
    paired=()
    say "WARNING: this tfbench compare has no --paired-rounds: the confirmation pools its rounds' samples"
  fi
  # The confirmation judges several rows at once: held to alpha each, k noisy rows would fail the
  # gate with up to k times alpha (a CI run failed on an unchanged peer slower in 6 of 6 rounds,
  # p 0.031, one of 12 rows confirmed together). Holm's step-down holds them to alpha together, and
  # the rounds grow until the smallest Holm level is reachable: 2 / 2^n < alpha / rows.
  family=(--family-wise)
  if ! help_mentions --family-wise "$bin_head" compare; then
    family=()
    say "WARNING: this tfbench compare has no --family-wise: each confirmed row is held to alpha alone"
  fi
  mapfile -t picked < <(/usr/bin/python3 - "$out/compare.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
ids = sorted({r["case_id"] for r in rows if r["verdict"] == "REGRESSION"})
special = set(".^$*+?()[]{}|\\")
print(sum(r["case_id"] in ids for r in rows))  # the rows the filter runs again: every thread count
print("^(" + "|".join("".join("\\" + c if c in special else c for c in i) for i in ids) + ")$")
PY
)
  family_rows=${picked[0]} regressed=${picked[1]}
  n_confirm=$confirm_rounds
  if [ ${#family[@]} -gt 0 ]; then
    n_holm=$(rounds_for "$(awk -v a="${alpha:-0.05}" -v m="$family_rows" 'BEGIN { print a / m }')")
    [ "$n_holm" -le "$n_confirm" ] || n_confirm=$n_holm
  fi
  say "confirming the regressed case(s) in $n_confirm fresh interleaved round(s) per side" \
    "(${family_rows} row(s) held to alpha ${alpha:-0.05} together): $regressed"
  t_confirm=$SECONDS
  interleave c "$n_confirm" "$regressed"
  merge_rounds c "-confirm"
  rc=0
  "$bin_head" compare "$out/base-confirm.h5" "$out/head-confirm.h5" "${cmp_args[@]}" "${paired[@]}" "${family[@]}" \
    --format json >"$out/compare-confirm.json" 2>>"$out/logs/compare.log" || true
  "$bin_head" compare "$out/base-confirm.h5" "$out/head-confirm.h5" "${cmp_args[@]}" "${paired[@]}" "${family[@]}" \
    --format table --fail-on-regression || rc=$?
  [ $rc -le 1 ] || die "tfbench compare of the confirmation rounds failed (exit $rc)"
  t_runs=$((t_runs + SECONDS - t_confirm))
  if [ $rc = 0 ]; then confirm_note=" (the first rounds' regression did not reproduce in $n_confirm confirmation round(s))"
  else confirm_note=" (confirmed in $n_confirm confirmation round(s))"; fi
fi

if [ $aa = 1 ]; then
  nf_rc=0
  /usr/bin/python3 "$repo/scripts/noise_floor.py" "$out/compare.json" --json "$out/noise.json" || nf_rc=$?
  [ $nf_rc -le 1 ] || say "noise_floor.py failed (exit $nf_rc)"
fi
if [ $report = 1 ]; then
  /usr/bin/python3 "$repo/scripts/compare_results.py" "$out/base.h5" "$out/head.h5" \
    --compare-json "$out/compare.json" --figures "$out/figures" -o "$out/report.md" ||
    say "compare_results.py failed (the gate's verdict stands)"
fi

# Improvements are the first rounds' pooled test only: nothing confirms them, and on a shared
# machine whole processes run 10-20% slower or faster than the next (docs/perf-regression.md,
# "Improvements"), so the verdict line says so rather than let a count read as a speed-up.
improved=$(/usr/bin/python3 -c 'import json, sys
print(sum(r["verdict"] == "IMPROVEMENT" for r in json.load(open(sys.argv[1]))["rows"]))' "$out/compare.json" 2>/dev/null) ||
  improved=0
improved_note=""
[ "${improved:-0}" = 0 ] || [ $aa = 1 ] ||
  improved_note="; $improved improvement(s) in the first rounds' pooled test, not confirmed (drift between processes can make them)"
verdict=PASS
[ $rc = 0 ] || verdict=REGRESSION
what="base ${base_sha:0:12} vs head ${head_sha:0:12}"
[ $aa = 0 ] || what="A/A ${head_sha:0:12}"
echo "$verdict: $what; build ${t_build} s, runs ${t_runs} s ($rounds round(s) per side), total $((SECONDS - t_start)) s$confirm_note$improved_note" |
  tee "$out/verdict.txt" >&2
exit $rc
