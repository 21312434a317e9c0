/* actionbase-admin's shared pieces: the subcommands' entry points, their
 * progress reporting on a terminal or in plain lines, the exit codes every
 * subcommand uses and the small helpers of util.c. */
#pragma once
#include <glib.h>

typedef struct _AbStore AbStore;
typedef struct _JsonBuilder JsonBuilder;

/* Exit codes: 0 done, 1 failed (the message says how to resume), 2 usage. */
#define AB_ADMIN_EXIT_OK 0
#define AB_ADMIN_EXIT_FAILED 1
#define AB_ADMIN_EXIT_USAGE 2

/* util.c */
/* Sets *error (domain, code) to the formatted message; always FALSE. */
gboolean ab_admin_fail (GError **error, GQuark domain, gint code, const gchar *fmt, ...)
    G_GNUC_PRINTF (4, 5);
/* *empty: the store holds no row at all. */
gboolean ab_admin_store_is_empty (AbStore *store, gboolean *empty, GError **error);
/* fsync of a directory after a rename into it; best effort (errors ignored). */
void ab_admin_sync_dir (const gchar *dir);
/* An integer member of the object b is building (strings and booleans:
 * ab_model_json_add_string and _bool, model/json_get.h). */
void ab_admin_json_int (JsonBuilder *b, const gchar *name, gint64 value);

/* Each subcommand parses its own options from argv (argv[0] = its name). */
int ab_admin_backup (int argc, char **argv);
int ab_admin_restore (int argc, char **argv);
int ab_admin_copy (int argc, char **argv);
int ab_admin_import (int argc, char **argv);
/* copy with its stores already open (from, to not NULL) or opened from
 * --from / --to; the test suite calls it to copy into memory:. */
int ab_admin_copy_stores (AbStore *from, AbStore *to, int argc, char **argv);

/* The WAL catch-up of an online copy (catchup.c). */
typedef struct {
  const gchar *wal_uri;           /* the source server's WAL: file:DIR */
  gchar **insert_merge;           /* databases whose INSERTs merge, as on the server */
  gint64 since_ms;                /* records built before this are already in the copy */
  guint lanes;                    /* batches applied at once (copy's --threads) */
  GByteArray *position;           /* in/out: where the next read starts */
  guint64 read, applied, skipped; /* in/out running totals */
  /* Called after each applied chunk with position updated: records it. */
  gboolean (*save) (gpointer user, GError **error);
  gpointer user;
} AbCatchUp;

/* Where the WAL stood at since_ms (call it before the copy's snapshot opens):
 * a position at or before every record built from then on. */
GByteArray *ab_admin_catch_up_start (const gchar *wal_uri, gint64 since_ms, GError **error);
/* Replays the WAL from cu->position to its current end into to. */
gboolean ab_admin_catch_up (AbStore *to, AbCatchUp *cu, GError **error);

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
