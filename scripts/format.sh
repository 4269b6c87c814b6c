#!/usr/bin/env bash
# Reformats every C++ source git tracks or would add (untracked, not ignored) with the repository's
# .clang-format (Debian's clang-format 14): a new file is formatted before its first commit.
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files --cached --others --exclude-standard -- '*.cpp' '*.hpp' '*.h' | xargs -r clang-format -i
