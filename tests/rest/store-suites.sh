#!/usr/bin/env bash
# Runs the REST suites that start on lmdb alone again on another store, so
# every scenario passes on each: STORE=rocksdb (in the server's directory)
# or STORE=hbase (the real HBase started by tests/run.sh, AB_HBASE_ADDR;
# skips with exit 77 when no gateway is available). The suites that loop
# over the stores themselves (ab_rest_main_stores) are not repeated here.
set -u
store=${STORE:?STORE=rocksdb or STORE=hbase}
if [ "$store" = hbase ] && [ -z "${AB_HBASE_ADDR:-}" ]; then
  echo "SKIP: AB_HBASE_ADDR is not set (no HBase gateway in this run)" >&2
  exit 77
fi
here=./tests/rest   # make check runs from the top build directory
export AB_REST_STORE=$store
status=0
for t in test_api test_tables test_auth test_agg ${SUITES_EXTRA:-}; do
  echo "== $t on $store =="
  "$here/$t" || status=1
done
exit $status
