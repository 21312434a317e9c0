#!/usr/bin/env bash
# HBase figures: Thrift round trips of one mutation request of 1, 10 and 100
# edges, single-edge INSERT and GET rates with p50/p99 through the engine on
# hbase://, and next to them raw Thrift2 put/get calls/s from one bare c_glib
# connection on the same gateway in the same run.
# usage: tests/bench/hbase-bench.sh [N]     (N requests per figure, default 2000)
# env:   AB_HBASE_ADDR   use this running gateway (else one is started in a temp
#                        dir with hbase/start.sh and stopped at the end)
#        AB_BENCH_BIN    the hbase-bench program (default: an -O2 build in build/bench)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-2000}
bin=${AB_BENCH_BIN:-}
if [ -z "$bin" ]; then
  mkdir -p "$top/build/bench"
  (cd "$top/build/bench"
   [ -f Makefile ] || "$top/configure" CFLAGS="-O2 -g" >/dev/null
   make -j2 tests/bench/hbase-bench >/dev/null)
  bin=$top/build/bench/tests/bench/hbase-bench
fi
addr=${AB_HBASE_ADDR:-}
dir=""
cleanup () { [ -n "$dir" ] && { bash "$top/hbase/stop.sh" "$dir"; rm -rf "$dir"; }; return 0; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ -z "$addr" ]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/ab-hbase-bench.XXXXXX")
  addr=$(bash "$top/hbase/start.sh" "$dir")
fi
run=$(date +%s)
echo "HBase 2.6.1 standalone, Thrift2 gateway $addr (buffered, binary); N=$n"
# Warm the gateway and region server first: cold JVMs are several times slower.
"$bin" raw "$addr" "$n" >/dev/null
"$bin" engine "hbase://$addr/abbench?table=warm$run" "$((n / 2))" >/dev/null
raw=$("$bin" raw "$addr" "$n")
eng=$("$bin" engine "hbase://$addr/abbench?table=eng$run" "$n")
printf '%s\n%s\n' "$raw" "$eng"
# The goal of the HBase issue: single-edge INSERT rate >= 0.7 x (raw put
# calls/s / calls per single-edge request), all from this run.
put=$(awk '/^raw Thrift put/ {print $4}' <<<"$raw")
calls=$(awk '/request of +1 edges/ {print $NF}' <<<"$eng")
ins=$(awk '/^engine INSERT/ {print $5}' <<<"$eng")
awk -v p="$put" -v c="$calls" -v i="$ins" 'BEGIN {
  printf "INSERT vs raw put: %d / (%d / %d) = %.2fx (goal >= 0.70x)\n", i, p, c, i / (p / c) }'
