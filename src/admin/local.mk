# admin: actionbase-admin, the operator's data tool (backup, restore, copy,
# import), installed next to the server (included by the top Makefile.am).
bin_PROGRAMS += src/actionbase-admin
src_actionbase_admin_SOURCES = src/admin/main.c src/admin/admin-private.h src/admin/progress.c \
	src/admin/cmd_backup.c src/admin/cmd_copy.c src/admin/catchup.c src/admin/cmd_import.c \
	src/admin/import_scan.c src/admin/import_scan.h src/admin/import_sort.c src/admin/import_sort.h \
	src/admin/import_ties.c src/admin/import_ties.h
src_actionbase_admin_LDADD = $(MIMALLOC_LIBS) $(CORE_LIBS)
src_actionbase_admin_SOURCES += src/admin/dump.c src/admin/dump.h \
	$(PROGRAM_SLICES)

# backup / restore (tests/admin/test_backup.c): the dump functions in-process
# and the real binary (src/actionbase-admin, src/actionbase-verify) as a child.
check_PROGRAMS += tests/admin/test_backup
TESTS += tests/admin/test_backup
tests_admin_test_backup_SOURCES = tests/admin/test_backup.c src/admin/dump.c src/admin/dump.h \
	src/admin/progress.c tests/unit/engine/engine_fixture.c tests/unit/engine/engine_fixture.h
tests_admin_test_backup_CFLAGS = $(TEST_CFLAGS)
tests_admin_test_backup_LDADD = $(TEST_LIBS)

# copy (tests/admin/test_copy.c): the command in-process (ab_admin_copy_stores,
# to copy into memory:) and the real binary as a child for the kill -9 case.
check_PROGRAMS += tests/admin/test_copy
TESTS += tests/admin/test_copy
tests_admin_test_copy_SOURCES = tests/admin/test_copy.c src/admin/cmd_copy.c src/admin/catchup.c \
	src/admin/progress.c tests/unit/engine/engine_fixture.c tests/unit/engine/engine_fixture.h
tests_admin_test_copy_CFLAGS = $(TEST_CFLAGS)
tests_admin_test_copy_LDADD = $(TEST_LIBS)

# import (tests/admin/test_import.c): the real binary as a child on LMDB (and
# HBase with AB_HBASE_ADDR), compared with the same events through the engine.
# Figures: tests/bench/admin-bench.sh [BUILD_DIR] [EDGES].
check_PROGRAMS += tests/admin/test_import
TESTS += tests/admin/test_import
tests_admin_test_import_SOURCES = tests/admin/test_import.c \
	tests/unit/engine/engine_fixture.c tests/unit/engine/engine_fixture.h
tests_admin_test_import_CFLAGS = $(TEST_CFLAGS)
tests_admin_test_import_LDADD = $(TEST_LIBS)
EXTRA_DIST += tests/bench/admin-bench.sh

# The online move end to end (docs/data-tools.md, Online copy with WAL
# catch-up): a server on LMDB under write load moved to the real HBase.
TESTS += tests/admin/cutover.sh
EXTRA_DIST += tests/admin/cutover.sh
