# engine: mutations, queries and the lock protocol over the store seam (included by the top Makefile.am).
src_libabcore_la_SOURCES += src/engine/engine.h src/engine/engine-private.h \
	src/engine/engine.c src/engine/state.h src/engine/state.c src/engine/events.c \
	src/engine/plan.c src/engine/lock.c src/engine/heal.c src/engine/mutate.c src/engine/apply.c \
	src/engine/predicate.h src/engine/predicate.c src/engine/query-private.h \
	src/engine/query.c src/engine/scan.c \
	src/engine/ulid.h src/engine/ulid.c src/engine/queue.h src/engine/queue.c src/engine/queue_db.c \
	src/engine/records.c src/engine/applier.c

ENGINE_TEST_FIXTURE = tests/unit/engine/engine_fixture.c tests/unit/engine/engine_fixture.h
check_PROGRAMS += tests/unit/engine/test_transit tests/unit/engine/test_engine
TESTS += tests/unit/engine/test_transit tests/unit/engine/test_engine
tests_unit_engine_test_transit_SOURCES = tests/unit/engine/test_transit.c $(ENGINE_TEST_FIXTURE)
tests_unit_engine_test_transit_CFLAGS = $(TEST_CFLAGS)
tests_unit_engine_test_transit_LDADD = $(TEST_LIBS)
tests_unit_engine_test_engine_SOURCES = tests/unit/engine/test_engine.c $(ENGINE_TEST_FIXTURE)
tests_unit_engine_test_engine_CFLAGS = $(TEST_CFLAGS)
tests_unit_engine_test_engine_LDADD = $(TEST_LIBS)

# Figures for the engine (not a test): tests/bench/engine-bench [inserts-per-writer]
noinst_PROGRAMS += tests/bench/engine-bench
tests_bench_engine_bench_SOURCES = tests/bench/engine-bench.c
tests_bench_engine_bench_LDADD = $(CORE_LIBS)

check_PROGRAMS += tests/unit/engine/test_wal
TESTS += tests/unit/engine/test_wal
tests_unit_engine_test_wal_SOURCES = tests/unit/engine/test_wal.c $(ENGINE_TEST_FIXTURE)
tests_unit_engine_test_wal_CFLAGS = $(TEST_CFLAGS)
tests_unit_engine_test_wal_LDADD = $(TEST_LIBS)

# Groups, caches and the 2-hop query (issue 11).
src_libabcore_la_SOURCES += src/engine/derive.h src/engine/wide.h src/engine/groups.c src/engine/ttl.c \
	src/engine/prune.c src/engine/pool.c src/engine/agg.c src/engine/seek.c \
	src/engine/topk.c src/engine/topk.h src/engine/topk_read.c src/engine/topk_window.c \
	src/engine/multihop.c src/engine/fanout.c src/engine/doc.h src/engine/doc_parse.c \
	src/engine/doc_rows.c src/engine/doc_exec.c src/engine/doc_sql.c src/engine/doc_bind.c \
	src/engine/prepared.c src/engine/rank.c

check_PROGRAMS += tests/unit/engine/test_groups tests/unit/engine/test_caches \
	tests/unit/engine/test_multihop tests/unit/engine/test_topk
TESTS += tests/unit/engine/test_groups tests/unit/engine/test_caches \
	tests/unit/engine/test_multihop tests/unit/engine/test_topk
tests_unit_engine_test_groups_SOURCES = tests/unit/engine/test_groups.c $(ENGINE_TEST_FIXTURE)
tests_unit_engine_test_groups_CFLAGS = $(TEST_CFLAGS)
tests_unit_engine_test_groups_LDADD = $(TEST_LIBS)
tests_unit_engine_test_caches_SOURCES = tests/unit/engine/test_caches.c $(ENGINE_TEST_FIXTURE)
tests_unit_engine_test_caches_CFLAGS = $(TEST_CFLAGS)
tests_unit_engine_test_caches_LDADD = $(TEST_LIBS)
tests_unit_engine_test_topk_SOURCES = tests/unit/engine/test_topk.c $(ENGINE_TEST_FIXTURE)
tests_unit_engine_test_topk_CFLAGS = $(TEST_CFLAGS)
tests_unit_engine_test_topk_LDADD = $(TEST_LIBS)
tests_unit_engine_test_multihop_SOURCES = tests/unit/engine/test_multihop.c $(ENGINE_TEST_FIXTURE)
tests_unit_engine_test_multihop_CFLAGS = $(TEST_CFLAGS)
tests_unit_engine_test_multihop_LDADD = $(TEST_LIBS)

# A hot edge next to other writes and reads (issue 16).
check_PROGRAMS += tests/unit/engine/test_locks
TESTS += tests/unit/engine/test_locks
tests_unit_engine_test_locks_SOURCES = tests/unit/engine/test_locks.c $(ENGINE_TEST_FIXTURE)
tests_unit_engine_test_locks_CFLAGS = $(TEST_CFLAGS)
tests_unit_engine_test_locks_LDADD = $(TEST_LIBS)

# The typed mutation entry against the JSON one (the library's data path).
check_PROGRAMS += tests/unit/engine/test_items
TESTS += tests/unit/engine/test_items
tests_unit_engine_test_items_SOURCES = tests/unit/engine/test_items.c $(ENGINE_TEST_FIXTURE)
tests_unit_engine_test_items_CFLAGS = $(TEST_CFLAGS)
tests_unit_engine_test_items_LDADD = $(TEST_LIBS)

# Out-of-order INSERT/UPDATE/DELETE over two waves against the spec's fold
# (the event stream of tests/rest/test_topk.c; issue 20).
check_PROGRAMS += tests/unit/engine/test_fold
TESTS += tests/unit/engine/test_fold
tests_unit_engine_test_fold_SOURCES = tests/unit/engine/test_fold.c $(ENGINE_TEST_FIXTURE)
tests_unit_engine_test_fold_CFLAGS = $(TEST_CFLAGS)
tests_unit_engine_test_fold_LDADD = $(TEST_LIBS)
