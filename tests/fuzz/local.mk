# libFuzzer targets (./configure --enable-fuzz, with CC=clang): one program per
# parser that sees bytes from outside (requests, stored rows, HBase replies).
# tests/fuzz/run.sh builds them in build/fuzz and runs each on its seed corpus
# tests/fuzz/corpus/<target>/ (included by the top Makefile.am).
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/corpus
if AB_FUZZ
FUZZ_TARGETS = tests/fuzz/fuzz_element tests/fuzz/fuzz_key tests/fuzz/fuzz_record tests/fuzz/fuzz_offset tests/fuzz/fuzz_predicate tests/fuzz/fuzz_mutate tests/fuzz/fuzz_meta tests/fuzz/fuzz_hbase \
	tests/fuzz/fuzz_jsonw tests/fuzz/fuzz_import_scan
noinst_PROGRAMS += $(FUZZ_TARGETS)
tests_fuzz_fuzz_import_scan_SOURCES = tests/fuzz/fuzz_import_scan.c tests/fuzz/fuzz.h \
	src/admin/import_scan.c src/admin/import_scan.h
tests_fuzz_fuzz_import_scan_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_import_scan_LDADD = $(CORE_LIBS)
FUZZ_FIXTURE = tests/fuzz/fuzz_fixture.c tests/fuzz/fuzz_fixture.h
tests_fuzz_fuzz_element_SOURCES = tests/fuzz/fuzz_element.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_element_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_element_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_key_SOURCES = tests/fuzz/fuzz_key.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_key_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_key_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_record_SOURCES = tests/fuzz/fuzz_record.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_record_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_record_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_offset_SOURCES = tests/fuzz/fuzz_offset.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_offset_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_offset_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_predicate_SOURCES = tests/fuzz/fuzz_predicate.c tests/fuzz/fuzz.h $(FUZZ_FIXTURE)
tests_fuzz_fuzz_predicate_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_predicate_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_mutate_SOURCES = tests/fuzz/fuzz_mutate.c tests/fuzz/fuzz.h $(FUZZ_FIXTURE)
tests_fuzz_fuzz_mutate_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_mutate_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_meta_SOURCES = tests/fuzz/fuzz_meta.c tests/fuzz/fuzz.h $(FUZZ_FIXTURE)
tests_fuzz_fuzz_meta_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_meta_LDADD = $(CORE_LIBS)
tests_fuzz_fuzz_hbase_SOURCES = tests/fuzz/fuzz_hbase.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_hbase_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_hbase_LDADD = $(CORE_LIBS)
# The response writer against json-glib's generator (same bytes, parses back).
tests_fuzz_fuzz_jsonw_SOURCES = tests/fuzz/fuzz_jsonw.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_jsonw_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_jsonw_LDADD = $(CORE_LIBS)
endif
