# catalog: databases, tables and aliases persisted in the store (included by the top Makefile.am).
src_libabcore_la_SOURCES += src/catalog/catalog.h src/catalog/catalog-private.h \
	src/catalog/catalog.c src/catalog/ddl.c src/catalog/keys.c src/catalog/resolved.c \
	src/catalog/documents.c src/catalog/references.c

# The catalog's DDL, API keys, storages and reload on a memory store.
check_PROGRAMS += tests/unit/catalog/test_catalog
TESTS += tests/unit/catalog/test_catalog
