#!/usr/bin/env bash
# CI's run of tests/bench/which-store.sh at a small size: LMDB and RocksDB,
# 20,000 edges, 2 s per mix, with the build's own server; passes when every
# phase ran (no figure asserted: the figures come from full-size runs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! ACTIONBASED=${AB_SERVER_BIN:?AB_SERVER_BIN names the server under test} SIZES=20000 \
  BENCH_SECONDS=2 STORES="lmdb rocksdb" bash "$here/which-store.sh" >"$out" 2>&1; then
  cat "$out"
  exit 1
fi
cat "$out"
grep -q '^write-heavy at 20000: rocksdb/lmdb' "$out" || { echo "which-store-smoke: no verdict line" >&2; exit 1; }
