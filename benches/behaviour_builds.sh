#!/bin/sh
# The behaviour diff across builds (issue 24): `diff --behaviour` of the
# default model to depth 6 against another build over the driver protocol,
# in paired rounds with a reference measured in the same round: the plain
# exhaustive check of the same model and depth (the same states, in
# process). The other build is this binary itself (`--before-exe`), so the
# two agree and the walk goes all the way to depth 6: the worst case. Per
# run: wall time, peak resident memory of memtx-check (/usr/bin/time -v;
# the driver process it starts is not counted), and for the diff the
# steps through the driver and steps/s it prints. Medians over the rounds
# are what docs/performance.md reports.
#
#   cargo build --release
#   flock /tmp/memtx-bench.lock sh benches/behaviour_builds.sh [ROUNDS] [DEPTH] [JOBS]
set -eu
rounds=${1:-3}
depth=${2:-6}
jobs=${3:-2}
bin=${MEMTX_BIN:-target/release/memtx-check}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
peak() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
wall() { sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$1"; }
r=1; while [ "$r" -le "$rounds" ]; do
  # Exit 1 is a finished check (the default model breaks our scope on
  # purpose); anything else is not.
  status=0
  /usr/bin/time -v -o "$work/check" "$bin" check models/default.json --depth "$depth" \
    --threads 2 --out "$work/out" --traces "$work/tr" > /dev/null 2>&1 || status=$?
  [ "$status" -le 1 ] || { echo "check failed: exit $status" >&2; exit 1; }
  status=0
  (cd "$work" && /usr/bin/time -v -o "$work/diff" "$OLDPWD/$bin" diff --behaviour \
    "$OLDPWD/models/default.json" --before-exe "$OLDPWD/$bin" --depth "$depth" \
    --jobs "$jobs" > "$work/diff.out" 2>&1) || status=$?
  [ "$status" -eq 0 ] || { echo "diff failed: exit $status" >&2; cat "$work/diff.out" >&2; exit 1; }
  steps=$(sed -n 's/.*transitions checked, \([0-9]* steps through the driver in [0-9.]* s ([0-9]* steps\/s)\).*/\1/p' "$work/diff.out" | head -1)
  echo "round $r: check $(wall "$work/check") $(peak "$work/check") KB; diff $(wall "$work/diff") $(peak "$work/diff") KB; $steps"
  r=$((r+1))
done
