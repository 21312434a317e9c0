# verify: sources and tests are listed here (included by the top Makefile.am).
# The verifier library lives in the core library (the engine and tests call it);
# the binary is its command-line front.
src_libabcore_la_SOURCES += src/verify/verify.h src/verify/verify-private.h \
	src/verify/verify.c src/verify/sorter.h src/verify/sorter.c src/verify/derive.c \
	src/verify/compare.c src/verify/repair.c src/verify/rank.c

bin_PROGRAMS += src/actionbase-verify
src_actionbase_verify_SOURCES = src/verify/main.c $(PROGRAM_SLICES)
src_actionbase_verify_LDADD = $(MIMALLOC_LIBS) $(CORE_LIBS)

VERIFY_TEST_FIXTURE = tests/unit/verify/verify_fixture.c tests/unit/verify/verify_fixture.h
# The fixture writes through the fault-injecting store (tests/unit/store).
VERIFY_TEST_LIBS = $(FAULT_STORE_LIBS) $(TEST_LIBS)
VERIFY_TESTS = tests/unit/verify/test_sorter tests/unit/verify/test_snapshot \
	tests/unit/verify/test_verify tests/unit/verify/test_shard tests/unit/verify/test_clean \
	tests/unit/verify/test_heal
check_PROGRAMS += $(VERIFY_TESTS)
TESTS += $(VERIFY_TESTS)
tests_unit_verify_test_sorter_SOURCES = tests/unit/verify/test_sorter.c
tests_unit_verify_test_snapshot_SOURCES = tests/unit/verify/test_snapshot.c $(VERIFY_TEST_FIXTURE)
tests_unit_verify_test_snapshot_LDADD = $(VERIFY_TEST_LIBS)
tests_unit_verify_test_verify_SOURCES = tests/unit/verify/test_verify.c $(VERIFY_TEST_FIXTURE)
tests_unit_verify_test_verify_LDADD = $(VERIFY_TEST_LIBS)
tests_unit_verify_test_shard_SOURCES = tests/unit/verify/test_shard.c $(VERIFY_TEST_FIXTURE)
tests_unit_verify_test_shard_LDADD = $(VERIFY_TEST_LIBS)
tests_unit_verify_test_heal_SOURCES = tests/unit/verify/test_heal.c $(VERIFY_TEST_FIXTURE)
tests_unit_verify_test_heal_LDADD = $(VERIFY_TEST_LIBS)
tests_unit_verify_test_clean_SOURCES = tests/unit/verify/test_clean.c $(VERIFY_TEST_FIXTURE)
tests_unit_verify_test_clean_LDADD = $(VERIFY_TEST_LIBS)

# Figures (not a test): tests/bench/verify-bench.sh [BUILD_DIR] [EDGES] loads
# with verify-load and times the binary (1 shard, then 2 in parallel).
noinst_PROGRAMS += tests/bench/verify-load
tests_bench_verify_load_SOURCES = tests/bench/verify-load.c
tests_bench_verify_load_LDADD = $(CORE_LIBS)
EXTRA_DIST += tests/bench/verify-bench.sh

check_PROGRAMS += tests/unit/verify/test_wide
TESTS += tests/unit/verify/test_wide
tests_unit_verify_test_wide_SOURCES = tests/unit/verify/test_wide.c $(VERIFY_TEST_FIXTURE)
tests_unit_verify_test_wide_LDADD = $(VERIFY_TEST_LIBS)

check_PROGRAMS += tests/unit/verify/test_ranks
TESTS += tests/unit/verify/test_ranks
tests_unit_verify_test_ranks_SOURCES = tests/unit/verify/test_ranks.c $(VERIFY_TEST_FIXTURE)
tests_unit_verify_test_ranks_LDADD = $(VERIFY_TEST_LIBS)
