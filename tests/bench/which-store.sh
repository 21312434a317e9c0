#!/usr/bin/env bash
# Which store (issue 38): LMDB, RocksDB and PostgreSQL side by side in one
# invocation, on loopback, on the workload of an interaction service: likes
# u<g/ITEMS> -> t<(g*40507)%N> (every source ITEMS edges, targets spread).
# For each size N:
#   1. load: N edges into a fresh store through the REST API, 1,000 edges a
#      request from LOAD_CLIENTS clients (which-store/load.py), the rate of
#      each successive million (a tenth below 2M) and the last over the
#      first; disk bytes per edge after the load (the store directory, the
#      server stopped). PostgreSQL: COPY of the same likes, counters built by
#      one GROUP BY each, then its database size. Then the store settles
#      (RocksDB: until no compaction is pending) before the mixes.
#   2. mixes on each loaded store, BENCH_SECONDS each with BENCH_CONNECTIONS
#      connections: read-heavy (95% reads: GET, SCAN limit 25, COUNT a third
#      each; 5% single-edge INSERTs) and write-heavy (50/50), wrk with
#      which-store/mix.lua, pgbench with the same operations weighted alike;
#      req/s, p50, p99, the peak RSS of the server in the write-heavy mix.
# Prints one table and the ratios RocksDB/LMDB and each/PostgreSQL. Not a
# timed test: the machine's other load shows in the numbers.
#
# Usage: tests/bench/which-store.sh
# Env:  SIZES="1000000 10000000"  edges per size (coprime with 40507)
#       STORES="lmdb rocksdb postgres"
#       ITEMS=10                   edges per source
#       BENCH_SECONDS=20 BENCH_CONNECTIONS=64 BENCH_THREADS=2
#       LOAD_CLIENTS=8             loader threads (1,000 edges a request)
#       ACTIONBASED=PATH           server binary (default build/bench's, -O2)
#       BENCH_TMPDIR=DIR           where the stores go (default $TMPDIR or /tmp)
#       KEEP=1                     keep the temp dir (stores, logs)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
assets=$here/which-store
sizes=${SIZES:-1000000 10000000}
stores=${STORES:-lmdb rocksdb postgres}
items=${ITEMS:-10}
secs=${BENCH_SECONDS:-20}
conns=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
clients=${LOAD_CLIENTS:-8}
users=0 # bench_wrk passes it on; mix.lua reads MIX_* instead

say() { printf 'which-store: %s\n' "$*" >&2; }
die() {
  say "error: $*"
  exit 1
}
is_root() { [ "$(id -u)" = 0 ]; }

# shellcheck source=bench-lib.sh
. "$here/bench-lib.sh"
need_counts items secs conns threads clients
need_tools wrk curl python3 awk

tmp=
ab_pid=
pg_data=
as_pg=()
pgbin=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_pid "$ab_pid" 15
  pg_stop
  if [ -n "$tmp" ] && [ -z "${KEEP:-}" ]; then rm -rf "$tmp"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

case " $stores " in
  *" postgres "*)
    pgbin=$(pg_bindir) || die "PostgreSQL server binaries not found (apt-get install postgresql)"
    pgbench=$(pgbench_bin) || die "pgbench not found (apt-get install postgresql-contrib)"
    ;;
esac
ab=$(ab_binary "$repo")
tmp=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/which-store.XXXXXX")
chmod 755 "$tmp" # the postgres user must reach its data dir below
cd "$tmp"
say "temp dir $tmp; $conns connections, ${secs}s per mix, $(nproc) cores"

declare -A R # "SIZE STORE FIELD" -> value

# peak RSS (kB) of a process so far
peak_rss() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# settle: until the store's background work is done (RocksDB: no pending
# compaction bytes twice in a row, a second apart; at most 300 s), as a
# service would read it in its steady state; prints the seconds it took.
settle() {
  local t0=$SECONDS quiet=0 pending
  while [ $((SECONDS - t0)) -lt 300 ] && [ $quiet -lt 2 ]; do
    pending=$(curl -sS --max-time 5 "$base/metrics" \
      | awk '$1 == "actionbase_store_rocksdb_pending_compaction_bytes" {print $2}')
    if [ -z "$pending" ] || [ "$pending" = 0 ]; then quiet=$((quiet + 1)); else quiet=0; fi
    [ $quiet -ge 2 ] || sleep 1
  done
  echo $((SECONDS - t0))
}

# mix_ab SIZE STORE NAME WRITES: one wrk mix against the server at $base
mix_ab() {
  local size=$1 store=$2 name=$3 w=$4
  MIX_PREFIX=$table MIX_EDGES=$size MIX_ITEMS=$items MIX_WRITES=$w \
    bench_script=$assets/mix.lua bench_wrk "$store-$name-$size" "$base" mix ""
  R["$size $store $name"]="$wrk_rate $wrk_p50 $wrk_p99"
  say "$store $name ($size): $wrk_rate req/s (p50 ${wrk_p50}us, p99 ${wrk_p99}us)"
}

# run_store SIZE STORE: load, measure the disk, the two mixes
run_store() {
  local size=$1 store=$2 dir=$tmp/$2-$1 line
  mkdir -p "$dir/data"
  ab_start_store "$ab" "$dir" "$store:$(cd "$dir" && pwd)/data" --wal none --log-level warning
  printf '{"desc":"Likes"}' >"$dir/svc.json"
  printf '%s' '{"desc":"Like","type":"INDEXED","schema":{"src":{"type":"STRING"},"tgt":{"type":"STRING"},"fields":[{"name":"created_at","type":"LONG","nullable":false}]},"dirType":"BOTH","storage":"datastore://likes/likes","indices":[{"name":"recent","fields":[{"name":"created_at","order":"DESC"}]}]}' >"$dir/label.json"
  ab_post /graph/v2/service/likes "$dir/svc.json" '"CREATED"' >/dev/null
  ab_post /graph/v2/service/likes/label/likes "$dir/label.json" '"likes.likes"' >/dev/null
  table=/graph/v3/databases/likes/tables/likes
  say "$store: loading $size edges"
  line=$(python3 "$assets/load.py" "$base" "$table" "$size" "$items" "$clients") || die "$store: load failed"
  R["$size $store load"]=$line
  say "$store: $line"
  ab_get_has "$table/edges/count?start=u0&direction=OUT" "\"count\":$items,"
  R["$size $store settle"]=$(settle)
  say "$store: settled in ${R["$size $store settle"]} s"
  mix_ab "$size" "$store" read-heavy 5
  local rss0
  rss0=$(peak_rss "$ab_pid")
  mix_ab "$size" "$store" write-heavy 50
  R["$size $store rss"]="$rss0 $(peak_rss "$ab_pid")"
  stop_pid "$ab_pid" 60
  ab_pid=
  R["$size $store disk"]=$(du -sb "$dir/data" | awk '{print $1}')
  [ -n "${KEEP:-}" ] || rm -rf "$dir"
}

# pg_mix_scripts SIZE: the mixes' pgbench scripts for SIZE into $tmp/pg-*.sql
pg_mix_scripts() {
  local size=$1 u=$((size / items))
  cat >"$tmp/pg-get.sql" <<EOF
\set u random(0, $((u - 1)))
\set j random(0, $((items - 1)))
SELECT usr, item, created_at FROM likes
  WHERE usr = 'u' || :u::int AND item = 't' || ((:u::bigint * $items + :j::bigint) * 40507) % $size;
EOF
  cat >"$tmp/pg-scan.sql" <<EOF
\set u random(0, $((u - 1)))
SELECT item, created_at FROM likes WHERE usr = 'u' || :u::int ORDER BY created_at DESC LIMIT 25;
EOF
  cat >"$tmp/pg-count.sql" <<EOF
\set u random(0, $((u - 1)))
SELECT n FROM counters WHERE key = 'out_u' || :u::int;
EOF
  cat >"$tmp/pg-insert.sql" <<EOF
\set u random(0, $((u - 1)))
\set n random(1, 1000000000000000)
BEGIN;
INSERT INTO likes (usr, item, created_at)
  VALUES ('u' || :u::int, 'w' || :n::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
  ON CONFLICT DO NOTHING;
INSERT INTO counters VALUES ('out_u' || :u::int, 1) ON CONFLICT (key) DO UPDATE SET n = counters.n + 1;
INSERT INTO counters VALUES ('in_w' || :n::bigint, 1) ON CONFLICT (key) DO UPDATE SET n = counters.n + 1;
END;
EOF
}

# pg_mix SIZE NAME WRITE-WEIGHT READ-WEIGHT (each read a third of it)
pg_mix() {
  local size=$1 name=$2 w=$3 r=$4
  pgbench_run "pg-$name-$size" "$tmp/pg-get.sql@$r" -f "$tmp/pg-scan.sql@$r" \
    -f "$tmp/pg-count.sql@$r" -f "$tmp/pg-insert.sql@$w"
  R["$size postgres $name"]="$pg_tps $pg_p50 $pg_p99"
  say "postgres $name ($size): $pg_tps TPS (p50 ${pg_p50}us, p99 ${pg_p99}us)"
}

run_postgres() {
  local size=$1 t0 t1
  pg_start "$tmp/pg-$size" "$conns"
  psql_ -d postgres -c 'CREATE DATABASE bench' >/dev/null || die "CREATE DATABASE failed"
  psql_ -d bench -c 'CREATE TABLE likes (usr text NOT NULL, item text NOT NULL,
      created_at bigint NOT NULL, PRIMARY KEY (usr, item));
    CREATE INDEX likes_recent ON likes (usr, created_at DESC);
    CREATE TABLE counters (key text PRIMARY KEY, n bigint NOT NULL);' >/dev/null
  say "postgres: loading $size edges (COPY)"
  t0=$(date +%s.%N)
  awk -v n="$size" -v ni="$items" 'BEGIN { for (g = 0; g < n; g++)
      printf "u%d\tt%d\t%.0f\n", int(g / ni), (g * 40507) % n, 1700000000000 + g }' \
    | psql_ -d bench -c 'COPY likes FROM STDIN' >/dev/null || die "COPY failed"
  psql_ -d bench -c "INSERT INTO counters SELECT 'out_' || usr, count(*) FROM likes GROUP BY usr;
    INSERT INTO counters SELECT 'in_' || item, count(*) FROM likes GROUP BY item;" >/dev/null \
    || die "counters failed"
  psql_ -d bench -c 'VACUUM ANALYZE' >/dev/null || die "VACUUM failed"
  t1=$(date +%s.%N)
  R["$size postgres load"]="LOAD edges=$size seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}') slice=0 rates=COPY"
  R["$size postgres disk"]=$(psql_ -d bench -At -c "SELECT pg_database_size('bench')")
  pg_mix_scripts "$size"
  pg_mix "$size" read-heavy 5 32
  pg_mix "$size" write-heavy 50 17
  pg_stop
  pg_data=
  [ -n "${KEEP:-}" ] || rm -rf "$tmp/pg-$size"
}

for size in $sizes; do
  for store in $stores; do
    case $store in
      lmdb | rocksdb) run_store "$size" "$store" ;;
      postgres) run_postgres "$size" ;;
      *) die "unknown store $store (lmdb, rocksdb or postgres)" ;;
    esac
  done
done

# ---------------------------------------------------------------- report
field() { awk -v k="$2" '{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' <<<"$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }

echo
echo "Which store: $(nproc) cores, ${secs}s per mix, $conns connections, ITEMS=$items, REST loads of 1,000 edges a request from $clients clients"
for size in $sizes; do
  echo
  printf '%-9s %-9s %10s %10s %10s %7s %9s | %-11s %9s %7s %7s | %-11s %9s %7s %7s %8s %8s\n' \
    "edges" "store" "load e/s" "first e/s" "last e/s" "last/1st" "bytes/e" \
    "read-heavy" "req/s" "p50 ms" "p99 ms" "write-heavy" "req/s" "p50 ms" "p99 ms" "RSS MiB" "settle s"
  for store in $stores; do
    load=${R["$size $store load"]:-}
    [ -n "$load" ] || continue
    rates=$(field "$load" rates) secs_load=$(field "$load" seconds)
    first=${rates%%,*} last=${rates##*,}
    [ "$rates" != COPY ] || first=- last=-
    lr=$( [ "$first" = - ] && echo - || ratio "$last" "$first")
    rh=(${R["$size $store read-heavy"]}) wh=(${R["$size $store write-heavy"]})
    rss=(${R["$size $store rss"]:-0 0})
    printf '%-9s %-9s %10.0f %10s %10s %7s %9.0f | %-11s %9.0f %7.2f %7.2f | %-11s %9.0f %7.2f %7.2f %8s %8s\n' \
      "$size" "$store" "$(awk -v n="$size" -v s="$secs_load" 'BEGIN{print n / s}')" "$first" "$last" "$lr" \
      "$(awk -v d="${R["$size $store disk"]}" -v n="$size" 'BEGIN{print d / n}')" \
      "" "${rh[0]}" "$(awk -v v="${rh[1]}" 'BEGIN{print v / 1000}')" "$(awk -v v="${rh[2]}" 'BEGIN{print v / 1000}')" \
      "" "${wh[0]}" "$(awk -v v="${wh[1]}" 'BEGIN{print v / 1000}')" "$(awk -v v="${wh[2]}" 'BEGIN{print v / 1000}')" \
      "$( [ "$store" = postgres ] && echo - || awk -v v="${rss[1]}" 'BEGIN{printf "%.0f", v / 1024}')" \
      "${R["$size $store settle"]:--}"
  done
  # ratios and the verdict of this size
  for mix in read-heavy write-heavy; do
    l=${R["$size lmdb $mix"]:-} k=${R["$size rocksdb $mix"]:-} p=${R["$size postgres $mix"]:-}
    [ -n "$l" ] && [ -n "$k" ] || continue
    l=${l%% *} k=${k%% *}
    line="$mix at $size: rocksdb/lmdb $(ratio "$k" "$l")"
    [ -z "$p" ] || line="$line, lmdb/postgres $(ratio "$l" "${p%% *}"), rocksdb/postgres $(ratio "$k" "${p%% *}")"
    winner=$(awk -v a="$l" -v b="$k" 'BEGIN { print (b > a) ? "rocksdb" : "lmdb" }')
    echo "$line: $winner serves it faster"
  done
done
