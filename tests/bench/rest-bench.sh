#!/usr/bin/env bash
# REST figures (issue 5): one invocation, one machine, three things side by side,
# all on loopback and all started and stopped here:
#   1. the ceiling: nginx answering a static 200 (access_log off);
#   2. what users pick instead: PostgreSQL (fsync on, synchronous_commit on)
#      with likes(usr,item,created_at) + counters, driven by pgbench -M prepared:
#      get one like, 25 most recent, read a counter, insert a like + bump two
#      counters in one transaction;
#   3. actionbased on LMDB (durable), the same four operations over REST with
#      10k preloaded edges: GET edge, SCAN limit 25, COUNT, INSERT ?lock=true.
# Each phase is driven by wrk (pgbench for PostgreSQL) with the same number of
# connections and threads. Prints one table with req/s, p50/p99 and the ratios
# to nginx and to the matching PostgreSQL operation, next to the goals.
#
# Usage: tests/bench/rest-bench.sh
# Env:
#   BENCH_SECONDS=10      duration of each phase
#   BENCH_CONNECTIONS=64  wrk connections / pgbench clients
#   BENCH_THREADS=2       wrk threads / pgbench jobs
#   BENCH_ROUNDS=1        run each phase N times and keep the best (highest
#                         req/s) round: on a shared machine the best round is
#                         the least disturbed one
#   ACTIONBASED=PATH      server binary (default: build/bench/src/actionbased,
#                         built with -O2 -g when missing)
#   AB_ARGS="..."         extra actionbased flags (e.g. "--http-threads 2")
#   BENCH_TMPDIR=DIR      where the temp dirs go (default ${TMPDIR:-/tmp}); LMDB
#                         and PostgreSQL data share it, so fsync costs match
#   BENCH_PERF=DIR        record `perf record -g` of actionbased during each of
#                         its phases into DIR/<op>.perf.data
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
rounds=${BENCH_ROUNDS:-1}
users=200   # preload: u0..u199, 50 likes each (i0..i49) = 10k edges
items=50

say() { printf 'rest-bench: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

for v in secs conns threads rounds; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"
done

# ---------------------------------------------------------------- tools
is_root() { [ "$(id -u)" = 0 ]; }

pg_bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
  done
  command -v pg_config >/dev/null && d=$(pg_config --bindir) && [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  command -v initdb >/dev/null && { dirname "$(readlink -f "$(command -v initdb)")"; return 0; }
  return 1
}
nginx_bin() {
  command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; }
}
pgbench_bin() {
  local d
  d=$(pg_bindir 2>/dev/null) && [ -x "$d/pgbench" ] && { echo "$d/pgbench"; return 0; }
  command -v pgbench
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

# free_port, wait_http, stop_pid, ab_binary, ab_start, ab_post
# shellcheck source=bench-lib.sh
. "$here/bench-lib.sh"

# ---------------------------------------------------------------- cleanup
tmp=
nginx_pid=
ab_pid=
perf_pid=
pg_data=
as_pg=()

pg_stop() {
  [ -n "$pg_data" ] && [ -f "$pg_data/postmaster.pid" ] || return 0
  "${as_pg[@]}" "$pgbin/pg_ctl" -D "$pg_data" -m fast -w -t 30 stop >/dev/null 2>&1 \
    || "${as_pg[@]}" "$pgbin/pg_ctl" -D "$pg_data" -m immediate -w -t 10 stop >/dev/null 2>&1 || true
}

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
for t in wrk curl awk sort; do command -v "$t" >/dev/null || die "$t not found"; done

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

# run_wrk NAME URL OP PREFIX: drive URL with wrk.lua, record R[NAME]
run_wrk() {
  local round
  for round in $(seq "$rounds"); do run_wrk_once "$@"; done
}
run_wrk_once() {
  local name=$1 url=$2 op=$3 prefix=$4 out line rate
  out=$tmp/wrk-$name.out
  BENCH_OP=$op BENCH_PREFIX=$prefix BENCH_USERS=$users BENCH_ITEMS=$items \
    wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 10s -s "$assets/wrk.lua" "$url" >"$out" 2>&1 \
    || { cat "$out" >&2; die "wrk failed for $name"; }
  line=$(grep '^BENCH ' "$out") || { cat "$out" >&2; die "no BENCH line from wrk for $name"; }
  kv() { sed -n "s/.* $1=\([0-9][0-9]*\).*/\1/p" <<<" $line"; }
  local req dur p50 p99 non2xx sockerr notcreated
  req=$(kv requests) dur=$(kv duration_us) p50=$(kv p50_us) p99=$(kv p99_us)
  non2xx=$(kv non2xx) sockerr=$(kv sockerr) notcreated=$(kv notcreated)
  [ -n "$req" ] && [ "$req" -gt 0 ] || { cat "$out" >&2; die "$name: no requests completed"; }
  [ "$non2xx" -eq 0 ] || say "WARNING: $name: $non2xx non-2xx responses"
  [ "$sockerr" -eq 0 ] || say "WARNING: $name: $sockerr socket errors/timeouts"
  [ "$notcreated" -eq 0 ] || say "WARNING: $name: $notcreated inserts not CREATED, e.g. $(sed -n 's/^BENCH-SAMPLE not CREATED: //p' "$out" | head -c 400)"
  rate=$(awk -v r="$req" -v d="$dur" 'BEGIN{printf "%.1f", r / (d / 1e6)}')
  keep_best "$name" "$rate $p50 $p99"
  say "$name: $rate req/s (p50 ${p50}us, p99 ${p99}us)"
}

# run_pgbench NAME SCRIPT: drive PostgreSQL with pgbench, record R[NAME]
run_pgbench() {
  local round
  for round in $(seq "$rounds"); do run_pgbench_once "$@"; done
}
run_pgbench_once() {
  local name=$1 script=$2 out tps p50 p99 failed
  out=$tmp/pgbench-$name.out
  mkdir -p "$tmp/pglog"
  "$pgbench" -h 127.0.0.1 -p "$pg_port" -U postgres -n -M prepared \
    -c "$conns" -j "$threads" -T "$secs" -f "$assets/$script" \
    -l --log-prefix="$tmp/pglog/$name" bench >"$out" 2>&1 \
    || { cat "$out" >&2; die "pgbench failed for $name"; }
  tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' "$out" | head -1)
  [ -n "$tps" ] || tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$out" | tail -1)
  [ -n "$tps" ] || { cat "$out" >&2; die "no tps from pgbench for $name"; }
  failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$out")
  [ "${failed:-0}" -eq 0 ] || say "WARNING: $name: $failed failed transactions"
  # Latency per transaction from the per-transaction log (-l; columns: client
  # transaction latency_us script epoch_s epoch_us). pgbench's own latency
  # column reads a cached clock and is 0 for most transactions under load, so
  # use each client's time between consecutive completions instead (the first
  # transaction of a client keeps the logged latency): closed loop, so this is
  # the request's full round trip, client-side queueing included.
  read -r p50 p99 < <(cat "$tmp/pglog/$name".* | awk '
    { t = $5 * 1000000 + $6
      if ($1 in last) print t - last[$1]; else print $3
      last[$1] = t }' | sort -n | awk '
    { v[NR] = $1 } END {
      if (NR == 0) { print "0 0"; exit }
      i50 = int(NR * 0.50 + 0.999999); i99 = int(NR * 0.99 + 0.999999)
      print v[i50], v[i99] }')
  rm -f "$tmp/pglog/$name".*
  keep_best "$name" "$tps $p50 $p99"
  say "$name: $tps TPS (p50 ${p50}us, p99 ${p99}us)"
}

# ---------------------------------------------------------------- 1. nginx
ngx_dir=$tmp/nginx
mkdir -p "$ngx_dir"
ngx_port=$(free_port) || die "no free port for nginx"
cat >"$ngx_dir/nginx.conf" <<EOF
daemon off;
worker_processes auto;
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
"$nginx" -p "$ngx_dir" -c "$ngx_dir/nginx.conf" -e "$ngx_dir/error.log" >"$ngx_dir/stdout" 2>&1 &
nginx_pid=$!
wait_http "http://127.0.0.1:$ngx_port/" 10 "$nginx_pid" \
  || { cat "$ngx_dir/stdout" "$ngx_dir/error.log" >&2 2>/dev/null || true; die "nginx did not come up on 127.0.0.1:$ngx_port"; }
say "nginx up on 127.0.0.1:$ngx_port"
# Same request shapes (random GET paths) as the REST GET phase, so the client
# side costs the same; nginx answers every path with a static 200.
run_wrk nginx "http://127.0.0.1:$ngx_port" static ""
stop_pid "$nginx_pid" 5; nginx_pid=

# ---------------------------------------------------------------- 2. PostgreSQL
pg_root=$tmp/pg
mkdir -p "$pg_root"
if is_root; then
  id postgres >/dev/null 2>&1 || die "running as root but there is no 'postgres' user to run PostgreSQL"
  chown postgres: "$pg_root"
  as_pg=(runuser -u postgres --)
fi
pg_port=$(free_port) || die "no free port for PostgreSQL"
"${as_pg[@]}" "$pgbin/initdb" -D "$pg_root/data" -U postgres -A trust -E UTF8 --no-sync \
  >"$pg_root/initdb.log" 2>&1 || { cat "$pg_root/initdb.log" >&2; die "initdb failed"; }
pg_data=$pg_root/data
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$pg_data" -l "$pg_root/server.log" -w -t 60 \
  -o "-p $pg_port -k $pg_root -c listen_addresses=127.0.0.1 -c max_connections=$((conns + 20)) \
      -c fsync=on -c synchronous_commit=on -c full_page_writes=on" start >/dev/null 2>&1 \
  || { cat "$pg_root/server.log" >&2 2>/dev/null || true; die "PostgreSQL did not start on 127.0.0.1:$pg_port"; }
"$pgbin/pg_isready" -h 127.0.0.1 -p "$pg_port" -t 30 >/dev/null 2>&1 || die "PostgreSQL not ready"
psql_() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres "$@"; }
command -v psql >/dev/null || psql_() { "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres "$@"; }
psql_ -d postgres -c 'CREATE DATABASE bench' >/dev/null || die "CREATE DATABASE failed"
psql_ -d bench -f "$assets/schema.sql" >/dev/null || die "loading the PostgreSQL schema failed"
n=$(psql_ -d bench -At -c 'SELECT count(*) FROM likes') || die "PostgreSQL preload check failed"
[ "$n" = $((users * items)) ] || die "PostgreSQL preload: $n likes, expected $((users * items))"
say "PostgreSQL $("$pgbin/postgres" -V | awk '{print $3}') up on 127.0.0.1:$pg_port with $n likes (fsync=on, synchronous_commit=on)"
run_pgbench pg_get pg-get.sql
run_pgbench pg_scan pg-scan.sql
run_pgbench pg_count pg-count.sql
run_pgbench pg_insert pg-insert.sql
n=$(psql_ -d bench -At -c 'SELECT count(*) FROM likes') || die "PostgreSQL count failed"
say "PostgreSQL holds $n likes after the insert phase (preload $((users * items)))"
pg_stop; pg_data=

# ---------------------------------------------------------------- 3. actionbased
ab_dir=$tmp/ab
# --log-level warning: no per-request log line (nginx runs with access_log off)
# shellcheck disable=SC2086
ab_start "$ab" "$ab_dir" --log-level warning ${AB_ARGS:-}
say "actionbased up on 127.0.0.1:$ab_port ($ab)"

printf '{"desc":"Likes"}' >"$ab_dir/svc.json"
cat >"$ab_dir/label.json" <<'EOF'
{"desc":"Like","type":"INDEXED","schema":{"src":{"type":"STRING"},"tgt":{"type":"STRING"},"fields":[{"name":"created_at","type":"LONG","nullable":false}]},"dirType":"BOTH","storage":"datastore://likes/likes","indices":[{"name":"recent","fields":[{"name":"created_at","order":"DESC"}]}]}
EOF
ab_post /graph/v2/service/likes "$ab_dir/svc.json" '"CREATED"' >/dev/null
ab_post /graph/v2/service/likes/label/likes "$ab_dir/label.json" '"likes.likes"' >/dev/null
table=/graph/v3/databases/likes/tables/likes
# 10k edges, same keys and created_at as the PostgreSQL preload, 1000 per POST
for chunk in $(seq 0 $(((users * items) / 1000 - 1))); do
  awk -v c="$chunk" 'BEGIN {
    printf "{\"mutations\":["
    for (g = c * 1000; g < (c + 1) * 1000; g++) {
      v = 1700000000000 + g
      printf "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%d,\"source\":\"u%d\",\"target\":\"i%d\",\"properties\":{\"created_at\":%d}}}",
        (g == c * 1000 ? "" : ","), v, int(g / 50), g % 50, v
    }
    printf "]}" }' >"$ab_dir/load.json"
  ans=$(ab_post "$table/edges?lock=true" "$ab_dir/load.json" '"results"')
  created=$(grep -o '"status":"CREATED"' <<<"$ans" | wc -l)
  [ "$created" -eq 1000 ] || die "preload chunk $chunk: $created of 1000 edges CREATED"
done
# sanity: the reads the benchmark makes answer what they should
get_ok() { curl -sS --max-time 5 "$base$1" | grep -q "$2" || die "GET $1: expected $2"; }
get_ok "$table/edges/get?source=u7&target=i3" '"count":1,'
get_ok "$table/edges/scan/recent?start=u7&direction=OUT&limit=25" '"count":25,'
get_ok "$table/edges/count?start=u7&direction=OUT" '"count":50,'
say "actionbased preloaded with $((users * items)) edges"

ab_phase() {  # ab_phase NAME OP
  if [ -n "${BENCH_PERF:-}" ]; then
    mkdir -p "$BENCH_PERF"
    # shellcheck disable=SC2086
    perf record ${BENCH_PERF_ARGS:--g} -o "$BENCH_PERF/$2.perf.data" -p "$ab_pid" >"$BENCH_PERF/$2.perf.log" 2>&1 &
    perf_pid=$!
    sleep 0.5
  fi
  run_wrk "$1" "$base" "$2" "$table"
  if [ -n "$perf_pid" ]; then
    kill -INT "$perf_pid" 2>/dev/null || true
    for _ in $(seq 300); do kill -0 "$perf_pid" 2>/dev/null || break; sleep 0.1; done
    stop_pid "$perf_pid" 5; perf_pid=
  fi
}
ab_phase ab_get get
ab_phase ab_scan scan
ab_phase ab_count count
ab_phase ab_insert insert
# the inserts landed: every request added one OUT edge to some u*
total=0
for u in $(seq 0 $((users - 1))); do
  c=$(curl -sS --max-time 5 "$base$table/edges/count?start=u$u&direction=OUT" | sed -n 's/.*"count":\([0-9]*\).*/\1/p')
  total=$((total + ${c:-0}))
done
say "actionbased holds $total OUT edges after the INSERT phase (preload $((users * items)))"
stop_pid "$ab_pid" 15; ab_pid=

# ---------------------------------------------------------------- table
rps() { echo "${R[$1]}" | awk '{print $1}'; }
ratio() { awk -v a="$(rps "$1")" -v b="$(rps "$2")" 'BEGIN { printf("%.2fx", (b > 0 ? a / b : 0)) }'; }
goal() {  # goal NAME BASE FACTOR LABEL
  awk -v a="$(rps "$1")" -v b="$(rps "$2")" -v f="$3" -v l="$4" \
    'BEGIN { printf("%s: %s", l, (a >= f * b ? "met" : "MISSED")) }'
}
row() {  # row LABEL NAME VS_PG GOAL
  local r p50 p99 vn vp
  read -r r p50 p99 <<<"${R[$2]}"
  vn=$(ratio "$2" nginx)
  vp=-; [ -z "$3" ] || vp=$(ratio "$2" "$3")
  printf '%-36s %11.0f %9.2f %9.2f %9s %8s   %s\n' "$1" "$r" \
    "$(awk -v x="$p50" 'BEGIN{print x/1000}')" "$(awk -v x="$p99" 'BEGIN{print x/1000}')" "$vn" "$vp" "$4"
}
echo
echo "REST figures: $(nproc) cores, $conns connections, $threads client threads, ${secs}s per operation$([ "$rounds" = 1 ] || echo ", best of $rounds rounds"), all on loopback"
printf '%-36s %11s %9s %9s %9s %8s   %s\n' operation 'req/s|TPS' 'p50 ms' 'p99 ms' 'x nginx' 'x PG' goal
printf '%s\n' "$(printf '%.0s-' $(seq 110))"
row "nginx static 200 (ceiling)"          nginx     "" ""
row "PostgreSQL get one like"             pg_get    "" ""
row "PostgreSQL 25 most recent"           pg_scan   "" ""
row "PostgreSQL read counter"             pg_count  "" ""
row "PostgreSQL insert + 2 counters (tx)" pg_insert "" ""
row "actionbased GET edge"                ab_get    pg_get    "$(goal ab_get nginx 0.5 '>=0.5x nginx')"
row "actionbased SCAN limit 25"           ab_scan   pg_scan   "$(goal ab_scan nginx 0.3 '>=0.3x nginx')"
row "actionbased COUNT"                   ab_count  pg_count  ""
row "actionbased INSERT lock=true"        ab_insert pg_insert "$(goal ab_insert pg_insert 1 '>=1x PG insert')"
echo "wrk p50/p99: request written to response read; pgbench p50/p99: a client's time between"
echo "transaction completions (-l log). PostgreSQL: fsync=on, synchronous_commit=on, 5 round trips"
echo "per insert tx. actionbased: lmdb (sync), --log-level warning${AB_ARGS:+ $AB_ARGS}; nginx: access_log off."
