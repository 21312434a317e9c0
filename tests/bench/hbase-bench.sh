#!/usr/bin/env bash
# HBase figures: Thrift round trips of one mutation request of 1, 10 and 100
# edges, single-edge INSERT and GET rates with p50/p99 through the engine on
# hbase://, and next to them raw Thrift2 put/get calls/s from one bare c_glib
# connection on the same gateway in the same run.
# Then the issue's REST figures, in the same run: raw Thrift2 put/get calls/s
# over BENCH_CONNECTIONS bare connections (before and after the REST phases,
# the higher counts), and actionbased (default flags) on
# the same gateway driven by wrk over as many connections: GET edge, SCAN
# of 25, single-edge INSERT and an INSERT batch of 100 edges, then batches of 1,000
# edges from BATCH_CLIENTS connections, with the Thrift calls per request read
# from the server's /metrics (actionbase_store_rpc_total) before and after
# each phase; then the INSERT phase again on a server with [engine] heal =
# false, the baseline of what the online heal costs; then the CPU per request
# of HBase's JVMs and of the server, and the cores the JVMs alone would need
# at each throughput goal. Goals, printed met/MISSED:
#   REST GET >= 0.6x raw get calls/s;
#   REST INSERT <= 4.5 calls, >= 0.7x (raw put calls/s / calls per INSERT),
#     p99 <= 40 ms;
#   batches of 1,000 <= 4.2 calls per edge, >= 0.8x (raw put calls/s / calls
#     per edge).
# usage: tests/bench/hbase-bench.sh [N]     (N requests per figure, default 2000)
# env:   AB_HBASE_ADDR   use this running gateway (else one is started in a temp
#                        dir with hbase/start.sh and stopped at the end)
#        AB_HBASE_DIR    that gateway's hbase/start.sh directory: its pid files
#                        give HBase's JVMs' CPU per request (printed when known)
#        AB_BENCH_BIN    the hbase-bench program (default: an -O2 build in build/bench)
#        ACTIONBASED     server binary (default: build/bench/src/actionbased)
#        AB_ARGS         extra actionbased flags
#        AB_STORE_ARGS   extra hbase:// URI parameters, e.g. "&pool=16"
#        BENCH_SECONDS=10 BENCH_CONNECTIONS=16 BENCH_THREADS=2   the REST phases
#        BATCH_CLIENTS=2   connections of the batch-of-1,000 phase
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
n=${1:-2000}
secs=${BENCH_SECONDS:-10}
conns=${BENCH_CONNECTIONS:-16}
threads=${BENCH_THREADS:-2}
batch_clients=${BATCH_CLIENTS:-2}
users=200   # REST preload: u0..u199, 50 likes each (i0..i49) = 10k edges
items=50

say() { printf 'hbase-bench: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
# need_counts, need_tools, stop_pid, ab_binary, ab_start_store, ab_likes_table,
# bench_wrk, ab_rpc_calls, rpc_per_request, ab_requests, ab_settle, verdict
# shellcheck source=bench-lib.sh
. "$here/bench-lib.sh"
need_counts n secs conns threads batch_clients
need_tools wrk curl awk

bin=${AB_BENCH_BIN:-}
if [ -z "$bin" ]; then
  mkdir -p "$top/build/bench"
  (cd "$top/build/bench"
   [ -f Makefile ] || "$top/configure" CFLAGS="-O2 -g" >/dev/null
   make -j2 tests/bench/hbase-bench >/dev/null)
  bin=$top/build/bench/tests/bench/hbase-bench
fi
ab=$(ab_binary "$top")
addr=${AB_HBASE_ADDR:-}
dir=""
tmp=""
ab_pid=""
cleanup () {
  local rc=$?
  trap - EXIT INT TERM
  stop_pid "$ab_pid" 15
  [ -z "$dir" ] || { bash "$top/hbase/stop.sh" "$dir"; rm -rf "$dir"; }
  [ -z "$tmp" ] || rm -rf "$tmp"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ab-hbase-bench-rest.XXXXXX")
if [ -z "$addr" ]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/ab-hbase-bench.XXXXXX")
  addr=$(bash "$top/hbase/start.sh" "$dir")
fi
run=$(date +%s)
# HBase's JVMs' CPU, from the instance's pid files (our own, or AB_HBASE_DIR's)
export AB_HBASE_DIR=${dir:-${AB_HBASE_DIR:-}}
hz=$(getconf CLK_TCK)
cpu_of() {  # cpu_of PID...: CPU seconds those processes used (utime + stime)
  local p
  for p in "$@"; do
    [ -r "/proc/$p/stat" ] && sed 's/.*) //' "/proc/$p/stat"
  done | awk -v hz="$hz" '{ s += $12 + $13 } END { printf "%.3f", s / hz }'
}
hbase_cpu() {  # CPU seconds of the master (with its region server) and the gateway
  [ -n "$AB_HBASE_DIR" ] && [ -f "$AB_HBASE_DIR/master.pid" ] && [ -f "$AB_HBASE_DIR/thrift.pid" ] \
    || { echo -1; return; }
  cpu_of "$(cat "$AB_HBASE_DIR/master.pid")" "$(cat "$AB_HBASE_DIR/thrift.pid")"
}
echo "HBase 2.6.1 standalone, Thrift2 gateway $addr (buffered, binary); N=$n"
# Warm the gateway and region server first: cold JVMs are several times slower.
"$bin" raw "$addr" "$n" >/dev/null
"$bin" engine "hbase://$addr/abbench?table=warm$run" "$((n / 2))" >/dev/null
raw=$("$bin" raw "$addr" "$n")
eng=$("$bin" engine "hbase://$addr/abbench?table=eng$run" "$n")
printf '%s\n%s\n' "$raw" "$eng"
# rate LABEL TEXT: the ops/s of TEXT's line that starts with LABEL
rate() { awk -v l="$1" 'index($0, l) == 1 { for (i = 2; i <= NF; i++) if ($i == "ops/s") print $(i - 1) }' <<<"$2"; }
# The goal of the HBase issue: single-edge INSERT rate >= 0.7 x (raw put
# calls/s / calls per single-edge request), all from this run.
put=$(rate "raw Thrift put " "$raw")
calls=$(awk '/request of +1 edges/ {print $NF}' <<<"$eng")
ins=$(rate "engine INSERT" "$eng")
awk -v p="$put" -v c="$calls" -v i="$ins" 'BEGIN {
  printf "INSERT vs raw put: %d / (%d / %d) = %.2fx (goal >= 0.70x)\n", i, p, c, i / (p / c) }'

# ---------------------------------------------------------------- REST
# Raw calls over as many connections as wrk opens, right before the REST phases.
# The gateway's own rates move by up to 1.6x between runs (its JVMs' and the
# region server's background work): measured before the REST phases and
# again after them, the higher of the two is the ceiling the goals use.
rawc=$("$bin" raw "$addr" "$((n * 4))" "$conns")
store="hbase://$addr/abbench?table=rest$run${AB_STORE_ARGS:-}"
# shellcheck disable=SC2086
ab_start_store "$ab" "$tmp/ab" "$store" ${AB_ARGS:-}
say "actionbased up on 127.0.0.1:$ab_port ($ab) on $store"
ab_likes_table "$tmp/ab" "$users" "$items"
say "actionbased preloaded with $((users * items)) edges"

declare -A R   # phase -> "req/s p50_us p99_us calls/request per-method..."
declare -A CPU # phase -> "HBase's CPU ms per request, actionbased's" (-1: unknown)
rest_phase() {  # rest_phase NAME OP: one wrk run, calls per request from /metrics
  local before after r0 h0 a0 h1 a1 reqs
  ab_settle
  before=$(ab_rpc_calls) r0=$(ab_requests) h0=$(hbase_cpu) a0=$(cpu_of "$ab_pid")
  bench_wrk "$1" "$base" "$2" "$table"
  h1=$(hbase_cpu) a1=$(cpu_of "$ab_pid")   # before the idle second of the settle
  ab_settle   # requests wrk left in flight still count in the calls
  after=$(ab_rpc_calls) reqs=$(($(ab_requests) - r0))
  CPU[$1]=$(awk -v h0="$h0" -v h1="$h1" -v a0="$a0" -v a1="$a1" -v n="$reqs" \
    'BEGIN { printf "%.3f %.3f", h0 < 0 ? -1 : (h1 - h0) * 1000 / n, (a1 - a0) * 1000 / n }')
  R[$1]="$wrk_rate $wrk_p50 $wrk_p99 $(rpc_per_request "$before" "$after" "$reqs")"
  say "$1: $wrk_rate req/s (p50 ${wrk_p50}us, p99 ${wrk_p99}us), calls/request $(cut -d' ' -f4- <<<"${R[$1]}"), CPU ms/request HBase and actionbased ${CPU[$1]}"
}
rest_phase get get
rest_phase scan scan
rest_phase insert insert
rest_phase batch100 batch100
# the issue's batch figure: 1,000 edges a request from a few clients
conns_all=$conns threads_all=$threads
conns=$batch_clients threads=$(( batch_clients < threads ? batch_clients : threads ))
rest_phase batch1000 batch1000
conns=$conns_all threads=$threads_all
stop_pid "$ab_pid" 15; ab_pid=
# The baseline of the online heal's cost (docs/architecture.md, "Cut writes
# heal online"): the same single-edge INSERT phase on a server with
# [engine] heal = false, on a table of its own.
printf '[engine]\nheal = false\n' >"$tmp/noheal.conf"
# shellcheck disable=SC2086
ab_start_store "$ab" "$tmp/ab-noheal" "hbase://$addr/abbench?table=rest${run}n${AB_STORE_ARGS:-}" \
  ${AB_ARGS:-} --config "$tmp/noheal.conf"
ab_likes_table "$tmp/ab-noheal" "$users" "$items"
rest_phase insert_noheal insert
stop_pid "$ab_pid" 15; ab_pid=
rawc2=$("$bin" raw "$addr" "$((n * 4))" "$conns")
say "raw x$conns before the REST phases: $(tr '\n' ';' <<<"$rawc")"
say "raw x$conns after them:             $(tr '\n' ';' <<<"$rawc2")"
ceiling() {  # ceiling LABEL: the higher ops/s of the two raw runs; rawc := its text
  local a b
  a=$(rate "$1" "$rawc") b=$(rate "$1" "$rawc2")
  awk -v a="$a" -v b="$b" 'BEGIN { print (b > a ? b : a) }'
}
raw_put=$(ceiling "raw Thrift put x$conns")
raw_get=$(ceiling "raw Thrift get x$conns")
raw_mix=$(ceiling "raw Thrift INSERT mix x$conns")
raw_floor=$(ceiling "raw Thrift INSERT floor x$conns")

f() { awk -v i="$2" '{print $i}' <<<"${R[$1]}"; }   # f PHASE FIELD
ms() { awk -v x="$1" 'BEGIN { printf "%.2f", x / 1000 }'; }
row() {  # row LABEL RATE EDGES/S P50_US P99_US CALLS GOAL
  printf '%-28s %9.0f %9s %8s %8s %9s   %s\n' "$1" "$2" "$3" "$(ms "$4")" "$(ms "$5")" "$6" "$7"
}
rest_row() {  # rest_row LABEL PHASE EDGES-PER-REQUEST GOAL
  local e=-
  [ "$3" = 0 ] || e=$(awk -v r="$(f "$2" 1)" -v k="$3" 'BEGIN { printf "%.0f", r * k }')
  row "$1" "$(f "$2" 1)" "$e" "$(f "$2" 2)" "$(f "$2" 3)" "$(f "$2" 4)" "$4"
}
raw_p() {  # raw_p OP 50|99: the raw line's p50/p99 in microseconds (of the faster run)
  local l="raw Thrift $1 x$conns" text=$rawc
  awk -v a="$(rate "$l" "$rawc2")" -v b="$(rate "$l" "$rawc")" 'BEGIN { exit !(a > b) }' && text=$rawc2
  awk -v l="$l" -v k="p$2" 'index($0, l) == 1 { for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) * 1000 }' <<<"$text"
}
get_goal=$(awk -v r="$(f get 1)" -v g="$raw_get" 'BEGIN { printf "%.2f", r / g }')
ins_bound=$(awk -v p="$raw_put" -v c="$(f insert 4)" 'BEGIN { printf "%.0f", p / c }')
ins_goal=$(awk -v r="$(f insert 1)" -v b="$ins_bound" 'BEGIN { printf "%.2f", r / b }')
b_calls=$(awk -v c="$(f batch1000 4)" 'BEGIN { printf "%.2f", c / 1000 }')
b_bound=$(awk -v p="$raw_put" -v c="$b_calls" 'BEGIN { printf "%.0f", p / c }')
b_goal=$(awk -v r="$(f batch1000 1)" -v b="$b_bound" 'BEGIN { printf "%.2f", r * 1000 / b }')
ins_p99=$(ms "$(f insert 3)")
echo
echo "HBase REST figures: $(nproc) cores, $conns connections ($threads wrk threads), ${secs}s per phase, $users x $items edges preloaded"
echo "actionbased default flags${AB_ARGS:+ + $AB_ARGS}; store $store"
printf '%-28s %9s %9s %8s %8s %9s   %s\n' operation 'calls/s' 'edges/s' 'p50 ms' 'p99 ms' 'calls/req' goal
printf '%s\n' "$(printf '%.0s-' $(seq 110))"
row "raw Thrift get x$conns" "$raw_get" - "$(raw_p get 50)" "$(raw_p get 99)" 1 ""
row "raw Thrift put x$conns" "$raw_put" - "$(raw_p put 50)" "$(raw_p put 99)" 1 ""
# the calls of one INSERT (lock, get, putMultiple of 3 rows, 2 increments,
# release) one after another, nothing shared: what the gateway carries of
# exactly this mix, the baseline that the put-based goals leave out
row "raw Thrift INSERT mix x$conns" "$(awk -v m="$raw_mix" 'BEGIN { printf "%.0f", m * 6 }')" "$raw_mix" "$(raw_p "INSERT mix" 50)" "$(raw_p "INSERT mix" 99)" 6 ""
# only the calls no sharing can save (lock, two increments, release): the
# most INSERTs per second the gateway could carry at the protocol's floor
row "raw Thrift INSERT floor x$conns" "$(awk -v m="$raw_floor" 'BEGIN { printf "%.0f", m * 4 }')" "$raw_floor" "$(raw_p "INSERT floor" 50)" "$(raw_p "INSERT floor" 99)" 4 ""
printf '%-28s %9s\n' "" "req/s"
rest_row "REST GET edge" get 0 "${get_goal}x raw get (>= 0.6x) $(verdict "$get_goal" '>=' 0.6)"
rest_row "REST SCAN of 25" scan 0 ""
rest_row "REST INSERT 1 edge" insert 1 "${ins_goal}x raw put/calls = $ins_bound (>= 0.7x) $(verdict "$ins_goal" '>=' 0.7); calls <= 4.5 $(verdict "$(f insert 4)" '<=' 4.5); p99 <= 40 ms $(verdict "$ins_p99" '<=' 40); $(awk -v r="$(f insert 1)" -v m="$raw_mix" 'BEGIN { printf "%.2f", r / m }')x the raw INSERT mix, $(awk -v r="$(f insert 1)" -v m="$raw_floor" 'BEGIN { printf "%.2f", r / m }')x its floor"
rest_row "  the same, heal = false" insert_noheal 1 "heal on: $(awk -v a="$(f insert 1)" -v b="$(f insert_noheal 1)" 'BEGIN { printf "%.2f", a / b }')x the rate, $(awk -v a="$(f insert 4)" -v b="$(f insert_noheal 4)" 'BEGIN { printf "%+.2f", a - b }') calls per INSERT"
rest_row "REST INSERT batch of 100" batch100 100 "$(awk -v c="$(f batch100 4)" 'BEGIN { printf "%.2f", c / 100 }') calls per edge"
rest_row "REST batch of 1000 x$batch_clients" batch1000 1000 "$b_calls calls per edge (<= 4.2) $(verdict "$b_calls" '<=' 4.2); ${b_goal}x raw put/calls = $b_bound edges/s (>= 0.8x) $(verdict "$b_goal" '>=' 0.8)"
raw_cpu() {  # raw_cpu OP: HBase's CPU ms per op of the raw line (of the faster run), -1 unknown
  local l="raw Thrift $1 x$conns" text=$rawc
  awk -v a="$(rate "$l" "$rawc2")" -v b="$(rate "$l" "$rawc")" 'BEGIN { exit !(a > b) }' && text=$rawc2
  awk -v l="$l" 'index($0, l) == 1 { for (i = 1; i < NF; i++) if ($i == "cpu") { print $(i + 1); exit } }
    END { if (!NR) print -1 }' <<<"$text" | head -1
}
# What the gateway's and region server's CPU says of the throughput goals:
# the cores HBase's JVMs alone would take at each goal's rate, at the CPU per
# request they used in the phase (the machine's cores are shared by all).
if [ "$(hbase_cpu)" != -1 ]; then
  hb_ins=$(cut -d' ' -f1 <<<"${CPU[insert]}") ab_ins=$(cut -d' ' -f2 <<<"${CPU[insert]}")
  hb_b=$(awk -v c="$(cut -d' ' -f1 <<<"${CPU[batch1000]}")" 'BEGIN { printf "%.3f", c / 1000 }')
  echo "CPU per request, ms (HBase's two JVMs / actionbased): INSERT $hb_ins / $ab_ins, heal = false ${CPU[insert_noheal]// / \/ }, batch of 1000 per edge $hb_b / $(awk -v c="$(cut -d' ' -f2 <<<"${CPU[batch1000]}")" 'BEGIN { printf "%.3f", c / 1000 }'); raw INSERT mix $(raw_cpu "INSERT mix"), raw floor $(raw_cpu "INSERT floor"), raw put $(raw_cpu put)"
  awk -v r="$ins_bound" -v c="$hb_ins" -v b="$b_bound" -v e="$hb_b" -v n="$(nproc)" 'BEGIN {
    printf "at the goals: INSERT at 0.7 x %d/s the JVMs alone would use %.2f of %d cores; batches at 0.8 x %d edges/s, %.2f of %d\n",
      r, 0.7 * r * c / 1000, n, b, 0.8 * b * e / 1000, n }'
fi
methods() { cut -d' ' -f5- <<<"${R[$1]}"; }
echo "calls/req by method: GET: $(methods get); SCAN: $(methods scan); INSERT: $(methods insert); batch 100: $(methods batch100); batch 1000: $(methods batch1000)"
