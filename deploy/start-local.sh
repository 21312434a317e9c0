#!/usr/bin/env bash
# One command for a laptop: installs what is missing, builds an optimised
# actionbased in build/release and runs it on the embedded LMDB store
# (./actionbase-data) at 127.0.0.1:8080; AB_STORE=rocksdb:DIR for write-heavy
# use (docs/operations.md, "Which store"). Extra arguments go to actionbased.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash deploy/install-deps.sh
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null
mkdir -p build/release
(cd build/release
 [ -f Makefile ] && [ Makefile -nt ../../configure ] || ../../configure CFLAGS="-O2 -g" >/dev/null
 make -j"$(nproc)" src/actionbased >/dev/null)
exec build/release/src/actionbased --listen "${AB_LISTEN:-127.0.0.1:8080}" \
  --store "${AB_STORE:-lmdb:$top/actionbase-data}" "$@"
