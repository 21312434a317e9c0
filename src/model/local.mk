# model: sources and tests are listed here (included by the top Makefile.am).
src_libabcore_la_SOURCES += \
	src/model/types.c src/model/types.h \
	src/model/json.c src/model/json_get.h src/model/jsonw.c src/model/jsonw.h \
	src/model/schema.c src/model/schema.h src/model/schema-private.h \
	src/model/schema_json.c src/model/desc_json.c \
	src/model/v2.c src/model/validate.c \
	src/model/groups.c src/model/groups.h

check_PROGRAMS += tests/unit/model/test_cast
TESTS += tests/unit/model/test_cast

check_PROGRAMS += tests/unit/model/test_schema tests/unit/model/test_validate tests/unit/model/test_v2
TESTS += tests/unit/model/test_schema tests/unit/model/test_validate tests/unit/model/test_v2

# The streaming JSON writer (REST answers, WAL and CDC records): its unit test (json-glib parity) and its figures
# against json-glib (and yajl when configure found it), not a test:
# tests/bench/json-bench [iterations].
check_PROGRAMS += tests/unit/model/test_jsonw
TESTS += tests/unit/model/test_jsonw
noinst_PROGRAMS += tests/bench/json-bench
tests_bench_json_bench_SOURCES = tests/bench/json-bench.c
tests_bench_json_bench_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_bench_json_bench_LDADD = $(CORE_LIBS) $(YAJL_LIBS)
