# codec: sources and tests are listed here (included by the top Makefile.am).
src_libabcore_la_SOURCES += \
	src/codec/value.c src/codec/value.h \
	src/codec/buf.c src/codec/buf.h \
	src/codec/element.c src/codec/element.h \
	src/codec/keys.c src/codec/keys.h \
	src/codec/record.c src/codec/record.h \
	src/codec/bytes.c src/codec/bytes.h \
	src/codec/fail.c src/codec/fail.h \
	src/codec/digest.c src/codec/digest.h

CODEC_TEST_HELPERS = tests/unit/codec/codec_helpers.c tests/unit/codec/codec_helpers.h
check_PROGRAMS += tests/unit/codec/test_element
TESTS += tests/unit/codec/test_element
tests_unit_codec_test_element_SOURCES = tests/unit/codec/test_element.c $(CODEC_TEST_HELPERS)
tests_unit_codec_test_element_CFLAGS = $(TEST_CFLAGS)
tests_unit_codec_test_element_LDADD = $(TEST_LIBS)

check_PROGRAMS += tests/unit/codec/test_keys
TESTS += tests/unit/codec/test_keys
tests_unit_codec_test_keys_SOURCES = tests/unit/codec/test_keys.c $(CODEC_TEST_HELPERS)
tests_unit_codec_test_keys_CFLAGS = $(TEST_CFLAGS)
tests_unit_codec_test_keys_LDADD = $(TEST_LIBS)

check_PROGRAMS += tests/unit/codec/test_record
TESTS += tests/unit/codec/test_record
tests_unit_codec_test_record_SOURCES = tests/unit/codec/test_record.c $(CODEC_TEST_HELPERS)
tests_unit_codec_test_record_CFLAGS = $(TEST_CFLAGS)
tests_unit_codec_test_record_LDADD = $(TEST_LIBS)

check_PROGRAMS += tests/unit/codec/test_bytes
TESTS += tests/unit/codec/test_bytes
tests_unit_codec_test_bytes_SOURCES = tests/unit/codec/test_bytes.c $(CODEC_TEST_HELPERS)
tests_unit_codec_test_bytes_CFLAGS = $(TEST_CFLAGS)
tests_unit_codec_test_bytes_LDADD = $(TEST_LIBS)

check_PROGRAMS += tests/unit/codec/test_wide
TESTS += tests/unit/codec/test_wide
tests_unit_codec_test_wide_SOURCES = tests/unit/codec/test_wide.c $(CODEC_TEST_HELPERS)
tests_unit_codec_test_wide_CFLAGS = $(TEST_CFLAGS)
tests_unit_codec_test_wide_LDADD = $(TEST_LIBS)

# docs/storage-format.md §9 as a test: the suite reads the document itself.
check_PROGRAMS += tests/unit/codec/test_doc_vectors
TESTS += tests/unit/codec/test_doc_vectors
EXTRA_DIST += docs/storage-format.md
tests_unit_codec_test_doc_vectors_SOURCES = tests/unit/codec/test_doc_vectors.c $(CODEC_TEST_HELPERS)
tests_unit_codec_test_doc_vectors_CFLAGS = $(TEST_CFLAGS) -DAB_DOCS_DIR=\"$(abs_top_srcdir)/docs\"
tests_unit_codec_test_doc_vectors_LDADD = $(TEST_LIBS)
