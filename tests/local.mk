# REST suites: drive the real actionbased binary over HTTP (included by the
# top Makefile.am). The binary is found at src/actionbased (AB_SERVER_BIN).
REST_HARNESS = tests/rest/rest_harness.c tests/rest/rest_harness.h
check_PROGRAMS += tests/rest/test_api
TESTS += tests/rest/test_api
tests_rest_test_api_SOURCES = tests/rest/test_api.c $(REST_HARNESS)
tests_rest_test_api_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_api_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
AM_TESTS_ENVIRONMENT = AB_SERVER_BIN=$(abs_top_builddir)/src/actionbased; export AB_SERVER_BIN; \
	AB_CC='$(CC)'; AB_CFLAGS='$(CFLAGS)'; AB_LDFLAGS='$(LDFLAGS)'; export AB_CC AB_CFLAGS AB_LDFLAGS;
check_PROGRAMS += tests/rest/test_tables
TESTS += tests/rest/test_tables
tests_rest_test_tables_SOURCES = tests/rest/test_tables.c $(REST_HARNESS)
tests_rest_test_tables_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_tables_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
check_PROGRAMS += tests/rest/test_async
TESTS += tests/rest/test_async
tests_rest_test_async_SOURCES = tests/rest/test_async.c $(REST_HARNESS)
tests_rest_test_async_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_async_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
check_PROGRAMS += tests/rest/test_auth
TESTS += tests/rest/test_auth
tests_rest_test_auth_SOURCES = tests/rest/test_auth.c $(REST_HARNESS)
tests_rest_test_auth_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_auth_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
# The same REST suites with the server on HBase (skipped without a gateway)
# and on rocksdb.
TESTS += tests/rest/hbase-suites.sh tests/rest/rocksdb-suites.sh
EXTRA_DIST += tests/rest/hbase-suites.sh tests/rest/rocksdb-suites.sh tests/rest/store-suites.sh
# tests/bench/which-store.sh at a small size (LMDB and RocksDB side by side).
TESTS += tests/bench/which-store-smoke.sh
EXTRA_DIST += tests/bench/which-store-smoke.sh tests/bench/which-store.sh \
	tests/bench/which-store/load.py tests/bench/which-store/mix.lua
# The soak of issue 41 (tests/soak/soak.py) for 40 s: faults at random under load.
TESTS += tests/soak/soak-smoke.sh
EXTRA_DIST += tests/soak/soak-smoke.sh tests/soak/soak.py
check_PROGRAMS += tests/rest/test_nodes
TESTS += tests/rest/test_nodes
tests_rest_test_nodes_SOURCES = tests/rest/test_nodes.c $(REST_HARNESS)
tests_rest_test_nodes_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_nodes_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
# Gateway killed under load (an extra gateway of the HBase of tests/run.sh).
check_PROGRAMS += tests/rest/test_gateway
TESTS += tests/rest/test_gateway
tests_rest_test_gateway_SOURCES = tests/rest/test_gateway.c $(REST_HARNESS)
tests_rest_test_gateway_CPPFLAGS = $(AM_CPPFLAGS) -DAB_HBASE_SCRIPTS=\"$(abs_top_srcdir)/hbase\"
tests_rest_test_gateway_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_gateway_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
check_PROGRAMS += tests/rest/test_agg tests/rest/test_query tests/rest/test_vertices
TESTS += tests/rest/test_vertices
tests_rest_test_vertices_SOURCES = tests/rest/test_vertices.c $(REST_HARNESS)
tests_rest_test_vertices_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_vertices_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
check_PROGRAMS += tests/rest/test_topk
TESTS += tests/rest/test_topk
tests_rest_test_topk_SOURCES = tests/rest/test_topk.c $(REST_HARNESS)
tests_rest_test_topk_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_topk_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
TESTS += tests/rest/test_query
tests_rest_test_query_SOURCES = tests/rest/test_query.c $(REST_HARNESS)
tests_rest_test_query_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_query_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
TESTS += tests/rest/test_agg
check_PROGRAMS += tests/rest/test_rank
TESTS += tests/rest/test_rank
tests_rest_test_rank_SOURCES = tests/rest/test_rank.c $(REST_HARNESS)
tests_rest_test_rank_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_rank_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
check_PROGRAMS += tests/rest/test_upstream_topk
TESTS += tests/rest/test_upstream_topk
tests_rest_test_upstream_topk_SOURCES = tests/rest/test_upstream_topk.c $(REST_HARNESS)
tests_rest_test_upstream_topk_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_upstream_topk_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
check_PROGRAMS += tests/rest/test_upstream_meta
TESTS += tests/rest/test_upstream_meta
tests_rest_test_upstream_meta_SOURCES = tests/rest/test_upstream_meta.c $(REST_HARNESS)
tests_rest_test_upstream_meta_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_upstream_meta_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
check_PROGRAMS += tests/rest/test_upstream_edges
TESTS += tests/rest/test_upstream_edges
tests_rest_test_upstream_edges_SOURCES = tests/rest/test_upstream_edges.c $(REST_HARNESS)
tests_rest_test_upstream_edges_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_upstream_edges_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
check_PROGRAMS += tests/rest/test_queue_db
TESTS += tests/rest/test_queue_db
tests_rest_test_queue_db_SOURCES = tests/rest/test_queue_db.c $(REST_HARNESS)
tests_rest_test_queue_db_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_queue_db_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
check_PROGRAMS += tests/rest/test_prepared
TESTS += tests/rest/test_prepared
tests_rest_test_prepared_SOURCES = tests/rest/test_prepared.c $(REST_HARNESS)
tests_rest_test_prepared_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_prepared_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
tests_rest_test_agg_SOURCES = tests/rest/test_agg.c $(REST_HARNESS)
tests_rest_test_agg_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_agg_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
# docs/rest-api.md executed: every example block, in order, against one server.
check_PROGRAMS += tests/rest/test_docs
TESTS += tests/rest/test_docs
tests_rest_test_docs_SOURCES = tests/rest/test_docs.c $(REST_HARNESS)
tests_rest_test_docs_CPPFLAGS = $(AM_CPPFLAGS) -DAB_DOCS_DIR=\"$(abs_top_srcdir)/docs\"
tests_rest_test_docs_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_docs_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
EXTRA_DIST += docs/rest-api.md docs/console.md
check_PROGRAMS += tests/rest/test_tls
TESTS += tests/rest/test_tls
tests_rest_test_tls_SOURCES = tests/rest/test_tls.c $(REST_HARNESS)
tests_rest_test_tls_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_tls_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
check_PROGRAMS += tests/rest/test_hostile
TESTS += tests/rest/test_hostile
tests_rest_test_hostile_SOURCES = tests/rest/test_hostile.c $(REST_HARNESS) \
	tests/small_disk.c tests/small_disk.h
tests_rest_test_hostile_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_rest_test_hostile_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
# The HBase store's shared calls, with a run function standing for the gateway.
check_PROGRAMS += tests/unit/store/test_hbase_share
TESTS += tests/unit/store/test_hbase_share
# Regression inputs of the fuzz targets, replayed through the targets' own
# LLVMFuzzerTestOneInput (no libFuzzer needed): tests/fuzz.
check_PROGRAMS += tests/unit/store/test_hbase_replies
TESTS += tests/unit/store/test_hbase_replies
tests_unit_store_test_hbase_replies_SOURCES = tests/unit/store/test_hbase_replies.c \
	tests/fuzz/fuzz_hbase.c tests/fuzz/fuzz.h
