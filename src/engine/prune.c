/* Background upkeep of wide rows: trimming the cache rows written since the
 * last round to their limit (with a boundary marker), the TTL sweep, the
 * top-K refresher, and the engine-owned thread that runs them on intervals. */
#include <string.h>
#include "engine/wide.h"
#include "engine/topk.h"
#include "codec/bytes.h"

#define PRUNE_READ_CAP 4096 /* cells read past the limit per row and round */
#define SWEEP_PAGE 1000
#define SWEEP_ROUNDS 16

struct _AbMaint {
  GMutex round; /* one trimming round at a time: a caller's round waits
                        * for the background one, so rows noted before it are done */
  GMutex mu;
  GCond cond;
  gboolean stop;
  GThread *thread;
  GHashTable *dirty; /* GBytes row -> GUINT_TO_POINTER (limit) */
};

static GHashTable *
dirty_new (void)
{
  return g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
}

void
ab_engine_cache_note (AbEngine *engine, const AbTableDesc *t, const AbBatch *b)
{
  if (t->schema->cache_defs->len == 0 || engine->maint == NULL)
    return;
  struct _AbMaint *m = engine->maint;
  for (guint i = 0; i < b->items->len; i++)
    {
      const AbMutation *mu = &g_array_index (b->items, AbMutation, i);
      gsize len = mu->klen, row_len;
      const guint8 *k = mu->key;
      AbRowType type;
      gint32 code;
      if (mu->kind != AB_MUT_PUT || !ab_codec_wide_parts (k, len, &type, &code, &row_len)
          || type != AB_ROW_CACHE)
        continue;
      const AbCache *c = ab_schema_cache_by_code (t->schema, code);
      if (c == NULL)
        continue;
      g_mutex_lock (&m->mu);
      g_hash_table_replace (m->dirty, g_bytes_new (k, row_len), GUINT_TO_POINTER (c->limit));
      g_mutex_unlock (&m->mu);
    }
}

/* The boundary after trimming: the smaller of the stored one and the first
 * evicted qualifier (the row stays complete below it). */
static gboolean
write_boundary (AbEngine *engine, GBytes *row, GBytes *old, const guint8 *q, gsize qlen,
                GError **error)
{
  if (old != NULL)
    {
      gsize olen;
      const guint8 *o = g_bytes_get_data (old, &olen);
      if (ab_store_key_compare (o, olen, q, qlen) <= 0)
        return TRUE;
    }
  gsize rlen;
  const guint8 *r = g_bytes_get_data (row, &rlen);
  g_autoptr (GByteArray) mark = g_byte_array_new ();
  g_byte_array_append (mark, r, rlen);
  guint8 zero = AB_WIDE_MARK;
  g_byte_array_append (mark, &zero, 1);
  return ab_store_put (engine->store, mark->data, mark->len, q, qlen, error);
}

/* Trims one row: the marker (if any) first, then the cells in order. */
static gboolean
prune_row (AbEngine *engine, GBytes *row, guint limit, gboolean *again, guint *trimmed,
           GError **error)
{
  gsize rlen;
  const guint8 *r = g_bytes_get_data (row, &rlen);
  g_autoptr (GByteArray) stop = ab_codec_prefix_upper_bound (r, rlen);
  AbScanRange range = { .start = r,
                        .start_len = rlen,
                        .start_inclusive = TRUE,
                        .stop = stop != NULL ? stop->data : NULL,
                        .stop_len = stop != NULL ? stop->len : 0,
                        .limit = limit + 1 + PRUNE_READ_CAP };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  if (!ab_store_scan (engine->store, &range, rows, error))
    return FALSE;
  *again = rows->len == range.limit;
  guint first = 0;
  GBytes *old = NULL;
  if (rows->len > 0 && g_bytes_get_size (g_array_index (rows, AbKv, 0).key) == rlen + 1)
    {
      old = g_array_index (rows, AbKv, 0).value;
      first = 1;
    }
  if (rows->len <= first + limit)
    return TRUE;
  gsize klen;
  const guint8 *k = g_bytes_get_data (g_array_index (rows, AbKv, first + limit).key, &klen);
  if (!write_boundary (engine, row, old, k + rlen, klen - rlen, error))
    return FALSE;
  g_autoptr (AbBatch) batch = ab_batch_new ();
  for (guint i = first + limit; i < rows->len; i++)
    {
      k = g_bytes_get_data (g_array_index (rows, AbKv, i).key, &klen);
      ab_batch_delete (batch, k, klen);
    }
  *trimmed += ab_batch_len (batch);
  return ab_store_batch (engine->store, batch, error);
}

gboolean
ab_engine_cache_prune (AbEngine *engine, guint *trimmed, GError **error)
{
  struct _AbMaint *m = engine->maint;
  *trimmed = 0;
  g_mutex_lock (&m->round);
  g_mutex_lock (&m->mu);
  GHashTable *rows = m->dirty;
  m->dirty = dirty_new ();
  g_mutex_unlock (&m->mu);
  GHashTableIter it;
  gpointer key, limit;
  gboolean ok = TRUE;
  g_hash_table_iter_init (&it, rows);
  while (ok && g_hash_table_iter_next (&it, &key, &limit))
    {
      gboolean again = FALSE;
      ok = prune_row (engine, key, GPOINTER_TO_UINT (limit), &again, trimmed, error);
      if (!ok || again) /* keep it for the next round */
        {
          g_mutex_lock (&m->mu);
          g_hash_table_replace (m->dirty, g_bytes_ref (key), limit);
          g_mutex_unlock (&m->mu);
        }
    }
  g_hash_table_unref (rows);
  g_mutex_unlock (&m->round);
  return ok;
}

gboolean
ab_engine_maintain (AbEngine *engine, guint *trimmed, guint *expired, GError **error)
{
  guint t = 0, e = 0, round;
  GError *local = NULL;
  gboolean ok = ab_engine_cache_prune (engine, &t, &local);
  for (guint i = 0; ok && i < SWEEP_ROUNDS; i++)
    {
      round = 0;
      ok = ab_engine_ttl_sweep (engine, SWEEP_PAGE, &round, &local);
      e += round;
      if (round < SWEEP_PAGE)
        break;
    }
  gboolean relative = ok && ab_engine_topk_refresh_ms (engine) > 0;
  for (guint i = 0, n = 0; relative && i < SWEEP_ROUNDS; i++)
    if (!(ok = ab_engine_topk_refresh (engine, SWEEP_PAGE, &n, &local)) || n == 0)
      break;
  if (trimmed != NULL)
    *trimmed = t;
  if (expired != NULL)
    *expired = e;
  if (!ok)
    ab_engine_propagate (error, local);
  return ok;
}

/* Whether any table keeps TTL group cells (an in-memory catalog walk), so
 * a store without them sees no sweep calls at all. */
static gboolean
any_ttl_group (AbEngine *engine)
{
  g_autoptr (GPtrArray) dbs = ab_catalog_list_databases (engine->catalog);
  for (guint d = 0; d < dbs->len; d++)
    {
      g_autoptr (GPtrArray) ts
          = ab_catalog_list_tables (engine->catalog, ((AbDatabaseDesc *) dbs->pdata[d])->database);
      for (guint t = 0; t < ts->len; t++)
        {
          GPtrArray *groups = ((AbTableDesc *) ts->pdata[t])->schema->group_defs;
          for (guint g = 0; g < groups->len; g++)
            if (((AbGroup *) groups->pdata[g])->ttl > 0)
              return TRUE;
        }
    }
  return FALSE;
}

static gpointer
maint_main (gpointer data)
{
  AbEngine *engine = data;
  struct _AbMaint *m = engine->maint;
  guint prune_ms = engine->cfg.cache_prune_ms, sweep_ms = engine->cfg.ttl_sweep_ms;
  gint64 now = g_get_monotonic_time ();
  gint64 next_prune = prune_ms ? now + prune_ms * G_TIME_SPAN_MILLISECOND : G_MAXINT64;
  gint64 next_sweep = sweep_ms ? now + sweep_ms * G_TIME_SPAN_MILLISECOND : G_MAXINT64;
  /* the top-K refresher: every min(refreshAfterMillis) of the relative
   * rankings (at most 1 s; looked up again each round) */
  gint64 next_refresh = now + AB_TOPK_REFRESH_DEFAULT_MS * G_TIME_SPAN_MILLISECOND;
  g_mutex_lock (&m->mu);
  while (!m->stop)
    {
      g_cond_wait_until (&m->cond, &m->mu, MIN (MIN (next_prune, next_sweep), next_refresh));
      if (m->stop)
        break;
      g_mutex_unlock (&m->mu);
      now = g_get_monotonic_time ();
      g_autoptr (GError) error = NULL;
      guint n = 0;
      if (now >= next_prune && !ab_engine_cache_prune (engine, &n, &error))
        g_warning ("cache trimming: %s", error->message);
      if (now >= next_prune)
        next_prune = now + prune_ms * G_TIME_SPAN_MILLISECOND;
      g_clear_error (&error);
      gboolean sweep = now >= next_sweep && any_ttl_group (engine);
      for (guint i = 0; sweep && i < SWEEP_ROUNDS; i++)
        if (!ab_engine_ttl_sweep (engine, SWEEP_PAGE, &n, &error) || n < SWEEP_PAGE)
          break;
      if (error != NULL)
        g_warning ("TTL sweep: %s", error->message);
      if (now >= next_sweep)
        next_sweep = now + sweep_ms * G_TIME_SPAN_MILLISECOND;
      g_clear_error (&error);
      if (now >= next_refresh)
        {
          guint every = ab_engine_topk_refresh_ms (engine);
          for (guint i = 0; every > 0 && i < SWEEP_ROUNDS; i++)
            if (!ab_engine_topk_refresh (engine, SWEEP_PAGE, &n, &error) || n == 0)
              break;
          if (error != NULL)
            g_warning ("top-K refresh: %s", error->message);
          next_refresh
              = now + (every > 0 ? every : AB_TOPK_REFRESH_DEFAULT_MS) * G_TIME_SPAN_MILLISECOND;
        }
      g_mutex_lock (&m->mu);
    }
  g_mutex_unlock (&m->mu);
  return NULL;
}

void
ab_engine_maint_start (AbEngine *engine)
{
  struct _AbMaint *m = g_new0 (struct _AbMaint, 1);
  g_mutex_init (&m->round);
  g_mutex_init (&m->mu);
  g_cond_init (&m->cond);
  m->dirty = dirty_new ();
  engine->maint = m;
  if (engine->cfg.cache_prune_ms > 0 || engine->cfg.ttl_sweep_ms > 0)
    m->thread = g_thread_new ("ab-maint", maint_main, engine);
}

void
ab_engine_maint_stop (AbEngine *engine)
{
  struct _AbMaint *m = engine->maint;
  if (m == NULL)
    return;
  g_mutex_lock (&m->mu);
  m->stop = TRUE;
  g_cond_signal (&m->cond);
  g_mutex_unlock (&m->mu);
  if (m->thread != NULL)
    g_thread_join (m->thread);
  g_hash_table_unref (m->dirty);
  g_mutex_clear (&m->round);
  g_mutex_clear (&m->mu);
  g_cond_clear (&m->cond);
  g_free (m);
  engine->maint = NULL;
}
