# admin: actionbase-admin, the operator's data tool (backup, restore, copy,
# import), installed next to the server (included by the top Makefile.am).
# The sources of each command, listed once: the binary and the test programs
# that compile some of them directly take them from here.
ADMIN_COMMON_SOURCES = src/admin/admin-private.h src/admin/progress.c src/admin/util.c
ADMIN_DUMP_SOURCES = src/admin/dump.h src/admin/dump-private.h src/admin/dump.c \
	src/admin/dump_write.c src/admin/dump_restore.c
ADMIN_COPY_SOURCES = src/admin/copy-private.h src/admin/cmd_copy.c src/admin/copy_checkpoint.c \
	src/admin/copy_pass.c src/admin/catchup.c
ADMIN_IMPORT_SOURCES = src/admin/import-private.h src/admin/cmd_import.c src/admin/import_read.c \
	src/admin/import_parse.c src/admin/import_apply.c src/admin/import_checkpoint.c \
	src/admin/import_scan.c src/admin/import_scan.h src/admin/import_sort.c src/admin/import_sort.h \
	src/admin/import_ties.c src/admin/import_ties.h

bin_PROGRAMS += src/actionbase-admin
src_actionbase_admin_SOURCES = src/admin/main.c src/admin/cmd_backup.c $(ADMIN_COMMON_SOURCES) \
	$(ADMIN_DUMP_SOURCES) $(ADMIN_COPY_SOURCES) $(ADMIN_IMPORT_SOURCES) $(PROGRAM_SLICES)
src_actionbase_admin_LDADD = $(MIMALLOC_LIBS) $(CORE_LIBS)

# backup / restore (tests/admin/test_backup.c): the dump functions in-process
# and the real binary (src/actionbase-admin, src/actionbase-verify) as a child.
# copy (tests/admin/test_copy.c): the command in-process (ab_admin_copy_stores,
# to copy into memory:) and the real binary as a child for the kill -9 case.
# import (tests/admin/test_import.c): the real binary as a child on LMDB (and
# HBase with AB_HBASE_ADDR), compared with the same events through the engine.
# Figures: tests/bench/admin-bench.sh [BUILD_DIR] [EDGES].
ADMIN_TESTS = tests/admin/test_backup tests/admin/test_copy tests/admin/test_import
check_PROGRAMS += $(ADMIN_TESTS)
TESTS += $(ADMIN_TESTS)
tests_admin_test_backup_SOURCES = tests/admin/test_backup.c $(ADMIN_DUMP_SOURCES) \
	$(ADMIN_COMMON_SOURCES)
tests_admin_test_copy_SOURCES = tests/admin/test_copy.c $(ADMIN_COPY_SOURCES) \
	$(ADMIN_COMMON_SOURCES)
EXTRA_DIST += tests/bench/admin-bench.sh

# The online move end to end (docs/data-tools.md, Online copy with WAL
# catch-up): a server on LMDB under write load moved to the real HBase.
TESTS += tests/admin/cutover.sh
EXTRA_DIST += tests/admin/cutover.sh
