# store: sources and tests are listed here (included by the top Makefile.am).
src_libactionbase_a_SOURCES += src/store/store.c src/store/store.h src/store/backend.h \
	src/store/memory.c src/store/lmdb.c

STORE_TEST_HELPERS = tests/unit/store/store_test_util.c tests/unit/store/store_test_util.h
check_PROGRAMS += tests/unit/store/test_store tests/unit/store/test_store_lmdb
TESTS += tests/unit/store/test_store tests/unit/store/test_store_lmdb
tests_unit_store_test_store_SOURCES = tests/unit/store/test_store.c $(STORE_TEST_HELPERS)
tests_unit_store_test_store_CFLAGS = $(TEST_CFLAGS)
tests_unit_store_test_store_LDADD = $(TEST_LIBS)
tests_unit_store_test_store_lmdb_SOURCES = tests/unit/store/test_store_lmdb.c \
	$(STORE_TEST_HELPERS)
tests_unit_store_test_store_lmdb_CFLAGS = $(TEST_CFLAGS)
tests_unit_store_test_store_lmdb_LDADD = $(TEST_LIBS)

noinst_PROGRAMS += tests/bench/store-bench
tests_bench_store_bench_SOURCES = tests/bench/store-bench.c
tests_bench_store_bench_CFLAGS = $(AM_CFLAGS)
tests_bench_store_bench_LDADD = $(CORE_LIBS)
