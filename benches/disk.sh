#!/bin/sh
# A --disk run against the in-memory engine (issue 30), in paired rounds
# (the two back to back in each round, alternating which goes first): per
# run the wall time, the peak resident memory (/usr/bin/time -v), the
# peak size of the --disk folder (sampled every 0.2 s) and the bytes the
# run says it wrote and read; then the median ratio of the wall times.
# docs/performance.md reports what it prints.
#
#   cargo build --release
#   flock /tmp/memtx-bench.lock sh benches/disk.sh [ROUNDS] [CHECK ARGUMENTS...]
#   (default: 3 rounds of models/default.json --depth 9)
#
# DISK_DIR (default: a fresh folder under /tmp) is where the --disk run
# keeps its folder: point it at the disk the figures are about.
set -eu
rounds=${1:-3}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- models/default.json --depth 9
bin=${MEMTX_BIN:-target/release/memtx-check}
work=$(mktemp -d)
disk=${DISK_DIR:-$work/disk}
trap 'rm -rf "$work"; [ -n "${DISK_DIR:-}" ] && rm -rf "$DISK_DIR"' EXIT
peak() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
run() { # $1 memory|disk, then the check's arguments
  mode=$1; shift
  rm -rf "$work/out" "$work/tr" "$disk"
  extra=""
  [ "$mode" = disk ] && extra="--disk $disk"
  start=$(date +%s.%N)
  # Exit 1 (a property violated: the default model breaks our scope on
  # purpose) is a finished run; anything else is not.
  ( status=0
    /usr/bin/time -v -o "$work/time" "$bin" check "$@" --threads 2 \
      --out "$work/out" --traces "$work/tr" $extra > "$work/stdout" 2>/dev/null || status=$?
    echo "$status" > "$work/status" ) &
  pid=$!
  top=0
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$mode" = disk ] && [ -d "$disk" ]; then
      now=$(du -sb "$disk" 2>/dev/null | cut -f1)
      [ -n "$now" ] && [ "$now" -gt "$top" ] && top=$now
    fi
    sleep 0.2
  done
  wait "$pid" || true
  end=$(date +%s.%N)
  [ "$(cat "$work/status")" -le 1 ] || { echo "$mode run failed: exit $(cat "$work/status")" >&2; exit 1; }
  states=$(tail -1 "$work/out/growth.csv" | cut -d, -f3)
  io=$(sed -n 's/^disk: //p' "$work/stdout")
  wall=$(echo "$start $end" | awk '{printf "%.2f", $2-$1}')
  echo "$wall" > "$work/wall-$mode"
  echo "$mode $wall s, $states states, peak $(peak "$work/time") KB${io:+, $io}$( [ "$mode" = disk ] && echo ", peak folder $((top / 1048576)) MiB")"
}
r=1
ratios=""
while [ "$r" -le "$rounds" ]; do
  echo "round $r"
  if [ $((r % 2)) -eq 1 ]; then run memory "$@"; run disk "$@"; else run disk "$@"; run memory "$@"; fi
  ratios="$ratios $(awk '{print $1}' "$work/wall-memory") $(awk '{print $1}' "$work/wall-disk")"
  r=$((r+1))
done
# Speed of --disk relative to memory (memory time / disk time), per round.
echo "$ratios" | awk '{ n = 0; for (i = 1; i < NF; i += 2) { r[++n] = $i / $(i+1) }
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
  printf "--disk speed: median %.2fx the in-memory engine [", r[int((n + 1) / 2)];
  for (i = 1; i <= n; i++) printf "%s%.2f", (i > 1 ? " " : ""), r[i]; print "]" }'
