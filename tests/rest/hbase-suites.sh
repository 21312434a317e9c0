#!/usr/bin/env bash
# The REST suites on the real HBase of tests/run.sh (tests/rest/store-suites.sh),
# the ones that loop over the stores themselves included.
STORE=hbase SUITES_EXTRA="test_query test_prepared test_rank test_vertices test_topk test_queue_db test_upstream_edges test_upstream_meta test_upstream_topk" \
  exec bash "$(dirname "$0")/store-suites.sh"
