#!/usr/bin/env bash
# wal-bench: single-edge INSERT req/s on LMDB with the WAL off, on files and
# on Kafka (when AB_KAFKA_ADDR names a broker), with CDC off and on, in one
# run; then ASYNC accept rate and the applier's lag (p50/p99 from /metrics).
# Prints ratios against the WAL-off run. Env: BENCH_SECONDS (10),
# BENCH_CONNECTIONS (64), BENCH_THREADS (2), BENCH_ROUNDS (3: the SYNC
# configurations take turns and each keeps its best round), ACTIONBASED (binary).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "wal-bench: $*" >&2; }
die() { say "$*"; exit 1; }
. "$here/bench-lib.sh"
secs=${BENCH_SECONDS:-10} conns=${BENCH_CONNECTIONS:-64} threads=${BENCH_THREADS:-2}
command -v wrk >/dev/null || die "wrk not found (apt-get install wrk)"
bin=$(ab_binary "$repo")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ab-wal-bench.XXXXXX")
ab_pid=
cleanup() { [ -n "$ab_pid" ] && stop_pid "$ab_pid" 5; rm -rf "$tmp"; }
trap cleanup EXIT

cat >"$tmp/db.json" <<'J'
{"database":"likes","comment":"bench"}
J
table_json() {
  printf '{"table":"likes","storage":"datastore://likes/likes","comment":"bench","mode":"%s",' "$1"
  printf '"schema":{"type":"EDGE","source":{"type":"string","comment":""},"target":{"type":"string","comment":""},'
  printf '"direction":"BOTH","properties":[{"name":"created_at","type":"long","nullable":false,"comment":""}],'
  printf '"indexes":[{"index":"recent","fields":[{"field":"created_at","order":"DESC"}]}]}}'
}

# run NAME MODE ARGS...: one server, one wrk INSERT phase; R[NAME] = req/s.
# The server keeps running (ab_pid, base) until the caller stops it.
declare -A R
round=0
run() {
  local name=$1 mode=$2 dir=$tmp/$1-$round r
  shift 2
  ab_start "$bin" "$dir" --log-level warning "$@"
  ab_post /graph/v3/databases "$tmp/db.json" '"likes"' >/dev/null
  table_json "$mode" >"$dir/table.json"
  ab_post /graph/v3/databases/likes/tables "$dir/table.json" '"likes"' >/dev/null
  BENCH_OP=insert BENCH_PREFIX=/graph/v3/databases/likes/tables/likes \
    wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 10s -s "$here/rest-bench/wrk.lua" "$base" \
    >"$dir/wrk.out" 2>&1 || { cat "$dir/wrk.out" >&2; die "wrk failed ($name)"; }
  r=$(awk '/^Requests\/sec:/ {print int($2)}' "$dir/wrk.out")
  [ "${R[$name]:-0}" -ge "$r" ] || R[$name]=$r   # the best round
}
phase() { run "$@"; stop_pid "$ab_pid" 10; ab_pid=; }

# The SYNC configurations take turns, BENCH_ROUNDS times, and each keeps its
# best round: fsync speed drifts over minutes on a shared disk, and turns
# spread the drift over all of them instead of favouring the first.
for round in $(seq 1 "${BENCH_ROUNDS:-3}"); do
  phase none SYNC --wal none
  phase file SYNC --wal "file:$tmp/file-$round/wal"
  phase file_cdc SYNC --wal "file:$tmp/file_cdc-$round/wal" --cdc "file:$tmp/file_cdc-$round/cdc"
  if [ -n "${AB_KAFKA_ADDR:-}" ]; then
    phase kafka SYNC --wal "kafka://$AB_KAFKA_ADDR/wal-bench-$$-$round"
    phase kafka_cdc SYNC --wal "kafka://$AB_KAFKA_ADDR/wal-bench-w$$-$round" \
      --cdc "kafka://$AB_KAFKA_ADDR/wal-bench-c$$-$round"
  fi
done
round=0
run async ASYNC --wal "file:$tmp/async/wal"
sleep 2  # let the applier catch up before reading its lag
lag=$(curl -s "$base/metrics" | awk '/^actionbase_applier_lag_seconds\{quantile="0.5"\}/ {p50=$2 * 1000} /^actionbase_applier_lag_seconds\{quantile="0.99"\}/ {p99=$2 * 1000} END {print p50 " " p99}')
stop_pid "$ab_pid" 10; ab_pid=

printf '%-34s %10s %10s\n' "single-edge INSERT (lock=true)" "req/s" "x no WAL"
for k in none file file_cdc kafka kafka_cdc async; do
  [ -n "${R[$k]:-}" ] || continue
  awk -v n="$k" -v r="${R[$k]}" -v b="${R[none]}" 'BEGIN {printf "%-34s %10d %9.2fx\n", n, r, r / b}'
done
echo "applier lag after the ASYNC phase: p50 ${lag% *} ms, p99 ${lag#* } ms"
echo "goal: file WAL costs <= 10% of SYNC insert throughput (file >= 0.90x)"
