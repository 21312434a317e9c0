#!/usr/bin/env bash
# The online move of docs/data-tools.md end to end: a server on LMDB under
# write load copied to the real HBase with --wal catch-ups (one killed -9 and
# resumed), DENY on the source, final catch-up, a server on HBase: every
# acknowledged write is there, every count exact, the verifier clean.
# Skips (77) without AB_HBASE_ADDR. Run by make check from the build directory.
set -euo pipefail
[ -n "${AB_HBASE_ADDR:-}" ] || { echo "SKIP: AB_HBASE_ADDR is not set (no HBase gateway in this run)" >&2; exit 77; }
say() { echo "cutover: $*" >&2; }
die() { say "FAIL: $*"; exit 1; }
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
. "$srcdir/tests/bench/bench-lib.sh"
bin=$PWD/src
[ -x "$bin/actionbased" ] && [ -x "$bin/actionbase-admin" ] && [ -x "$bin/actionbase-verify" ] \
  || die "run from the build directory after make (src/actionbased, src/actionbase-admin, src/actionbase-verify)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ab-cutover.XXXXXX")
ab_pid=
writers=()
cleanup() {
  local p
  for p in "${writers[@]}"; do kill "$p" 2>/dev/null || true; done
  stop_pid "$ab_pid" 10
  [ -n "${AB_KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
hb="hbase://$AB_HBASE_ADDR/abtest?table=cutover_$$_$RANDOM&regions=2"
src=$tmp/src/data
admin() { "$bin/actionbase-admin" copy --from "lmdb:$src" --to "$hb" --wal "file:$src/wal" \
            --checkpoint "$tmp/ck" "$@"; }

# The source: a likes table (an index, a COUNT group by day).
ab_start "$bin/actionbased" "$tmp/src" --log-level warning
printf '{"database":"likes","comment":""}' >"$tmp/db.json"
printf '%s' '{"table":"likes","storage":"datastore://likes/likes","comment":"","schema":{"type":"EDGE","source":{"type":"string","comment":""},"target":{"type":"string","comment":""},"direction":"BOTH","properties":[{"name":"created_at","type":"long","nullable":false,"comment":""}],"indexes":[{"index":"recent","fields":[{"field":"created_at","order":"DESC"}]}],"groups":[{"group":"per_day","type":"COUNT","directionType":"OUT","fields":[{"name":"created_at","bucket":{"type":"date","unit":"day","timezone":"+09:00","format":"yyyyMMdd"}}]}]}}' >"$tmp/table.json"
ab_post /graph/v3/databases "$tmp/db.json" '"likes"' >/dev/null
ab_post /graph/v3/databases/likes/tables "$tmp/table.json" '"likes"' >/dev/null
table=/graph/v3/databases/likes/tables/likes

# writer W N: up to N requests (fewer once $tmp/stop exists) of 20
# INSERT/DELETE events over 40 sources x 100 targets, versions unique per
# writer; an acknowledged request (200, no key ERROR) appends its events to
# $tmp/acked.W as "source target version op".
writer() {
  local w=$1 n=$2 r body ans code
  for ((r = 0; r < n; r++)); do
    [ -e "$tmp/stop" ] && break
    body=$(awk -v w="$w" -v r="$r" -v seed="$((w * 100003 + r))" 'BEGIN {
      srand(seed); printf "{\"mutations\":["
      for (i = 0; i < 20; i++) {
        s = int(rand() * 40); t = int(rand() * 100); v = 1000000 + (r * 20 + i) * 8 + w
        op = rand() < 0.75 ? "INSERT" : "DELETE"
        printf "%s{\"type\":\"%s\",\"edge\":{\"version\":%d,\"source\":\"u%d\",\"target\":\"i%d\",\"properties\":{\"created_at\":%d}}}", (i ? "," : ""), op, v, s, t, v
        line[i] = "u" s " i" t " " v " " op
      }
      printf "]}\n"
      for (i = 0; i < 20; i++) print line[i] > "/dev/stderr"
    }' 2>"$tmp/events.$w")
    ans=$(curl -sS --max-time 30 -X POST -H 'Content-Type: application/json' -d "$body" \
          -w '\n%{http_code}' "$base$table/edges" 2>/dev/null) || ans=$'\n000'
    code=${ans##*$'\n'}
    if [ "$code" = 200 ] && ! grep -q '"ERROR"' <<<"$ans"; then
      cat "$tmp/events.$w" >>"$tmp/acked.$w"
    else
      cat "$tmp/events.$w" >>"$tmp/unsure.$w"
    fi
  done
}
for w in 0 1 2 3 9; do : >"$tmp/acked.$w"; : >"$tmp/unsure.$w"; done
writer 9 100 # the preload (2,000 events), before the copy starts
for w in 0 1 2 3; do writer "$w" 100000 & writers+=($!); done
# The copy starts once the writers have been acknowledged (polling, not a
# timed wait): its snapshot then misses writes that only the WAL holds.
while [ "$(cat "$tmp"/acked.* | wc -l)" -le 2000 ]; do sleep 0.2; done

# Copy and catch up while the four writers write; the second run is killed -9
# after a second and run again.
admin >"$tmp/copy1.out" 2>&1 || { cat "$tmp/copy1.out" >&2; die "first copy failed"; }
grep -q 'caught up with' "$tmp/copy1.out" || { cat "$tmp/copy1.out" >&2; die "no catch-up in the first run"; }
"$bin/actionbase-admin" copy --from "lmdb:$src" --to "$hb" --wal "file:$src/wal" \
  --checkpoint "$tmp/ck" >"$tmp/copy2.out" 2>&1 & killme=$!
sleep 1
kill -9 "$killme" 2>/dev/null || true
wait "$killme" 2>/dev/null || true
admin >"$tmp/copy3.out" 2>&1 || { cat "$tmp/copy3.out" >&2; die "catch-up after kill -9 failed"; }
# The writers go on a little longer: the final catch-up has work to do.
n_before=$(cat "$tmp"/acked.* | wc -l)
while [ "$(cat "$tmp"/acked.* | wc -l)" -lt $((n_before + 2000)) ]; do sleep 0.2; done
touch "$tmp/stop"
for p in "${writers[@]}"; do wait "$p"; done
writers=()
acked=$(cat "$tmp"/acked.* | wc -l)

# Cut-over: DENY on the source, then the final catch-up.
stop_pid "$ab_pid" 10
ab_start_store "$bin/actionbased" "$tmp/src" "lmdb:$src" --log-level warning --system-mode DENY
printf '{"mutations":[{"type":"INSERT","edge":{"version":1,"source":"x","target":"y","properties":{"created_at":1}}}]}' >"$tmp/one.json"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
      --data-binary "@$tmp/one.json" "$base$table/edges")" = 400 ] || die "DENY did not refuse a write"
admin >"$tmp/copy4.out" 2>&1 || { cat "$tmp/copy4.out" >&2; die "final catch-up failed"; }
final=$(sed -n 's/.*: \([0-9][0-9]*\) WAL records applied by this run.*/\1/p' "$tmp/copy4.out")
[ "${final:-0}" -ge 2000 ] || { cat "$tmp/copy4.out" >&2; die "the final catch-up applied ${final:-no} records, expected the last 2,000 or more"; }
# A run killed in the middle of a chunk leaves HBase's rows of that chunk's
# edges out of step (a batch is written row by row): the copy says so, and
# the procedure repairs from State before the switch.
if grep -q 'actionbase-verify --store' "$tmp/copy4.out"; then
  # exit 1 means "mismatches were found" (and repaired); the later verify must be clean
  "$bin/actionbase-verify" --store "$hb" --repair >"$tmp/repair.out" 2>&1 || true
  grep -q ' 0 failed' "$tmp/repair.out" || { cat "$tmp/repair.out" >&2; die "the repair on HBase failed"; }
  say "the killed run was inside a chunk: repaired ($(grep -h '^mismatches' "$tmp/repair.out" | head -1))"
fi
old_base=$base
old_pid=$ab_pid
ab_start_store "$bin/actionbased" "$tmp/new" "$hb" --log-level warning --wal none
new_base=$base

# What the acknowledged events say: per edge, the highest version's op. An
# edge whose highest version came from a request that was not acknowledged
# (an error, a timeout: it may or may not have been applied) is left out.
cat "$tmp"/unsure.* 2>/dev/null | awk '{ k = $1 " " $2; if ($3 > u[k]) u[k] = $3 }
  END { for (k in u) print k, u[k] }' >"$tmp/unsure"
cat "$tmp"/acked.* | awk -v unsure="$tmp/unsure" '
  BEGIN { while ((getline l < unsure) > 0) { split(l, f, " "); u[f[1] " " f[2]] = f[3] } }
  { k = $1 " " $2; if (!(k in v) || $3 > v[k]) { v[k] = $3; op[k] = $4 } }
  END { for (k in v) if (!(k in u) || v[k] > u[k]) print k, (op[k] == "INSERT" ? "present" : "absent") }' \
  | sort >"$tmp/expected"
# On each server: every source's OUT targets (a scan) and its count.
listing() {
  local b=$1 s
  for ((s = 0; s < 40; s++)); do
    curl -sS "$b$table/edges/scan/recent?start=u$s&direction=OUT&limit=1000" \
      | jq -r --arg s "u$s" '.edges[] | "\($s) \(.target)"'
  done | sort
}
counts() {
  local b=$1 s
  for ((s = 0; s < 40; s++)); do
    printf 'u%d %s\n' "$s" "$(curl -sS "$b$table/edges/count?start=u$s&direction=OUT" | jq -r '.count')"
  done
}
listing "$old_base" >"$tmp/old.list"
listing "$new_base" >"$tmp/new.list"
cmp -s "$tmp/old.list" "$tmp/new.list" \
  || { diff "$tmp/old.list" "$tmp/new.list" | head >&2; die "the source and HBase list different edges"; }
# Every acknowledged write: present or absent on HBase as its last version says.
awk -v list="$tmp/new.list" 'BEGIN { while ((getline l < list) > 0) on[l] = 1 }
  { k = $1 " " $2; if (($3 == "present") != (k in on)) { print "edge " k " should be " $3; bad++ } }
  END { exit bad > 0 }' "$tmp/expected" >"$tmp/missing" \
  || { head "$tmp/missing" >&2; die "HBase does not hold every acknowledged write"; }
counts "$new_base" >"$tmp/new.counts"
awk '{ n[$1]++ } END { for (s = 0; s < 40; s++) printf "u%d %d\n", s, n["u" s] + 0 }' "$tmp/new.list" >"$tmp/want.counts"
cmp -s "$tmp/want.counts" "$tmp/new.counts" \
  || { diff "$tmp/want.counts" "$tmp/new.counts" | head >&2; die "counts on HBase are not exact"; }
stop_pid "$ab_pid" 10
ab_pid=$old_pid
"$bin/actionbase-verify" --store "$hb" >"$tmp/verify.out" 2>&1 \
  || { cat "$tmp/verify.out" >&2; die "the verifier is not clean on HBase"; }
say "ok: $acked acknowledged events, $(wc -l <"$tmp/new.list") edges, $(cat "$tmp"/copy*.out | grep -c 'caught up') catch-ups; $(grep -h 'caught up' "$tmp/copy4.out" | sed 's/; run it.*//')"
