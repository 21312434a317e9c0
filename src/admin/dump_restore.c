/* A dump restored into a store (actionbase-admin restore): the checkpoint of
 * the chunks written, the batches sent (several in flight on a store that can
 * block), each chunk checked again as it is read, after the whole dump checked out. */
#include "admin/dump-private.h"

#include <glib/gstdio.h>
#include <string.h>

#define CHECKPOINT_FORMAT "actionbase-restore-checkpoint"

typedef struct {
  gchar *manifest_sha256;
  gchar *target;
  guint64 chunks_done;
} Checkpoint;

static void
checkpoint_clear (Checkpoint *c)
{
  g_clear_pointer (&c->manifest_sha256, g_free);
  g_clear_pointer (&c->target, g_free);
}

/* FALSE (no error) when there is none; an unreadable one is an error. */
static gboolean
checkpoint_load (const gchar *path, Checkpoint *c, gboolean *found, GError **error)
{
  g_autofree gchar *text = NULL;
  gsize len;
  g_autoptr (GError) local = NULL;
  *found = FALSE;
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  if (!g_file_get_contents (path, &text, &len, &local))
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_CHECKPOINT, "%s", local->message);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonNode *root;
  JsonObject *o;
  const gchar *sha, *target;
  if (!json_parser_load_from_data (parser, text, (gssize) len, NULL)
      || (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root)
      || g_strcmp0 (ab_admin_dump_member_text (o = json_node_get_object (root), "format"),
                    CHECKPOINT_FORMAT)
             != 0
      || (sha = ab_admin_dump_member_text (o, "manifestSha256")) == NULL
      || (target = ab_admin_dump_member_text (o, "target")) == NULL
      || !ab_admin_dump_member_uint (o, "chunksDone", &c->chunks_done))
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_CHECKPOINT, "%s is not a restore checkpoint",
                               path);
  c->manifest_sha256 = g_strdup (sha);
  c->target = g_strdup (target);
  *found = TRUE;
  return TRUE;
}

static gboolean
checkpoint_save (const gchar *path, const gchar *manifest_sha256, const gchar *target, guint64 done,
                 guint64 total, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "format", CHECKPOINT_FORMAT);
  ab_model_json_add_string (b, "manifestSha256", manifest_sha256);
  ab_model_json_add_string (b, "target", target);
  ab_admin_json_int (b, "chunksDone", (gint64) done);
  ab_admin_json_int (b, "chunks", (gint64) total);
  json_builder_end_object (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  gsize len;
  g_autofree gchar *text = json_generator_to_data (gen, &len);
  g_autoptr (GError) local = NULL;
  if (!g_file_set_contents_full (path, text, (gssize) len,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0644,
                                 &local))
    return ab_admin_dump_fail (
        error, AB_DUMP_ERROR_IO,
        "write the restore checkpoint: %s (--checkpoint FILE puts it elsewhere)", local->message);
  return TRUE;
}

/* Batches to the store: inline on a local store, up to in_flight at once on
 * worker threads when the store's calls wait on a server (hbase). */
typedef struct {
  AbStore *store;
  AbProgress *progress;
  GThreadPool *pool;
  guint in_flight;
  GMutex lock;
  GCond cond;
  guint pending;
  GError *error; /* the first failure */
} Sender;

static void
sender_job (gpointer data, gpointer user)
{
  AbBatch *b = data;
  Sender *s = user;
  GError *local = NULL;
  gboolean ok = ab_store_batch (s->store, b, &local);
  if (ok && s->progress != NULL)
    ab_progress_add (s->progress, ab_batch_len (b));
  ab_batch_free (b);
  g_mutex_lock (&s->lock);
  if (!ok && s->error == NULL)
    s->error = local;
  else
    g_clear_error (&local);
  s->pending--;
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->lock);
}

static gboolean
sender_send (Sender *s, AbBatch *b, GError **error)
{
  if (s->pool == NULL)
    {
      gboolean ok = ab_store_batch (s->store, b, error);
      if (ok && s->progress != NULL)
        ab_progress_add (s->progress, ab_batch_len (b));
      ab_batch_free (b);
      return ok;
    }
  g_mutex_lock (&s->lock);
  while (s->pending >= s->in_flight && s->error == NULL)
    g_cond_wait (&s->cond, &s->lock);
  GError *failed = s->error;
  s->error = NULL;
  if (failed == NULL)
    s->pending++;
  g_mutex_unlock (&s->lock);
  if (failed != NULL)
    {
      ab_batch_free (b);
      g_propagate_error (error, failed);
      return FALSE;
    }
  g_thread_pool_push (s->pool, b, NULL);
  return TRUE;
}

/* Waits for every batch sent; FALSE with the first failure. */
static gboolean
sender_drain (Sender *s, GError **error)
{
  if (s->pool == NULL)
    return TRUE;
  g_mutex_lock (&s->lock);
  while (s->pending > 0)
    g_cond_wait (&s->cond, &s->lock);
  GError *e = s->error;
  s->error = NULL;
  g_mutex_unlock (&s->lock);
  if (e != NULL)
    {
      g_propagate_error (error, e);
      return FALSE;
    }
  return TRUE;
}

/* One chunk through a sorted load (rocksdb: one table file, ingested only
 * once the chunk has checked out again) or in batches. */
static gboolean
restore_chunk (Sender *s, AbStoreLoad *load, const gchar *dir, const AbDumpChunkInfo *info,
               guint batch_rows, const volatile sig_atomic_t *stop, GError **error)
{
  AbDumpChunkReader r;
  gboolean more = TRUE, ok;
  guint64 rows = 0;
  gsize bytes = 0;
  AbBatch *b = load == NULL ? ab_batch_new () : NULL;
  ok = ab_admin_dump_reader_open (&r, dir, info, error);
  while (ok && (ok = ab_admin_dump_reader_next (&r, &more, error)) && more)
    {
      rows++;
      if (load != NULL)
        {
          ok = ab_store_load_put (load, r.key->data, r.key->len, r.value->data, r.value->len,
                                  error);
          if (ok && rows % batch_rows == 0 && s->progress != NULL)
            ab_progress_add (s->progress, batch_rows);
          if (ok && rows % batch_rows == 0 && stop != NULL && *stop)
            ok = ab_admin_dump_fail (error, AB_DUMP_ERROR_INTERRUPTED, "interrupted");
          continue;
        }
      ab_batch_put (b, r.key->data, r.key->len, r.value->data, r.value->len);
      bytes += r.key->len + r.value->len;
      if (ab_batch_len (b) >= batch_rows || bytes >= AB_DUMP_BATCH_BYTES)
        {
          ok = sender_send (s, b, error);
          b = ab_batch_new ();
          bytes = 0;
          if (ok && stop != NULL && *stop)
            ok = ab_admin_dump_fail (error, AB_DUMP_ERROR_INTERRUPTED, "interrupted");
        }
    }
  if (ok && b != NULL && ab_batch_len (b) > 0)
    {
      ok = sender_send (s, b, error);
      b = NULL;
    }
  g_clear_pointer (&b, ab_batch_free);
  /* Everything sent must have landed before the chunk counts as written. */
  if (!sender_drain (s, ok ? error : NULL))
    ok = FALSE;
  ok = ok && ab_admin_dump_reader_finish (&r, rows, error);
  if (ok && load != NULL && (ok = ab_store_load_commit (load, error)) && s->progress != NULL)
    ab_progress_add (s->progress, rows % batch_rows);
  ab_admin_dump_reader_close (&r);
  return ok;
}

static gboolean
restore_rows (AbStore *store, const gchar *dir, AbDumpManifest *m, const gchar *checkpoint,
              const gchar *target, guint64 start, const AbDumpRestoreOptions *o, AbDumpStats *stats,
              GError **error)
{
  Sender s = { .store = store, .progress = o->progress };
  guint batch_rows = o->batch_rows > 0 ? o->batch_rows : AB_DUMP_BATCH_ROWS;
  gboolean ok = TRUE;
  GError *local = NULL;
  g_mutex_init (&s.lock);
  g_cond_init (&s.cond);
  if (!ab_store_never_blocks (store))
    {
      s.in_flight = o->in_flight > 0 ? o->in_flight : AB_DUMP_IN_FLIGHT;
      s.pool = g_thread_pool_new (sender_job, &s, (gint) s.in_flight, FALSE, NULL);
    }
  /* A store that takes sorted rows faster than batches (rocksdb) gets
   * each chunk that way: a dump's rows are in key order. */
  g_autoptr (AbStoreLoad) load = ab_store_load_new (store);
  guint64 done = start;
  for (guint64 i = start; ok && i < m->chunks->len; i++)
    {
      const AbDumpChunkInfo *info = m->chunks->pdata[i];
      if (o->stop_after_chunks > 0 && i - start >= o->stop_after_chunks)
        ok = ab_admin_dump_fail (&local, AB_DUMP_ERROR_INTERRUPTED,
                                 "stopped after %u chunks as asked", o->stop_after_chunks);
      else if (o->stop != NULL && *o->stop)
        ok = ab_admin_dump_fail (&local, AB_DUMP_ERROR_INTERRUPTED, "interrupted");
      else if ((ok = restore_chunk (&s, load, dir, info, batch_rows, o->stop, &local)))
        {
          done = i + 1;
          stats->rows += info->rows;
          stats->bytes += info->bytes;
          stats->chunks++;
          ok = checkpoint_save (checkpoint, m->sha256, target, done, m->chunks->len, &local);
        }
    }
  stats->table_files = load != NULL ? ab_store_load_files (load) : 0;
  if (s.pool != NULL)
    g_thread_pool_free (s.pool, FALSE, TRUE);
  g_clear_error (&s.error);
  g_mutex_clear (&s.lock);
  g_cond_clear (&s.cond);
  if (!ok)
    {
      g_set_error (error, AB_DUMP_ERROR,
                   local->domain == AB_DUMP_ERROR ? local->code : AB_DUMP_ERROR_IO,
                   "%s; chunks 1..%" G_GUINT64_FORMAT " of %u are written (checkpoint %s): run "
                   "the same restore with --resume to continue after them",
                   local->message, done, m->chunks->len, checkpoint);
      g_error_free (local);
      return FALSE;
    }
  g_remove (checkpoint); /* done: nothing to resume */
  return TRUE;
}

gboolean
ab_dump_restore (AbStore *store, const gchar *dir, const AbDumpRestoreOptions *o,
                 AbDumpStats *stats, GError **error)
{
  AbDumpManifest m = { 0 };
  Checkpoint cp = { 0 };
  AbDumpStats local_stats = { 0 };
  gboolean found = FALSE, empty = TRUE, ok;
  const gchar *target = o->target_uri != NULL ? o->target_uri : "";
  g_autofree gchar *checkpoint = o->checkpoint != NULL
                                     ? g_strdup (o->checkpoint)
                                     : g_build_filename (dir, AB_DUMP_CHECKPOINT, NULL);
  guint64 start = 0;
  if (stats == NULL)
    stats = &local_stats;
  memset (stats, 0, sizeof *stats);
  /* 1. The whole dump checks out, or nothing is written. */
  ok = ab_admin_dump_read_manifest (dir, &m, error) && ab_admin_dump_check_chunks (dir, &m, error)
       && checkpoint_load (checkpoint, &cp, &found, error);
  /* 2. Where to start: after the checkpoint, or into an empty store. */
  if (ok && o->resume)
    {
      if (!found)
        ok = ab_admin_dump_fail (error, AB_DUMP_ERROR_CHECKPOINT,
                                 "--resume: there is no checkpoint %s (nothing to resume)",
                                 checkpoint);
      else if (strcmp (cp.manifest_sha256, m.sha256) != 0)
        ok = ab_admin_dump_fail (error, AB_DUMP_ERROR_CHECKPOINT,
                                 "--resume: the checkpoint %s belongs to another backup",
                                 checkpoint);
      else if (strcmp (cp.target, target) != 0)
        ok = ab_admin_dump_fail (error, AB_DUMP_ERROR_CHECKPOINT,
                                 "--resume: the checkpoint %s is of a restore into %s, not %s",
                                 checkpoint, cp.target, target);
      else if (cp.chunks_done > m.chunks->len)
        ok = ab_admin_dump_fail (error, AB_DUMP_ERROR_CHECKPOINT,
                                 "%s: more chunks done than the backup has", checkpoint);
      else
        start = cp.chunks_done;
    }
  else if (ok && (ok = ab_admin_store_is_empty (store, &empty, error)) && !empty && !o->force)
    {
      gboolean ours
          = found && strcmp (cp.manifest_sha256, m.sha256) == 0 && strcmp (cp.target, target) == 0;
      if (ours)
        ok = ab_admin_dump_fail (
            error, AB_DUMP_ERROR_NOT_EMPTY,
            "the target store is not empty: a restore of this backup into it stopped "
            "after %" G_GUINT64_FORMAT " of %u chunks (checkpoint %s); continue it with "
            "--resume, or write over the store with --force",
            cp.chunks_done, m.chunks->len, checkpoint);
      else
        ok = ab_admin_dump_fail (
            error, AB_DUMP_ERROR_NOT_EMPTY,
            "the target store is not empty: restore into an empty store, or pass --force "
            "to write the backup's rows over it (rows not in the backup stay)");
    }
  stats->chunks_skipped = (guint) start;
  if (!ok && error != NULL && *error != NULL)
    {
      gchar *msg = g_strconcat ((*error)->message, "; nothing was written", NULL);
      g_free ((*error)->message);
      (*error)->message = msg;
    }
  /* 3. A checkpoint before the first write (the place must be writable). */
  ok = ok && checkpoint_save (checkpoint, m.sha256, target, start, m.chunks->len, error);
  ok = ok && restore_rows (store, dir, &m, checkpoint, target, start, o, stats, error);
  ab_admin_dump_manifest_clear (&m);
  checkpoint_clear (&cp);
  return ok;
}
