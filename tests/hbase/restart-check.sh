#!/usr/bin/env bash
# Crash and restart of the test HBase: writes an edge through actionbased,
# kills the HBase JVMs of DIR with SIGKILL, starts them again with
# hbase/start.sh DIR within AB_RESTART_TIMEOUT seconds (default 75: less
# than the 90 s ZooKeeper session timeout a stale state would wait out) and
# reads the edge back. Run by tests/run.sh after the suites, on their HBase.
#
# usage: tests/hbase/restart-check.sh DIR ACTIONBASED    prints the new HOST:PORT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
die() { echo "restart-check: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: $0 DIR ACTIONBASED"
dir=$1 bin=$2
. "$top/tests/bench/bench-lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ab-restart.XXXXXX")
ab_pid=
trap '[ -n "$ab_pid" ] && stop_pid "$ab_pid" 10; rm -rf "$tmp"' EXIT
edge_url=/graph/v3/databases/crash/tables/likes/edges/get?source=a\&target=b

# serve ADDR: actionbased on the gateway at ADDR (an HBase table of this run)
serve() { ab_start_store "$bin" "$tmp/ab" "hbase://$1/default?table=ab_restart_$$"; }

serve "$(cat "$dir/addr")"
printf '{"database":"crash","comment":""}' >"$tmp/db.json"
printf '%s' '{"table":"likes","storage":"datastore://crash/likes","comment":"","schema":{"type":"EDGE","source":{"type":"string","comment":""},"target":{"type":"string","comment":""},"direction":"BOTH","properties":[],"indexes":[]}}' >"$tmp/t.json"
printf '{"mutations":[{"type":"INSERT","edge":{"version":7,"source":"a","target":"b","properties":{}}}]}' >"$tmp/m.json"
ab_post /graph/v3/databases "$tmp/db.json" '"crash"' >/dev/null
ab_post /graph/v3/databases/crash/tables "$tmp/t.json" '"likes"' >/dev/null
ab_post /graph/v3/databases/crash/tables/likes/edges "$tmp/m.json" '"CREATED"' >/dev/null
stop_pid "$ab_pid" 10
ab_pid=

pids=()
for f in "$dir"/*.pid; do pids+=("$(cat "$f")"); done
kill -KILL "${pids[@]}"
for p in "${pids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.1; done; done

t0=$SECONDS
addr=$(AB_HBASE_TIMEOUT=${AB_RESTART_TIMEOUT:-75} bash "$top/hbase/start.sh" "$dir") \
  || die "hbase/start.sh did not bring the killed HBase back within ${AB_RESTART_TIMEOUT:-75} s"
addr=${addr##*$'\n'}
echo "restart-check: HBase back after SIGKILL in $((SECONDS - t0)) s" >&2
# The gateway answers once the master and hbase:meta are up; the killed
# region server's regions (every table of the run) are reassigned and their
# logs replayed after that, so the server's /health (the catalog's read) and
# a read may answer 503 for a while: one CI run took more than 30 s to the
# first 200 of /health. A 200 without the edge is a loss; 503 until the
# deadline is a failure too.
AB_HEALTH_WAIT_S=${AB_RESTART_READ_TIMEOUT:-180} serve "$addr"
deadline=$((SECONDS + ${AB_RESTART_READ_TIMEOUT:-180}))
while :; do
  code=$(curl -sS -o "$tmp/get.json" -w '%{http_code}' "$base$edge_url" || echo 000)
  out=$(cat "$tmp/get.json" 2>/dev/null || true)
  if [ "$code" = 200 ]; then
    case $out in
      *'"version":7,"source":"a","target":"b"'*) break ;;
      *) die "the edge acknowledged before the crash is gone: $out" ;;
    esac
  fi
  [ "$SECONDS" -lt "$deadline" ] || die "no answer with the edge $((SECONDS - t0)) s after the restart: $code $out"
  sleep 1
done
echo "restart-check: the edge acknowledged before the crash read back $((SECONDS - t0)) s after the restart began" >&2
echo "$addr"
