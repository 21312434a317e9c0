#!/bin/sh
# Container entry point: actionbased on all interfaces, the embedded LMDB
# store on the /var/lib/actionbase volume unless AB_STORE names another
# (for example hbase://hbase-thrift:9090). Extra arguments go to actionbased.
set -eu
exec actionbased --config /etc/actionbase/actionbased.conf \
  --listen "${AB_LISTEN:-0.0.0.0:8080}" \
  --store "${AB_STORE:-lmdb:/var/lib/actionbase}" \
  "$@"
