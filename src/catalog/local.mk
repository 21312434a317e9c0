# catalog: databases, tables and aliases persisted in the store (included by the top Makefile.am).
src_libactionbase_a_SOURCES += src/catalog/catalog.h src/catalog/catalog-private.h \
	src/catalog/catalog.c src/catalog/ddl.c src/catalog/keys.c
