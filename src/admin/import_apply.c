/* The import's writing side: the bounded queue of chunks and the worker
 * threads that parse each, wait for its ties (and --strict's gate), apply it
 * through the engine and report the lines it did not apply. */
#include <stdio.h>
#include "admin/import-private.h"

/* ---- the queue ---- */

void
ab_admin_import_queue_push (AbImport *imp, AbImportChunk *c)
{
  ab_import_ties_add (imp->ties, c->seq); /* before a worker can take it */
  g_mutex_lock (&imp->q_lock);
  while (imp->queue.length >= imp->q_cap && !atomic_load (&imp->stop))
    g_cond_wait (&imp->q_cond, &imp->q_lock);
  g_queue_push_tail (&imp->queue, c);
  g_cond_broadcast (&imp->q_cond);
  g_mutex_unlock (&imp->q_lock);
}

static AbImportChunk *
queue_pop (AbImport *imp)
{
  g_mutex_lock (&imp->q_lock);
  while (imp->queue.length == 0 && !imp->q_closed)
    g_cond_wait (&imp->q_cond, &imp->q_lock);
  AbImportChunk *c = g_queue_pop_head (&imp->queue);
  g_cond_broadcast (&imp->q_cond);
  g_mutex_unlock (&imp->q_lock);
  return c;
}

static void
queue_close (AbImport *imp)
{
  g_mutex_lock (&imp->q_lock);
  imp->q_closed = TRUE;
  g_cond_broadcast (&imp->q_cond);
  g_mutex_unlock (&imp->q_lock);
}

/* ---- applying a chunk ---- */

/* The engine's key text of an item ("<source>:<target>" or the id), as in
 * its results. */
static gchar *
item_key (AbImport *imp, const AbMutationItem *it)
{
  if (imp->multi)
    return ab_value_to_string (&it->id);
  g_autofree gchar *st = ab_value_to_string (&it->source);
  g_autofree gchar *tt
      = imp->schema->kind == AB_TABLE_VERTEX ? g_strdup ("-") : ab_value_to_string (&it->target);
  return g_strconcat (st, ":", tt, NULL);
}

/* ERROR / INVALID results name keys; every line of such a key failed. */
static guint
report_failed_keys (AbImport *imp, AbImportChunk *c, const AbImportBatch *b, GArray *results)
{
  g_autoptr (GHashTable) bad = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint k = 0; k < results->len; k++)
    {
      const AbKeyResult *r = &g_array_index (results, AbKeyResult, k);
      if (r->status != AB_STATUS_ERROR && r->status != AB_STATUS_INVALID)
        continue;
      gchar *key = imp->multi ? ab_value_to_string (&r->source) : NULL;
      if (key == NULL)
        {
          g_autofree gchar *st = ab_value_to_string (&r->source);
          g_autofree gchar *tt = ab_value_to_string (&r->target);
          key = g_strconcat (st, ":", tt, NULL);
        }
      g_hash_table_insert (bad, key, (gpointer) r);
    }
  if (g_hash_table_size (bad) == 0)
    return 0;
  guint failed = 0;
  for (guint i = 0; i < b->items->len; i++)
    {
      g_autofree gchar *key = item_key (imp, &g_array_index (b->items, AbMutationItem, i));
      const AbKeyResult *r = g_hash_table_lookup (bad, key);
      if (r == NULL)
        continue;
      ab_admin_import_report (c->file, g_array_index (b->lines, guint64, i), "%s: %s",
                              ab_key_status_name (r->status),
                              r->message ? r->message : "(no message)");
      failed++;
    }
  return failed;
}

/* --strict: waits until every earlier chunk parsed clean; FALSE when one did
 * not (or this one did not), and then nothing more is written. */
static gboolean
strict_gate (AbImport *imp, AbImportChunk *c, gboolean clean)
{
  g_mutex_lock (&imp->gate_lock);
  while (imp->gate_seq != c->seq && !imp->gate_failed)
    g_cond_wait (&imp->gate_cond, &imp->gate_lock);
  gboolean go = clean && !imp->gate_failed;
  if (go)
    imp->gate_seq++;
  else
    imp->gate_failed = TRUE;
  g_cond_broadcast (&imp->gate_cond);
  g_mutex_unlock (&imp->gate_lock);
  return go;
}

static void
apply_chunk (AbImport *imp, AbImportChunk *c)
{
  AbImportFile *f = c->file;
  AbImportBatch b;
  ab_admin_import_batch_init (&b, c->recs->len);
  gboolean clean = ab_admin_import_parse_chunk (imp, c, &b);
  ab_import_ties_ready (
      imp->ties, c->seq,
      ab_import_ties_marks ((const AbMutationItem *) b.items->data, b.items->len));
  if (imp->strict && !strict_gate (imp, c, clean))
    {
      if (!clean)
        ab_admin_import_stop (imp,
                              "--strict: stopped at a bad line; nothing of its batch was written");
      ab_admin_import_chunk_finished (imp, c, FALSE);
      ab_admin_import_batch_clear (&b);
      return;
    }
  g_autoptr (GArray) results = NULL;
  gboolean ok = TRUE;
  while (b.items->len > 0)
    {
      g_autoptr (GError) error = NULL;
      ab_admin_import_batch_link (&b);
      results = ab_engine_mutate_items (
          imp->engine, &imp->mopts, (const AbMutationItem *) b.items->data, b.items->len, &error);
      if (results != NULL)
        break;
      guint idx = 0;
      gint used = 0;
      if (g_error_matches (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST)
          && sscanf (error->message, "mutations[%u]: %n", &idx, &used) == 1 && used > 0
          && idx < b.items->len)
        {
          /* a rule this tool does not check itself: that item alone is bad */
          ab_admin_import_report (f, g_array_index (b.lines, guint64, idx), "%s",
                                  error->message + used);
          atomic_fetch_add (&imp->skipped, 1);
          ab_admin_import_batch_remove (&b, idx);
          if (imp->strict)
            {
              ab_admin_import_stop (
                  imp, "--strict: stopped at a bad line; nothing of its batch was written");
              ok = FALSE;
              break;
            }
          continue;
        }
      guint n = b.items->len;
      ab_admin_import_report (f, g_array_index (b.lines, guint64, 0),
                              "the batch of %u lines up to line %" G_GUINT64_FORMAT " failed: %s",
                              n, g_array_index (b.lines, guint64, n - 1), error->message);
      atomic_fetch_add (&imp->failed, n);
      ab_admin_import_stop (imp, error->message);
      ok = FALSE;
      break;
    }
  if (!ok)
    {
      ab_admin_import_chunk_finished (imp, c, FALSE);
      ab_admin_import_batch_clear (&b);
      return;
    }
  guint n = b.items->len;
  guint failed = results != NULL ? report_failed_keys (imp, c, &b, results) : 0;
  atomic_fetch_add (&imp->failed, failed);
  atomic_fetch_add (&imp->applied, n - failed);
  if (failed > 0 && imp->strict)
    ab_admin_import_stop (imp, "--strict: stopped at a line the engine did not apply");
  ab_admin_import_chunk_finished (imp, c, failed == 0);
  ab_admin_import_batch_clear (&b);
}

static gpointer
worker (gpointer data)
{
  AbImport *imp = data;
  AbImportChunk *c;
  while ((c = queue_pop (imp)) != NULL)
    {
      if (!atomic_load (&imp->stop))
        apply_chunk (imp, c);
      ab_import_ties_done (imp->ties, c->seq);
      ab_progress_add (imp->progress, c->lines);
      ab_admin_import_chunk_free (c);
    }
  return NULL;
}

GPtrArray *
ab_admin_import_workers_start (AbImport *imp)
{
  GPtrArray *workers = g_ptr_array_new ();
  for (gint t = 0; t < imp->threads; t++)
    g_ptr_array_add (workers, g_thread_new ("ab-import", worker, imp));
  return workers;
}

void
ab_admin_import_workers_join (AbImport *imp, GPtrArray *workers)
{
  queue_close (imp);
  for (guint t = 0; t < workers->len; t++)
    g_thread_join (workers->pdata[t]);
  g_ptr_array_unref (workers);
}
