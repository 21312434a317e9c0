#!/usr/bin/env bash
# admin-bench: actionbase-admin's figures on LMDB. Generates N edges (default
# 1M) as JSON Lines over 1,000 sources, imports them (edges/s, peak RSS), then
# times copy LMDB->LMDB, backup and restore of that store when those commands exist.
# Usage: admin-bench.sh [BUILD_DIR] [EDGES]   (an optimised build; default build/bench)
# Env: IMPORT_THREADS (4), IMPORT_BATCH (1000), ACTIONBASED (server binary).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "admin-bench: $*" >&2; }
die() { say "$*"; exit 1; }
. "$here/bench-lib.sh"
build=${1:-$repo/build/bench}
edges=${2:-1000000}
threads=${IMPORT_THREADS:-4}
batch=${IMPORT_BATCH:-1000}
need_counts edges threads batch
need_tools curl awk
[ -x /usr/bin/time ] || die "/usr/bin/time not found (package time)"
admin=$build/src/actionbase-admin
server=${ACTIONBASED:-$build/src/actionbased}
verify=$build/src/actionbase-verify
[ -x "$admin" ] && [ -x "$server" ] || die "build $admin and $server first (make -C $build)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ab-admin-bench.XXXXXX")
ab_pid=
cleanup() { [ -n "$ab_pid" ] && stop_pid "$ab_pid" 5; rm -rf "$tmp"; }
trap cleanup EXIT

# peak_mib TIME-OUTPUT: the peak resident set of a /usr/bin/time -v run, in MiB.
peak_mib() { sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\)/\1/p' "$1" | awk '{printf "%.1f", $1 / 1024}'; }
# elapsed TIME-OUTPUT: wall seconds of a /usr/bin/time -v run.
elapsed() {
  sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$1" \
    | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }'
}

# The store: database and table made by the server, which is then stopped.
store=$tmp/store
ab_start "$server" "$tmp/server" --log-level warning
printf '{"database":"likes","comment":"bench"}' >"$tmp/db.json"
printf '%s' '{"table":"likes","storage":"datastore://likes/likes","comment":"bench","schema":{"type":"EDGE","source":{"type":"string","comment":""},"target":{"type":"string","comment":""},"direction":"BOTH","properties":[{"name":"created_at","type":"long","nullable":false,"comment":""}],"indexes":[{"index":"recent","fields":[{"field":"created_at","order":"DESC"}]}]}}' >"$tmp/table.json"
ab_post /graph/v3/databases "$tmp/db.json" '"likes"' >/dev/null
ab_post /graph/v3/databases/likes/tables "$tmp/table.json" '"likes"' >/dev/null
stop_pid "$ab_pid" 10
ab_pid=
mv "$tmp/server/data" "$store"

# N edges over 1,000 sources, in a shuffled order (source = g % 1000).
awk -v n="$edges" 'BEGIN {
  for (g = 0; g < n; g++) {
    k = (g * 7919) % n
    printf "{\"version\":%d,\"source\":\"u%d\",\"target\":\"i%d\",\"properties\":{\"created_at\":%d}}\n",
      1700000000000 + k, k % 1000, int(k / 1000), 1700000000000 + k
  }
}' >"$tmp/edges.jsonl"
say "$(du -h "$tmp/edges.jsonl" | cut -f1) of JSON Lines, $edges edges; load: $(uptime | sed 's/.*load average: //')"

/usr/bin/time -v "$admin" import --store "lmdb:$store" --database likes --table likes \
  --threads "$threads" --batch "$batch" "$tmp/edges.jsonl" >"$tmp/import.out" 2>"$tmp/import.time" \
  || { cat "$tmp/import.out" "$tmp/import.time" >&2; die "import failed"; }
grep -q '^all lines applied' "$tmp/import.out" || { cat "$tmp/import.out" >&2; die "import did not apply every line"; }
secs=$(elapsed "$tmp/import.time")
rate=$(awk -v n="$edges" -v s="$secs" 'BEGIN {printf "%.0f", n / s}')
rss=$(peak_mib "$tmp/import.time")
cpu=$(awk -F': ' '/User time|System time/ {t += $2} END {printf "%.1f", t}' "$tmp/import.time")
echo "import: $edges edges in $secs s (cpu $cpu s, threads $threads, batch $batch): $rate edges/s -- goal >= 200000: $(verdict "$rate" '>=' 200000)"
echo "import: peak RSS $rss MiB -- goal <= 256: $(verdict "$rss" '<=' 256)"
echo "import: durable at the end: the store URI has sync on, so every group commit was fsynced before its batch was answered"
if [ -x "$verify" ]; then
  "$verify" --store "lmdb:$store" --database likes --table likes >"$tmp/verify.out" 2>&1 || true
  echo "verify: $(grep -E '^mismatches' "$tmp/verify.out" || echo 'no summary')"
fi
echo "store: $(du -sh "$store" | cut -f1) on disk"

# available COMMAND: the subcommand exists and answers --help with 0.
available() { "$admin" "$1" --help >/dev/null 2>&1; }
timed() {  # timed NAME COMMAND...: runs under /usr/bin/time -v, prints seconds and peak RSS
  local name=$1
  shift
  if /usr/bin/time -v "$@" >"$tmp/$name.out" 2>"$tmp/$name.time"; then
    echo "$name: $(elapsed "$tmp/$name.time") s, $(awk -v n="$edges" -v s="$(elapsed "$tmp/$name.time")" 'BEGIN {printf "%.0f", n / s}') edges/s, peak RSS $(peak_mib "$tmp/$name.time") MiB"
  else
    echo "$name: FAILED (exit $?): $(tail -3 "$tmp/$name.out" "$tmp/$name.time" | tr '\n' ' ' | head -c 400)"
  fi
}
if available copy; then
  timed copy "$admin" copy --from "lmdb:$store" --to "lmdb:$tmp/copy"
else
  echo "copy: not measured: actionbase-admin copy not available"
fi
if available backup && available restore; then
  timed backup "$admin" backup --store "lmdb:$store" --out "$tmp/backup"
  timed restore "$admin" restore --in "$tmp/backup" --store "lmdb:$tmp/restored"
  # The goal's case: backups of the store while a server on it takes writes
  # from 4 clients (100-edge batches, new edges), the dump and the native copy.
  ab_start_store "$server" "$tmp/live" "lmdb:$store" --log-level warning
  writer() {  # writer W: batches until $tmp/stop exists; counts acknowledged edges
    local w=$1 r=0 n=0
    while [ ! -e "$tmp/stop" ]; do
      awk -v w="$w" -v r="$r" 'BEGIN { printf "{\"mutations\":["
        for (i = 0; i < 100; i++) { v = 1800000000000 + (r * 100 + i) * 4 + w
          printf "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%d,\"source\":\"w%d\",\"target\":\"t%d\",\"properties\":{\"created_at\":%d}}}", (i ? "," : ""), v, w, r * 100 + i, v }
        printf "]}" }' >"$tmp/w$w.json"
      curl -sf -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/w$w.json" \
        "$base/graph/v3/databases/likes/tables/likes/edges" >/dev/null && n=$((n + 100))
      r=$((r + 1))
    done
    echo "$n" >"$tmp/w$w.count"
  }
  rm -f "$tmp/stop"
  pids=()
  for w in 0 1 2 3; do writer "$w" & pids+=($!); done
  timed backup-under-load "$admin" backup --store "lmdb:$store" --out "$tmp/backup-live"
  timed native-backup-under-load "$admin" backup --native --store "lmdb:$store" --out "$tmp/backup-native"
  touch "$tmp/stop"
  wait "${pids[@]}"
  stop_pid "$ab_pid" 10
  ab_pid=
  echo "writers during the backups: $(cat "$tmp"/w*.count | awk '{ n += $1 } END { print n }') edges acknowledged by 4 clients"
  for f in backup-under-load native-backup-under-load; do
    secs=$(elapsed "$tmp/$f.time")
    echo "$f: goal < 10 s: $(verdict "$secs" '<' 10)"
  done
  timed restore-live "$admin" restore --in "$tmp/backup-live" --store "lmdb:$tmp/restored-live"
  echo "restore-live: goal < 10 s: $(verdict "$(elapsed "$tmp/restore-live.time")" '<' 10)"
else
  available backup || echo "backup: not measured: actionbase-admin backup not available"
  available restore || echo "restore: not measured: actionbase-admin restore not available"
fi

# LMDB -> HBase -> LMDB when a gateway is given (AB_HBASE_ADDR=HOST:PORT).
if [ -n "${AB_HBASE_ADDR:-}" ] && available copy; then
  hb="hbase://$AB_HBASE_ADDR/abbench?table=admin_$$_$RANDOM&regions=4"
  timed copy-to-hbase "$admin" copy --from "lmdb:$store" --to "$hb" --checkpoint "$tmp/ck-hb"
  timed copy-from-hbase "$admin" copy --from "$hb" --to "lmdb:$tmp/back" --checkpoint "$tmp/ck-back"
  for f in copy-to-hbase copy-from-hbase; do
    n=$(sed -n 's/.*complete: \([0-9]*\) rows in the target.*/\1/p' "$tmp/$f.out" "$tmp/$f.time" | head -1)
    r=$(awk -v n="${n:-0}" -v s="$(elapsed "$tmp/$f.time")" 'BEGIN {printf "%.0f", n / s}')
    goal=$([ "$f" = copy-to-hbase ] && echo 50000 || echo 300000)
    echo "$f: ${n:-?} rows, $r rows/s -- goal >= $goal: $(verdict "$r" '>=' "$goal")"
  done
fi
