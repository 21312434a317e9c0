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

CODEC_TESTS = tests/unit/codec/test_element tests/unit/codec/test_keys \
	tests/unit/codec/test_record tests/unit/codec/test_bytes tests/unit/codec/test_wide \
	tests/unit/codec/test_doc_vectors
check_PROGRAMS += $(CODEC_TESTS)
TESTS += $(CODEC_TESTS)
# docs/storage-format.md §9 as a test: the suite reads the document itself.
EXTRA_DIST += docs/storage-format.md
tests_unit_codec_test_doc_vectors_CFLAGS = $(TEST_CFLAGS) -DAB_DOCS_DIR=\"$(abs_top_srcdir)/docs\"
