/* actionbase-admin's shared pieces: the subcommands (one file each), their
 * progress reporting on a terminal or in plain lines, and the exit codes
 * every subcommand uses. */
#pragma once
#include <glib.h>

/* Exit codes: 0 done, 1 failed (the message says how to resume), 2 usage. */
#define AB_ADMIN_EXIT_OK 0
#define AB_ADMIN_EXIT_FAILED 1
#define AB_ADMIN_EXIT_USAGE 2

/* Each subcommand parses its own options from argv (argv[0] = its name). */
int ab_admin_backup (int argc, char **argv);
int ab_admin_restore (int argc, char **argv);
int ab_admin_copy (int argc, char **argv);
int ab_admin_import (int argc, char **argv);
/* copy with its stores already open (from, to not NULL) or opened from
 * --from / --to; the test suite calls it to copy into memory:. */
typedef struct _AbStore AbStore;
int ab_admin_copy_stores (AbStore *from, AbStore *to, int argc, char **argv);

/* Progress of a long command: a bar with rows/s and ETA on a terminal
 * (stderr), else a plain line every few seconds; thread-safe add. */
typedef struct _AbProgress AbProgress;

/* total: rows expected, 0 when unknown (no bar, no ETA). */
AbProgress *ab_progress_new (const gchar *what, guint64 total);
void ab_progress_add (AbProgress *p, guint64 rows);
guint64 ab_progress_rows (AbProgress *p);
/* Prints the final line (rows, seconds, rows/s) and frees. */
void ab_progress_finish (AbProgress *p);
/* Frees without the final line (failure paths print their own). */
void ab_progress_free (AbProgress *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbProgress, ab_progress_free)
