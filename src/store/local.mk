# store: sources and tests are listed here (included by the top Makefile.am).
src_libabcore_la_SOURCES += src/store/store.c src/store/store.h src/store/backend.h \
	src/store/memory/memory.c src/store/lmdb/lmdb.c src/store/lmdb/lmdb_commit.c src/store/lmdb/lmdb_uri.c src/store/uri_params.c \
	src/store/rocksdb/rocksdb-private.h src/store/rocksdb/rocksdb.c src/store/rocksdb/rocksdb_write.c src/store/rocksdb/rocksdb_group.c src/store/rocksdb/rocksdb_uri.c src/store/shared_dir.c \
	src/store/rocksdb/rocksdb_health.c src/store/rocksdb/rocksdb_load.c src/store/local_uri.c \
	src/store/cpus.c src/store/cpus.h

check_PROGRAMS += tests/unit/store/test_store tests/unit/store/test_store_lmdb \
	tests/unit/store/test_store_rocksdb
TESTS += tests/unit/store/test_store tests/unit/store/test_store_lmdb \
	tests/unit/store/test_store_rocksdb
tests_unit_store_test_store_SOURCES = tests/unit/store/test_store.c tests/unit/store/store_txn.c

noinst_PROGRAMS += tests/bench/store-bench
tests_bench_store_bench_SOURCES = tests/bench/store-bench.c
tests_bench_store_bench_CFLAGS = $(AM_CFLAGS)
tests_bench_store_bench_LDADD = $(CORE_LIBS)
# lmdb snapshots (verifier).
src_libabcore_la_SOURCES += src/store/lmdb/lmdb-private.h src/store/lmdb/lmdb-snapshot.c src/store/lmdb/lmdb_log.c \
	src/store/write_log.h src/store/write_log.c
# hbase backend: the Thrift2 client is generated from thrift/hbase.thrift at
# build time into src/store/gen/ (not committed) and compiled into its own
# library without -Werror (generated code casts function types).
src_libabcore_la_SOURCES += src/store/hbase/hbase-private.h src/store/hbase/hbase.c \
	src/store/hbase/hbase_uri.c src/store/hbase/hbase_conn.c src/store/hbase/hbase_reader.c src/store/hbase/hbase_ddl.c \
	src/store/hbase/hbase_batch.c src/store/hbase/hbase_cells.c src/store/hbase/hbase_decode.c \
	src/store/hbase/hbase_share.c src/store/hbase/hbase_sidecars.c
HBASE_GEN_C = src/store/gen/hb_hbase_types.c src/store/gen/hb_t_h_base_service.c \
	src/store/gen/hb_types_ensure.c
HBASE_GEN_H = src/store/gen/hb_hbase_types.h src/store/gen/hb_t_h_base_service.h
BUILT_SOURCES += $(HBASE_GEN_C) $(HBASE_GEN_H)
CLEANFILES += $(HBASE_GEN_C) $(HBASE_GEN_H) src/store/gen/.stamp
EXTRA_DIST += thrift/hbase.thrift thrift/chain-finalize.awk thrift/types-ensure.awk \
	thrift/decode-guards.awk
$(HBASE_GEN_C) $(HBASE_GEN_H): src/store/gen/.stamp
	@test -f $@ || { rm -f src/store/gen/.stamp; $(MAKE) $(AM_MAKEFLAGS) src/store/gen/.stamp; }
src/store/gen/.stamp: $(top_srcdir)/thrift/hbase.thrift \
		$(top_srcdir)/thrift/chain-finalize.awk $(top_srcdir)/thrift/types-ensure.awk \
		$(top_srcdir)/thrift/decode-guards.awk
	@test "$(THRIFT_COMPILER)" != no || { echo "thrift compiler not found (thrift-compiler)" >&2; exit 1; }
	$(AM_V_GEN)$(MKDIR_P) src/store/gen && \
	  $(THRIFT_COMPILER) --gen c_glib -out src/store/gen $(top_srcdir)/thrift/hbase.thrift && \
	  $(AWK) -f $(top_srcdir)/thrift/chain-finalize.awk src/store/gen/hb_hbase_types.c \
	    > src/store/gen/hb_hbase_types.c.tmp && \
	  mv src/store/gen/hb_hbase_types.c.tmp src/store/gen/hb_hbase_types.c && \
	  for f in hb_hbase_types hb_t_h_base_service; do \
	    $(AWK) -f $(top_srcdir)/thrift/decode-guards.awk src/store/gen/$$f.c \
	      > src/store/gen/$$f.c.tmp && mv src/store/gen/$$f.c.tmp src/store/gen/$$f.c || exit 1; \
	  done && \
	  $(AWK) -f $(top_srcdir)/thrift/types-ensure.awk src/store/gen/hb_hbase_types.h \
	    src/store/gen/hb_t_h_base_service.h > src/store/gen/hb_types_ensure.c && \
	  touch $@
# BUILT_SOURCES covers `make all/check`; this covers `make TARGET` too.
$(src_libabcore_la_OBJECTS): $(HBASE_GEN_H)
noinst_LTLIBRARIES += src/store/libhbthrift.la
nodist_src_store_libhbthrift_la_SOURCES = $(HBASE_GEN_C) $(HBASE_GEN_H)
src_store_libhbthrift_la_CPPFLAGS = -I$(top_builddir)/src/store/gen
src_store_libhbthrift_la_CFLAGS = $(GLIB_CFLAGS) $(THRIFT_CFLAGS) -w
# The generated client calls the libthrift workarounds of hbase_wire.c
# (thrift/decode-guards.awk): they link after it, in their own library, with
# the project's warnings.
noinst_LTLIBRARIES += src/store/libhbwire.la
src_store_libhbwire_la_SOURCES = src/store/hbase/hbase_wire.c
CORE_LIBS += src/store/libhbthrift.la src/store/libhbwire.la $(THRIFT_LIBS) $(GLIB_LIBS)
