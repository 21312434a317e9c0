#!/usr/bin/env bash
# REST figures (issue 5): one invocation, one machine, three things side by side,
# all on loopback and all started and stopped here:
#   1. the ceiling: nginx answering a static 200 (access_log off);
#   2. what users pick instead: PostgreSQL (fsync on, synchronous_commit on)
#      with likes(usr,item,created_at) + counters, driven by pgbench -M prepared:
#      get one like, 25 most recent, read a counter, insert a like + bump two
#      counters in one transaction;
#   3. actionbased on LMDB (durable) with its default flags (INFO access log
#      on), the same four operations over REST with 10k preloaded edges (50 per
#      source): GET edge, SCAN limit 25 (25 back), COUNT, single-edge INSERT
#      (lock=true, the default); and next to them an mget of 25 (GET
#      /edges/get of 25 targets of one source) and INSERT batches of 10 and
#      1,000 new edges per request.
# Each phase is driven by wrk (pgbench for PostgreSQL) with the same number of
# connections and threads. All three servers stay up for the whole run and
# every round runs each operation once, in turn, so drift on a shared machine
# does not favour one operation; the best round of each counts. Prints one
# table with req/s (and edges or pairs/s), p50/p99, the ratios to nginx and to
# the matching PostgreSQL operation, and each goal of the issue as met/MISSED:
#   GET >= 0.6x nginx and >= 1.5x PostgreSQL get;
#   SCAN 25 >= 0.35x nginx and >= 1.2x PostgreSQL's 25 most recent;
#   COUNT >= 0.6x nginx;
#   INSERT >= 2x PostgreSQL's insert + 2 counters TPS, with p99 <= 15 ms;
#   INSERT batch of 1,000 >= 100k edges/s.
#
# Usage: tests/bench/rest-bench.sh
# Env:
#   BENCH_SECONDS=10      duration of each phase (the 1,000-edge batches keep
#                         64 x 1,000 edges in flight: a phase shorter than
#                         their latency completes none and shows 0)
#   BENCH_CONNECTIONS=64  wrk connections / pgbench clients
#   BENCH_THREADS=2       wrk threads / pgbench jobs
#   BENCH_ROUNDS=3        rounds; each runs every phase once and the best
#                         (highest req/s) round of each phase counts: on a
#                         shared machine it is the least disturbed one
#   ACTIONBASED=PATH      server binary (default: build/bench/src/actionbased,
#                         built with -O2 -g when missing)
#   AB_BENCH_STORE=lmdb   the server's store: lmdb or rocksdb (in its directory)
#   AB_CPUS=1 WRK_CPUS=0  taskset CPU lists: the server and nginx on AB_CPUS
#                         (one loop / one worker per CPU), wrk on WRK_CPUS;
#                         unset, all three share every core
#   AB_ARGS="..."         extra actionbased flags (e.g. "--http-threads 2";
#                         none by default: the issue's figures are with the
#                         default flags, INFO access log included)
#   BENCH_TMPDIR=DIR      where the temp dirs go (default ${TMPDIR:-/tmp}); LMDB
#                         and PostgreSQL data share it, so fsync costs match
#   BENCH_PERF=DIR        record `perf record -g` of actionbased during each of
#                         of its phases into DIR/<op>.perf.data (last round)
#   BENCH_PERF_ARGS="..." perf record flags instead of -g (e.g. "--call-graph
#                         dwarf -F 499": the -O2 build has no frame pointers)
#   BENCH_NO_INSTALL=1    never apt-get install missing tools
# Not a timed test: the machine's other load shows up in the numbers.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
assets=$here/rest-bench

secs=${BENCH_SECONDS:-10}
conns=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
rounds=${BENCH_ROUNDS:-3}
users=200   # preload: u0..u199, 50 likes each (i0..i49) = 10k edges
items=50

say() { printf 'rest-bench: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# need_counts, need_tools, is_root, free_port, wait_http, stop_pid, ab_binary,
# ab_start, ab_post, ab_likes_table, bench_wrk, ab_settle, verdict
# shellcheck source=bench-lib.sh
. "$here/bench-lib.sh"
need_counts secs conns threads rounds

# ---------------------------------------------------------------- tools
nginx_bin() {
  command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; }
}

install_missing() {
  local pkgs=()
  command -v wrk >/dev/null || pkgs+=(wrk)
  command -v curl >/dev/null || pkgs+=(curl)
  nginx_bin >/dev/null || pkgs+=(nginx-light)
  pg_bindir >/dev/null || pkgs+=(postgresql)
  pgbench_bin >/dev/null || pkgs+=(postgresql-contrib)
  [ ${#pkgs[@]} -eq 0 ] && return 0
  [ -z "${BENCH_NO_INSTALL:-}" ] || die "missing tools (${pkgs[*]}) and BENCH_NO_INSTALL is set"
  is_root || die "missing tools (${pkgs[*]}): install them (apt-get install ${pkgs[*]}) or run as root"
  command -v apt-get >/dev/null || die "missing tools (${pkgs[*]}) and no apt-get to install them"
  say "installing ${pkgs[*]}"
  # Keep package scripts from starting system-wide nginx/PostgreSQL services.
  local policy=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy"
  fi
  local rc=0
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${pkgs[@]}" >&2 \
    || { apt-get update -q >&2 && apt-get install -y -q --no-install-recommends "${pkgs[@]}" >&2; } \
    || rc=$?
  [ -z "$policy" ] || rm -f "$policy"
  [ $rc -eq 0 ] || die "apt-get install ${pkgs[*]} failed"
}


# ---------------------------------------------------------------- cleanup
tmp=
nginx_pid=
ab_pid=
perf_pid=
pg_data=
as_pg=()


cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [ -z "$perf_pid" ] || kill -INT "$perf_pid" 2>/dev/null || true
  stop_pid "$perf_pid" 10
  stop_pid "$nginx_pid" 5
  stop_pid "$ab_pid" 15
  pg_stop
  [ -z "$tmp" ] || rm -rf "$tmp"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- setup
install_missing
pgbin=$(pg_bindir) || die "PostgreSQL server binaries (initdb, pg_ctl) not found"
pgbench=$(pgbench_bin) || die "pgbench not found"
nginx=$(nginx_bin) || die "nginx not found"
need_tools wrk curl awk sort

ab=$(ab_binary "$repo")

tmp=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/rest-bench.XXXXXX")
chmod 755 "$tmp"   # the postgres user must reach its data dir below
cd "$tmp"          # a cwd every user (postgres included) can enter
say "temp dir $tmp; $conns connections, $threads threads, ${secs}s per phase, $(nproc) cores"

# results: name -> "rps p50_us p99_us"
declare -A R
keep_best() {  # keep_best NAME "rps p50 p99": the round with the highest rate wins
  if [ -z "${R[$1]:-}" ] || awk -v a="${2%% *}" -v b="${R[$1]%% *}" 'BEGIN { exit !(a > b) }'; then
    R[$1]=$2
  fi
}

# run_wrk NAME URL OP PREFIX: one round of URL driven by wrk.lua, into R[NAME]
run_wrk() {
  bench_wrk "$@"
  keep_best "$1" "$wrk_rate $wrk_p50 $wrk_p99"
  say "round $round: $1: $wrk_rate req/s (p50 ${wrk_p50}us, p99 ${wrk_p99}us)"
}

# run_pgbench NAME SCRIPT: one round of PostgreSQL driven by pgbench, into R[NAME]
run_pgbench() {
  local name=$1 script=$2
  pgbench_run "$name" "$assets/$script"
  keep_best "$name" "$pg_tps $pg_p50 $pg_p99"
  say "round $round: $name: $pg_tps TPS (p50 ${pg_p50}us, p99 ${pg_p99}us)"
}

# ---------------------------------------------------------------- 1. nginx
ngx_dir=$tmp/nginx
mkdir -p "$ngx_dir"
ngx_port=$(free_port) || die "no free port for nginx"
# AB_CPUS pins nginx to the server's CPUs too, one worker per CPU: the
# ceiling is then measured on the cores the server gets.
ngx_pin=() ngx_workers=auto
if [ -n "${AB_CPUS:-}" ]; then
  ngx_pin=(taskset -c "$AB_CPUS")
  ngx_workers=$(taskset -c "$AB_CPUS" nproc)
fi
cat >"$ngx_dir/nginx.conf" <<EOF
daemon off;
worker_processes $ngx_workers;
pid $ngx_dir/nginx.pid;
error_log $ngx_dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $ngx_dir/body;
  proxy_temp_path $ngx_dir/proxy;
  fastcgi_temp_path $ngx_dir/fastcgi;
  uwsgi_temp_path $ngx_dir/uwsgi;
  scgi_temp_path $ngx_dir/scgi;
  keepalive_requests 100000000;
  keepalive_timeout 60s;
  server {
    listen 127.0.0.1:$ngx_port;
    location / { default_type text/plain; return 200 "ok\n"; }
  }
}
EOF
"${ngx_pin[@]}" "$nginx" -p "$ngx_dir" -c "$ngx_dir/nginx.conf" -e "$ngx_dir/error.log" >"$ngx_dir/stdout" 2>&1 &
nginx_pid=$!
wait_http "http://127.0.0.1:$ngx_port/" 10 "$nginx_pid" \
  || { cat "$ngx_dir/stdout" "$ngx_dir/error.log" >&2 2>/dev/null || true; die "nginx did not come up on 127.0.0.1:$ngx_port"; }
say "nginx up on 127.0.0.1:$ngx_port"
# ---------------------------------------------------------------- 2. PostgreSQL
pg_start "$tmp/pg" "$conns"
psql_ -d postgres -c 'CREATE DATABASE bench' >/dev/null || die "CREATE DATABASE failed"
psql_ -d bench -f "$assets/schema.sql" >/dev/null || die "loading the PostgreSQL schema failed"
n=$(psql_ -d bench -At -c 'SELECT count(*) FROM likes') || die "PostgreSQL preload check failed"
[ "$n" = $((users * items)) ] || die "PostgreSQL preload: $n likes, expected $((users * items))"
say "PostgreSQL $("$pgbin/postgres" -V | awk '{print $3}') up on 127.0.0.1:$pg_port with $n likes (fsync=on, synchronous_commit=on)"
# ---------------------------------------------------------------- 3. actionbased
ab_dir=$tmp/ab
# Default flags: the INFO access log writes a line per request (nginx runs
# with access_log off; the issue asks for the server as it ships).
# shellcheck disable=SC2086
# AB_BENCH_STORE=rocksdb: the same run with the server on rocksdb:DIR/data
store_kind=${AB_BENCH_STORE:-lmdb}
mkdir -p "$ab_dir/data"
ab_start_store "$ab" "$ab_dir" "$store_kind:$(cd "$ab_dir" && pwd)/data" ${AB_ARGS:-}
say "actionbased up on 127.0.0.1:$ab_port ($ab${AB_ARGS:+ $AB_ARGS})"
ab_likes_table "$ab_dir" "$users" "$items"
ab_get_has "$table/edges/get?source=u7&target=$(seq -s, -f 'i%g' 10 34)" '"count":25,'
say "actionbased preloaded with $((users * items)) edges"

ab_phase() {  # ab_phase NAME OP: one round of actionbased with wrk.lua's OP
  if [ -n "${BENCH_PERF:-}" ]; then
    mkdir -p "$BENCH_PERF"
    # shellcheck disable=SC2086
    perf record ${BENCH_PERF_ARGS:--g} -o "$BENCH_PERF/$2.perf.data" -p "$ab_pid" >"$BENCH_PERF/$2.perf.log" 2>&1 &
    perf_pid=$!
    sleep 0.5
  fi
  run_wrk "$1" "$base" "$2" "$table"
  ab_settle   # the next phase starts on an idle server
  if [ -n "$perf_pid" ]; then
    kill -INT "$perf_pid" 2>/dev/null || true
    for _ in $(seq 300); do kill -0 "$perf_pid" 2>/dev/null || break; sleep 0.1; done
    stop_pid "$perf_pid" 5; perf_pid=
  fi
}

# ---------------------------------------------------------------- rounds
# Every operation once per round, in turn; nginx gets the same request shapes
# (random GET paths) as the REST GET phase, so the client side costs the same.
for round in $(seq "$rounds"); do
  say "round $round of $rounds"
  run_wrk nginx "http://127.0.0.1:$ngx_port" static ""
  run_pgbench pg_get pg-get.sql
  run_pgbench pg_scan pg-scan.sql
  run_pgbench pg_count pg-count.sql
  run_pgbench pg_insert pg-insert.sql
  ab_phase ab_get get
  ab_phase ab_scan scan
  ab_phase ab_mget mget25
  ab_phase ab_count count
  ab_phase ab_insert insert
  ab_phase ab_batch10 batch10
  ab_phase ab_batch1000 batch1000
done
stop_pid "$nginx_pid" 5; nginx_pid=
n=$(psql_ -d bench -At -c 'SELECT count(*) FROM likes') || die "PostgreSQL count failed"
say "PostgreSQL holds $n likes after the insert phases (preload $((users * items)))"
pg_stop; pg_data=
# The inserts landed: the sources' OUT counts add up to every edge CREATED.
total=0
for u in $(seq 0 $((users - 1))); do
  c=$(curl -sS --max-time 5 "$base$table/edges/count?start=u$u&direction=OUT" | sed -n 's/.*"count":\([0-9]*\).*/\1/p')
  total=$((total + ${c:-0}))
done
created=$(curl -sS --max-time 5 "$base/metrics" | sed -n 's/^actionbase_mutations_total{status="CREATED"} \([0-9]*\)$/\1/p')
say "actionbased holds $total OUT edges after the insert phases (preload $((users * items)), CREATED by the server: ${created:-?})"
[ "$total" = "${created:-}" ] || say "WARNING: OUT counts ($total) and CREATED mutations (${created:-?}) differ"
stop_pid "$ab_pid" 15; ab_pid=

# ---------------------------------------------------------------- table
field() { awk -v i="$2" '{print $i}' <<<"${R[$1]}"; }   # field NAME 1|2|3: rate, p50, p99
rps() { field "$1" 1; }
ratio() { awk -v a="$(rps "$1")" -v b="$(rps "$2")" 'BEGIN { printf("%.2fx", (b > 0 ? a / b : 0)) }'; }
goal() {  # goal NAME BASE FACTOR LABEL: LABEL met when rate >= FACTOR x BASE's rate
  printf '%s %s' "$4" "$(verdict "$(rps "$1")" '>=' "$(awk -v b="$(rps "$2")" -v f="$3" 'BEGIN { print b * f }')")"
}
p99_goal() {  # p99_goal NAME MS
  printf 'p99<=%sms %s' "$2" "$(verdict "$(field "$1" 3)" '<=' "$(($2 * 1000))")"
}
per_s() {  # per_s NAME PER-REQUEST: edges or pairs per second
  awk -v r="$(rps "$1")" -v k="$2" 'BEGIN { printf "%.0f", r * k }'
}
row() {  # row LABEL NAME VS_PG PER-REQUEST GOALS
  local r p50 p99 vn vp items_s=-
  read -r r p50 p99 <<<"${R[$2]}"
  vn=$(ratio "$2" nginx)
  vp=-; [ -z "$3" ] || vp=$(ratio "$2" "$3")
  [ -z "$4" ] || items_s=$(per_s "$2" "$4")
  printf '%-36s %10.0f %10s %8.2f %8.2f %8s %7s   %s\n' "$1" "$r" "$items_s" \
    "$(awk -v x="$p50" 'BEGIN{print x/1000}')" "$(awk -v x="$p99" 'BEGIN{print x/1000}')" "$vn" "$vp" "$5"
}
echo
echo "REST figures: $(nproc) cores, $conns connections, $threads client threads, ${secs}s per operation$([ "$rounds" = 1 ] || echo ", best of $rounds rounds"), all on loopback"
printf '%-36s %10s %10s %8s %8s %8s %7s   %s\n' operation 'req/s|TPS' 'edges/s' 'p50 ms' 'p99 ms' 'x nginx' 'x PG' goals
printf '%s\n' "$(printf '%.0s-' $(seq 130))"
row "nginx static 200 (ceiling)"          nginx     "" "" ""
row "PostgreSQL get one like"             pg_get    "" "" ""
row "PostgreSQL 25 most recent"           pg_scan   "" "" ""
row "PostgreSQL read counter"             pg_count  "" "" ""
row "PostgreSQL insert + 2 counters (tx)" pg_insert "" 1 ""
row "actionbased GET edge"                ab_get    pg_get    "" "$(goal ab_get nginx 0.6 '>=0.6x nginx'), $(goal ab_get pg_get 1.5 '>=1.5x PG')"
row "actionbased SCAN limit 25"           ab_scan   pg_scan   "" "$(goal ab_scan nginx 0.35 '>=0.35x nginx'), $(goal ab_scan pg_scan 1.2 '>=1.2x PG')"
row "actionbased COUNT"                   ab_count  pg_count  "" "$(goal ab_count nginx 0.6 '>=0.6x nginx')"
row "actionbased INSERT 1 edge"           ab_insert pg_insert 1  "$(goal ab_insert pg_insert 2 '>=2x PG'), $(p99_goal ab_insert 15)"
row "actionbased INSERT batch of 10"      ab_batch10 ""       10 ""
row "actionbased INSERT batch of 1,000"   ab_batch1000 ""     1000 ">=100k edges/s $(verdict "$(per_s ab_batch1000 1000)" '>=' 100000)"
row "actionbased mget 25 (pairs/s)"       ab_mget   ""        25 ""
echo "edges/s: req/s x edges per request (mget: source-target pairs asked per second). wrk p50/p99:"
echo "request written to response read; pgbench p50/p99: a client's time between transaction completions"
echo "(-l log). PostgreSQL: fsync=on, synchronous_commit=on, 5 round trips per insert tx. actionbased:"
echo "$store_kind (sync), default flags (INFO access log)${AB_ARGS:+ + $AB_ARGS}, inserts lock=true; nginx: access_log off."
