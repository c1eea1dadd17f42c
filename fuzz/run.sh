#!/usr/bin/env bash
# Coverage-guided fuzzing of "lint this file" and "fix this file" (cargo-fuzz, libFuzzer).
# On a stable toolchain cargo-fuzz needs RUSTC_BOOTSTRAP=1. The seed corpus is the fixtures.
#
#   cargo install cargo-fuzz
#   fuzz/run.sh [SECONDS]      (default 300 per target)
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-300}
for target in lint_file fix_file deep_chains; do
  mkdir -p "corpus/$target"
  find ../tests/fixtures -name '*.rs' -exec cp {} "corpus/$target/" \;
done
for target in lint_file fix_file deep_chains; do
  echo "== $target for $seconds s"
  RUSTC_BOOTSTRAP=1 cargo fuzz run -s none "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 2>&1 | tail -n 15
done
