#!/usr/bin/env bash
# CI's run of tests/bench/which-store.sh at a small size: LMDB, RocksDB and
# PostgreSQL, 20,000 edges, 2 s per mix, with the build's own server
# (AB_SERVER_BIN); passes when every phase ran: the load, disk, both mixes
# and RSS of each store in the table, and the verdict lines (no figure is
# asserted: the figures come from full-size runs). Skips (exit 77) when wrk,
# python3 or PostgreSQL (initdb, pgbench) is missing; deploy/install-deps.sh
# --tests installs them.
#
# Usage: AB_SERVER_BIN=build/test/src/actionbased tests/bench/which-store-smoke.sh
#        (make check sets AB_SERVER_BIN)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
say() { printf 'which-store-smoke: %s\n' "$*" >&2; }
die() {
  say "$*"
  exit 1
}
# shellcheck source=bench-lib.sh
. "$here/bench-lib.sh"

for t in wrk python3 curl; do
  command -v "$t" >/dev/null || { say "SKIP: $t is not installed"; exit 77; }
done
if ! pg_bindir >/dev/null || ! pgbench_bin >/dev/null; then
  say "SKIP: PostgreSQL (initdb, pgbench) is not installed"
  exit 77
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! ACTIONBASED=${AB_SERVER_BIN:?AB_SERVER_BIN names the server under test} SIZES=20000 \
  BENCH_SECONDS=2 STORES="lmdb rocksdb postgres" bash "$here/which-store.sh" >"$out" 2>&1; then
  cat "$out"
  die "which-store.sh failed"
fi
cat "$out"
# A row per store: size, store, load e/s, ..., both mixes' req/s; RSS on the embedded stores.
for store in lmdb rocksdb postgres; do
  row=$(grep -E "^20000 +$store " "$out") || die "no row for $store"
  read -r -a f <<<"$row"
  # fields: 0 size, 1 store, 2-6 load and disk, 7 |, 8-10 read-heavy, 11 |, 12-14 write-heavy, 15 |, 16 RSS
  [[ ${f[8]} =~ ^[0-9]+$ && ${f[12]} =~ ^[0-9]+$ ]] || die "$store: a mix has no req/s: $row"
  [ "$store" = postgres ] || [[ ${f[16]} =~ ^[0-9]+$ ]] || die "$store: no RSS: $row"
done
for line in 'Which store, read-heavy at 20000:' 'Which store, write-heavy at 20000:' \
  'Which store, disk at 20000:' 'Which store, memory at 20000:'; do
  grep -q "^$line" "$out" || die "no line '$line'"
done
