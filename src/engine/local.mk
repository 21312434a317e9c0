# engine: mutations, queries and the lock protocol over the store seam (included by the top Makefile.am).
src_libabcore_la_SOURCES += src/engine/engine.h src/engine/derive.h src/engine/engine.c \
	src/engine/core/core.h src/engine/core/core.c src/engine/core/state.h src/engine/core/state.c \
	src/engine/core/predicate.h src/engine/core/predicate.c src/engine/core/pool.c \
	src/engine/core/ulid.h src/engine/core/ulid.c \
	src/engine/write/events.c \
	src/engine/plan/plan.h src/engine/plan/plan.c src/engine/plan/groups.c src/engine/plan/ttl.c \
	src/engine/read/read.h src/engine/read/query.c src/engine/read/scan.c src/engine/read/seek.c \
	src/engine/read/agg.c src/engine/read/fanout.c src/engine/read/multihop.c \
	src/engine/topk/topk.h src/engine/topk/topk.c src/engine/topk/topk_read.c \
	src/engine/topk/topk_window.c \
	src/engine/write/write.h src/engine/write/mutate.c src/engine/write/apply.c \
	src/engine/write/lock.c src/engine/write/heal.c src/engine/write/records.c \
	src/engine/write/cache_note.c \
	src/engine/queue/queue.h src/engine/queue/queue-private.h src/engine/queue/queue.c src/engine/queue/queue_db.c \
	src/engine/upkeep/upkeep.h src/engine/upkeep/prune.c src/engine/upkeep/applier.c \
	src/engine/doc/doc.h src/engine/doc/doc_parse.c src/engine/doc/doc_rows.c \
	src/engine/doc/doc_exec.c src/engine/doc/doc_sql.c src/engine/doc/doc_bind.c \
	src/engine/doc/prepared.c src/engine/doc/rank.c

# The folders call each other one way (docs/architecture.md): nm over the objects.
TESTS += tests/unit/engine/test_folders.sh
EXTRA_DIST += tests/unit/engine/test_folders.sh

# transit: State transitions; engine: mutations and reads end to end; wal: the
# WAL and CDC records; groups, caches, multihop, topk: wide rows and the 2-hop
# query (issue 11); locks: a hot edge next to other writes and reads (issue
# 16); items: the typed mutation entry against the JSON one (the library's data
# path); fold: out-of-order INSERT/UPDATE/DELETE over two waves against the
# spec's fold (the event stream of tests/rest/test_topk.c; issue 20).
ENGINE_TESTS = tests/unit/engine/test_transit tests/unit/engine/test_engine tests/unit/engine/test_wal \
	tests/unit/engine/test_groups tests/unit/engine/test_caches tests/unit/engine/test_multihop tests/unit/engine/test_topk \
	tests/unit/engine/test_locks tests/unit/engine/test_items tests/unit/engine/test_fold
check_PROGRAMS += $(ENGINE_TESTS)
TESTS += $(ENGINE_TESTS)

# Figures for the engine (not a test): tests/bench/engine-bench [inserts-per-writer]
noinst_PROGRAMS += tests/bench/engine-bench
tests_bench_engine_bench_SOURCES = tests/bench/engine-bench.c
tests_bench_engine_bench_LDADD = $(CORE_LIBS)
