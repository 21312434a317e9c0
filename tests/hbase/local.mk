# HBase integration suites (included by the top Makefile.am): they talk to the
# real gateway named by AB_HBASE_ADDR (tests/run.sh starts one) and exit 77
# (skipped) without it. The store and engine suites also run on hbase:// then.
HBASE_RAW = tests/hbase/hbase_raw.c tests/hbase/hbase_raw.h
check_PROGRAMS += tests/hbase/test_hbase
TESTS += tests/hbase/test_hbase
tests_hbase_test_hbase_SOURCES = tests/hbase/test_hbase.c tests/hbase/hbase_test_uri.h \
	$(HBASE_RAW)
# The call budgets of docs/hbase-adapter.md §9, parsed from the doc and
# measured per request against the gateway's counters.
check_PROGRAMS += tests/hbase/test_budget
TESTS += tests/hbase/test_budget
tests_hbase_test_budget_SOURCES = tests/hbase/test_budget.c tests/hbase/hbase_test_uri.h
tests_hbase_test_budget_CPPFLAGS = $(AM_CPPFLAGS) -DAB_DOCS_DIR=\"$(abs_top_srcdir)/docs\"
EXTRA_DIST += docs/hbase-adapter.md
EXTRA_DIST += hbase/pom.xml hbase/start.sh hbase/stop.sh hbase/create-table.sh \
	hbase/lib.sh hbase/gateway.sh \
	hbase/log4j.properties hbase/README.md tests/hbase/restart-check.sh

# Figures (not a test): tests/bench/hbase-bench.sh runs it against a gateway.
noinst_PROGRAMS += tests/bench/hbase-bench
tests_bench_hbase_bench_SOURCES = tests/bench/hbase-bench.c $(HBASE_RAW)
tests_bench_hbase_bench_CFLAGS = $(AM_CFLAGS)
tests_bench_hbase_bench_LDADD = $(CORE_LIBS)
$(tests_hbase_test_hbase_OBJECTS) $(tests_hbase_test_budget_OBJECTS) \
	$(tests_bench_hbase_bench_OBJECTS): $(HBASE_GEN_H)
