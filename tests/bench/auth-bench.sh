#!/usr/bin/env bash
# Access-control and TLS figures (issue 12), one invocation, one machine:
# requests/s of GET edge on a preloaded LMDB table (the GET phase of
# rest-bench.sh: its wrk.lua, 10k likes u0..u199 x i0..i49) with
#   off  plain HTTP, access control off;
#   on   plain HTTP, --auth, every request carrying a read-only API key;
#   tls  HTTPS (HTTP/1.1; wrk speaks no HTTP/2), access control off;
#   h2   HTTPS with HTTP/2 (only when h2load is installed).
# The modes alternate round after round on the same data directory and the
# best round of each is kept, so drift on a shared machine hits all alike.
#
# Usage: tests/bench/auth-bench.sh
# Env: BENCH_SECONDS=10 BENCH_CONNECTIONS=64 BENCH_THREADS=2 BENCH_ROUNDS=3
#      ACTIONBASED=PATH (default build/bench/src/actionbased, built -O2 when missing;
#      tests/bench/bench-lib.sh)
# Fuzz executions per second per target: tests/fuzz/run.sh prints them.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
secs=${BENCH_SECONDS:-10}
conns=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
rounds=${BENCH_ROUNDS:-3}
users=200 items=50
admin=bench-admin-key-$$-$RANDOM

say() { printf 'auth-bench: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
# shellcheck source=bench-lib.sh
. "$here/bench-lib.sh"   # stop_pid, ab_binary (the REST benches' helpers)
for t in wrk curl openssl jq awk; do command -v "$t" >/dev/null || die "$t not found"; done
ab=$(ab_binary "$repo")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/auth-bench.XXXXXX")
ab_pid=
cleanup() { local rc=$?; stop_pid "$ab_pid" 15; rm -rf "$tmp"; exit $rc; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# throw-away CA and server certificate for 127.0.0.1
( cd "$tmp" \
  && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \
       -out ca.pem -days 1 -subj /CN=bench-ca \
  && openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout srv.key \
       -out srv.csr -subj /CN=127.0.0.1 \
  && printf 'subjectAltName=IP:127.0.0.1\n' >ext.cnf \
  && openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem \
       -days 1 -extfile ext.cnf ) >/dev/null 2>&1 || die "openssl could not make a certificate"

# start_mode MODE: starts actionbased on the shared data dir (bench-lib's
# ab_start waits with plain HTTP, so not for TLS); sets ab_pid, base
start_mode() {
  local mode=$1 port args=(--listen 127.0.0.1:0 --store "lmdb:$tmp/data" --log-level warning)
  case $mode in
    on) args+=(--auth) ;;
    tls|h2) args+=(--tls-cert "$tmp/srv.pem" --tls-key "$tmp/srv.key") ;;
  esac
  : >"$tmp/ab-$mode.log" # there before the loop below reads it
  ACTIONBASE_ADMIN_KEY=$admin "$ab" "${args[@]}" 2>"$tmp/ab-$mode.log" &
  ab_pid=$!
  port=$(ab_listening_port "$tmp/ab-$mode.log" "$ab_pid" 100)
  [ -n "$port" ] || { cat "$tmp/ab-$mode.log" >&2; die "actionbased ($mode) did not start"; }
  case $mode in
    tls|h2) base=https://127.0.0.1:$port ;;
    *) base=http://127.0.0.1:$port ;;
  esac
  for _ in $(seq 100); do
    curl -sf --cacert "$tmp/ca.pem" -o /dev/null "$base/health" && return 0
    sleep 0.1
  done
  die "actionbased ($mode) /health did not answer"
}

# call METHOD PATH [BODY-FILE]: as the admin key; prints the body, fails unless 200
call() {
  local out
  out=$(curl -sS --cacert "$tmp/ca.pem" -X "$1" -H "Authorization: Bearer $admin" \
        -H 'Content-Type: application/json' ${3:+--data-binary "@$3"} -w '\n%{http_code}' "$base$2") \
    || die "$1 $2: curl failed"
  [ "${out##*$'\n'}" = 200 ] || die "$1 $2 -> ${out##*$'\n'}: ${out%$'\n'*}"
  printf '%s' "${out%$'\n'*}"
}

table=/graph/v3/databases/likes/tables/likes
preload() {  # the rest-bench.sh table and edges, and a read-only key
  printf '{"desc":"Likes"}' >"$tmp/svc.json"
  cat >"$tmp/label.json" <<'EOF'
{"desc":"Like","type":"INDEXED","schema":{"src":{"type":"STRING"},"tgt":{"type":"STRING"},"fields":[{"name":"created_at","type":"LONG","nullable":false}]},"dirType":"BOTH","storage":"datastore://likes/likes","indices":[{"name":"recent","fields":[{"name":"created_at","order":"DESC"}]}]}
EOF
  call POST /graph/v2/service/likes "$tmp/svc.json" >/dev/null
  call POST /graph/v2/service/likes/label/likes "$tmp/label.json" >/dev/null
  local chunk
  for chunk in $(seq 0 $(((users * items) / 1000 - 1))); do
    awk -v c="$chunk" 'BEGIN { printf "{\"mutations\":["
      for (g = c * 1000; g < (c + 1) * 1000; g++) {
        v = 1700000000000 + g
        printf "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%.0f,\"source\":\"u%d\",\"target\":\"i%d\",\"properties\":{\"created_at\":%.0f}}}",
          (g == c * 1000 ? "" : ","), v, int(g / 50), g % 50, v }
      printf "]}" }' >"$tmp/load.json"
    call POST "$table/edges" "$tmp/load.json" >/dev/null
  done
  printf '{"name":"bench-reader","grants":[{"scope":"likes","permissions":"r"}]}' >"$tmp/key.json"
  reader=$(call POST /admin/v1/keys "$tmp/key.json" | jq -r .key)
  [ -n "$reader" ] && [ "$reader" != null ] || die "no API key created"
}

declare -A R
keep_best() {
  if [ -z "${R[$1]:-}" ] || awk -v a="${2%% *}" -v b="${R[$1]%% *}" 'BEGIN { exit !(a > b) }'; then
    R[$1]=$2
  fi
}

# phase MODE: one wrk (or h2load) run of the GET phase against a fresh server
phase() {
  local mode=$1 out line hdr=()
  start_mode "$mode"
  [ "$mode" = on ] && hdr=(-H "Authorization: Bearer $reader")
  out=$tmp/run-$mode.out
  if [ "$mode" = h2 ]; then
    # h2load: the same GET on 64 sources' first likes, c connections, 1 stream each
    for u in $(seq 0 63); do echo "$base$table/edges/get?source=u$u&target=i$((u % items))"; done >"$tmp/urls"
    h2load -c "$conns" -t "$threads" -m 1 -D "$secs" -i "$tmp/urls" >"$out" 2>&1 || { cat "$out" >&2; die "h2load failed"; }
    line=$(awk '/^finished in/ { gsub(",", "", $4); print $4 }' "$out")
    grep -q '^status codes: [1-9][0-9]* 2xx, 0 3xx, 0 4xx, 0 5xx' "$out" \
      || { cat "$out" >&2; die "h2: answers other than 2xx"; }
    keep_best "$mode" "$line 0 0"
  else
    BENCH_OP=get BENCH_PREFIX=$table BENCH_USERS=$users BENCH_ITEMS=$items \
      wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 10s "${hdr[@]}" -s "$here/rest-bench/wrk.lua" \
      "$base" >"$out" 2>&1 || { cat "$out" >&2; die "wrk failed ($mode)"; }
    line=$(grep '^BENCH ' "$out") || { cat "$out" >&2; die "no BENCH line ($mode)"; }
    kv() { sed -n "s/.* $1=\([0-9][0-9]*\).*/\1/p" <<<" $line"; }
    [ "$(kv non2xx)" -eq 0 ] || die "$mode: $(kv non2xx) non-2xx answers (auth or TLS broken?)"
    keep_best "$mode" "$(awk -v r="$(kv requests)" -v d="$(kv duration_us)" \
      'BEGIN { printf "%.1f", r / (d / 1e6) }') $(kv p50_us) $(kv p99_us)"
  fi
  say "$mode: ${R[$mode]%% *} req/s (best so far)"
  stop_pid "$ab_pid" 15; ab_pid=
}

say "temp dir $tmp; $conns connections, $threads threads, ${secs}s x $rounds rounds, $(nproc) cores"
start_mode on
preload
stop_pid "$ab_pid" 15; ab_pid=
modes=(off on tls)
command -v h2load >/dev/null && modes+=(h2)
for round in $(seq "$rounds"); do
  for m in "${modes[@]}"; do phase "$m"; done
done

echo
echo "GET edge, LMDB, $(nproc) cores, $conns connections, $threads client threads, ${secs}s, best of $rounds rounds"
printf '%-34s %10s %8s %8s %8s\n' mode 'req/s' 'p50 ms' 'p99 ms' 'x off'
row() {
  local r p50 p99
  read -r r p50 p99 <<<"${R[$2]}"
  printf '%-34s %10.0f %8.2f %8.2f %8s\n' "$1" "$r" "$(awk -v x="$p50" 'BEGIN{print x/1000}')" \
    "$(awk -v x="$p99" 'BEGIN{print x/1000}')" \
    "$(awk -v a="$r" -v b="${R[off]%% *}" 'BEGIN{printf "%.3f", a / b}')"
}
row "HTTP/1.1, access control off" off
row "HTTP/1.1, access control on (key)" on
row "HTTPS HTTP/1.1 (wrk)" tls
[ -z "${R[h2]:-}" ] || row "HTTPS HTTP/2 (h2load, no p50/p99)" h2
awk -v a="${R[on]%% *}" -v b="${R[off]%% *}" 'BEGIN {
  cost = (1 - a / b) * 100
  printf "access control cost: %.1f%% (goal <= 5%%: %s)\n", cost, (cost <= 5 ? "met" : "MISSED") }'
