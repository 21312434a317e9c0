# verify: sources and tests are listed here (included by the top Makefile.am).
# The verifier library lives in the core library (the engine and tests call it);
# the binary is its command-line front.
src_libabcore_la_SOURCES += src/verify/verify.h src/verify/verify-private.h \
	src/verify/verify.c src/verify/sorter.h src/verify/sorter.c src/verify/derive.c \
	src/verify/compare.c src/verify/repair.c src/verify/rank.c

bin_PROGRAMS += src/actionbase-verify
src_actionbase_verify_SOURCES = src/verify/main.c $(PROGRAM_SLICES)
src_actionbase_verify_LDADD = $(MIMALLOC_LIBS) $(CORE_LIBS)

# The fixture (tests/unit/verify/verify_fixture.c, in tests/libabtest.a) writes
# through the fault-injecting store (tests/unit/store/fault.c).
VERIFY_TESTS = tests/unit/verify/test_sorter tests/unit/verify/test_snapshot \
	tests/unit/verify/test_verify tests/unit/verify/test_shard tests/unit/verify/test_clean \
	tests/unit/verify/test_heal
check_PROGRAMS += $(VERIFY_TESTS)
TESTS += $(VERIFY_TESTS)

# Figures (not a test): tests/bench/verify-bench.sh [BUILD_DIR] [EDGES] loads
# with verify-load and times the binary (1 shard, then 2 in parallel).
noinst_PROGRAMS += tests/bench/verify-load
tests_bench_verify_load_SOURCES = tests/bench/verify-load.c
tests_bench_verify_load_LDADD = $(CORE_LIBS)
EXTRA_DIST += tests/bench/verify-bench.sh

check_PROGRAMS += tests/unit/verify/test_wide
TESTS += tests/unit/verify/test_wide

check_PROGRAMS += tests/unit/verify/test_ranks
TESTS += tests/unit/verify/test_ranks
