#!/usr/bin/env bash
# What a SQL transform costs (issue 39): one server on LMDB with the likes
# table (200 users x 50 likes), driven by wrk on POST /graph/v3/query with
#   1. a SCAN of 25 of a user's likes (the baseline),
#   2. the same SCAN and an SQL step over its rows (SELECT ... ORDER BY ...),
#   3. that document registered as a prepared query, run by id with its
#      arguments (placeholders bound, the statement cached per worker),
# each phase in turn, best of BENCH_ROUNDS; prints req/s, p50/p99 and the
# ratio of each to the baseline.
# Usage: tests/bench/query-bench.sh
# Env: BENCH_SECONDS=5 BENCH_CONNECTIONS=32 BENCH_THREADS=2 BENCH_ROUNDS=2,
#      ACTIONBASED=PATH (default build/bench/src/actionbased, built when missing)
# Not a timed test: the machine's other load shows up in the numbers.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
secs=${BENCH_SECONDS:-5}
conns=${BENCH_CONNECTIONS:-32}
threads=${BENCH_THREADS:-2}
rounds=${BENCH_ROUNDS:-2}
users=200 items=50
say() { printf 'query-bench: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
# shellcheck source=bench-lib.sh
. "$here/bench-lib.sh"
need_counts secs conns threads rounds
need_tools wrk curl
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ab-query-bench.XXXXXX")
ab_pid=
trap 'stop_pid "$ab_pid" 5; rm -rf "$tmp"' EXIT
ab=$(ab_binary "$repo")
ab_start_store "$ab" "$tmp/ab" "lmdb:$tmp/ab/data" --log-level warning
ab_likes_table "$tmp/ab" "$users" "$items"

scan='{"type":"SCAN","name":"recent","database":"likes","table":"likes","source":{"type":"VALUE","value":["u7"]},"direction":"OUT","index":"recent","limit":25,"include":true}'
sql='[{"type":"SQL","name":"top","sql":"SELECT target, created_at FROM recent WHERE created_at > 0 ORDER BY created_at DESC LIMIT 10"}]'
printf '{"fetch":[%s]}' "$scan" >"$tmp/plain.json"
printf '{"fetch":[%s],"transform":%s}' "${scan/\"include\":true/\"include\":false}" "$sql" >"$tmp/sql.json"
printf '{"arguments":[{"name":"user","type":"string"}],"fetch":[%s],"transform":%s}' \
  "$(sed 's/"u7"/"{user}"/; s/"include":true/"include":false/' <<<"$scan")" "$sql" >"$tmp/register.json"
id=$(ab_post /graph/v3/prepared-queries "$tmp/register.json" '"id"' | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
[ -n "$id" ] || die "registering the prepared query failed"
printf '{"arguments":{"user":"u7"}}' >"$tmp/run.json"
for f in plain sql; do ab_post /graph/v3/query "$tmp/$f.json" '"items"' >/dev/null; done
ab_post "/graph/v3/query/$id" "$tmp/run.json" '"top"' >/dev/null

# post_phase NAME PATH BODY-FILE: one wrk run POSTing the file; sets R[NAME]...
declare -A R P50 P99
cat >"$tmp/post.lua" <<'LUA'
local f = io.open(os.getenv("BODY_FILE")); local body = f:read("*a"); f:close()
wrk.method = "POST"; wrk.body = body; wrk.headers["Content-Type"] = "application/json"
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %.6f %d %d %d\n", summary.requests, summary.duration / 1e6,
    latency:percentile(50), latency:percentile(99), summary.errors.status))
end
LUA
post_phase() {
  local name=$1 path=$2 body=$3 line n d p50 p99 bad rate
  line=$(BODY_FILE=$body wrk -t"$threads" -c"$conns" -d"${secs}s" -s "$tmp/post.lua" "$base$path" | grep '^RESULT')
  read -r _ n d p50 p99 bad <<<"$line"
  [ "$bad" = 0 ] || say "WARNING: $name: $bad non-2xx answers"
  rate=$(awk -v n="$n" -v d="$d" 'BEGIN { printf "%.0f", n / d }')
  if [ -z "${R[$name]:-}" ] || [ "$rate" -gt "${R[$name]}" ]; then
    R[$name]=$rate P50[$name]=$p50 P99[$name]=$p99
  fi
  say "$name: $rate req/s (p50 ${p50}us, p99 ${p99}us)"
}
for round in $(seq "$rounds"); do
  say "round $round of $rounds"
  post_phase scan /graph/v3/query "$tmp/plain.json"
  post_phase scan_sql /graph/v3/query "$tmp/sql.json"
  post_phase prepared "/graph/v3/query/$id" "$tmp/run.json"
done
printf '%-44s %10s %9s %9s %8s\n' phase 'req/s' 'p50 ms' 'p99 ms' 'x scan'
for name in scan scan_sql prepared; do
  printf '%-44s %10s %9.2f %9.2f %7.2fx\n' "$name" "${R[$name]}" \
    "$(awk -v v="${P50[$name]}" 'BEGIN { print v / 1000 }')" \
    "$(awk -v v="${P99[$name]}" 'BEGIN { print v / 1000 }')" \
    "$(awk -v a="${R[$name]}" -v b="${R[scan]}" 'BEGIN { print a / b }')"
done
echo "$conns connections, $threads wrk threads, ${secs}s per phase, best of $rounds; LMDB, default flags but --log-level warning."
