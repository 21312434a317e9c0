#!/usr/bin/env bash
# Which store (issue 38): LMDB, RocksDB and PostgreSQL side by side in one
# invocation, on loopback, on the workload of an interaction service: likes
# with ITEMS edges per source, N/ITEMS sources and N targets, each batch's
# sources and targets spread over the key space (which-store/load.py has the
# formula; no sequential ids). All servers are started and stopped here.
# For each size N of SIZES:
#   1. load: N edges into a fresh store through the REST API, 1,000 edges a
#      request from LOAD_CLIENTS clients (which-store/load.py): edges/s of
#      the first and of the last slice of the load (a million edges; a tenth
#      of the load below 2M) and their ratio; then the server is stopped and
#      the store directory's size (du) gives the disk bytes per edge.
#      PostgreSQL: COPY of the same likes, its two counters tables built by
#      one GROUP BY each, VACUUM ANALYZE; its database size.
#   2. the server is started again on the loaded store, which settles
#      (RocksDB: until no compaction is pending), then two mixes,
#      BENCH_SECONDS each with BENCH_CONNECTIONS connections, keys uniform
#      over the whole store: read-heavy (95% reads: GET, SCAN limit 25,
#      COUNT a third each; 5% single-edge INSERTs of new edges) and
#      write-heavy (50/50), by wrk with which-store/mix.lua; PostgreSQL gets
#      the same operations weighted alike through pgbench. req/s, p50, p99.
#   3. the server's RSS during the write-heavy mix: the largest of its
#      VmRSS (and RssAnon) samples, next to RocksDB's memory budget.
# Prints one table, the ratios RocksDB/LMDB and each/PostgreSQL, and "Which
# store" lines drawn from the figures. Not a timed test: the machine's other
# load shows in the numbers.
#
# Usage: tests/bench/which-store.sh
# Env:  SIZES="1000000 10000000"  edges per size (coprime with 40507)
#       STORES="lmdb rocksdb postgres"
#       ITEMS=10                   edges per source
#       BENCH_SECONDS=20 BENCH_CONNECTIONS=64 BENCH_THREADS=2
#       LOAD_CLIENTS=8             loader threads (1,000 edges a request)
#       ROCKSDB_MEMORY=268435456   RocksDB's memory= budget (bytes; 256 MiB is
#                                  the server's default)
#       AB_ARGS="--wal none --log-level warning"  server flags: the store
#                                  alone (a WAL costs both stores the same)
#       ACTIONBASED=PATH           server binary (default build/bench's, -O2)
#       BENCH_TMPDIR=DIR           where the stores go (default $TMPDIR or /tmp)
#       KEEP=1                     keep the temp dir (stores, logs)
# CI runs it small: tests/bench/which-store-smoke.sh.
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
rocks_memory=${ROCKSDB_MEMORY:-268435456}
ab_args=${AB_ARGS---wal none --log-level warning}
users=0 # bench_wrk passes it on; mix.lua reads MIX_* instead
target_mult=40507 # load.py's and mix.lua's target multiplier

say() { printf 'which-store: %s\n' "$*" >&2; }
die() {
  say "error: $*"
  exit 1
}

# need_counts, need_tools, is_root, stop_pid, ab_binary, ab_start_store,
# ab_likes_create, ab_get_has, bench_wrk, rss_watch_start/stop, verdict and
# the PostgreSQL helpers
# shellcheck source=bench-lib.sh
. "$here/bench-lib.sh"
need_counts items secs conns threads clients rocks_memory
need_tools wrk curl python3 awk du
for size in $sizes; do need_counts size; done
for store in $stores; do
  case $store in lmdb | rocksdb | postgres) ;; *) die "unknown store $store (lmdb, rocksdb or postgres)" ;; esac
done

tmp=
ab_pid=
loader_pid=
rss_watch_pid=
pg_data=
as_pg=()
pgbin=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_pid "$loader_pid" 5
  stop_pid "$rss_watch_pid" 2
  stop_pid "$ab_pid" 15
  pg_stop
  if [ -n "$tmp" ] && [ -z "${KEEP:-}" ]; then rm -rf "$tmp"; fi
  [ -z "$tmp" ] || [ -z "${KEEP:-}" ] || say "kept $tmp"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

case " $stores " in
  *" postgres "*)
    pgbin=$(pg_bindir) || die "PostgreSQL server binaries not found (apt-get install postgresql)"
    pgbench=$(pgbench_bin) || die "pgbench not found (apt-get install postgresql)"
    need_tools psql
    ;;
esac
ab=$(ab_binary "$repo")
tmp=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/which-store.XXXXXX")
chmod 755 "$tmp" # the postgres user must reach its data dir below
cd "$tmp"
say "temp dir $tmp; $conns connections, ${secs}s per mix, $(nproc) cores"

declare -A R # "SIZE STORE FIELD" -> value

gcd() {
  local a=$1 b=$2 t
  while ((b)); do t=$((a % b)) a=$b b=$t; done
  echo "$a"
}

# spread_for N: the loader's source multiplier, the first integer from
# 0.618 N on that is coprime with N (consecutive edges then land on sources
# far apart, and every source gets ITEMS of them).
spread_for() {
  local n=$1 s
  s=$(awk -v n="$n" 'BEGIN { printf "%.0f", n * 0.6180339887 }')
  while [ "$(gcd "$n" "$s")" != 1 ]; do s=$((s + 1)); done
  echo "$s"
}

# settle: until the store's background work is done (RocksDB: no pending
# compaction bytes twice in a row, a second apart; at most 300 s), as a
# service would read it in its steady state; prints the seconds it took.
settle() {
  local t0=$SECONDS quiet=0 pending
  while [ $((SECONDS - t0)) -lt 300 ] && [ $quiet -lt 2 ]; do
    pending=$(curl -sS --max-time 5 "$base/metrics" |
      awk '$1 == "actionbase_store_rocksdb_pending_compaction_bytes" {print $2}')
    if [ -z "$pending" ] || [ "$pending" = 0 ]; then quiet=$((quiet + 1)); else quiet=0; fi
    [ $quiet -ge 2 ] || sleep 1
  done
  echo $((SECONDS - t0))
}

# store_uri STORE DIR: the server's --store for the store in DIR
store_uri() {
  case $1 in
    lmdb) echo "lmdb:$2" ;;
    rocksdb) echo "rocksdb:$2?memory=$rocks_memory" ;;
  esac
}

# start_server STORE DIR: actionbased on DIR/data with $ab_args
start_server() {
  # shellcheck disable=SC2086 # $ab_args is a list of flags
  ab_start_store "$ab" "$2" "$(store_uri "$1" "$(cd "$2" && pwd)/data")" $ab_args
}

# mix_ab SIZE STORE NAME WRITES SPREAD: one wrk mix against the server at $base
mix_ab() {
  local size=$1 store=$2 name=$3 w=$4 spread=$5
  MIX_PREFIX=$table MIX_EDGES=$size MIX_ITEMS=$items MIX_SPREAD=$spread MIX_WRITES=$w \
    bench_script=$assets/mix.lua bench_wrk "$store-$name-$size" "$base" mix ""
  R["$size $store $name"]="$wrk_rate $wrk_p50 $wrk_p99"
  say "$store $name ($size): $wrk_rate req/s (p50 ${wrk_p50}us, p99 ${wrk_p99}us)"
}

# run_store SIZE STORE SPREAD: load, the disk, restart, settle, the two mixes
run_store() {
  local size=$1 store=$2 spread=$3 dir=$tmp/$2-$1 line last_u last_t
  mkdir -p "$dir/data"
  start_server "$store" "$dir"
  ab_likes_create "$dir"
  say "$store: loading $size edges"
  # in the background: a wait, unlike a command substitution, lets a signal's
  # trap run (and stop the loader) at once
  python3 "$assets/load.py" "$base" "$table" "$size" "$items" "$clients" "$spread" >"$dir/load.out" &
  loader_pid=$!
  wait "$loader_pid" || die "$store: load failed"
  loader_pid=
  line=$(cat "$dir/load.out")
  R["$size $store load"]=$line
  say "$store: $line"
  stop_pid "$ab_pid" 60
  ab_pid=
  R["$size $store disk"]=$(du -sb "$dir/data" | awk '{print $1}')

  start_server "$store" "$dir"
  last_u=$(((size - 1) * spread % size / items)) last_t=$(((size - 1) * target_mult % size))
  ab_get_has "$table/edges/get?source=u$last_u&target=t$last_t" '"count":1,'
  ab_get_has "$table/edges/count?start=u0&direction=OUT" "\"count\":$items,"
  R["$size $store settle"]=$(settle)
  say "$store: settled in ${R["$size $store settle"]} s"
  mix_ab "$size" "$store" read-heavy 5 "$spread"
  rss_watch_start "$ab_pid" "$dir/rss"
  mix_ab "$size" "$store" write-heavy 50 "$spread"
  rss_watch_stop "$dir/rss"
  R["$size $store rss"]="$rss_max_kb $rss_anon_max_kb"
  say "$store: RSS in the write-heavy mix up to $((rss_max_kb / 1024)) MiB, $((rss_anon_max_kb / 1024)) MiB anonymous ($rss_samples samples)"
  stop_pid "$ab_pid" 60
  ab_pid=
  [ -n "${KEEP:-}" ] || rm -rf "$dir"
}

# pg_mix_scripts SIZE SPREAD: the mixes' pgbench scripts into $tmp/pg-*.sql,
# the same keys as mix.lua's
pg_mix_scripts() {
  local size=$1 spread=$2 u=$(($1 / items))
  cat >"$tmp/pg-get.sql" <<EOF
\set g random(0, $((size - 1)))
\set u (:g * $spread) % $size / $items
\set t (:g * $target_mult) % $size
SELECT usr, item, created_at FROM likes WHERE usr = 'u' || :u::bigint AND item = 't' || :t::bigint;
EOF
  cat >"$tmp/pg-scan.sql" <<EOF
\set u random(0, $((u - 1)))
SELECT item, created_at FROM likes WHERE usr = 'u' || :u::bigint ORDER BY created_at DESC LIMIT 25;
EOF
  cat >"$tmp/pg-count.sql" <<EOF
\set u random(0, $((u - 1)))
SELECT n FROM counters WHERE key = 'out_u' || :u::bigint;
EOF
  cat >"$tmp/pg-insert.sql" <<EOF
\set u random(0, $((u - 1)))
\set n random(1, 1000000000000000)
BEGIN;
INSERT INTO likes (usr, item, created_at)
  VALUES ('u' || :u::bigint, 'w' || :n::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
  ON CONFLICT DO NOTHING;
INSERT INTO counters VALUES ('out_u' || :u::bigint, 1) ON CONFLICT (key) DO UPDATE SET n = counters.n + 1;
INSERT INTO counters VALUES ('in_w' || :n::bigint, 1) ON CONFLICT (key) DO UPDATE SET n = counters.n + 1;
END;
EOF
}

# pg_mix SIZE NAME WRITE-PERCENT: GET, SCAN and COUNT (a third of the reads
# each) and the insert transaction, weighted as mix.lua draws them
pg_mix() {
  local size=$1 name=$2 w=$3
  pgbench_run "pg-$name-$size" "$tmp/pg-get.sql@$((100 - w))" \
    -f "$tmp/pg-scan.sql@$((100 - w))" -f "$tmp/pg-count.sql@$((100 - w))" \
    -f "$tmp/pg-insert.sql@$((3 * w))"
  R["$size postgres $name"]="$pg_tps $pg_p50 $pg_p99"
  say "postgres $name ($size): $pg_tps TPS (p50 ${pg_p50}us, p99 ${pg_p99}us)"
}

run_postgres() {
  local size=$1 spread=$2 t0 t1
  pg_start "$tmp/pg-$size" "$conns"
  psql_ -d postgres -c 'CREATE DATABASE bench' >/dev/null || die "CREATE DATABASE failed"
  psql_ -d bench -c 'CREATE TABLE likes (usr text NOT NULL, item text NOT NULL,
      created_at bigint NOT NULL, PRIMARY KEY (usr, item));
    CREATE INDEX likes_recent ON likes (usr, created_at DESC);
    CREATE TABLE counters (key text PRIMARY KEY, n bigint NOT NULL);' >/dev/null
  say "postgres: loading $size edges (COPY)"
  t0=$(date +%s.%N)
  awk -v n="$size" -v ni="$items" -v s="$spread" -v m="$target_mult" 'BEGIN {
      for (g = 0; g < n; g++)
        printf "u%d\tt%d\t%.0f\n", int((g * s) % n / ni), (g * m) % n, 1700000000000 + g }' |
    psql_ -d bench -c 'COPY likes FROM STDIN' >/dev/null || die "COPY failed"
  psql_ -d bench -c "INSERT INTO counters SELECT 'out_' || usr, count(*) FROM likes GROUP BY usr;
    INSERT INTO counters SELECT 'in_' || item, count(*) FROM likes GROUP BY item;" >/dev/null ||
    die "counters failed"
  psql_ -d bench -c 'VACUUM ANALYZE' >/dev/null || die "VACUUM failed"
  t1=$(date +%s.%N)
  R["$size postgres load"]="LOAD edges=$size seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}') slice=0 rates=COPY"
  R["$size postgres disk"]=$(psql_ -d bench -At -c "SELECT pg_database_size('bench')")
  [ "$(psql_ -d bench -At -c "SELECT count(*) FROM counters WHERE key = 'out_u0'")" = 1 ] ||
    die "postgres: no counter for u0"
  pg_mix_scripts "$size" "$spread"
  pg_mix "$size" read-heavy 5
  pg_mix "$size" write-heavy 50
  pg_stop
  pg_data=
  [ -n "${KEEP:-}" ] || rm -rf "$tmp/pg-$size"
}

for size in $sizes; do
  [ "$(gcd "$size" "$target_mult")" = 1 ] || die "size $size is not coprime with $target_mult"
  spread=$(spread_for "$size")
  say "size $size: $((size / items)) sources, source multiplier $spread"
  for store in $stores; do
    case $store in
      lmdb | rocksdb) run_store "$size" "$store" "$spread" ;;
      postgres) run_postgres "$size" "$spread" ;;
    esac
  done
done

# ---------------------------------------------------------------- report
# field LINE KEY: the value of KEY=... in a LOAD line
field() { awk -v k="$2" '{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' <<<"$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
ms() { awk -v v="$1" 'BEGIN { printf "%.2f", v / 1000 }'; }
mib() { awk -v v="$1" 'BEGIN { printf "%.0f", v / 1024 }'; }
# get SIZE STORE FIELD [N]: the stored figure, or its Nth word (from 1)
get() {
  local v=${R["$1 $2 $3"]:-}
  if [ -n "${4:-}" ]; then awk -v i="$4" '{ print $i }' <<<"$v"; else echo "$v"; fi
}
has() { [ -n "${R["$1 $2 $3"]:-}" ]; }
# load_rates SIZE STORE: "FIRST LAST" edges/s of the load's slices (- - for COPY)
load_rates() {
  local rates
  rates=$(field "$(get "$1" "$2" load)" rates)
  case $rates in COPY | "") echo "- -" ;; *) echo "${rates%%,*} ${rates##*,}" ;; esac
}
bytes_per_edge() { awk -v d="$(get "$1" "$2" disk)" -v n="$1" 'BEGIN { printf "%.0f", d / n }'; }

echo
echo "Which store: $(nproc) cores, ${secs}s per mix, $conns connections, ITEMS=$items, REST loads of 1,000 edges a request from $clients clients"
for size in $sizes; do
  echo
  printf '%-9s %-9s %9s %9s %9s %8s %8s | %-11s %8s %7s %7s | %-11s %8s %7s %7s | %7s %7s %7s %6s\n' \
    edges store 'load e/s' 'first' 'last' 'last/1st' 'bytes/e' \
    read-heavy 'req/s' 'p50 ms' 'p99 ms' write-heavy 'req/s' 'p50 ms' 'p99 ms' \
    'RSS MiB' 'anon' 'budget' 'settle'
  for store in $stores; do
    has "$size" "$store" load || continue
    read -r first last < <(load_rates "$size" "$store")
    lr=-
    [ "$first" = - ] || lr=$(ratio "$last" "$first")
    rss=- anon=- budget=-
    if has "$size" "$store" rss; then
      rss=$(mib "$(get "$size" "$store" rss 1)") anon=$(mib "$(get "$size" "$store" rss 2)")
    fi
    [ "$store" != rocksdb ] || budget=$(mib $((rocks_memory / 1024)))
    printf '%-9s %-9s %9.0f %9s %9s %8s %8s | %-11s %8.0f %7s %7s | %-11s %8.0f %7s %7s | %7s %7s %7s %6s\n' \
      "$size" "$store" \
      "$(awk -v n="$size" -v s="$(field "$(get "$size" "$store" load)" seconds)" 'BEGIN { print (s > 0 ? n / s : 0) }')" \
      "$first" "$last" "$lr" "$(bytes_per_edge "$size" "$store")" \
      "" "$(get "$size" "$store" read-heavy 1)" "$(ms "$(get "$size" "$store" read-heavy 2)")" \
      "$(ms "$(get "$size" "$store" read-heavy 3)")" \
      "" "$(get "$size" "$store" write-heavy 1)" "$(ms "$(get "$size" "$store" write-heavy 2)")" \
      "$(ms "$(get "$size" "$store" write-heavy 3)")" \
      "$rss" "$anon" "$budget" "$(get "$size" "$store" settle | sed 's/^$/-/')"
  done
done
echo
echo "load e/s: the whole load; first/last: edges/s of its first and last slice (a million edges, a"
echo "tenth of the load below 2M). bytes/e: the store directory (du, server stopped) or PostgreSQL's"
echo "database size, over the edges loaded. PostgreSQL loads by COPY (its counters by GROUP BY, then"
echo "VACUUM ANALYZE), not by batched transactions: its load e/s is no REST figure. p50/p99: wrk's"
echo "request latency; pgbench's, a client's time between transaction completions. RSS/anon: the largest"
echo "VmRSS/RssAnon sample of the server during the write-heavy mix; budget: RocksDB's memory=."
echo "Server flags: ${ab_args:-(defaults)}; stores in ${BENCH_TMPDIR:-${TMPDIR:-/tmp}}."

# ---------------------------------------------------------------- verdicts
# Each line compares what ran; none is written in advance.
for size in $sizes; do
  echo
  for mix in read-heavy write-heavy; do
    line=
    if has "$size" lmdb "$mix" && has "$size" rocksdb "$mix"; then
      line="rocksdb/lmdb $(ratio "$(get "$size" rocksdb "$mix" 1)" "$(get "$size" lmdb "$mix" 1)") req/s, p99 $(ratio "$(get "$size" rocksdb "$mix" 3)" "$(get "$size" lmdb "$mix" 3)")"
    fi
    for store in lmdb rocksdb; do
      if ! has "$size" "$store" "$mix" || ! has "$size" postgres "$mix"; then continue; fi
      line="${line:+$line, }$store/postgres $(ratio "$(get "$size" "$store" "$mix" 1)" "$(get "$size" postgres "$mix" 1)")"
    done
    [ -z "$line" ] || echo "$mix at $size: $line"
  done
  for mix in read-heavy write-heavy; do
    best='' best_rate=0 second_rate=0
    for store in $stores; do
      has "$size" "$store" "$mix" || continue
      rate=$(get "$size" "$store" "$mix" 1)
      if awk -v a="$rate" -v b="$best_rate" 'BEGIN { exit !(a > b) }'; then
        second_rate=$best_rate best=$store best_rate=$rate
      elif awk -v a="$rate" -v b="$second_rate" 'BEGIN { exit !(a > b) }'; then
        second_rate=$rate
      fi
    done
    [ -z "$best" ] || [ "$second_rate" = 0 ] ||
      echo "Which store, $mix at $size: $best serves the most requests ($(ratio "$best_rate" "$second_rate") the next)"
  done
  for store in lmdb rocksdb; do
    has "$size" "$store" load || continue
    read -r first last < <(load_rates "$size" "$store")
    [ "$first" != - ] || continue
    kept=$(awk -v a="$last" -v b="$first" 'BEGIN { printf "%.2f", a / b }')
    goal="no goal"
    [ "$store" != rocksdb ] || goal="goal >= 0.7x: $(verdict "$kept" '>=' 0.7)"
    echo "Which store, load at $size: $store's last slice loads ${kept}x its first's edges/s ($goal)"
  done
  if has "$size" lmdb disk && has "$size" rocksdb disk; then
    l=$(bytes_per_edge "$size" lmdb) k=$(bytes_per_edge "$size" rocksdb)
    small=lmdb
    [ "$k" -ge "$l" ] || small=rocksdb
    echo "Which store, disk at $size: $small is the smaller (rocksdb $k, lmdb $l bytes per edge$(has "$size" postgres disk && echo ", postgres $(bytes_per_edge "$size" postgres)"))"
  fi
  if has "$size" rocksdb rss; then
    echo "Which store, memory at $size: rocksdb's RSS under writes is $(ratio "$(get "$size" rocksdb rss 1)" $((rocks_memory / 1024))) its memory= budget ($(mib "$(get "$size" rocksdb rss 1)") of $(mib $((rocks_memory / 1024))) MiB)"
  fi
done
