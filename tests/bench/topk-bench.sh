#!/usr/bin/env bash
# Top-K figures (issue 20 item 2), actionbased on LMDB started and stopped
# here. 0. Both tables get a background of WRITE_ENTITIES entities w0.. with
#    BACKGROUND_EDGES edges each over WRITE_ITEMS items (default 100k x 10 of
#    1,000), imported by actionbase-admin, so the store holds 100k rankings.
# 1. Reads: on top of that, entities whose COUNT group has SIZES cells each
#    (default 1k, 10k and 100k; 10% more edges than cells, piled on a few
#    items so the top is not a tie), loaded through large REST mutation
#    batches; then GET …/edges/topk/top?limit=10 of random entities at
#    BENCH_CONNECTIONS for each size, as fast as it goes: p50/p99. Goals: p99
#    <= 2 ms, and the same whatever the size (the largest size's p99 within
#    1.5x the smallest's). Then GET /health (no store, answered on the HTTP
#    loop) the same way. The sizes run in as many passes as there are sizes,
#    each size once in every time slot (medians of the passes; the worst p99
#    against the 2 ms too). The measured phases split the cores: the server,
#    on its default flags, is pinned to SERVER_CPUS (its loop count follows
#    the CPUs it may use: one) and wrk, on READ_THREADS threads, to WRK_CPUS.
#    Then the same again with the cores shared (nothing pinned, the server's
#    loop per core and wrk's BENCH_THREADS): with more busy threads than
#    cores, a thread preempted mid-request waits out another's time slice,
#    and the p99 (the no-op /health's too) measures that, not the read.
# 2. Writes: the same INSERT traffic (WRITE_BATCH edges per POST, random
#    entity among the WRITE_ENTITIES and item among WRITE_ITEMS) into a table
#    whose group defines the top-K and into one whose identical group does
#    not, alternated for BENCH_ROUNDS rounds (best round of each), each phase
#    on its own server (default loops) and copy of the store as the load left
#    it. Goal: with the top-K >= 0.8x the edges/s without.
#
# Usage: tests/bench/topk-bench.sh
# Env:
#   SIZES="1000 10000 100000"  cells per entity, one read table row each
#   ENTITIES=2                 entities per size
#   BACKGROUND_EDGES=10        edges per background entity (0: none)
#   LOAD_BATCH=1000            edges per POST while loading the sized entities
#   BENCH_SECONDS=10           duration of each wrk phase
#   BENCH_CONNECTIONS=16       wrk connections
#   READ_THREADS=1             wrk threads in the measured read phases
#   SERVER_CPUS=1 WRK_CPUS=0   taskset CPU lists of the server and of wrk in the
#                              measured read phases (on one core: none)
#   BENCH_THREADS=2            wrk threads in the shared-core reads and the writes
#   BENCH_ROUNDS=2             write rounds (each runs both tables once)
#   WRITE_BATCH=100            edges per POST in the write phases
#   WRITE_ENTITIES=100000      entities the background and the writes spread over
#   WRITE_ITEMS=1000           items (targets of the ranking) per entity
#   ACTIONBASED=PATH           server binary (default build/bench/src/actionbased,
#                              built with -O2 -g when missing); actionbase-admin
#                              is taken from the same directory (built when missing)
#   BENCH_TMPDIR=DIR           where the LMDB directory goes (default ${TMPDIR:-/tmp})
#   LMDB_OPTS="?sync=0"        appended to the store URI (lmdb:DIR/data): sync=0
#                              leaves the fsync of each group commit out, to tell
#                              the disk's share of the write ratio from the CPU's
# Each write phase also prints the server's CPU time per edge (/proc/PID/stat),
# the bytes written to the store's block device per edge (its sectors written,
# /sys/class/block/DEV/stat: the whole machine's writes, so keep it idle) and
# the bytes the server passed to write calls: the rank and score rows of a
# top-K land on other B-tree pages than the edge's State, Count and group
# cell, and every group commit writes its dirty pages.
# Not a timed test: the machine's other load shows up in the numbers (the
# load average at the start is printed; compare the topk p99 with /health's).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

sizes=${SIZES:-1000 10000 100000}
entities=${ENTITIES:-2}
load_batch=${LOAD_BATCH:-1000}
secs=${BENCH_SECONDS:-10}
conns=${BENCH_CONNECTIONS:-16}
threads=${BENCH_THREADS:-2}
rounds=${BENCH_ROUNDS:-2}
read_threads=${READ_THREADS:-1}
background=${BACKGROUND_EDGES:-10}
write_batch=${WRITE_BATCH:-100}
write_entities=${WRITE_ENTITIES:-100000}
write_items=${WRITE_ITEMS:-1000}

say() { printf 'topk-bench: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# shellcheck source=bench-lib.sh
. "$here/bench-lib.sh"
need_counts entities load_batch secs conns threads read_threads rounds write_batch write_entities write_items
[[ $background =~ ^[0-9]+$ ]] || die "BACKGROUND_EDGES must be a non-negative integer (got '$background')"
for n in $sizes; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "SIZES must hold positive integers (got '$n')"; done
need_tools wrk curl awk
bench_script=$here/topk-bench/wrk.lua

tmp=
ab_pid=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_pid "$ab_pid" 15
  [ -z "$tmp" ] || rm -rf "$tmp"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

lmdb_opts=${LMDB_OPTS:-}
ab=$(ab_binary "$repo")
admin=$(dirname "$ab")/actionbase-admin
if [ "$background" -gt 0 ] && [ ! -x "$admin" ]; then
  say "building $admin"
  (cd "$(dirname "$ab")/.." && make -j2 src/actionbase-admin) >&2 || die "building actionbase-admin failed"
fi
tmp=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/topk-bench.XXXXXX")
say "temp dir $tmp; sizes $sizes x $entities entities over $write_entities x $background background edges; $conns connections, ${secs}s per phase, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$tmp/ab/data"
ab_start_store "$ab" "$tmp/ab" "lmdb:$tmp/ab/data$lmdb_opts"

# table NAME WITH_TOPK: an OUT edge table whose COUNT group by_item ranks items
table_json() {
  local aggs=
  [ "$2" = 1 ] && aggs=',"aggregations":{"topk":[{"topk":"top","ranges":"item:eq:{item}"}]}'
  printf '{"table":"%s","storage":"datastore://bench/%s","comment":"","schema":{"type":"EDGE","source":{"type":"string","comment":""},"target":{"type":"string","comment":""},"direction":"OUT","properties":[{"name":"item","type":"long","nullable":false,"comment":""}],"indexes":[],"groups":[{"group":"by_item","type":"COUNT","directionType":"OUT","fields":[{"name":"item"}]%s}]}}' "$1" "$1" "$aggs"
}
printf '{"database":"bench","comment":"topk-bench"}' >"$tmp/db.json"
ab_post /graph/v3/databases "$tmp/db.json" '"bench"' >/dev/null
for t in ranked:1 plain:0; do
  table_json "${t%%:*}" "${t##*:}" >"$tmp/table.json"
  ab_post /graph/v3/databases/bench/tables "$tmp/table.json" "\"${t%%:*}\"" >/dev/null
done
ranked=/graph/v3/databases/bench/tables/ranked
plain=/graph/v3/databases/bench/tables/plain

# ---------------------------------------------------------------- load
# The background: entity w<e> gets BACKGROUND_EDGES edges b0.. of random items,
# imported into both tables with the server stopped (LMDB's one writer is then
# the import; ?sync=0 because the import makes the store durable at its end).
stop_pid "$ab_pid" 15
ab_pid=
if [ "$background" -gt 0 ]; then
  awk -v n="$write_entities" -v k="$background" -v items="$write_items" 'BEGIN { srand(20)
    for (e = 0; e < n; e++) for (g = 0; g < k; g++)
      printf "{\"version\":1,\"source\":\"w%d\",\"target\":\"b%d\",\"properties\":{\"item\":%d}}\n", e, g, int(rand() * items) }' >"$tmp/background.jsonl"
  bg_start=$(date +%s.%N)
  for t in ranked plain; do
    "$admin" import --store "lmdb:$tmp/ab/data?sync=0" --database bench --table "$t" "$tmp/background.jsonl" \
      >"$tmp/import-$t.out" 2>&1 || { cat "$tmp/import-$t.out" >&2; die "importing the background into $t failed"; }
  done
  rm -f "$tmp/background.jsonl"
  say "background: $((write_entities * background)) edges into each table in $(awk -v a="$bg_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')s"
fi
# The measured read layout: the server and wrk each on CPUs of their own.
server_cpus=${SERVER_CPUS-1} wrk_cpus=${WRK_CPUS-0}
if [ "$(nproc)" -lt 2 ]; then server_cpus= wrk_cpus=; fi
AB_CPUS=$server_cpus ab_start_store "$ab" "$tmp/ab" "lmdb:$tmp/ab/data$lmdb_opts"
split_loops=$(sed -n 's/.*serving store .* with \([0-9][0-9]*\) HTTP thread.*/\1/p' "$tmp/ab/stderr" | head -1)
ab_get_has "$ranked/edges/topk/top?entity=w0&direction=OUT&limit=10" '"count":'
# Entity s<N>_<j> gets N + N/10 edges t0..: edge g < N has item g (one cell
# each), the rest pile onto items 0..N/100 (their scores rise above 1).
load_start=$(date +%s.%N)
loaded=0
for n in $sizes; do
  per=$((n + n / 10))
  for ((j = 0; j < entities; j++)); do
    for ((first = 0; first < per; first += load_batch)); do
      awk -v e="s${n}_$j" -v n="$n" -v first="$first" -v last=$((first + load_batch < per ? first + load_batch : per)) 'BEGIN {
        hot = int(n / 100); if (hot < 1) hot = 1
        printf "{\"mutations\":["
        for (g = first; g < last; g++)
          printf "%s{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"%s\",\"target\":\"t%d\",\"properties\":{\"item\":%d}}}",
            (g == first ? "" : ","), e, g, (g < n ? g : (g - n) % hot)
        printf "]}" }' >"$tmp/load.json"
      ab_post "$ranked/edges" "$tmp/load.json" '"results"' >/dev/null
    done
    loaded=$((loaded + per))
  done
  # the top of a loaded entity: 10 items, item 0 first (1 + its pile)
  ab_get_has "$ranked/edges/topk/top?entity=s${n}_0&direction=OUT&limit=10" '"count":10'
  say "loaded $entities entities x $n cells ($loaded edges so far)"
done
load_s=$(awk -v a="$load_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
say "load: $loaded edges in ${load_s}s ($(awk -v n="$loaded" -v s="$load_s" 'BEGIN { printf "%.0f", n / s }') edges/s, top-K kept)"

# ---------------------------------------------------------------- reads
declare -A R50 R99 RR R99MAX
users=$entities
items=1
# read_phases TAG: one short unmeasured phase (the first measured one used to
# pay for the server's warm-up: its p99 1.5-2x the next sizes'), then as many
# passes over the sizes as there are sizes, each pass starting one size later
# (1k 10k 100k, 10k 100k 1k, 100k 1k 10k), /health after the first; wrk runs
# $threads threads. Every size thus runs once in every slot of the minute:
# a stall that comes at a fixed time (one size read three times in a row had
# p99 360, 360 and 605 us: the third phase, whichever size it reads) falls on
# each size once, and the median of its passes leaves it out. Keeps per size
# the median p50 and p99 (R50, R99), the worst p99 (R99MAX) and the mean req/s.
read_phases() {
  local tag=$1 n pass order k
  local -a list
  read -ra list <<<"$sizes"
  local m=${#list[@]}
  declare -A p50s p99s rates
  BENCH_ENTITY="s${list[0]}_" secs=2 bench_wrk "topk-warm-$tag" "$base" topk "$ranked"
  for ((pass = 0; pass < m; pass++)); do
    order=
    for ((k = 0; k < m; k++)); do order+=" ${list[(pass + k) % m]}"; done
    [ $pass = 1 ] && order="health $order"
    [ $m -gt 1 ] || order="$order health"
    for n in $order; do
      if [ $n = health ]; then
        bench_wrk "health-$tag" "$base" health ""
        R50[$tag,$n]=$wrk_p50 R99[$tag,$n]=$wrk_p99 R99MAX[$tag,$n]=$wrk_p99 RR[$tag,$n]=$wrk_rate
      else
        BENCH_ENTITY="s${n}_" bench_wrk "topk-$tag-$n-$pass" "$base" topk "$ranked"
        p50s[$n]+="$wrk_p50 " p99s[$n]+="$wrk_p99 " rates[$n]+="$wrk_rate "
      fi
      say "$tag cores: $n: $wrk_rate req/s, p50 ${wrk_p50}us, p99 ${wrk_p99}us"
    done
  done
  sorted() { tr ' ' '\n' <<<"$1" | grep . | sort -n; }
  median() { sorted "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  for n in "${list[@]}"; do
    R50[$tag,$n]=$(median "${p50s[$n]}") R99[$tag,$n]=$(median "${p99s[$n]}")
    R99MAX[$tag,$n]=$(sorted "${p99s[$n]}" | tail -1)
    RR[$tag,$n]=$(awk -v l="${rates[$n]}" 'BEGIN { k = split(l, a, " "); for (i = 1; i <= k; i++) t += a[i]; printf "%.1f", t / k }')
  done
}
# The load's pages go to disk first.
sync
WRK_CPUS=$wrk_cpus threads=$read_threads read_phases split
# The same unpinned, on the server's default loops (one per core) and
# BENCH_THREADS of wrk: more busy threads than cores.
stop_pid "$ab_pid" 15
ab_start_store "$ab" "$tmp/ab" "lmdb:$tmp/ab/data$lmdb_opts"
read_phases shared

# ---------------------------------------------------------------- writes
# io_bytes FIELD: /proc/PID/io's FIELD of the server so far: wchar, the bytes
# it passed to write calls (every page every commit wrote; the WAL records and
# HTTP answers too). Not write_bytes: the kernel charges a whole page-cache
# folio for every 4 KiB page LMDB writes into it (a copied store's cache is
# made of large folios), 150 KiB "written" per edge when the device got 26.
io_bytes() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$ab_pid/io" 2>/dev/null || true; }
# disk_bytes: bytes written so far to the block device holding $tmp (empty
# when it is not a block device, e.g. tmpfs).
disk_dev=/sys/class/block/$(basename "$(df --output=source "$tmp" | tail -1)")/stat
disk_bytes() { [ ! -r "$disk_dev" ] || awk '{ print $7 * 512 }' "$disk_dev"; }
# per_edge A B: KiB per written edge of a counter that went from A to B.
per_edge() {
  awk -v a="$1" -v b="$2" -v n="$wrk_requests" -v w="$write_batch" \
    'BEGIN { printf "%.1f", (n > 0 && a != "" && b != "") ? (b - a) / 1024 / (n * w) : 0 }'
}
# cpu_ticks: user + system clock ticks the server has used so far.
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$ab_pid/stat" 2>/dev/null || true; }
hz=$(getconf CLK_TCK)
declare -A W
users=$write_entities
items=$write_items
# Each write phase gets a server of its own on a copy of the store as the load
# left it: in one store every phase paid for the rows the phases before it
# had added (the same table's edges/s fell from 26k to 18k to 13k over three
# rounds), so "best round" always favoured whichever table went first. The
# order still alternates, for the page cache. Only the phase's copy stays in
# the page cache, on disk before its server starts: with three copies cached
# (the read phases', the master, the phase's) a 100k x 100 background (an
# 8.7 GB store) outgrew the VM's 23 GB, and the phases also paid for
# re-reading B-tree pages and for the copy's writeback.
stop_pid "$ab_pid" 15
ab_pid=
mv "$tmp/ab/data" "$tmp/loaded"
for ((round = 1; round <= rounds; round++)); do
  order="plain ranked"
  [ $((round % 2)) = 0 ] && order="ranked plain"
  for t in $order; do
    prefix=$plain
    [ $t = ranked ] && prefix=$ranked
    rm -rf "$tmp/w"
    mkdir -p "$tmp/w"
    cp -a "$tmp/loaded" "$tmp/w/data"
    sync "$tmp/w/data"/*
    for f in "$tmp/loaded"/*; do dd if="$f" iflag=nocache count=0 status=none; done
    ab_start_store "$ab" "$tmp/w" "lmdb:$tmp/w/data$lmdb_opts"
    io0=$(disk_bytes) wc0=$(io_bytes wchar) cpu0=$(cpu_ticks)
    BENCH_ENTITY=w bench_wrk "write-$t-$round" "$base" "write$write_batch" "$prefix"
    io1=$(disk_bytes) wc1=$(io_bytes wchar) cpu1=$(cpu_ticks)
    rate=$(awk -v r="$wrk_rate" -v b="$write_batch" 'BEGIN { printf "%.0f", r * b }')
    per=$(per_edge "$io0" "$io1") wper=$(per_edge "$wc0" "$wc1")
    cpu=$(awk -v a="$cpu0" -v b="$cpu1" -v n="$wrk_requests" -v w="$write_batch" -v hz="$hz" \
      'BEGIN { printf "%.1f", (n > 0 && a != "" && b != "") ? (b - a) / hz * 1e6 / (n * w) : 0 }')
    say "round $round: $t: $rate edges/s (p50 ${wrk_p50}us, p99 ${wrk_p99}us), ${per} KiB written to the device (${wper} KiB through write calls) and ${cpu} us of server CPU per edge"
    if [ -z "${W[$t]:-}" ] || [ "$rate" -gt "${W[$t]}" ]; then W[$t]=$rate; fi
    stop_pid "$ab_pid" 15
    ab_pid=
  done
done

# ---------------------------------------------------------------- report
first=${sizes%% *}
last=${sizes##* }
# read_table TAG: the read figures of one core layout, with the 2 ms verdicts
read_table() {
  local n
  printf '%-16s %10s %10s %10s %14s  %s\n' "cells/entity" "req/s" "p50 (us)" "p99 (us)" "worst p99" "p99 <= 2 ms (every pass)"
  for n in $sizes health; do
    printf '%-16s %10s %10s %10s %14s  %s\n' "$([ $n = health ] && echo 'GET /health' || echo "$n")" \
      "${RR[$1,$n]}" "${R50[$1,$n]}" "${R99[$1,$n]}" "${R99MAX[$1,$n]}" \
      "$([ $n = health ] && echo '(no store)' || verdict "${R99MAX[$1,$n]}" '<=' 2000)"
  done
}
printf '\nTop-K reads (GET …/edges/topk/top?limit=10, %d connections, LMDB, %d entities per size, %d x %d background edges)\n' \
  "$conns" "$entities" "$write_entities" "$background"
printf 'Cores split: the server with its default flags on CPU(s) %s (%s HTTP loop(s)), wrk on CPU(s) %s with %d thread(s)\n' \
  "${server_cpus:-any}" "${split_loops:-?}" "${wrk_cpus:-any}" "$read_threads"
read_table split
printf '\nCores shared: nothing pinned, the server with its default flags (an HTTP loop per core), wrk on %d threads\n' "$threads"
read_table shared
flat=$(awk -v a="${R99[split,$last]}" -v b="${R99[split,$first]}" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 1) }')
printf 'Cores split, p99 at %s cells / p99 at %s cells (medians of the passes): %sx (independent of size, <= 1.5x): %s\n' \
  "$last" "$first" "$flat" "$(verdict "$flat" '<=' 1.5)"
ratio=$(awk -v a="${W[ranked]}" -v b="${W[plain]}" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 1) }')
printf '\nWrites (%d edges per POST, %d connections, best of %d rounds, lmdb:DIR%s)\n' "$write_batch" "$conns" "$rounds" "$lmdb_opts"
printf '%-24s %12s\n' "table" "edges/s"
printf '%-24s %12s\n' "group without top-K" "${W[plain]}" "group with top-K" "${W[ranked]}"
printf 'with / without: %sx (>= 0.8x): %s\n' "$ratio" "$(verdict "$ratio" '>=' 0.8)"
