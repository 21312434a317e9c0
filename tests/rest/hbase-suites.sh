#!/usr/bin/env bash
# Runs the REST suites again with the server on the real HBase started by
# tests/run.sh (AB_HBASE_ADDR), so every scenario passes on both stores.
# Skips (exit 77) when no gateway is available.
set -u
[ -n "${AB_HBASE_ADDR:-}" ] || { echo "SKIP: AB_HBASE_ADDR is not set (no HBase gateway in this run)" >&2; exit 77; }
here=./tests/rest   # make check runs from the top build directory
export AB_REST_STORE=hbase
status=0
for t in test_api test_tables test_auth test_agg test_query test_vertices test_topk; do
  echo "== $t on hbase =="
  "$here/$t" || status=1
done
exit $status
