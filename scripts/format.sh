#!/usr/bin/env bash
# Reformats every tracked C++ source with the repository's .clang-format (Debian's clang-format 14).
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files -- '*.cpp' '*.hpp' '*.h' | xargs -r clang-format -i
