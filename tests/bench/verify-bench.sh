#!/bin/sh
# verify-bench: actionbase-verify's figures on lmdb. Loads N edges (default
# 1M) with tests/bench/verify-load, then verifies them with 1 shard and with
# 2 shards in parallel, reporting State rows/s and peak RSS (/usr/bin/time -v).
# Usage: verify-bench.sh [BUILD_DIR] [EDGES]   (an optimised build, e.g. build/verify-rel)
# Env: KEEP_DIR=DIR reuses/keeps a loaded store; RUN_MIB sets --run-size.
set -eu
build=${1:-build/verify-rel}
edges=${2:-1000000}
bin=$build/src/actionbase-verify
load=$build/tests/bench/verify-load
[ -x "$bin" ] && [ -x "$load" ] || { echo "verify-bench: build $bin and $load first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "verify-bench: /usr/bin/time not found (package time)" >&2; exit 77; }

work=$(mktemp -d)
dir=${KEEP_DIR:-$work/store}
trap 'rm -rf "$work"' EXIT
if [ ! -f "$dir/data.mdb" ]; then
  mkdir -p "$dir"
  "$load" "lmdb:$dir?sync=0" "$edges"
fi
du -sh "$dir/data.mdb" | awk '{print "store: " $1 " on disk"}'

# verify K/N: runs one shard, leaves its summary and time output in $work.
verify() {
  /usr/bin/time -v "$bin" --store "lmdb:$dir" --shard "$1/$2" --tmpdir "$work" \
    ${RUN_MIB:+--run-size "$RUN_MIB"} >"$work/out.$1.$2" 2>"$work/time.$1.$2" || [ $? -eq 1 ]
}

report() {
  rows=$(sed -n 's/^rows checked: \([0-9]*\) State.*/\1/p' "$work/out.$1.$2")
  decoded=$(sed -n 's/^rows checked: [0-9]* State (\([0-9]*\) decoded).*/\1/p' "$work/out.$1.$2")
  secs=$(sed -n 's/^duration: \([0-9.]*\) s.*/\1/p' "$work/out.$1.$2")
  mism=$(sed -n 's/^mismatches: \([0-9]*\).*/\1/p' "$work/out.$1.$2")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\)/\1/p' "$work/time.$1.$2")
  cpu=$(awk -F': ' '/User time|System time/ {t += $2} END {print t}' "$work/time.$1.$2")
  awk -v k="$1" -v n="$2" -v r="$rows" -v d="$decoded" -v s="$secs" -v m="$mism" -v kb="$rss" \
    -v total="$edges" -v cpu="$cpu" 'BEGIN {
      printf "shard %s/%s: %7d State rows owned (%7d decoded) in %5.2f s (cpu %5.2f s): " \
             "%7.0f owned rows/s, %7.0f table rows/s; peak RSS %5.1f MiB; mismatches %d\n",
             k, n, r, d, s, cpu, r / s, total / s, kb / 1024, m }'
}

uptime | sed 's/.*load/load/'
verify 0 1
report 0 1
verify 0 2 &
p0=$!
verify 1 2 &
p1=$!
wait $p0
wait $p1
report 0 2
report 1 2
