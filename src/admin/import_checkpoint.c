/* The import's progress and resume: the prefix of each file every line of
 * which was applied (or reported), saved durably in --checkpoint FILE and
 * read back by a rerun; with sync=0 the store is synced before each save. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include "admin/import-private.h"
#include "model/json_get.h"
#include "model/types.h"

#define CHECKPOINT_EVERY_US G_USEC_PER_SEC
/* With sync=0 (lmdb:, rocksdb:) a checkpoint costs a sync of the store
 * (LMDB: all its dirty pages): much less often. */
#define CHECKPOINT_NOSYNC_EVERY_US (30 * G_USEC_PER_SEC)

/* ---- the checkpoint ----
 * {"database","table","files":[{"path","size","lines","offset","complete"}]}:
 * per file the prefix of physical lines (and bytes) every record of which
 * was applied or reported bad. Written to FILE.tmp, fsynced, renamed over
 * FILE, and the directory fsynced: a crash leaves the old or the new one. */

static gboolean
write_all (int fd, const gchar *data, gsize len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      len -= (gsize) n;
    }
  return TRUE;
}

/* A file's entry: its size, and where the prefix applied so far ends. */
static void
add_file (JsonBuilder *b, const AbImportFile *f)
{
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "path", f->abs);
  ab_admin_json_int (b, "size", (gint64) f->size);
  ab_admin_json_int (b, "lines", (gint64) f->prefix.line);
  ab_admin_json_int (b, "offset", (gint64) f->prefix.offset);
  ab_model_json_add_bool (b, "complete", f->complete || f->was_complete);
  json_builder_end_object (b);
}

static gboolean
checkpoint_write (AbImport *imp, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "database", imp->database);
  ab_model_json_add_string (b, "table", imp->table);
  json_builder_set_member_name (b, "files");
  json_builder_begin_array (b);
  for (guint i = 0; i < imp->files->len; i++)
    add_file (b, imp->files->pdata[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autofree gchar *text = json_to_string (root, TRUE);
  g_autofree gchar *tmp = g_strconcat (imp->checkpoint, ".tmp", NULL);
  int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return ab_admin_import_fail (error, "checkpoint %s: %s", tmp, g_strerror (errno));
  gboolean ok = write_all (fd, text, strlen (text)) && write_all (fd, "\n", 1) && fsync (fd) == 0;
  int saved = errno;
  close (fd);
  if (!ok || rename (tmp, imp->checkpoint) != 0)
    {
      if (ok)
        saved = errno;
      g_unlink (tmp);
      return ab_admin_import_fail (error, "checkpoint %s: %s", imp->checkpoint, g_strerror (saved));
    }
  g_autofree gchar *dir = g_path_get_dirname (imp->checkpoint);
  ab_admin_sync_dir (dir);
  return TRUE;
}

gboolean
ab_admin_import_checkpoint_load (AbImport *imp, GError **error)
{
  g_autofree gchar *text = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;
  if (!g_file_get_contents (imp->checkpoint, &text, &len, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE; /* the first run */
      return ab_admin_import_fail (error, "checkpoint %s: %s", imp->checkpoint, local->message);
    }
  g_autoptr (JsonNode) root = ab_model_json_parse (text, (gssize) len, &local);
  JsonObject *o
      = root != NULL && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  JsonArray *files = o != NULL ? json_object_get_array_member (o, "files") : NULL;
  if (files == NULL)
    return ab_admin_import_fail (error, "checkpoint %s is not an import checkpoint",
                                 imp->checkpoint);
  const gchar *db = json_object_get_string_member_with_default (o, "database", "");
  const gchar *t = json_object_get_string_member_with_default (o, "table", "");
  if (!g_str_equal (db, imp->database) || !g_str_equal (t, imp->table))
    return ab_admin_import_fail (error, "checkpoint %s belongs to an import into %s.%s, not %s.%s",
                                 imp->checkpoint, db, t, imp->database, imp->table);
  for (guint i = 0; i < json_array_get_length (files); i++)
    {
      JsonNode *en = json_array_get_element (files, i);
      if (!JSON_NODE_HOLDS_OBJECT (en))
        continue;
      JsonObject *e = json_node_get_object (en);
      const gchar *path = json_object_get_string_member_with_default (e, "path", "");
      for (guint k = 0; k < imp->files->len; k++)
        {
          AbImportFile *f = imp->files->pdata[k];
          if (!g_str_equal (f->abs, path))
            continue;
          gint64 lines = json_object_get_int_member_with_default (e, "lines", 0);
          gint64 offset = json_object_get_int_member_with_default (e, "offset", 0);
          gint64 size = json_object_get_int_member_with_default (e, "size", 0);
          if (lines < 0 || offset < 0 || (guint64) offset > f->size || (guint64) size > f->size)
            return ab_admin_import_fail (
                error,
                "%s is shorter than when checkpoint %s was written: remove the "
                "checkpoint to import it from the start",
                f->path, imp->checkpoint);
          f->resume = f->prefix = (AbImportMark){ (guint64) lines, (guint64) offset };
          f->was_complete = json_object_get_boolean_member_with_default (e, "complete", FALSE)
                            && (guint64) size == f->size;
        }
    }
  return TRUE;
}

/* ---- lmdb:DIR?sync=0 or rocksdb:DIR?sync=0: durable by a sync now and then ----
 * With sync off, a commit only reaches the page cache (LMDB: no fsync per
 * commit, so the pages a commit rewrote are written to disk once, not once
 * per commit; RocksDB: no fsync of its write-ahead log). The import makes
 * them durable itself: the store is synced (ab_engine_sync: LMDB's data
 * file, RocksDB's log) before each checkpoint is written (a checkpoint never
 * counts lines that are not on disk) and once more at the end. A crash of
 * the machine (not of the process) in between can lose what was written
 * since the last sync, as both stores say of that mode. */

gboolean
ab_admin_import_flush_store (AbImport *imp, GError **error)
{
  return !imp->nosync || ab_engine_sync (imp->engine, error);
}

void
ab_admin_import_checkpoint_maybe (AbImport *imp, gboolean force)
{
  if (imp->checkpoint == NULL)
    return;
  gint64 now = g_get_monotonic_time ();
  gint64 every = imp->nosync ? CHECKPOINT_NOSYNC_EVERY_US : CHECKPOINT_EVERY_US;
  if (!force && (!imp->ck_dirty || now - imp->ck_last < every))
    return;
  imp->ck_last = now;
  imp->ck_dirty = FALSE;
  g_autoptr (GError) error = NULL;
  if (!ab_admin_import_flush_store (imp, &error) || !checkpoint_write (imp, &error))
    {
      fprintf (stderr, "actionbase-admin import: %s\n", error->message);
      return;
    }
  if (imp->verbose)
    for (guint i = 0; i < imp->files->len; i++)
      {
        const AbImportFile *f = imp->files->pdata[i];
        fprintf (stderr, "checkpoint: %s: %" G_GUINT64_FORMAT " lines applied%s\n", f->path,
                 f->prefix.line, f->complete ? " (complete)" : "");
      }
}

void
ab_admin_import_chunk_finished (AbImport *imp, AbImportChunk *c, gboolean ok)
{
  AbImportFile *f = c->file;
  g_mutex_lock (&imp->ck_lock);
  if (!ok)
    f->blocked = TRUE;
  else if (!f->blocked)
    {
      AbImportMark *m = g_new (AbImportMark, 1);
      *m = c->end;
      g_hash_table_insert (f->done, GSIZE_TO_POINTER (c->index), m);
      AbImportMark *next;
      while ((next = g_hash_table_lookup (f->done, GSIZE_TO_POINTER (f->next_chunk))) != NULL)
        {
          f->prefix = *next;
          imp->ck_dirty = TRUE;
          g_hash_table_remove (f->done, GSIZE_TO_POINTER (f->next_chunk));
          f->next_chunk++;
        }
      if (f->next_chunk == f->n_chunks)
        f->complete = TRUE;
    }
  ab_admin_import_checkpoint_maybe (imp, FALSE);
  g_mutex_unlock (&imp->ck_lock);
}

void
ab_admin_import_file_read_to_end (AbImport *imp, AbImportFile *f, guint64 n_chunks)
{
  g_mutex_lock (&imp->ck_lock);
  f->n_chunks = n_chunks;
  if (!f->blocked && f->next_chunk == n_chunks)
    f->complete = TRUE;
  g_mutex_unlock (&imp->ck_lock);
}
