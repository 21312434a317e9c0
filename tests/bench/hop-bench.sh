#!/usr/bin/env bash
# 2-hop figures (issue 11): "what did my friends like" on one actionbased
# (LMDB, durable) preloaded with a generated social graph, answered three
# ways in one run, each timed per query (first request to last response):
#   1. POST …/edges/multihop over caches (follows.recent, likes.recent);
#   2. the same request over indexes (recent_idx on both tables);
#   3. client-side: one REST scan of the user's follows, then one scan of
#      likes per friend (sequential), merged by the client (dedup, hits, order).
# Prints p50/p99 per query, queries/s and requests per query, side by side.
#
# Usage: tests/bench/hop-bench.sh
# Env:
#   BENCH_SECONDS=10   duration of each way
#   BENCH_THREADS=2    wrk threads = connections (each runs queries one at a time)
#   HOP_USERS=2000     users; each follows HOP_FOLLOWS=30 others and likes
#   HOP_LIKES=20 of HOP_ITEMS=5000 items
#   HOP_L1=20 HOP_L2=10  the two hop limits (friends read, likes per friend)
#   ACTIONBASED=PATH   server binary (default build/bench/src/actionbased,
#                      built with -O2 -g when missing)
#   AB_ARGS="..."      extra actionbased flags
# Not a timed test: the machine's other load shows up in the numbers.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

secs=${BENCH_SECONDS:-10}
threads=${BENCH_THREADS:-2}
users=${HOP_USERS:-2000}
follows=${HOP_FOLLOWS:-30}
likes=${HOP_LIKES:-20}
items=${HOP_ITEMS:-5000}
l1=${HOP_L1:-20}
l2=${HOP_L2:-10}

say() { printf 'hop-bench: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
# need_counts, need_tools, stop_pid, ab_binary, ab_start, ab_post
# shellcheck source=bench-lib.sh
. "$here/bench-lib.sh"
need_counts secs threads users follows likes items l1 l2
need_tools wrk curl awk

tmp=
ab_pid=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_pid "$ab_pid" 15
  [ -z "$tmp" ] || rm -rf "$tmp"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ab=$(ab_binary "$repo")
tmp=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/hop-bench.XXXXXX")
# shellcheck disable=SC2086
ab_start "$ab" "$tmp/ab" --log-level warning ${AB_ARGS:-}
say "actionbased up on 127.0.0.1:$ab_port ($ab); $(nproc) cores"

db=/graph/v3/databases/sns
printf '{"database":"sns","comment":"hop bench"}' >"$tmp/db.json"
ab_post /graph/v3/databases "$tmp/db.json" '"sns"' >/dev/null
table_json() {  # table_json NAME CACHE_LIMIT
  printf '{"table":"%s","storage":"datastore://sns/%s","comment":"","schema":{"type":"EDGE",' "$1" "$1"
  printf '"source":{"type":"string","comment":""},"target":{"type":"string","comment":""},'
  printf '"direction":"OUT","properties":[{"name":"created_at","type":"long","nullable":false,"comment":""}],'
  printf '"indexes":[{"index":"recent_idx","fields":[{"field":"created_at","order":"DESC"}]}],'
  printf '"caches":[{"cache":"recent","fields":[{"field":"created_at","order":"DESC"}],"limit":%d}]}}' "$2"
}
table_json follows $((l1 > 50 ? l1 : 50)) >"$tmp/follows.json"
table_json likes $((l2 > 20 ? l2 : 20)) >"$tmp/likes.json"
ab_post $db/tables "$tmp/follows.json" '"follows"' >/dev/null
ab_post $db/tables "$tmp/likes.json" '"likes"' >/dev/null

# load TABLE PER-USER TARGET-PREFIX TARGETS: random edges, 1000 per POST
load() {
  local table=$1 per=$2 prefix=$3 targets=$4 total=$((users * $2)) chunk ans created
  for chunk in $(seq 0 $(((total + 999) / 1000 - 1))); do
    awk -v c="$chunk" -v per="$per" -v total="$total" -v n="$targets" -v p="$prefix" -v seed="$chunk$per" 'BEGIN {
      srand(seed); printf "{\"mutations\":["
      for (g = c * 1000; g < (c + 1) * 1000 && g < total; g++) {
        v = 1700000000000 + g
        printf "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%.0f,\"source\":\"u%d\",\"target\":\"%s%d\",\"properties\":{\"created_at\":%.0f}}}",
          (g == c * 1000 ? "" : ","), v, int(g / per), p, int(rand() * n), v
      }
      printf "]}" }' >"$tmp/load.json"
    ans=$(ab_post "$db/tables/$table/edges" "$tmp/load.json" '"results"')
    created=$(grep -c -o '"status":"CREATED"' <<<"$ans" || true)
    [ "$created" -gt 0 ] || die "preload of $table chunk $chunk created nothing"
  done
}
load follows "$follows" u "$users"
load likes "$likes" item "$items"
say "preloaded $users users x $follows follows, x $likes likes of $items items"

# sanity: the three ways give the same answer for one user
curl -sS "$base$db/edges/multihop" -H 'Content-Type: application/json' -d \
  "{\"start\":\"u7\",\"hops\":[{\"table\":\"follows\",\"cache\":\"recent\",\"direction\":\"OUT\",\"limit\":$l1},{\"table\":\"likes\",\"cache\":\"recent\",\"direction\":\"OUT\",\"limit\":$l2}],\"order\":\"hits\",\"limit\":100}" \
  | grep -o '"target":"[^"]*"' >"$tmp/cache.answer"
curl -sS "$base$db/edges/multihop" -H 'Content-Type: application/json' -d \
  "{\"start\":\"u7\",\"hops\":[{\"table\":\"follows\",\"index\":\"recent_idx\",\"direction\":\"OUT\",\"limit\":$l1},{\"table\":\"likes\",\"index\":\"recent_idx\",\"direction\":\"OUT\",\"limit\":$l2}],\"order\":\"hits\",\"limit\":100}" \
  | grep -o '"target":"[^"]*"' >"$tmp/index.answer"
[ -s "$tmp/cache.answer" ] || die "multihop over caches answered nothing for u7"
cmp -s "$tmp/cache.answer" "$tmp/index.answer" || die "multihop over caches and over indexes disagree for u7"

declare -A R
run() {  # run NAME MODE
  local out=$tmp/wrk-$1.out line
  HOP_MODE=$2 HOP_DB=$db HOP_USERS=$users HOP_L1=$l1 HOP_L2=$l2 \
    wrk -t"$threads" -c"$threads" -d"${secs}s" --timeout 10s -s "$here/hop-bench/hop.lua" "$base" \
    >"$out" 2>&1 || { cat "$out" >&2; die "wrk failed for $1"; }
  line=$(grep '^HOP ' "$out") || { cat "$out" >&2; die "no HOP line from wrk for $1"; }
  R[$1]=$line
  say "$1: $line"
  case "$line" in *" errors=0 "*) ;; *) say "WARNING: $1 had errors";; esac
}
run cache cache
run index index
run client client

kv() { sed -n "s/.* $2=\([0-9][0-9]*\).*/\1/p" <<<" ${R[$1]}"; }
row() {  # row LABEL NAME
  local q r d p50 p99
  q=$(kv "$2" queries) r=$(kv "$2" requests) d=$(kv "$2" duration_us)
  p50=$(kv "$2" p50_us) p99=$(kv "$2" p99_us)
  awk -v l="$1" -v q="$q" -v r="$r" -v d="$d" -v a="$p50" -v b="$p99" -v c="$(kv cache p50_us)" \
    'BEGIN { printf("%-44s %9.2f %9.2f %10.0f %9.1f %8.2fx\n", l, a / 1000, b / 1000, q / (d / 1e6),
             (q > 0 ? r / q : 0), (c > 0 ? a / c : 0)) }'
}
echo
echo "2-hop figures: $(nproc) cores, $threads connections (one query at a time each), ${secs}s per way,"
echo "$users users x $follows follows, x $likes likes of $items items; friends read $l1, likes per friend $l2"
printf '%-44s %9s %9s %10s %9s %9s\n' way 'p50 ms' 'p99 ms' 'queries/s' 'req/query' 'p50 x'
printf '%s\n' "$(printf '%.0s-' $(seq 96))"
row "multihop over caches (1 request)" cache
row "multihop over indexes (1 request)" index
row "client-side: 1 + N REST scans, sequential" client
echo "p50/p99: one query, first request sent to last response read (wrk, monotonic clock)."
