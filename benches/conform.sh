#!/bin/sh
# Conformance through this build's own driver (issue 27): the steps per
# second `memtx-check conform` sends through `memtx-check driver` with
# --jobs 1 and --jobs 2 (the transitions suite of the default model to
# DEPTH, the same traces each time), and the branch suite's size and time
# on the default model at its default depth. Per round one line; then the
# medians over the rounds and the ratio of --jobs 2 to --jobs 1.
#
#   cargo build --release
#   flock /tmp/memtx-bench.lock sh benches/conform.sh [ROUNDS] [DEPTH]
set -eu
rounds=${1:-3}
depth=${2:-5}
bin=${MEMTX_BIN:-target/release/memtx-check}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The "N steps sent in S s (R steps/s; …" line of a conform run: R.
rate() { sed -n 's/.* steps sent in [0-9.]* s (\([0-9]*\) steps\/s.*/\1/p' "$1"; }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
run() { # OUT-FILE ARGS…
  out=$1; shift
  status=0
  "$bin" conform models/default.json --driver "$bin driver" --out "$work/out" \
    --traces "$work/tr" "$@" > "$out" 2>/dev/null || status=$?
  [ "$status" -eq 0 ] || { echo "conform failed: exit $status" >&2; cat "$out" >&2; exit 1; }
}
: > "$work/j1"; : > "$work/j2"; : > "$work/b"
r=1; while [ "$r" -le "$rounds" ]; do
  run "$work/t1" --suite transitions --depth "$depth" --jobs 1
  run "$work/t2" --suite transitions --depth "$depth" --jobs 2
  start=$(date +%s.%N)
  run "$work/br" --jobs 2
  end=$(date +%s.%N)
  b=$(echo "$end - $start" | bc)
  rate "$work/t1" >> "$work/j1"; rate "$work/t2" >> "$work/j2"; echo "$b" >> "$work/b"
  echo "round $r: jobs 1 $(rate "$work/t1") steps/s, jobs 2 $(rate "$work/t2") steps/s; branches $(sed -n 2p "$work/br" | sed 's/^ *//') — ${b} s wall"
  r=$((r+1))
done
j1=$(median < "$work/j1"); j2=$(median < "$work/j2"); b=$(median < "$work/b")
echo "medians of $rounds: jobs 1 $j1 steps/s, jobs 2 $j2 steps/s (ratio $(echo "scale=2; $j2 / $j1" | bc)); branch suite $b s wall"
