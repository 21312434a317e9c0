#!/usr/bin/env bash
# tests/soak/soak.py for 40 s under `make check`, from the top build
# directory: LMDB with its file WAL on a tmpfs that fills up at random
# (mounting needs root: exit 77, SKIP, otherwise). The 10-minute runs and the
# other faults are in docs/testing.md (Soak).
set -uo pipefail
top=$(cd "${srcdir:-$(dirname "$0")/../..}" && pwd)
build=$(pwd)
if [ "$(id -u)" != 0 ]; then
  echo "soak-smoke: SKIP: the WAL's tmpfs needs root" >&2
  exit 77
fi
exec python3 "$top/tests/soak/soak.py" --server "$build/src/actionbased" \
  --verify "$build/src/actionbase-verify" --minutes 0.67 --faults wal-disk --writers 2 --readers 1 \
  --seed "${AB_SOAK_SEED:-41}"
