/* actionbase-admin copy: every row (or the rows of chosen databases) from one
 * store to another, read from a snapshot in key order (from a remote store,
 * several key ranges at once) and written as parallel batches, resumable from
 * a durable checkpoint; --rescan mirrors (diff + delete). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "admin/admin-private.h"
#include "catalog/catalog.h"
#include "codec/bytes.h"
#include "codec/element.h"
#include "codec/keys.h"
#include "store/store.h"
#include "codec/digest.h"

#define COPY_DEFAULT_BATCH 1000
#define COPY_DEFAULT_THREADS 4
#define COPY_MAX_THREADS 64
#define COPY_DEFAULT_READERS 4
#define COPY_MAX_READERS 64
#define COPY_CHECKPOINT_EVERY_US (G_USEC_PER_SEC)
#define COPY_CHECKPOINT_LOG_EVERY_US (60 * G_USEC_PER_SEC)
#define COPY_GROUP "copy"
#define COPY_FORMAT 1

/* The TTL expiry index of the engine: prefix || be64(expiry) || groupCell
 * (docs/storage-format.md §10); its table is the group cell's. */
static const guint8 TTL_PREFIX[] = { 0, 0, 0, 0, 0, 'a', 'b', 't', 't', 'l', 0 };
#define TTL_CELL_AT (sizeof TTL_PREFIX + 8)
/* Top-K due rows (storage-format.md §10): prefix || be64(due) || score key. */
static const guint8 DUE_PREFIX[] = { 0, 0, 0, 0, 0, 'a', 'b', 't', 'o', 'p', 'k', 0 };
#define DUE_KEY_AT (sizeof DUE_PREFIX + 8)

static const gchar USAGE[]
    = "Usage: actionbase-admin copy --from URI --to URI [OPTION...]\n"
      "\n"
      "Copies the catalog and every row of one store into another (lmdb:DIR, rocksdb:DIR,\n"
      "memory:, hbase://HOST:PORT/NS?table=T), read from a snapshot of the source in key\n"
      "order, so the source may keep serving (a RocksDB source beside its server is read\n"
      "as rocksdb:DIR?readonly=1). Rows travel byte for byte. The same store, or the\n"
      "same local directory by any spelling, cannot be both --from and --to.\n"
      "\n"
      "Options:\n"
      "  --from URI          the source store\n"
      "  --to URI            the target store\n"
      "  --database NAME     copy only this database (its catalog rows and the rows of its\n"
      "                      tables); repeat for several; default: everything\n"
      "  --batch N           rows per write batch (default 1000)\n"
      "  --threads N         batches written in parallel (default 4)\n"
      "  --readers N         key ranges read at once from a remote source (hbase), each\n"
      "                      over its own connection (default 4; a local source is read\n"
      "                      by one reader)\n"
      "  --checkpoint FILE   where progress is recorded (default: derived from --to, under\n"
      "                      the user state directory; the path is printed)\n"
      "  --force             copy into a target that already holds rows and has no matching\n"
      "                      checkpoint\n"
      "  --rescan            final pass of a move: the target becomes exactly the source\n"
      "                      (selected rows): missing or different rows are written, rows\n"
      "                      the source no longer has are DELETED. Run it while the source\n"
      "                      denies writes (docs/data-tools.md, Moving between stores)\n"
      "  --wal file:DIR      online copy: the source server's WAL. The copy notes where the\n"
      "                      WAL stands before its snapshot, then replays every record from\n"
      "                      there into the target; each later run replays what was added\n"
      "                      since (run once more after putting the source in DENY mode)\n"
      "  --wal-margin SECONDS  replay records built this long before the snapshot too\n"
      "                      (default 60: longer than any write in flight)\n"
      "  --insert-merge DB   the replay gives INSERTs on DB the UPDATE rules, as a server\n"
      "                      whose insert-merge-databases names DB (repeatable)\n"
      "  -h, --help          this text\n"
      "\n"
      "Interrupted (kill, crash, store failure)? Run the same command again: it resumes\n"
      "from the checkpoint. A finished copy run again does nothing; --rescan always runs.\n"
      "Exit status: 0 done, 1 failed (the message says how to resume), 2 usage.\n";

typedef struct {
  gchar *from, *to, *checkpoint;
  GPtrArray *databases; /* sorted, unique names; empty = everything */
  gint batch, threads, readers;
  gboolean force, rescan;
  gchar *wal;           /* --wal: the source's WAL to catch up from, or NULL */
  gint wal_margin;      /* seconds */
  gchar **insert_merge; /* --insert-merge databases (NULL-terminated) */
} CopyOptions;

/* What a checkpoint file says. */
typedef struct {
  gchar *mode; /* "copy" or "rescan" */
  gboolean complete;
  /* Per key range (one unless the copy read several at once): the key at or
   * below which every row of the range is written; NULL: nothing done yet. */
  GPtrArray *positions; /* GByteArray* or NULL */
  guint64 rows, written, deleted;
  /* --wal: where the catch-up reads next, records before since_ms skipped */
  GByteArray *wal_position; /* NULL: the copy was started without --wal */
  gint64 wal_since_ms;
  guint64 wal_read, wal_applied;
  gboolean wal_running;     /* a catch-up run had not ended when this was saved */
  gboolean wal_interrupted; /* some catch-up run stopped in the middle of a chunk */
} Checkpoint;

/* A key range read by one reader: the keys whose first (salt) byte is in
 * [lo, hi) (docs/storage-format.md §3: salts spread keys evenly over it). */
typedef struct {
  guint index;
  GByteArray *lo, *hi; /* NULL: open */
  /* its reader */
  struct _CopyBatch *cur;
  guint64 next_seq;
  /* under Copy.lock */
  GHashTable *done; /* seq -> CopyBatch*, completed but not yet contiguous */
  guint64 commit_seq;
  GByteArray *safe_pos; /* every key of the range at or below it is written */
} CopyRange;

/* One batch: the mutations of the keys in (previous batch's last, last] of
 * its range. */
typedef struct _CopyBatch {
  CopyRange *range;
  guint64 seq;
  AbBatch *batch;
  GByteArray *last;
  guint64 scanned; /* keys looked at (both stores, selected or not) */
  guint64 rows;    /* selected source rows */
  guint64 puts, dels;
  gboolean pooled;
} CopyBatch;

typedef struct {
  const CopyOptions *o;
  AbStore *from, *to;
  gsize max_key;
  GHashTable *dbs;   /* NULL = everything; else name -> itself */
  GHashTable *codes; /* table codes of the chosen databases */
  AbProgress *progress;
  GAsyncQueue *queue; /* CopyBatch* to the writers; STOP ends one writer */
  GPtrArray *writers; /* GThread* */
  GPtrArray *ranges;  /* CopyRange*: one, or --readers of them from a remote source */
  GMutex ckpt_lock;   /* one reader saves the checkpoint at a time */
  gint64 last_ckpt, last_log;
  gboolean logged_first;
  /* rescan: the target's rows, a page at a time */
  GArray *tpage;
  guint tpos;
  gboolean tend;
  GByteArray *tafter; /* the page after this key (NULL: from the start) */
  /* shared with the writers */
  GMutex lock;
  GCond cond;
  guint in_flight, max_in_flight;
  guint64 rows, written, deleted;
  gboolean dirty;
  GError *error;
  gint stopped; /* atomic: error is set (read on every row without the lock) */
  /* --wal (reader thread only) */
  AbCatchUp catch_up;
  gboolean wal_running, wal_interrupted;
} Copy;

/* ---- small helpers ---- */

static void
copy_batch_free (CopyBatch *b)
{
  if (b == NULL)
    return;
  g_clear_pointer (&b->batch, ab_batch_free);
  g_clear_pointer (&b->last, g_byte_array_unref);
  g_free (b);
}

static void
position_free (gpointer p)
{
  if (p != NULL)
    g_byte_array_unref (p);
}

static GPtrArray *
positions_new (guint n)
{
  GPtrArray *a = g_ptr_array_new_full (n, position_free);
  g_ptr_array_set_size (a, (gint) n);
  return a;
}

static void
checkpoint_clear (Checkpoint *ck)
{
  g_clear_pointer (&ck->wal_position, g_byte_array_unref);
  g_clear_pointer (&ck->mode, g_free);
  g_clear_pointer (&ck->positions, g_ptr_array_unref);
}

static void
options_clear (CopyOptions *o)
{
  g_clear_pointer (&o->wal, g_free);
  g_clear_pointer (&o->insert_merge, g_strfreev);
  g_clear_pointer (&o->from, g_free);
  g_clear_pointer (&o->to, g_free);
  g_clear_pointer (&o->checkpoint, g_free);
  g_clear_pointer (&o->databases, g_ptr_array_unref);
}

static GByteArray *
bytes_dup (const guint8 *data, gsize len)
{
  GByteArray *a = g_byte_array_sized_new ((guint) len);
  g_byte_array_append (a, data, (guint) len);
  return a;
}

static GByteArray *
hex_decode (const gchar *hex)
{
  gsize n = strlen (hex);
  if (n % 2 != 0)
    return NULL;
  GByteArray *a = g_byte_array_sized_new ((guint) (n / 2));
  for (gsize i = 0; i < n; i += 2)
    {
      gint hi = g_ascii_xdigit_value (hex[i]), lo = g_ascii_xdigit_value (hex[i + 1]);
      if (hi < 0 || lo < 0)
        {
          g_byte_array_unref (a);
          return NULL;
        }
      guint8 byte = (guint8) (hi << 4 | lo);
      g_byte_array_append (a, &byte, 1);
    }
  return a;
}

static gchar *
databases_text (const CopyOptions *o)
{
  if (o->databases->len == 0)
    return g_strdup ("(all)");
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = 0; i < o->databases->len; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", (const gchar *) o->databases->pdata[i]);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* ---- options ---- */

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar *const *) a, *(const gchar *const *) b);
}

static gchar *
default_checkpoint (const gchar *to)
{
  g_autofree gchar *sum = ab_sha256_hex_of (to, strlen (to));
  g_autofree gchar *name = g_strdup_printf ("copy-%.16s.checkpoint", sum);
  return g_build_filename (g_get_user_state_dir (), "actionbase", name, NULL);
}

static int usage_error (const gchar *fmt, ...) G_GNUC_PRINTF (1, 2);

static int
usage_error (const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "actionbase-admin copy: %s\n(actionbase-admin copy --help shows the options)\n",
           msg);
  return AB_ADMIN_EXIT_USAGE;
}

/* AB_ADMIN_EXIT_OK when parsed, USAGE on an error, -1 when --help was shown. */
static int
parse_options (int argc, char **argv, CopyOptions *o)
{
  gchar *from = NULL, *to = NULL, *ckpt = NULL;
  gchar **dbs = NULL;
  gint batch = COPY_DEFAULT_BATCH, threads = COPY_DEFAULT_THREADS, margin = 60;
  gint readers = COPY_DEFAULT_READERS;
  gboolean force = FALSE, rescan = FALSE, help = FALSE;
  gchar *wal = NULL;
  gchar **merge = NULL;
  GOptionEntry entries[] = {
    { "from", 0, 0, G_OPTION_ARG_STRING, &from, NULL, NULL },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to, NULL, NULL },
    { "database", 0, 0, G_OPTION_ARG_STRING_ARRAY, &dbs, NULL, NULL },
    { "batch", 0, 0, G_OPTION_ARG_INT, &batch, NULL, NULL },
    { "threads", 0, 0, G_OPTION_ARG_INT, &threads, NULL, NULL },
    { "readers", 0, 0, G_OPTION_ARG_INT, &readers, NULL, NULL },
    { "checkpoint", 0, 0, G_OPTION_ARG_FILENAME, &ckpt, NULL, NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, NULL, NULL },
    { "rescan", 0, 0, G_OPTION_ARG_NONE, &rescan, NULL, NULL },
    { "wal", 0, 0, G_OPTION_ARG_STRING, &wal, NULL, NULL },
    { "wal-margin", 0, 0, G_OPTION_ARG_INT, &margin, NULL, NULL },
    { "insert-merge", 0, 0, G_OPTION_ARG_STRING_ARRAY, &merge, NULL, NULL },
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, NULL, NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = g_new0 (gchar *, argc + 1);
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);
  g_option_context_set_help_enabled (ctx, FALSE);
  g_option_context_add_main_entries (ctx, entries, NULL);
  gboolean parsed = g_option_context_parse_strv (ctx, &args, &error);
  o->from = from;
  o->to = to;
  o->checkpoint = ckpt;
  o->databases = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; dbs != NULL && dbs[i] != NULL; i++)
    {
      gboolean seen = FALSE;
      for (guint j = 0; j < o->databases->len && !seen; j++)
        seen = g_str_equal (o->databases->pdata[j], dbs[i]);
      if (!seen)
        g_ptr_array_add (o->databases, g_strdup (dbs[i]));
    }
  g_strfreev (dbs);
  g_ptr_array_sort (o->databases, by_name);
  o->batch = batch;
  o->threads = threads;
  o->readers = readers;
  o->force = force;
  o->rescan = rescan;
  o->wal = wal;
  o->wal_margin = margin;
  o->insert_merge = merge;
  if (!parsed)
    return usage_error ("%s", error->message);
  if (help)
    {
      fputs (USAGE, stdout);
      return -1;
    }
  if (args[0] != NULL && args[1] != NULL)
    return usage_error ("unexpected argument '%s'", args[1]);
  if (o->from == NULL || o->to == NULL)
    return usage_error ("both --from URI and --to URI are required");
  if (g_str_equal (o->from, o->to))
    return usage_error ("--from and --to name the same store");
  g_autofree gchar *fd = ab_store_uri_dir (o->from), *td = ab_store_uri_dir (o->to);
  if (fd != NULL && td != NULL && g_str_equal (fd, td))
    return usage_error ("--from and --to name the same store directory %s", fd);
  if (o->batch < 1 || o->batch > 1000000)
    return usage_error ("--batch %d: give 1..1000000 rows", o->batch);
  if (o->threads < 1 || o->threads > COPY_MAX_THREADS)
    return usage_error ("--threads %d: give 1..%d", o->threads, COPY_MAX_THREADS);
  if (o->readers < 1 || o->readers > COPY_MAX_READERS)
    return usage_error ("--readers %d: give 1..%d", o->readers, COPY_MAX_READERS);
  for (guint i = 0; i < o->databases->len; i++)
    if (((const gchar *) o->databases->pdata[i])[0] == '\0')
      return usage_error ("--database needs a name");
  if (o->wal != NULL && o->rescan)
    return usage_error ("--wal and --rescan do not go together: the rescan makes the target "
                        "exactly the source by itself");
  if (o->wal != NULL && !g_str_has_prefix (o->wal, "file:"))
    return usage_error ("--wal %s: only a file WAL (file:DIR) can be followed; a move from a "
                        "server on a Kafka WAL ends with --rescan",
                        o->wal);
  if (o->wal_margin < 0 || o->wal_margin > 86400)
    return usage_error ("--wal-margin %d: give 0..86400 seconds", o->wal_margin);
  if (o->checkpoint == NULL)
    o->checkpoint = default_checkpoint (o->to);
  return AB_ADMIN_EXIT_OK;
}

/* ---- the checkpoint file ---- */

/* Loads FILE: FALSE with error when it cannot be read or belongs to another
 * copy (*mismatch set); TRUE with ck->mode NULL when there is none. */
static gboolean
checkpoint_load (const CopyOptions *o, Checkpoint *ck, gboolean *mismatch, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) local = NULL;
  *mismatch = FALSE;
  memset (ck, 0, sizeof *ck);
  if (!g_key_file_load_from_file (kf, o->checkpoint, G_KEY_FILE_NONE, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "checkpoint %s: %s", o->checkpoint,
                   local->message);
      return FALSE;
    }
  g_autofree gchar *from = g_key_file_get_string (kf, COPY_GROUP, "from", NULL);
  g_autofree gchar *to = g_key_file_get_string (kf, COPY_GROUP, "to", NULL);
  g_auto (GStrv) dbs = g_key_file_get_string_list (kf, COPY_GROUP, "databases", NULL, NULL);
  g_autofree gchar *mode = g_key_file_get_string (kf, COPY_GROUP, "mode", NULL);
  g_autofree gchar *pos = g_key_file_get_string (kf, COPY_GROUP, "position", NULL);
  if (from == NULL || to == NULL || mode == NULL || pos == NULL
      || (!g_str_equal (mode, "copy") && !g_str_equal (mode, "rescan")))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "checkpoint %s is not an actionbase-admin copy checkpoint", o->checkpoint);
      return FALSE;
    }
  gboolean same = g_str_equal (from, o->from) && g_str_equal (to, o->to)
                  && (dbs == NULL ? 0 : g_strv_length (dbs)) == o->databases->len;
  for (guint i = 0; same && i < o->databases->len; i++)
    same = g_str_equal (dbs[i], o->databases->pdata[i]);
  if (!same)
    {
      g_autofree gchar *theirs
          = dbs != NULL && dbs[0] != NULL ? g_strjoinv (", ", dbs) : g_strdup ("(all)");
      g_autofree gchar *ours = databases_text (o);
      *mismatch = TRUE;
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "checkpoint %s belongs to another copy (from %s to %s, databases %s; this one: "
                   "from %s to %s, databases %s): give another --checkpoint, or delete that file "
                   "to start over",
                   o->checkpoint, from, to, theirs, o->from, o->to, ours);
      return FALSE;
    }
  ck->mode = g_steal_pointer (&mode);
  ck->complete = g_key_file_get_boolean (kf, COPY_GROUP, "complete", NULL);
  ck->rows = g_key_file_get_uint64 (kf, COPY_GROUP, "rows", NULL);
  ck->written = g_key_file_get_uint64 (kf, COPY_GROUP, "written", NULL);
  ck->deleted = g_key_file_get_uint64 (kf, COPY_GROUP, "deleted", NULL);
  g_autofree gchar *wal_pos = g_key_file_get_string (kf, COPY_GROUP, "wal_position", NULL);
  ck->wal_since_ms = g_key_file_get_int64 (kf, COPY_GROUP, "wal_since_ms", NULL);
  ck->wal_read = g_key_file_get_uint64 (kf, COPY_GROUP, "wal_read", NULL);
  ck->wal_applied = g_key_file_get_uint64 (kf, COPY_GROUP, "wal_applied", NULL);
  ck->wal_running = g_key_file_get_boolean (kf, COPY_GROUP, "wal_running", NULL);
  ck->wal_interrupted = g_key_file_get_boolean (kf, COPY_GROUP, "wal_interrupted", NULL);
  if (wal_pos != NULL && (ck->wal_position = hex_decode (wal_pos)) == NULL)
    {
      checkpoint_clear (ck);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "checkpoint %s: bad wal_position",
                   o->checkpoint);
      return FALSE;
    }
  /* ranges=N and positions=HEX;...: a copy that read N key ranges at once;
   * else the one position. */
  gint64 ranges = g_key_file_has_key (kf, COPY_GROUP, "ranges", NULL)
                      ? g_key_file_get_int64 (kf, COPY_GROUP, "ranges", NULL)
                      : 1;
  g_auto (GStrv) each = NULL;
  gsize n_each = 0;
  if (ranges > 1)
    each = g_key_file_get_string_list (kf, COPY_GROUP, "positions", &n_each, NULL);
  if (ranges < 1 || ranges > COPY_MAX_READERS || (ranges > 1 && n_each != (gsize) ranges))
    {
      checkpoint_clear (ck);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "checkpoint %s: bad ranges",
                   o->checkpoint);
      return FALSE;
    }
  ck->positions = positions_new ((guint) ranges);
  for (guint i = 0; i < ck->positions->len; i++)
    {
      const gchar *hex = ranges > 1 ? each[i] : pos;
      if (hex[0] != '\0' && (ck->positions->pdata[i] = hex_decode (hex)) == NULL)
        {
          checkpoint_clear (ck);
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "checkpoint %s: bad position",
                       o->checkpoint);
          return FALSE;
        }
    }
  return TRUE;
}

/* Written whole to a temp file, fsynced, renamed over FILE, directory fsynced:
 * after a crash FILE is the old or the new checkpoint, never a mix. */
static gboolean
checkpoint_save (const CopyOptions *o, const Checkpoint *ck, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  guint ranges = ck->positions->len;
  g_auto (GStrv) hexes = g_new0 (gchar *, ranges + 1);
  for (guint i = 0; i < ranges; i++)
    {
      const GByteArray *p = ck->positions->pdata[i];
      hexes[i] = p != NULL ? ab_codec_hex (p->data, p->len) : g_strdup ("");
    }
  g_autofree gchar *dir = g_path_get_dirname (o->checkpoint);
  g_key_file_set_integer (kf, COPY_GROUP, "format", COPY_FORMAT);
  g_key_file_set_string (kf, COPY_GROUP, "from", o->from);
  g_key_file_set_string (kf, COPY_GROUP, "to", o->to);
  g_key_file_set_string_list (kf, COPY_GROUP, "databases",
                              (const gchar *const *) o->databases->pdata, o->databases->len);
  g_key_file_set_string (kf, COPY_GROUP, "mode", ck->mode);
  g_key_file_set_boolean (kf, COPY_GROUP, "complete", ck->complete);
  /* One range: its position (the format of earlier versions). Several:
   * each range's, in order; "position" stays empty (an earlier version
   * reading it starts over, which is safe). */
  g_key_file_set_string (kf, COPY_GROUP, "position", ranges == 1 ? hexes[0] : "");
  if (ranges > 1)
    {
      g_key_file_set_integer (kf, COPY_GROUP, "ranges", (gint) ranges);
      g_key_file_set_string_list (kf, COPY_GROUP, "positions", (const gchar *const *) hexes,
                                  ranges);
    }
  g_key_file_set_uint64 (kf, COPY_GROUP, "rows", ck->rows);
  g_key_file_set_uint64 (kf, COPY_GROUP, "written", ck->written);
  g_key_file_set_uint64 (kf, COPY_GROUP, "deleted", ck->deleted);
  if (ck->wal_position != NULL)
    {
      g_autofree gchar *wal_pos = ab_codec_hex (ck->wal_position->data, ck->wal_position->len);
      g_key_file_set_string (kf, COPY_GROUP, "wal_position", wal_pos);
      g_key_file_set_int64 (kf, COPY_GROUP, "wal_since_ms", ck->wal_since_ms);
      g_key_file_set_uint64 (kf, COPY_GROUP, "wal_read", ck->wal_read);
      g_key_file_set_uint64 (kf, COPY_GROUP, "wal_applied", ck->wal_applied);
      g_key_file_set_boolean (kf, COPY_GROUP, "wal_running", ck->wal_running);
      g_key_file_set_boolean (kf, COPY_GROUP, "wal_interrupted", ck->wal_interrupted);
    }
  gsize len;
  g_autofree gchar *text = g_key_file_to_data (kf, &len, NULL);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int err = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
                   "checkpoint directory %s: %s", dir, g_strerror (err));
      return FALSE;
    }
  if (!g_file_set_contents_full (o->checkpoint, text, (gssize) len,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0644,
                                 error))
    return FALSE;
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
  return TRUE;
}

/* ---- which rows ---- */

static gboolean
data_selected (const Copy *c, const guint8 *k, gsize n)
{
  gsize pos = 4;
  gint32 code;
  if (n < 5 || !ab_codec_skip (k, n, &pos, NULL) || !ab_codec_get_int32 (k, n, &pos, &code, NULL))
    return FALSE;
  return g_hash_table_contains (c->codes, GINT_TO_POINTER (code));
}

/* Everything without --database; else the catalog rows of the chosen
 * databases, the rows whose table code is one of their tables', and the TTL
 * index entries of those tables' group cells. Catalog-wide rows (revision,
 * API keys, storages) and other reserved rows (the applier position) belong
 * to no database and are left out. */
static gboolean
key_selected (const Copy *c, const guint8 *k, gsize n)
{
  gchar *db = NULL;
  if (c->dbs == NULL)
    return TRUE;
  if (ab_catalog_key_database (k, n, &db))
    {
      gboolean in = db != NULL && g_hash_table_contains (c->dbs, db);
      g_free (db);
      return in;
    }
  if (n > TTL_CELL_AT && memcmp (k, TTL_PREFIX, sizeof TTL_PREFIX) == 0)
    return data_selected (c, k + TTL_CELL_AT, n - TTL_CELL_AT);
  if (n > DUE_KEY_AT && memcmp (k, DUE_PREFIX, sizeof DUE_PREFIX) == 0)
    return data_selected (c, k + DUE_KEY_AT, n - DUE_KEY_AT);
  return data_selected (c, k, n);
}

static gboolean
add_codes (Copy *c, AbStore *store, gboolean must_exist, GError **error)
{
  AbCatalog *cat = ab_catalog_open (store, error);
  if (cat == NULL)
    return FALSE;
  for (guint i = 0; i < c->o->databases->len; i++)
    {
      const gchar *name = c->o->databases->pdata[i];
      g_autoptr (AbDatabaseDesc) d = ab_catalog_get_database (cat, name);
      if (d == NULL && must_exist)
        {
          g_set_error (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_NOT_FOUND,
                       "no database '%s' in the source %s", name, c->o->from);
          ab_catalog_free (cat);
          return FALSE;
        }
      g_autoptr (GPtrArray) tables = ab_catalog_list_tables (cat, name);
      for (guint j = 0; j < tables->len; j++)
        g_hash_table_add (c->codes,
                          GINT_TO_POINTER (((const AbTableDesc *) tables->pdata[j])->code));
    }
  ab_catalog_free (cat);
  return TRUE;
}

/* The table codes of the chosen databases: the source's tables, and on a
 * rescan the target's too (a table dropped in the source since the first
 * pass still has rows in the target, which the rescan deletes). */
static gboolean
build_filter (Copy *c, GError **error)
{
  if (c->o->databases->len == 0)
    return TRUE;
  c->dbs = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < c->o->databases->len; i++)
    g_hash_table_add (c->dbs, c->o->databases->pdata[i]);
  c->codes = g_hash_table_new (NULL, NULL);
  return add_codes (c, c->from, TRUE, error)
         && (!c->o->rescan || add_codes (c, c->to, FALSE, error));
}

/* ---- writers ---- */

static void
fail (Copy *c, GError *err)
{
  g_mutex_lock (&c->lock);
  if (c->error == NULL)
    c->error = err;
  else
    g_error_free (err);
  g_atomic_int_set (&c->stopped, 1);
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
}

static gboolean
failed (Copy *c)
{
  return g_atomic_int_get (&c->stopped) != 0;
}

/* A batch is done (ok) or abandoned: the safe position moves past every
 * batch of a contiguous prefix of completed ones, never past a gap. */
static void
complete (Copy *c, CopyBatch *b, gboolean ok)
{
  guint64 rows = b->rows;
  gboolean pooled = b->pooled;
  CopyRange *r = b->range;
  g_mutex_lock (&c->lock);
  if (ok)
    g_hash_table_insert (r->done, &b->seq, b);
  else
    copy_batch_free (b);
  CopyBatch *next;
  while ((next = g_hash_table_lookup (r->done, &r->commit_seq)) != NULL)
    {
      g_hash_table_remove (r->done, &r->commit_seq);
      g_clear_pointer (&r->safe_pos, g_byte_array_unref);
      r->safe_pos = g_steal_pointer (&next->last);
      c->rows += next->rows;
      c->written += next->puts;
      c->deleted += next->dels;
      c->dirty = TRUE;
      r->commit_seq++;
      copy_batch_free (next);
    }
  if (pooled)
    c->in_flight--;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
  if (ok && rows > 0)
    ab_progress_add (c->progress, rows);
}

static guint8 stop_writer; /* its address is the queue's end marker */
#define STOP ((gpointer) &stop_writer)

static void
write_batch (Copy *c, CopyBatch *b)
{
  GError *err = NULL;
  if (failed (c))
    {
      complete (c, b, FALSE);
      return;
    }
  if (!ab_store_batch (c->to, b->batch, &err))
    {
      g_prefix_error (&err, "writing to %s: ", c->o->to);
      fail (c, err);
      complete (c, b, FALSE);
      return;
    }
  complete (c, b, TRUE);
}

/* One writer thread: batches from the queue until STOP. Concurrent
 * ab_store_batch calls are safe on every store (lmdb queues them for one
 * committer; hbase checks a connection out of its pool per call). */
static gpointer
writer (gpointer user)
{
  Copy *c = user;
  gpointer item;
  while ((item = g_async_queue_pop (c->queue)) != STOP)
    write_batch (c, item);
  return NULL;
}

static void
writers_start (Copy *c)
{
  c->queue = g_async_queue_new ();
  c->writers = g_ptr_array_new ();
  for (gint i = 0; i < c->o->threads; i++)
    g_ptr_array_add (c->writers, g_thread_new ("ab-copy-write", writer, c));
}

static void
writers_stop (Copy *c)
{
  for (guint i = 0; i < c->writers->len; i++)
    g_async_queue_push (c->queue, STOP);
  for (guint i = 0; i < c->writers->len; i++)
    g_thread_join (c->writers->pdata[i]);
  g_clear_pointer (&c->writers, g_ptr_array_unref);
  g_clear_pointer (&c->queue, g_async_queue_unref);
}

/* ---- the checkpoint while copying (reader thread) ---- */

static void
ckpt_fill (Copy *c, Checkpoint *ck, gboolean complete_pass)
{
  g_mutex_lock (&c->lock);
  ck->mode = g_strdup (c->o->rescan ? "rescan" : "copy");
  ck->complete = complete_pass;
  ck->positions = positions_new (c->ranges->len);
  for (guint i = 0; i < c->ranges->len; i++)
    {
      const CopyRange *r = c->ranges->pdata[i];
      if (r->safe_pos != NULL)
        ck->positions->pdata[i] = bytes_dup (r->safe_pos->data, r->safe_pos->len);
    }
  ck->rows = c->rows;
  ck->written = c->written;
  ck->deleted = c->deleted;
  c->dirty = FALSE;
  g_mutex_unlock (&c->lock);
  const AbCatchUp *cu = &c->catch_up;
  if (cu->position != NULL)
    {
      ck->wal_position = bytes_dup (cu->position->data, cu->position->len);
      ck->wal_since_ms = cu->since_ms;
      ck->wal_read = cu->read;
      ck->wal_applied = cu->applied;
      ck->wal_running = c->wal_running;
      ck->wal_interrupted = c->wal_interrupted;
    }
}

/* At most once a second, when a safe position moved; by whichever reader
 * comes first (the others go on reading meanwhile). */
static void
maybe_checkpoint (Copy *c)
{
  gint64 now = g_get_monotonic_time ();
  Checkpoint ck = { 0 };
  GError *err = NULL;
  if (!g_mutex_trylock (&c->ckpt_lock))
    return;
  if (now - c->last_ckpt < COPY_CHECKPOINT_EVERY_US)
    {
      g_mutex_unlock (&c->ckpt_lock);
      return;
    }
  g_mutex_lock (&c->lock);
  gboolean dirty = c->dirty;
  g_mutex_unlock (&c->lock);
  if (!dirty)
    {
      g_mutex_unlock (&c->ckpt_lock);
      return;
    }
  c->last_ckpt = now;
  ckpt_fill (c, &ck, FALSE);
  if (!checkpoint_save (c->o, &ck, &err))
    fail (c, err);
  else if (!c->logged_first || now - c->last_log >= COPY_CHECKPOINT_LOG_EVERY_US)
    {
      c->logged_first = TRUE;
      c->last_log = now;
      fprintf (stderr, "actionbase-admin copy: checkpoint: %" G_GUINT64_FORMAT " rows written\n",
               ck.rows);
    }
  checkpoint_clear (&ck);
  g_mutex_unlock (&c->ckpt_lock);
}

/* ---- reader ---- */

static CopyBatch *
current (CopyRange *r)
{
  if (r->cur == NULL)
    {
      r->cur = g_new0 (CopyBatch, 1);
      r->cur->range = r;
      r->cur->batch = ab_batch_new ();
      r->cur->last = g_byte_array_new ();
    }
  return r->cur;
}

/* Hands the range's current batch over: to the writers, or straight to
 * completion when it has nothing to write (a rescan range that already
 * matched). */
static void
dispatch (Copy *c, CopyRange *r)
{
  CopyBatch *b = g_steal_pointer (&r->cur);
  if (b == NULL)
    return;
  b->seq = r->next_seq++;
  if (ab_batch_len (b->batch) == 0)
    complete (c, b, TRUE);
  else
    {
      g_mutex_lock (&c->lock);
      while (c->in_flight >= c->max_in_flight && c->error == NULL)
        g_cond_wait (&c->cond, &c->lock);
      gboolean go = c->error == NULL;
      if (go)
        c->in_flight++;
      g_mutex_unlock (&c->lock);
      if (!go)
        {
          copy_batch_free (b);
          return;
        }
      b->pooled = TRUE;
      g_async_queue_push (c->queue, b);
    }
  maybe_checkpoint (c);
}

/* Every key a reader passes, in key order, goes through here. */
static void
note_key (Copy *c, CopyRange *r, const guint8 *k, gsize n)
{
  CopyBatch *b = current (r);
  g_byte_array_set_size (b->last, 0);
  g_byte_array_append (b->last, k, (guint) n);
  if (++b->scanned >= (guint64) c->o->batch)
    dispatch (c, r);
}

static gboolean
emit_put (Copy *c, CopyRange *r, const guint8 *k, gsize kn, const guint8 *v, gsize vn)
{
  if (kn > c->max_key)
    {
      g_autofree gchar *hex = ab_codec_hex (k, MIN (kn, 48));
      fail (c, g_error_new (AB_STORE_ERROR, AB_STORE_ERROR_IO,
                            "a key of %zu bytes (%s...) is longer than the %zu bytes %s takes", kn,
                            hex, c->max_key, c->o->to));
      return FALSE;
    }
  CopyBatch *b = current (r);
  ab_batch_put (b->batch, k, kn, v, vn);
  b->puts++;
  return TRUE;
}

/* The target's next row on a rescan (NULL at its end). */
static const AbKv *
target_head (Copy *c)
{
  if (c->tpos < c->tpage->len)
    return &g_array_index (c->tpage, AbKv, c->tpos);
  if (c->tend)
    return NULL;
  GError *err = NULL;
  AbScanRange r = { .limit = (guint) c->o->batch };
  if (c->tafter != NULL)
    {
      r.start = c->tafter->data;
      r.start_len = c->tafter->len;
      r.start_inclusive = FALSE;
    }
  g_array_set_size (c->tpage, 0);
  c->tpos = 0;
  if (!ab_store_scan (c->to, &r, c->tpage, &err))
    {
      g_prefix_error (&err, "reading %s: ", c->o->to);
      fail (c, err);
      c->tend = TRUE;
      return NULL;
    }
  if (c->tpage->len < r.limit)
    c->tend = TRUE;
  if (c->tpage->len == 0)
    return NULL;
  const AbKv *last = &g_array_index (c->tpage, AbKv, c->tpage->len - 1);
  gsize ln;
  const guint8 *lk = g_bytes_get_data (last->key, &ln);
  g_clear_pointer (&c->tafter, g_byte_array_unref);
  c->tafter = bytes_dup (lk, ln);
  return &g_array_index (c->tpage, AbKv, 0);
}

/* A target row the source does not have: deleted when selected (a rescan
 * reads one range, the first). */
static void
target_only (Copy *c, const guint8 *k, gsize n)
{
  CopyRange *r = c->ranges->pdata[0];
  if (key_selected (c, k, n))
    {
      CopyBatch *b = current (r);
      ab_batch_delete (b->batch, k, n);
      b->dels++;
    }
  note_key (c, r, k, n);
}

/* Rescan: the target rows before k are not in the source; *same says
 * whether the target holds k with exactly v. */
static void
rescan_until (Copy *c, const guint8 *k, gsize kn, const guint8 *v, gsize vn, gboolean *same)
{
  const AbKv *t;
  *same = FALSE;
  while ((t = target_head (c)) != NULL)
    {
      gsize tn, tvn;
      const guint8 *tk = g_bytes_get_data (t->key, &tn);
      gint cmp = k != NULL ? ab_store_key_compare (tk, tn, k, kn) : -1;
      if (cmp > 0)
        return;
      if (cmp == 0)
        {
          const guint8 *tv = g_bytes_get_data (t->value, &tvn);
          *same = tvn == vn && (vn == 0 || memcmp (tv, v, vn) == 0);
          c->tpos++;
          return;
        }
      target_only (c, tk, tn);
      c->tpos++;
    }
}

/* What one reader thread works on. */
typedef struct {
  Copy *c;
  CopyRange *r;
  AbSnapshot *snap;
} Reader;

static gboolean
visit (const guint8 *k, gsize kn, const guint8 *v, gsize vn, gpointer user)
{
  Reader *rd = user;
  Copy *c = rd->c;
  gboolean same = FALSE;
  if (failed (c))
    return FALSE;
  if (c->o->rescan)
    rescan_until (c, k, kn, v, vn, &same);
  if (key_selected (c, k, kn))
    {
      current (rd->r)->rows++;
      if (!same && !emit_put (c, rd->r, k, kn, v, vn))
        return FALSE;
    }
  note_key (c, rd->r, k, kn);
  return TRUE;
}

/* One range of the snapshot, after its safe position, then its last batch. */
static gpointer
read_range (gpointer user)
{
  Reader *rd = user;
  Copy *c = rd->c;
  CopyRange *r = rd->r;
  GError *err = NULL;
  AbScanRange sr = { 0 };
  g_mutex_lock (&c->lock);
  g_autoptr (GByteArray) after = r->safe_pos != NULL ? g_byte_array_ref (r->safe_pos) : NULL;
  g_mutex_unlock (&c->lock);
  if (after != NULL)
    {
      sr.start = after->data;
      sr.start_len = after->len;
      sr.start_inclusive = FALSE;
    }
  else if (r->lo != NULL)
    {
      sr.start = r->lo->data;
      sr.start_len = r->lo->len;
      sr.start_inclusive = TRUE;
    }
  if (r->hi != NULL)
    {
      sr.stop = r->hi->data;
      sr.stop_len = r->hi->len;
      sr.stop_inclusive = FALSE;
    }
  if (!ab_snapshot_scan (rd->snap, &sr, visit, rd, &err))
    {
      g_prefix_error (&err, "reading %s: ", c->o->from);
      fail (c, err);
    }
  if (!failed (c) && !c->o->rescan)
    dispatch (c, r);
  return NULL;
}

/* The pass: one snapshot, each range read after its position (the ranges
 * at once on their own threads when there are several), the target drained
 * on a rescan, every batch waited for. FALSE when it stopped early
 * (c->error). */
static gboolean
run_pass (Copy *c)
{
  GError *err = NULL;
  AbSnapshot *snap = ab_store_snapshot_open (c->from, &err);
  if (snap == NULL)
    {
      g_prefix_error (&err, "snapshot of %s: ", c->o->from);
      fail (c, err);
      return FALSE;
    }
  guint n = c->ranges->len;
  g_autofree Reader *readers = g_new0 (Reader, n);
  g_autofree GThread **threads = g_new0 (GThread *, n);
  for (guint i = 0; i < n; i++)
    readers[i] = (Reader){ c, c->ranges->pdata[i], snap };
  if (c->o->rescan)
    {
      CopyRange *r = c->ranges->pdata[0];
      if (r->safe_pos != NULL)
        c->tafter = bytes_dup (r->safe_pos->data, r->safe_pos->len);
    }
  /* A local snapshot is one transaction, used by one thread: ranges (from
   * a checkpoint) are then read one after the other. */
  if (n == 1 || ab_store_never_blocks (c->from))
    for (guint i = 0; i < n && !failed (c); i++)
      read_range (&readers[i]);
  else
    {
      for (guint i = 0; i < n; i++)
        threads[i] = g_thread_new ("ab-copy-read", read_range, &readers[i]);
      for (guint i = 0; i < n; i++)
        g_thread_join (threads[i]);
    }
  ab_snapshot_close (snap);
  if (c->o->rescan && !failed (c))
    {
      gboolean same;
      rescan_until (c, NULL, 0, NULL, 0, &same);
      dispatch (c, c->ranges->pdata[0]);
    }
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&((CopyRange *) c->ranges->pdata[i])->cur, copy_batch_free);
  g_mutex_lock (&c->lock);
  while (c->in_flight > 0)
    g_cond_wait (&c->cond, &c->lock);
  g_mutex_unlock (&c->lock);
  return !failed (c);
}

/* ---- the command ---- */

static gboolean
target_empty (AbStore *to, gboolean *empty, GError **error)
{
  AbScanRange r = { .limit = 1 };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  if (!ab_store_scan (to, &r, rows, error))
    return FALSE;
  *empty = rows->len == 0;
  return TRUE;
}

static void
copy_range_free (gpointer p)
{
  CopyRange *r = p;
  g_clear_pointer (&r->cur, copy_batch_free);
  g_clear_pointer (&r->lo, g_byte_array_unref);
  g_clear_pointer (&r->hi, g_byte_array_unref);
  g_clear_pointer (&r->done, g_hash_table_unref);
  g_clear_pointer (&r->safe_pos, g_byte_array_unref);
  g_free (r);
}

/* n ranges over the first key byte: range i holds the keys whose first byte
 * is in [i * 256 / n, (i + 1) * 256 / n), the first one also the keys before
 * (none: keys are not empty), the last one the rest; positions (NULL or n
 * of them) say where each was. */
static GPtrArray *
ranges_new (guint n, const GPtrArray *positions)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (copy_range_free);
  for (guint i = 0; i < n; i++)
    {
      CopyRange *r = g_new0 (CopyRange, 1);
      r->index = i;
      r->done = g_hash_table_new (g_int64_hash, g_int64_equal);
      if (i > 0)
        {
          guint8 b = (guint8) (i * 256 / n);
          r->lo = bytes_dup (&b, 1);
        }
      if (i + 1 < n)
        {
          guint8 b = (guint8) ((i + 1) * 256 / n);
          r->hi = bytes_dup (&b, 1);
        }
      const GByteArray *p = positions != NULL ? positions->pdata[i] : NULL;
      if (p != NULL)
        r->safe_pos = bytes_dup (p->data, p->len);
      g_ptr_array_add (a, r);
    }
  return a;
}

static void
copy_clear (Copy *c)
{
  g_clear_pointer (&c->ranges, g_ptr_array_unref);
  g_clear_pointer (&c->dbs, g_hash_table_unref);
  g_clear_pointer (&c->codes, g_hash_table_unref);
  g_clear_pointer (&c->tpage, g_array_unref);
  g_clear_pointer (&c->tafter, g_byte_array_unref);
  g_clear_pointer (&c->catch_up.position, g_byte_array_unref);
  g_clear_error (&c->error);
  g_mutex_clear (&c->ckpt_lock);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
}

static int
failed_exit (const CopyOptions *o, const gchar *what, guint64 rows)
{
  fprintf (stderr,
           "actionbase-admin copy: %s\n"
           "actionbase-admin copy: stopped after %" G_GUINT64_FORMAT
           " rows; the checkpoint %s records them. Run the same command again to resume.\n",
           what, rows, o->checkpoint);
  return AB_ADMIN_EXIT_FAILED;
}

/* The checkpoint after each catch-up chunk: the pass is complete. */
static gboolean
save_caught_up (gpointer user, GError **error)
{
  Copy *c = user;
  Checkpoint ck = { 0 };
  ckpt_fill (c, &ck, TRUE);
  gboolean ok = checkpoint_save (c->o, &ck, error);
  checkpoint_clear (&ck);
  return ok;
}

/* --wal after a complete copy pass: replays the WAL from the checkpoint's
 * position to its current end. */
static int
catch_up (Copy *c, AbStore *to)
{
  const CopyOptions *o = c->o;
  g_autoptr (GError) error = NULL;
  AbCatchUp *cu = &c->catch_up;
  guint64 before = cu->applied;
  cu->wal_uri = o->wal;
  cu->lanes = (guint) o->threads;
  cu->insert_merge = o->insert_merge;
  cu->save = save_caught_up;
  cu->user = c;
  c->wal_running = TRUE;
  if (!save_caught_up (c, &error) || !ab_admin_catch_up (to, cu, &error))
    {
      fprintf (stderr,
               "actionbase-admin copy: %s\nactionbase-admin copy: the copy is complete and the "
               "checkpoint %s records how far the catch-up got: run the same command again to "
               "go on\n",
               error->message, o->checkpoint);
      return AB_ADMIN_EXIT_FAILED;
    }
  c->wal_running = FALSE;
  if (!save_caught_up (c, &error))
    {
      fprintf (stderr, "actionbase-admin copy: %s\n", error->message);
      return AB_ADMIN_EXIT_FAILED;
    }
  if (c->wal_interrupted && !ab_store_batch_is_atomic (to))
    fprintf (stderr,
             "actionbase-admin copy: a catch-up run was stopped in the middle of a chunk: %s "
             "writes a batch row by row, so Index, Count, Group or Cache rows of the edges "
             "it held may be out of step with their State. Before the switch run: "
             "actionbase-verify --store %s --repair\n",
             o->to, o->to);
  fprintf (stderr,
           "actionbase-admin copy: caught up with %s: %" G_GUINT64_FORMAT
           " WAL records applied by this run (%" G_GUINT64_FORMAT " in all, %" G_GUINT64_FORMAT
           " read, %" G_GUINT64_FORMAT " skipped); run it again to catch up further, and once "
           "more after the source denies writes (checkpoint %s)\n",
           o->wal, cu->applied - before, cu->applied, cu->read, cu->skipped, o->checkpoint);
  return AB_ADMIN_EXIT_OK;
}

/* Refuses a fresh copy into a target that holds rows (unless --force). */
static gboolean
fresh_target_ok (const CopyOptions *o, AbStore *to)
{
  gboolean empty;
  g_autoptr (GError) error = NULL;
  if (!target_empty (to, &empty, &error))
    {
      fprintf (stderr, "actionbase-admin copy: reading %s: %s\n", o->to, error->message);
      return FALSE;
    }
  if (!empty)
    fprintf (stderr,
             "actionbase-admin copy: %s already holds rows and no checkpoint (%s) says "
             "this copy put them there: give --force to copy into it anyway (rows with "
             "the same keys are overwritten), or the --checkpoint of the copy that "
             "filled it\n",
             o->to, o->checkpoint);
  return empty;
}

/* --wal on a fresh copy: where the WAL stands now, before the snapshot. */
static gboolean
wal_start (Copy *c)
{
  g_autoptr (GError) error = NULL;
  AbCatchUp *cu = &c->catch_up;
  cu->since_ms = g_get_real_time () / 1000 - (gint64) c->o->wal_margin * 1000;
  cu->position = ab_admin_catch_up_start (c->o->wal, cu->since_ms, &error);
  if (cu->position == NULL)
    fprintf (stderr, "actionbase-admin copy: the WAL %s: %s\n", c->o->wal, error->message);
  return cu->position != NULL;
}

/* One run per checkpoint at a time: two would write the same rows (and a
 * catch-up takes no edge locks). An exclusive flock on CHECKPOINT.lock, held
 * until the process exits; -1 (said why) when another run holds it. */
static int
lock_checkpoint (const CopyOptions *o)
{
  g_autofree gchar *path = g_strconcat (o->checkpoint, ".lock", NULL);
  g_autofree gchar *dir = g_path_get_dirname (o->checkpoint);
  int fd = g_mkdir_with_parents (dir, 0755) == 0 ? open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)
                                                 : -1;
  if (fd < 0)
    {
      fprintf (stderr, "actionbase-admin copy: %s: %s\n", path, g_strerror (errno));
      return -1;
    }
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      fprintf (stderr,
               "actionbase-admin copy: another run of this copy is going on (%s is locked): "
               "wait for it to end, or stop it, then run the command again\n",
               path);
      close (fd);
      return -1;
    }
  return fd;
}

/* Decides fresh or resumed, runs the pass (then the catch-up with --wal),
 * records the outcome. */
static int run_locked (const CopyOptions *o, AbStore *from, AbStore *to);

static int
run (const CopyOptions *o, AbStore *from, AbStore *to)
{
  int fd = lock_checkpoint (o);
  if (fd < 0)
    return AB_ADMIN_EXIT_FAILED;
  int rc = run_locked (o, from, to);
  close (fd);
  return rc;
}

static int
run_locked (const CopyOptions *o, AbStore *from, AbStore *to)
{
  Checkpoint ck = { 0 };
  gboolean mismatch;
  g_autoptr (GError) error = NULL;
  const gchar *mode = o->rescan ? "rescan" : "copy";
  if (!checkpoint_load (o, &ck, &mismatch, &error))
    {
      fprintf (stderr, "actionbase-admin copy: %s\n", error->message);
      return mismatch ? AB_ADMIN_EXIT_USAGE : AB_ADMIN_EXIT_FAILED;
    }
  gboolean have = ck.mode != NULL;
  gboolean resume = have && g_str_equal (ck.mode, mode) && !ck.complete;
  gboolean copied = have && !o->rescan && g_str_equal (ck.mode, "copy") && ck.complete;
  if (o->wal != NULL && (resume || copied) && ck.wal_position == NULL)
    {
      fprintf (stderr,
               "actionbase-admin copy: the copy of checkpoint %s was started without --wal: "
               "where its snapshot stood in the WAL is unknown. Finish the move with --rescan "
               "while the source denies writes, or delete that file to copy again with --wal\n",
               o->checkpoint);
      checkpoint_clear (&ck);
      return AB_ADMIN_EXIT_FAILED;
    }
  if (copied && o->wal == NULL)
    {
      fprintf (stderr,
               "actionbase-admin copy: already complete (%" G_GUINT64_FORMAT
               " rows, checkpoint %s): nothing to do; --rescan brings the target up to date, "
               "deleting that file copies again\n",
               ck.rows, o->checkpoint);
      checkpoint_clear (&ck);
      return AB_ADMIN_EXIT_OK;
    }
  if (!have && !o->force && !fresh_target_ok (o, to))
    {
      checkpoint_clear (&ck);
      return AB_ADMIN_EXIT_FAILED;
    }

  Copy c = { .o = o, .from = from, .to = to, .max_key = ab_store_max_key (to) };
  g_mutex_init (&c.lock);
  g_mutex_init (&c.ckpt_lock);
  g_cond_init (&c.cond);
  c.tpage = ab_kv_array_new ();
  c.max_in_flight = (guint) o->threads * 2;
  /* Several readers only where they pay and are safe: a remote source (a
   * local snapshot is one transaction, read by one thread, and fast). A
   * resumed pass keeps the ranges its checkpoint records. */
  guint nranges = o->rescan || ab_store_never_blocks (from) ? 1 : (guint) o->readers;
  if (resume || copied)
    {
      c.ranges = ranges_new (ck.positions->len, ck.positions);
      c.rows = ck.rows;
      c.written = ck.written;
      c.deleted = ck.deleted;
      c.catch_up.position = g_steal_pointer (&ck.wal_position);
      c.catch_up.since_ms = ck.wal_since_ms;
      c.catch_up.read = ck.wal_read;
      c.catch_up.applied = ck.wal_applied;
      c.wal_interrupted = ck.wal_interrupted || ck.wal_running;
    }
  else
    c.ranges = ranges_new (nranges, NULL);
  checkpoint_clear (&ck);
  if (copied)
    {
      int rc = catch_up (&c, to);
      copy_clear (&c);
      return rc;
    }
  if (!build_filter (&c, &error) || (o->wal != NULL && !resume && !wal_start (&c)))
    {
      if (error != NULL)
        fprintf (stderr, "actionbase-admin copy: %s\n", error->message);
      copy_clear (&c);
      return AB_ADMIN_EXIT_FAILED;
    }
  /* A checkpoint exists before the first row is written: a copy killed at
   * any point finds a target it may go on filling (and, with --wal, the WAL
   * position taken before the snapshot opens). */
  ckpt_fill (&c, &ck, FALSE);
  if (!checkpoint_save (o, &ck, &error))
    {
      checkpoint_clear (&ck);
      fprintf (stderr, "actionbase-admin copy: %s\n", error->message);
      copy_clear (&c);
      return AB_ADMIN_EXIT_FAILED;
    }
  g_autofree gchar *dbs = databases_text (o);
  fprintf (
      stderr,
      "actionbase-admin copy: %s from %s to %s, databases %s, checkpoint %s%s%s (%" G_GUINT64_FORMAT
      " rows done before)\n",
      o->rescan ? "rescan" : "copy", o->from, o->to, dbs, o->checkpoint, resume ? ", resuming" : "",
      resume ? "" : ", from the start", c.rows);
  c.progress = ab_progress_new (o->rescan ? "rescan" : "copy", 0);
  writers_start (&c);
  checkpoint_clear (&ck);
  gboolean ok = run_pass (&c);
  writers_stop (&c);
  if (ok && c.dbs != NULL && !ab_catalog_bump_revision (to, &error))
    {
      g_prefix_error (&error, "bumping the catalog revision of %s: ", o->to);
      fail (&c, g_steal_pointer (&error));
      ok = FALSE;
    }
  GError *save_err = NULL;
  ckpt_fill (&c, &ck, ok);
  gboolean saved = checkpoint_save (o, &ck, &save_err);
  checkpoint_clear (&ck);
  if (!ok || !saved)
    {
      ab_progress_free (c.progress);
      g_autofree gchar *what = g_strdup (c.error != NULL ? c.error->message : save_err->message);
      int rc = failed_exit (o, what, c.rows);
      g_clear_error (&save_err);
      copy_clear (&c);
      return rc;
    }
  ab_progress_finish (c.progress);
  fprintf (stderr,
           "actionbase-admin copy: complete: %" G_GUINT64_FORMAT
           " rows in the target, %" G_GUINT64_FORMAT " written, %" G_GUINT64_FORMAT
           " deleted (checkpoint %s)\n",
           c.rows, c.written, c.deleted, o->checkpoint);
  int rc = o->wal != NULL ? catch_up (&c, to) : AB_ADMIN_EXIT_OK;
  copy_clear (&c);
  return rc;
}

int
ab_admin_copy_stores (AbStore *from, AbStore *to, int argc, char **argv)
{
  CopyOptions o = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (AbStore) own_from = NULL, own_to = NULL;
  int rc = parse_options (argc, argv, &o);
  if (rc != AB_ADMIN_EXIT_OK)
    {
      options_clear (&o);
      return rc < 0 ? AB_ADMIN_EXIT_OK : rc;
    }
  if (from == NULL && (from = own_from = ab_store_open (o.from, &error)) == NULL)
    {
      fprintf (stderr, "actionbase-admin copy: source %s: %s\n", o.from, error->message);
      options_clear (&o);
      return AB_ADMIN_EXIT_FAILED;
    }
  if (to == NULL && (to = own_to = ab_store_open (o.to, &error)) == NULL)
    {
      fprintf (stderr, "actionbase-admin copy: target %s: %s\n", o.to, error->message);
      options_clear (&o);
      return AB_ADMIN_EXIT_FAILED;
    }
  rc = run (&o, from, to);
  options_clear (&o);
  return rc;
}

int
ab_admin_copy (int argc, char **argv)
{
  return ab_admin_copy_stores (NULL, NULL, argc, argv);
}
