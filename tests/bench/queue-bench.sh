#!/usr/bin/env bash
# queue-bench: queue/v1 on LMDB in one run — enqueue throughput (wrk, batches
# of 100 messages), poll+commit throughput (one consumer per partition, pages
# of 1000, curl), next to the single-edge INSERT rate of the same server, all
# as messages (edges) per second. Env: BENCH_SECONDS (10), BENCH_CONNECTIONS
# (16), BENCH_THREADS (2), ACTIONBASED.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "queue-bench: $*" >&2; }
die() { say "$*"; exit 1; }
. "$here/bench-lib.sh"
secs=${BENCH_SECONDS:-10} conns=${BENCH_CONNECTIONS:-16} threads=${BENCH_THREADS:-2}
command -v wrk >/dev/null || die "wrk not found (apt-get install wrk)"
bin=$(ab_binary "$repo")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ab-queue-bench.XXXXXX")
ab_pid=
cleanup() { [ -n "$ab_pid" ] && stop_pid "$ab_pid" 5; rm -rf "$tmp"; }
trap cleanup EXIT
ab_start "$bin" "$tmp/srv" --log-level warning --wal none
q=/queue/v1/namespaces/bench/queues
echo '{"queue":"q","storage":"datastore://bench/q","partitions":4}' >"$tmp/q.json"
ab_post "$q" "$tmp/q.json" '"partitions":4' >/dev/null

QUEUE_PATH=$q/q/messages wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 10s \
  -s "$here/queue-bench/enqueue.lua" "$base" >"$tmp/enq.out" 2>&1 || { cat "$tmp/enq.out" >&2; die "wrk failed"; }
enq=$(awk '/^Requests\/sec:/ {print int($2 * 100)}' "$tmp/enq.out")

# Drain every partition: poll 1000, commit the page's offset, until empty.
start=$(date +%s.%N) total=0
for p in 0 1 2 3; do
  while :; do
    page=$(curl -sS "$base$q/q/partitions/$p/poll?limit=1000")
    n=$(printf '%s' "$page" | jq '.messages | length')
    [ "$n" -gt 0 ] || break
    off=$(printf '%s' "$page" | jq '.offset')
    curl -sS -X DELETE "$base$q/q/partitions/$p/messages?offset=$off" >/dev/null
    total=$((total + n))
  done
done
drain=$(awk -v n="$total" -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {print int(n / (e - s))}')

# The single-edge INSERT figure of the same server.
echo '{"database":"likes","comment":"bench"}' >"$tmp/db.json"
ab_post /graph/v3/databases "$tmp/db.json" '"likes"' >/dev/null
printf '%s' '{"table":"likes","storage":"datastore://likes/likes","comment":"b","schema":{"type":"EDGE","source":{"type":"string","comment":""},"target":{"type":"string","comment":""},"direction":"BOTH","properties":[{"name":"created_at","type":"long","nullable":false,"comment":""}],"indexes":[{"index":"recent","fields":[{"field":"created_at","order":"DESC"}]}]}}' >"$tmp/t.json"
ab_post /graph/v3/databases/likes/tables "$tmp/t.json" '"likes"' >/dev/null
BENCH_OP=insert BENCH_PREFIX=/graph/v3/databases/likes/tables/likes wrk -t"$threads" -c"$conns" \
  -d"${secs}s" --timeout 10s -s "$here/rest-bench/wrk.lua" "$base" >"$tmp/ins.out" 2>&1 || die "wrk insert failed"
ins=$(awk '/^Requests\/sec:/ {print int($2)}' "$tmp/ins.out")

printf '%-40s %12s %10s\n' "operation" "per second" "x INSERT"
for row in "enqueue (messages, batches of 100):$enq" "poll+commit (messages, pages of 1000):$drain" "single-edge INSERT (edges):$ins"; do
  awk -v n="${row%%:*}" -v r="${row##*:}" -v b="$ins" 'BEGIN {printf "%-40s %12d %9.2fx\n", n, r, r / b}'
done
echo "drained $total messages"
