# libactionbase: the public C API over the engine (docs/library.md), built as
# libactionbase.so.0 plus its static twin; only the ab_db_* calls of
# actionbase.h are exported (hidden visibility and a version script).
lib_LTLIBRARIES += src/lib/libactionbase.la
include_HEADERS = src/lib/actionbase.h
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = src/lib/actionbase.pc
src_lib_libactionbase_la_SOURCES = src/lib/actionbase.h src/lib/lib-private.h src/lib/db.c \
	src/lib/ddl.c src/lib/edges.c src/lib/mutate.c src/lib/read.c src/lib/iter.c \
	src/lib/more.c src/lib/queue.c
src_lib_libactionbase_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
src_lib_libactionbase_la_LIBADD = src/libabcore.la src/store/libhbthrift.la \
	src/store/libhbwire.la $(GLIB_LIBS) $(JSON_LIBS) $(XXHASH_LIBS) $(LMDB_LIBS) $(ROCKSDB_LIBS) $(SQLITE_LIBS) \
	$(RDKAFKA_LIBS) $(THRIFT_LIBS) $(OPENSSL_LIBS) -lm
src_lib_libactionbase_la_LDFLAGS = -version-info 0:0:0 \
	-Wl,--version-script=$(top_srcdir)/src/lib/actionbase.map
EXTRA_src_lib_libactionbase_la_DEPENDENCIES = $(top_srcdir)/src/lib/actionbase.map
EXTRA_DIST += src/lib/actionbase.map src/lib/actionbase.pc.in

# The public API's suites link the shared library through its header only.
LIB_TEST_CFLAGS = $(AB_WARN_CFLAGS) $(GLIB_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/src/lib \
	-I$(top_srcdir)/tests
check_PROGRAMS += tests/lib/test_lib
TESTS += tests/lib/test_lib tests/lib/test_exports.sh tests/lib/test_layers.sh \
	tests/lib/test_api_docs.sh tests/lib/test_install.sh tests/lib/test_python.sh
tests_lib_test_lib_SOURCES = tests/lib/test_lib.c
tests_lib_test_lib_CPPFLAGS = -DPACKAGE_VERSION=\"$(PACKAGE_VERSION)\"
tests_lib_test_lib_CFLAGS = $(LIB_TEST_CFLAGS)
tests_lib_test_lib_LDADD = src/lib/libactionbase.la $(GLIB_LIBS) $(CHECK_LIBS)
EXTRA_DIST += tests/lib/test_exports.sh

# examples/: short programs on the public API, built and run by `make check`.
check_PROGRAMS += examples/likes examples/queue
TESTS += examples/likes examples/queue
examples_likes_SOURCES = examples/likes.c
examples_likes_CFLAGS = $(AB_WARN_CFLAGS) $(GLIB_CFLAGS) -I$(top_srcdir)/src/lib
examples_likes_LDADD = src/lib/libactionbase.la $(GLIB_LIBS)
examples_queue_SOURCES = examples/queue.c
examples_queue_CFLAGS = $(AB_WARN_CFLAGS) $(GLIB_CFLAGS) -I$(top_srcdir)/src/lib
examples_queue_LDADD = src/lib/libactionbase.la $(GLIB_LIBS)

# Figures of the public API (not a test): tests/bench/lib-bench [edges]
noinst_PROGRAMS += tests/bench/lib-bench
tests_bench_lib_bench_SOURCES = tests/bench/lib-bench.c tests/bench/rocks-floor.c \
	tests/bench/rocks-floor.h
tests_bench_lib_bench_CFLAGS = $(AB_WARN_CFLAGS) $(GLIB_CFLAGS) $(LMDB_CFLAGS) $(ROCKSDB_CFLAGS) \
	-I$(top_srcdir)/src/lib
tests_bench_lib_bench_LDADD = src/lib/libactionbase.la $(GLIB_LIBS) $(LMDB_LIBS) $(ROCKSDB_LIBS)

# The API reference from the header's comments (docs/library.md).
EXTRA_DIST += docs/Doxyfile tests/lib/test_layers.sh tests/lib/test_api_docs.sh \
	tests/lib/test_install.sh tests/lib/test_python.sh tests/lib/test_python.py

# The Python module over the library (ctypes), installed next to the data.
abpythondir = $(pkgdatadir)/python
dist_abpython_DATA = src/lib/python/actionbase.py
api-docs:
	$(AM_V_GEN)$(MKDIR_P) docs/api && \
	  { cat $(top_srcdir)/docs/Doxyfile; \
	    echo "INPUT = $(top_srcdir)/src/lib/actionbase.h"; \
	    echo "OUTPUT_DIRECTORY = docs/api"; \
	    echo "PROJECT_NUMBER = $(PACKAGE_VERSION)"; } | doxygen -
.PHONY: api-docs
