#!/bin/sh
# HTTP transport benchmark: starts actionbased on a random port with the memory
# store and drives it with wrk. Usage: http-bench.sh [ACTIONBASED] [SECONDS]
# Env: CONNS (default 64), THREADS (wrk threads, default 2), HTTP_THREADS, WORKERS.
set -eu
bin=${1:-src/actionbased}
secs=${2:-5}
conns=${CONNS:-64}
threads=${THREADS:-2}
command -v wrk >/dev/null || { echo "http-bench: wrk not found" >&2; exit 77; }
[ -x "$bin" ] || { echo "http-bench: $bin is not executable" >&2; exit 1; }

log=$(mktemp)
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -f "$log"' EXIT
"$bin" --listen 127.0.0.1:0 --store memory: --log-level warning \
  ${HTTP_THREADS:+--http-threads "$HTTP_THREADS"} ${WORKERS:+--workers "$WORKERS"} 2>"$log" &
pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\)$/\1/p' "$log")
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { cat "$log" >&2; exit 1; }

run() {
  printf '%-34s ' "$1"
  wrk -t"$threads" -c"$conns" -d"${secs}s" "http://127.0.0.1:$port$2" |
    awk '/Requests\/sec/ {rps=$2} /Latency/ {lat=$2} /Non-2xx/ {n=$NF}
         END {printf "%10s req/s  avg latency %s%s\n", rps, lat, n ? "  (non-2xx: " n ")" : ""}'
}
run "404 (router miss, inline)" /no/such/route
run "GET /health (worker pool)" /health
run "GET /graph/v3/databases (API)" /graph/v3/databases
