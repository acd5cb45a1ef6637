#!/bin/sh
# The cost of going through timely and TCP (issue 11): default model,
# depth 9, as a plain check with 2 threads, as 1 process x 2 threads and
# as 2 processes x 1 thread on loopback, in paired rounds (the three
# variants back to back in each round); per run the wall time and each
# process's peak resident memory (/usr/bin/time -v). Medians over the
# rounds are what docs/performance-log.md reports.
#
#   cargo build --release
#   flock /tmp/memtx-bench.lock sh benches/distributed.sh [ROUNDS] [DEPTH]
set -eu
rounds=${1:-3}
depth=${2:-9}
bin=${MEMTX_BIN:-target/release/memtx-check}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
peak() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
run() { # $1 label, $2 processes, $3 threads
  : > "$work/hosts"
  i=0; while [ $i -lt "$2" ]; do echo "127.0.0.1:$(port)" >> "$work/hosts"; i=$((i+1)); done
  start=$(date +%s.%N)
  if [ "$1" = plain ]; then
    # Exit 1 (a property violated: the default model breaks our scope on
    # purpose) is a finished run; anything else is not.
    status=0
    /usr/bin/time -v -o "$work/t0" "$bin" check models/default.json --depth "$depth" \
      --threads "$3" --out "$work/out" --traces "$work/tr" > /dev/null 2>&1 || status=$?
    [ "$status" -le 1 ] || { echo "plain check failed: exit $status" >&2; exit 1; }
  else
    i=0; while [ $i -lt "$2" ]; do
      /usr/bin/time -v -o "$work/t$i" "$bin" check models/default.json --depth "$depth" \
        --threads "$3" --out "$work/out" --traces "$work/tr" \
        --hosts "$work/hosts" --process $i > /dev/null 2>&1 &
      i=$((i+1))
    done
    wait
  fi
  end=$(date +%s.%N)
  states=$(tail -1 "$work/out/growth.csv" | cut -d, -f3)
  mem=""; i=0; [ "$1" = plain ] && n=1 || n=$2
  while [ $i -lt "$n" ]; do mem="$mem $(peak "$work/t$i")"; i=$((i+1)); done
  echo "$1 $(echo "$start $end $states" | awk '{printf "%.2f s %.0f states/s", $2-$1, $3/($2-$1)}') peak KB:$mem"
}
r=1; while [ "$r" -le "$rounds" ]; do
  echo "round $r"
  run plain 1 2
  run 1x2 1 2
  run 2x1 2 1
  r=$((r+1))
done
