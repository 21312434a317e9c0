# admin: actionbase-admin, the operator's data tool (backup, restore, copy,
# import), installed next to the server (included by the top Makefile.am).
bin_PROGRAMS += src/actionbase-admin
src_actionbase_admin_SOURCES = src/admin/main.c src/admin/admin-private.h src/admin/progress.c \
	src/admin/cmd_backup.c src/admin/cmd_copy.c src/admin/cmd_import.c
src_actionbase_admin_LDADD = $(CORE_LIBS)
