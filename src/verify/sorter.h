/* The verifier's external sorter: derived Index rows and Count contributions
 * go in in any order, come out in key order with Count contributions of one
 * key summed, using one bounded in-memory run and sorted temp files. */
#pragma once
#include <stdio.h>
#include <glib.h>

typedef enum {
  AB_DERIVED_INDEX = 1, /* value = the Index value the State implies */
  AB_DERIVED_COUNT = 2, /* count = active edges behind this Count row */
} AbDerivedKind;

typedef struct {
  AbDerivedKind kind;
  const guint8 *key;
  gsize klen;
  const guint8 *value; /* INDEX only */
  gsize vlen;
  gint64 count; /* COUNT only */
} AbDerived;

typedef struct _AbSorter AbSorter;

/* tmpdir NULL = g_get_tmp_dir (); run_bytes = memory for the in-memory run
 * (records and their sort entries), clamped to 64 KiB..2 GiB. Temp files are unlinked
 * as soon as they are created, so nothing is left behind on a crash. */
AbSorter *ab_sorter_new (const gchar *tmpdir, gsize run_bytes);
void ab_sorter_free (AbSorter *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbSorter, ab_sorter_free)

/* Adding (before ab_sorter_finish). Two Index rows with the same key keep
 * the first added; Count contributions of one key are summed. */
gboolean ab_sorter_add_index (AbSorter *s, const guint8 *key, gsize klen, const guint8 *value,
                              gsize vlen, GError **error);
gboolean ab_sorter_add_count (AbSorter *s, const guint8 *key, gsize klen, gint64 n, GError **error);

/* Runs merged at once (default AB_SORTER_FAN_IN; tests lower it). */
void ab_sorter_set_fan_in (AbSorter *s, guint fan_in);
/* Ends adding: spills or sorts, merges down to at most fan-in runs. */
gboolean ab_sorter_finish (AbSorter *s, GError **error);
/* Reading in key order. *more = FALSE at the end. out's pointers stay valid
 * until the next call. */
gboolean ab_sorter_next (AbSorter *s, AbDerived *out, gboolean *more, GError **error);

/* Runs written to disk so far (0 when everything fitted in memory). */
guint ab_sorter_spilled_runs (const AbSorter *s);
guint64 ab_sorter_records (const AbSorter *s); /* records added */

#define AB_SORTER_FAN_IN 64

/* An anonymous read-write temp file in tmpdir (NULL = the system's), already
 * unlinked, with a large stdio buffer returned in *buffer: free it after
 * fclose. Also used for the repair spool. */
FILE *ab_verify_temp_file (const gchar *tmpdir, gchar **buffer, GError **error);
