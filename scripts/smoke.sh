#!/usr/bin/env bash
# The main job: set up everything, build, and run every family once (configs/smoke.yaml).
#   scripts/smoke.sh [extra `tfbench run` options, e.g. --out results/smoke.h5]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh default tfbench
exec build/default/harness/tfbench run configs/smoke.yaml "$@"
