#!/usr/bin/env bash
# Coverage-guided fuzzing of "lint this file", "fix this file" and the deep-chain generator
# (cargo-fuzz, libFuzzer). On a stable toolchain cargo-fuzz needs RUSTC_BOOTSTRAP=1. The seed
# corpus is the fixtures. `deep_chains` is built without comparison tracing (its input bytes only
# pick productions and counts, so tracing finds nothing and halves its speed), in its own target
# directory so that the builds do not undo each other. Every target is built with
# `--no-cfg-fuzzing`: under `cfg(fuzzing)` proc-macro2 keeps no source map, so every span the
# analysis sees is 0..0 and what depends on spans (fixes, suppressions, labels) is not tested.
#
#   cargo install cargo-fuzz --locked
#   fuzz/run.sh [SECONDS] [RUNS]   (default 300 s per target; stop earlier after RUNS executions)
#
# To fuzz in the background at the lowest priority: `nice -n 19 fuzz/run.sh ..`. Under the
# kernel's autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled = 1), a job started in
# a session of its own (setsid, nohup from another shell) competes with the interactive session
# as a group, whatever its nice value: also lower the group's, `echo 19 > /proc/<pid>/autogroup`.
# Never pause a fuzzer (SIGSTOP) to measure something: libFuzzer's per-input alarm counts wall
# time, so the paused input is then reported as a timeout. Stop it (SIGINT) and start it again.
#
# After a run of the campaign, minimise and pack each target's corpus for the commit:
#   rm -rf min/T && mkdir -p min/T && <the target's binary> -merge=1 min/T corpus/T
#   tar -C min -czf corpus/T.tar.gz T
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-300}
runs=${2:--1}
for target in lint_file fix_file deep_chains; do
  mkdir -p "corpus/$target" "artifacts/$target"
  # The committed, minimised corpus of the campaign (see docs/reliability.md).
  if [ -f "corpus/$target.tar.gz" ]; then
    tar -C corpus -xzf "corpus/$target.tar.gz"
  fi
done
for target in lint_file fix_file; do
  find ../tests/fixtures -name '*.rs' -exec cp {} "corpus/$target/" \;
done
run() {
  local target=$1 max_len=$2 timeout=$3
  shift 3
  echo "== $target for $seconds s"
  RUSTC_BOOTSTRAP=1 cargo fuzz run -s none --no-cfg-fuzzing "$@" "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -runs="$runs" -max_len="$max_len" -timeout="$timeout" \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="artifacts/$target/" 2>&1 |
    grep -v '^"' | tail -n 15
}
run lint_file 65536 10
run fix_file 65536 10
run deep_chains 4096 20 --no-trace-compares --target-dir target/no-trace-compares
