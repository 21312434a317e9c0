# Shared by the REST benches (rest-bench.sh, hop-bench.sh, hbase-bench.sh,
# which-store.sh): sourced, not run. Ports, waiting for a server, stopping
# processes, building and starting actionbased (on a fresh LMDB directory or a
# given store), the likes table (empty or preloaded), one wrk run of
# rest-bench/wrk.lua, the server's remote store call counters, goal verdicts,
# a process's RSS sampled over a phase and a PostgreSQL server. Callers
# define say() and die().

bench_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# ab_listening_port
# shellcheck source=../lib/server.sh
. "$bench_lib_dir/../lib/server.sh"

# need_counts VAR...: each variable must hold a positive integer.
need_counts() {
  local v
  for v; do [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"; done
}

# need_tools TOOL...: each must be on PATH.
need_tools() {
  local t
  for t; do command -v "$t" >/dev/null || die "$t not found"; done
}

is_root() { [ "$(id -u)" = 0 ]; }

free_port() {
  python3 - <<'PY' 2>/dev/null && return 0
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()
PY
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 40000))
    ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
  done
  return 1
}

# wait_http URL SECONDS PID: until URL answers 200, the process dies, or time runs out
wait_http() {
  local url=$1 limit=$2 pid=$3 i
  for i in $(seq $((limit * 10))); do
    kill -0 "$pid" 2>/dev/null || return 1
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$url" || true)" = 200 ] && return 0
    sleep 0.1
  done
  return 1
}

stop_pid() {  # stop_pid PID [SECONDS]: TERM, bounded wait, then KILL
  local pid=$1 limit=${2:-10} i
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq $((limit * 10))); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# ab_binary REPO: prints the server binary ($ACTIONBASED, or build/bench's,
# built with -O2 -g when missing).
ab_binary() {
  local repo=$1 ab=${ACTIONBASED:-$1/build/bench/src/actionbased}
  if [ ! -x "$ab" ]; then
    [ -z "${ACTIONBASED:-}" ] || die "ACTIONBASED=$ab is not executable"
    say "building $ab (-O2 -g)"
    ( cd "$repo" && { [ -x configure ] || autoreconf -fi; } \
      && mkdir -p build/bench && cd build/bench \
      && { [ -f Makefile ] || ../../configure CFLAGS='-O2 -g'; } \
      && make -j2 src/actionbased ) >&2 || die "building actionbased failed"
  fi
  echo "$ab"
}

# ab_start BINARY DIR [ARGS...]: starts actionbased on lmdb:DIR/data on a
# free loopback port; sets ab_pid, ab_port and base (http://127.0.0.1:PORT)
# and returns once /health answers 200.
ab_start() {
  mkdir -p "$2/data"
  ab_start_store "$1" "$2" "lmdb:$(cd "$2" && pwd)/data" "${@:3}"
}

# ab_start_store BINARY DIR STORE-URI [ARGS...]: the same on any store. The
# server runs in DIR, which keeps its stdout and stderr and what it writes
# next to itself (on hbase:// the default WAL, ./actionbase-wal).
ab_start_store() {
  local bin=$1 dir=$2 store=$3
  shift 3
  mkdir -p "$dir"
  case $bin in /*) ;; *) bin=$PWD/$bin;; esac
  # Emptied here, before the server's shell gets to its own redirection: the
  # loop below may read it first (a missing file failed the caller under
  # set -e and pipefail), and must never find an earlier server's port.
  : >"$dir/stderr"
  # AB_CPUS: a taskset CPU list the server is pinned to (its default loop
  # count then follows: one loop per CPU it may use).
  local pin=()
  [ -z "${AB_CPUS:-}" ] || pin=(taskset -c "$AB_CPUS")
  (cd "$dir" && exec "${pin[@]}" "$bin" --listen 127.0.0.1:0 --store "$store" "$@" >stdout 2>stderr) &
  ab_pid=$!
  # up to 60 s (a server on HBase connects first); one that exits ends it
  ab_port=$(ab_listening_port "$dir/stderr" "$ab_pid")
  [ -n "$ab_port" ] || { cat "$dir/stderr" >&2; die "actionbased did not print 'listening on HOST:PORT'"; }
  base=http://127.0.0.1:$ab_port
  # AB_HEALTH_WAIT_S: a store still recovering may need longer (restart-check.sh)
  wait_http "$base/health" "${AB_HEALTH_WAIT_S:-30}" "$ab_pid" \
    || { cat "$dir/stderr" >&2; die "actionbased /health did not answer 200 in ${AB_HEALTH_WAIT_S:-30} s"; }
}

# ab_post PATH BODY-FILE EXPECTED-SUBSTRING: POST to $base, 200 and the
# substring required; prints the answer.
ab_post() {
  local out code
  out=$(curl -sS -X POST -H 'Content-Type: application/json' --data-binary "@$2" \
    -w '\n%{http_code}' "$base$1") || die "POST $1: curl failed"
  code=${out##*$'\n'}
  [ "$code" = 200 ] || die "POST $1 -> $code: ${out%$'\n'*}"
  case "$out" in *"$3"*) ;; *) die "POST $1: unexpected answer: ${out%$'\n'*}";; esac
  printf '%s' "${out%$'\n'*}"
}

# ab_likes_create DIR: on the server at $base, creates the empty likes table
# (v2 service and label "likes": created_at LONG, index "recent" DESC, both
# directions). Sets table (the v3 path prefix). DIR gets the bodies.
ab_likes_create() {
  local dir=$1
  printf '{"desc":"Likes"}' >"$dir/svc.json"
  printf '%s' '{"desc":"Like","type":"INDEXED","schema":{"src":{"type":"STRING"},"tgt":{"type":"STRING"},"fields":[{"name":"created_at","type":"LONG","nullable":false}]},"dirType":"BOTH","storage":"datastore://likes/likes","indices":[{"name":"recent","fields":[{"name":"created_at","order":"DESC"}]}]}' >"$dir/label.json"
  ab_post /graph/v2/service/likes "$dir/svc.json" '"CREATED"' >/dev/null
  ab_post /graph/v2/service/likes/label/likes "$dir/label.json" '"likes.likes"' >/dev/null
  table=/graph/v3/databases/likes/tables/likes
}

# ab_likes_table DIR USERS ITEMS: ab_likes_create, then preloads USERS x
# ITEMS edges u<g/ITEMS> -> i<g%ITEMS> with created_at = version =
# 1700000000000 + g, 1000 per POST (every one CREATED); checks that GET, SCAN
# limit 25 (25 back when ITEMS >= 25) and COUNT answer them.
ab_likes_table() {
  local dir=$1 nu=$2 ni=$3 total chunk per ans created
  total=$((nu * ni))
  ab_likes_create "$dir"
  for ((chunk = 0; chunk * 1000 < total; chunk++)); do
    per=$((total - chunk * 1000 < 1000 ? total - chunk * 1000 : 1000))
    awk -v c="$chunk" -v n="$per" -v ni="$ni" 'BEGIN {
      printf "{\"mutations\":["
      for (g = c * 1000; g < c * 1000 + n; g++) {
        v = 1700000000000 + g
        printf "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%.0f,\"source\":\"u%d\",\"target\":\"i%d\",\"properties\":{\"created_at\":%.0f}}}",
          (g == c * 1000 ? "" : ","), v, int(g / ni), g % ni, v
      }
      printf "]}" }' >"$dir/load.json"
    ans=$(ab_post "$table/edges?lock=true" "$dir/load.json" '"results"')
    created=$(grep -o '"status":"CREATED"' <<<"$ans" | wc -l)
    [ "$created" -eq "$per" ] || die "preload chunk $chunk: $created of $per edges CREATED"
  done
  ab_get_has "$table/edges/get?source=u$((nu - 1))&target=i$((ni - 1))" '"count":1,'
  ab_get_has "$table/edges/scan/recent?start=u$((nu / 2))&direction=OUT&limit=25" "\"count\":$((ni < 25 ? ni : 25)),"
  ab_get_has "$table/edges/count?start=u0&direction=OUT" "\"count\":$ni,"
}

# ab_get_has PATH SUBSTRING: GET $base PATH must answer with SUBSTRING.
ab_get_has() {
  local out
  out=$(curl -sS --max-time 10 "$base$1") || die "GET $1: curl failed"
  case "$out" in *"$2"*) ;; *) die "GET $1: expected $2 in: ${out:0:300}";; esac
}

# bench_wrk NAME URL OP PREFIX: one wrk run of rest-bench/wrk.lua (or of
# $bench_script when set; BENCH_OP=OP, BENCH_PREFIX=PREFIX) with $threads threads, $conns connections and $secs
# seconds over $users x $items keys; wrk's output goes to $tmp/wrk-NAME.out.
# Warns of non-2xx answers, socket errors, mutations not all CREATED and no
# request completed at all; sets wrk_requests, wrk_rate (req/s), wrk_p50 and wrk_p99 (microseconds).
bench_wrk() {
  local name=$1 url=$2 op=$3 prefix=$4 out line dur non2xx sockerr notcreated pin=()
  out=$tmp/wrk-$name.out
  # WRK_CPUS: a taskset CPU list wrk is pinned to
  [ -z "${WRK_CPUS:-}" ] || pin=(taskset -c "$WRK_CPUS")
  BENCH_OP=$op BENCH_PREFIX=$prefix BENCH_USERS=$users BENCH_ITEMS=$items \
    "${pin[@]}" wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 10s -s "${bench_script:-$bench_lib_dir/rest-bench/wrk.lua}" "$url" >"$out" 2>&1 \
    || { cat "$out" >&2; die "wrk failed for $name"; }
  line=$(grep '^BENCH ' "$out") || { cat "$out" >&2; die "no BENCH line from wrk for $name"; }
  kv() { sed -n "s/.* $1=\([0-9][0-9]*\).*/\1/p" <<<" $line"; }
  wrk_requests=$(kv requests) dur=$(kv duration_us) wrk_p50=$(kv p50_us) wrk_p99=$(kv p99_us)
  non2xx=$(kv non2xx) sockerr=$(kv sockerr) notcreated=$(kv notcreated)
  [ -n "$wrk_requests" ] && [ -n "$dur" ] || { cat "$out" >&2; die "$name: wrk printed no request count"; }
  # A phase shorter than one request's latency (64 connections x 1,000 edges
  # a request) completes none: a figure of 0, not the end of the run.
  [ "$wrk_requests" -gt 0 ] || say "WARNING: $name: no request completed in ${secs}s (raise BENCH_SECONDS)"
  [ "$non2xx" -eq 0 ] || say "WARNING: $name: $non2xx non-2xx responses"
  [ "$sockerr" -eq 0 ] || say "WARNING: $name: $sockerr socket errors/timeouts"
  [ "$notcreated" -eq 0 ] || say "WARNING: $name: $notcreated mutation answers not all CREATED, e.g. $(sed -n 's/^BENCH-SAMPLE not CREATED: //p' "$out" | head -c 400)"
  wrk_rate=$(awk -v r="$wrk_requests" -v d="$dur" 'BEGIN{printf "%.1f", r / (d / 1e6)}')
}

# ab_rpc_calls: "METHOD CALLS" lines of the server's actionbase_store_rpc_total
# (remote store calls by method, connects left out; nothing on LMDB).
ab_rpc_calls() {
  curl -sS --max-time 10 "$base/metrics" \
    | sed -n 's/^actionbase_store_rpc_total{method="\([^"]*\)"} \([0-9][0-9]*\)$/\1 \2/p' \
    | grep -v '^connect ' || true
}

# rpc_per_request BEFORE AFTER REQUESTS: from two ab_rpc_calls snapshots, the
# calls per request in all, then " METHOD=CALLS" per request of each method used.
rpc_per_request() {
  awk -v n="$3" 'NR == FNR { b[$1] = $2; next }
    { d = $2 - b[$1]; if (d > 0) { t += d; m = m sprintf(" %s=%.2f", $1, d / n) } }
    END { printf "%.2f%s\n", t / n, m }' <(printf '%s\n' "$1") <(printf '%s\n' "$2")
}

# verdict VALUE OP BOUND: "met" when VALUE OP BOUND holds (OP is >= or <=), else "MISSED".
verdict() {
  awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN { print ((op == ">=" ? a >= b : a <= b) ? "met" : "MISSED") }'
}

# ab_requests: HTTP requests the server at $base has answered, /metrics and
# /health left out (actionbase_http_requests_total).
ab_requests() {
  curl -sS --max-time 10 "$base/metrics" | awk '
    /^actionbase_http_requests_total\{/ && !/route="\/(metrics|health)"/ { n += $NF }
    END { printf "%d\n", n }'
}

# ab_settle: returns once the server has answered no request for a second
# (bounded at two minutes): wrk stops with requests in flight, and a batch
# of 1,000 edges keeps the server busy after its client has gone.
ab_settle() {
  local prev=-1 cur
  for _ in $(seq 120); do
    cur=$(ab_requests)
    [ "$cur" = "$prev" ] && return 0
    prev=$cur
    sleep 1
  done
  say "WARNING: the server was still answering requests after two minutes"
}

# rss_watch_start PID FILE: samples PID's VmRSS and RssAnon (kB) into FILE
# five times a second, in the background (rss_watch_pid, which the caller's
# exit trap stops), until rss_watch_stop or the process's end.
rss_watch_start() {
  local pid=$1 file=$2
  : >"$file"
  (
    trap 'exit 0' TERM
    while awk '$1 == "VmRSS:" { r = $2 } $1 == "RssAnon:" { a = $2 } END { print r + 0, a + 0 }' \
      "/proc/$pid/status" >>"$file" 2>/dev/null; do
      sleep 0.2
    done
  ) &
  rss_watch_pid=$!
}

# rss_watch_stop FILE: stops the sampler; sets rss_max_kb and rss_anon_max_kb
# (the largest samples) and rss_samples.
rss_watch_stop() {
  stop_pid "$rss_watch_pid" 2
  rss_watch_pid=
  read -r rss_max_kb rss_anon_max_kb rss_samples < <(awk '
    $1 > r { r = $1 } $2 > a { a = $2 } END { print r + 0, a + 0, NR }' "$1")
}

# ---- PostgreSQL (rest-bench.sh, which-store.sh) ----
# The caller defines pgbin (pg_bindir), tmp, pg_data= and as_pg=() first
# and calls pg_stop on exit.
pg_bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
  done
  command -v pg_config >/dev/null && d=$(pg_config --bindir) && [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  command -v initdb >/dev/null && { dirname "$(readlink -f "$(command -v initdb)")"; return 0; }
  return 1
}
pgbench_bin() {
  local d
  d=$(pg_bindir 2>/dev/null) && [ -x "$d/pgbench" ] && { echo "$d/pgbench"; return 0; }
  command -v pgbench
}
pg_stop() {
  [ -n "$pg_data" ] && [ -f "$pg_data/postmaster.pid" ] || return 0
  "${as_pg[@]}" "$pgbin/pg_ctl" -D "$pg_data" -m fast -w -t 30 stop >/dev/null 2>&1 \
    || "${as_pg[@]}" "$pgbin/pg_ctl" -D "$pg_data" -m immediate -w -t 10 stop >/dev/null 2>&1 || true
}

# pg_start ROOT CONNS: initdb in ROOT/data and a server on a free loopback
# port (fsync and synchronous commit on), run as the postgres user when
# root; sets pg_root, pg_data, pg_port, as_pg and psql_ (psql as postgres).
pg_start() {
  pg_root=$1
  local conns=$2
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
}

# pgbench_run NAME SCRIPT [PGBENCH ARGS...]: one pgbench run of $conns
# clients, $threads jobs, $secs seconds on database bench; sets pg_tps,
# pg_p50 and pg_p99 (microseconds).
pgbench_run() {
  local name=$1 script=$2 out failed
  shift 2
  out=$tmp/pgbench-$name.out
  mkdir -p "$tmp/pglog"
  "$pgbench" -h 127.0.0.1 -p "$pg_port" -U postgres -n -M prepared \
    -c "$conns" -j "$threads" -T "$secs" -f "$script" "$@" \
    -l --log-prefix="$tmp/pglog/$name" bench >"$out" 2>&1 \
    || { cat "$out" >&2; die "pgbench failed for $name"; }
  pg_tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' "$out" | head -1)
  [ -n "$pg_tps" ] || pg_tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$out" | tail -1)
  [ -n "$pg_tps" ] || { cat "$out" >&2; die "no tps from pgbench for $name"; }
  failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$out")
  [ "${failed:-0}" -eq 0 ] || say "WARNING: $name: $failed failed transactions"
  # Latency per transaction from the per-transaction log (-l; columns: client
  # transaction latency_us script epoch_s epoch_us). pgbench's own latency
  # column reads a cached clock and is 0 for most transactions under load, so
  # use each client's time between consecutive completions instead (the first
  # transaction of a client keeps the logged latency): closed loop, so this is
  # the request's full round trip, client-side queueing included.
  read -r pg_p50 pg_p99 < <(cat "$tmp/pglog/$name".* | awk '
    { t = $5 * 1000000 + $6
      if ($1 in last) print t - last[$1]; else print $3
      last[$1] = t }' | sort -n | awk '
    { v[NR] = $1 } END {
      if (NR == 0) { print "0 0"; exit }
      i50 = int(NR * 0.50 + 0.999999); i99 = int(NR * 0.99 + 0.999999)
      print v[i50], v[i99] }')
  rm -f "$tmp/pglog/$name".*
}
