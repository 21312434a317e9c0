/* Upkeep of wide rows: trimming cache rows to limit + tolerance (with a
 * boundary marker) in the background and on request (POST …/edges/prune),
 * the TTL sweep, the top-K refresher, and the thread running them. */
#include <string.h>
#include "engine/upkeep/upkeep.h"
#include "engine/plan/plan.h"
#include "engine/read/read.h"
#include "engine/write/write.h"
#include "engine/topk/topk.h"
#include "codec/bytes.h"
#include "model/json_get.h"

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
};

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

/* Trims one row to `limit` cells (a cache's bound), reading at most
 * PRUNE_READ_CAP cells past it (*again: more may remain): the marker (if
 * any) first, then the cells in order. */
static gboolean
prune_row (AbEngine *engine, GBytes *row, guint limit, gboolean *again, guint *trimmed,
           GError **error)
{
  gsize rlen;
  const guint8 *r = g_bytes_get_data (row, &rlen);
  AbScanRange range;
  g_autoptr (GByteArray) stop = ab_codec_prefix_range (r, rlen, &range);
  range.limit = limit + 1 + PRUNE_READ_CAP;
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
  g_autoptr (GHashTable) rows = ab_engine_cache_notes_take (engine);
  GHashTableIter it;
  gpointer key, limit;
  gboolean ok = TRUE;
  g_hash_table_iter_init (&it, rows);
  while (ok && g_hash_table_iter_next (&it, &key, &limit))
    {
      gboolean again = FALSE;
      ok = prune_row (engine, key, GPOINTER_TO_UINT (limit), &again, trimmed, error);
      if (!ok || again) /* keep it for the next round */
        ab_engine_cache_renote (engine, key, GPOINTER_TO_UINT (limit));
    }
  g_mutex_unlock (&m->round);
  return ok;
}

/* ---- POST …/edges/prune: given cache rows trimmed now ---- */

typedef struct {
  AbValue start;
  AbQueryDirection dir;
} PruneTarget;

static void
prune_target_clear (gpointer p)
{
  ab_value_clear (&((PruneTarget *) p)->start);
}

/* One target {start, direction}, the start cast to the key type of its
 * direction; path names it in errors. */
static gboolean
prune_target (const AbTableDesc *t, JsonNode *node, const gchar *path, PruneTarget *pt,
              GError **error)
{
  JsonObject *o = ab_model_json_object (node, path, error);
  g_autofree gchar *dir = NULL;
  if (o == NULL || !ab_model_json_string (o, path, "direction", TRUE, NULL, &dir, error))
    return FALSE;
  if (!ab_query_direction_parse (dir, &pt->dir))
    return ab_model_invalid (error, "%s.direction: '%s' is not OUT or IN", path, dir);
  g_autofree gchar *field = ab_model_json_path (path, "start");
  AbType type = pt->dir == AB_QDIR_OUT ? t->schema->source_type : t->schema->target_type;
  JsonNode *start = json_object_get_member (o, "start");
  if (!ab_model_cast_json (start, type, field, &pt->start, error))
    return FALSE;
  if (ab_value_is_null (&pt->start))
    return ab_model_json_missing (path, "start", error);
  return TRUE;
}

/* The body {"type": "CACHE", "targets": [...]}, checked whole before
 * anything is trimmed; the targets (clear func set) or NULL. */
static GArray *
prune_targets (AbEngine *engine, const AbTableDesc *t, JsonObject *body, GError **error)
{
  g_autofree gchar *type = NULL;
  JsonArray *items = NULL;
  if (!ab_model_json_string (body, NULL, "type", TRUE, NULL, &type, error)
      || !ab_model_json_array (body, NULL, "targets", TRUE, &items, error))
    return NULL;
  if (!g_str_equal (type, "CACHE"))
    return ab_model_invalid (error, "type: '%s' is not a prune type (CACHE)", type), NULL;
  guint n = json_array_get_length (items);
  if (n > engine->cfg.max_mutations)
    return ab_model_invalid (error, "targets: %u targets, at most %u in one request", n,
                             engine->cfg.max_mutations),
           NULL;
  g_autoptr (GArray) out = g_array_sized_new (FALSE, TRUE, sizeof (PruneTarget), n);
  g_array_set_clear_func (out, prune_target_clear);
  for (guint i = 0; i < n; i++)
    {
      g_autofree gchar *path = g_strdup_printf ("targets[%u]", i);
      PruneTarget pt = { AB_VALUE_INIT, AB_QDIR_OUT };
      gboolean ok = prune_target (t, json_array_get_element (items, i), path, &pt, error);
      g_array_append_val (out, pt);
      if (!ok)
        return NULL;
    }
  return g_steal_pointer (&out);
}

/* Trims the row of (start, dir) of cache c to its bound, every cell past it
 * (in reads of PRUNE_READ_CAP); *removed = cells deleted. */
static gboolean
prune_cache_row (AbEngine *engine, const AbTableDesc *t, const AbCache *c, const PruneTarget *pt,
                 guint *removed, GError **error)
{
  GError *local = NULL;
  g_autoptr (GByteArray) key = ab_codec_wide_key (&pt->start, (AbDirection) pt->dir, t->code,
                                                  AB_ROW_CACHE, c->code, &local);
  g_autoptr (GBytes) row = key != NULL ? g_bytes_new (key->data, key->len) : NULL;
  gboolean again = row != NULL;
  while (again)
    if (!prune_row (engine, row, ab_cache_bound (c), &again, removed, &local))
      break;
  if (local != NULL)
    return ab_engine_propagate (error, local), FALSE;
  return TRUE;
}

static gboolean
keeps_direction (const AbTableDesc *t, AbQueryDirection dir)
{
  AbDirection dirs[2];
  guint n = ab_engine_directions (t, dirs);
  for (guint i = 0; i < n; i++)
    if ((AbQueryDirection) dirs[i] == dir)
      return TRUE;
  return FALSE;
}

static void
add_prune_result (JsonBuilder *b, const PruneTarget *pt, const AbCache *c, gboolean pruned)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "start");
  json_builder_add_value (b, ab_model_value_to_json (&pt->start));
  ab_model_json_add_string (b, "direction", pt->dir == AB_QDIR_OUT ? "OUT" : "IN");
  ab_model_json_add_string (b, "type", "CACHE");
  ab_model_json_add_string (b, "name", c->name);
  ab_model_json_add_string (b, "status", pruned ? "PRUNED" : "SKIPPED");
  json_builder_end_object (b);
}

JsonNode *
ab_engine_prune (AbEngine *engine, const gchar *db, const gchar *table, JsonObject *body,
                 GError **error)
{
  g_autoptr (AbTableDesc) t = ab_engine_resolve (engine, db, table, NULL, error);
  if (t == NULL)
    return NULL;
  GError *local = NULL;
  g_autoptr (GArray) targets = prune_targets (engine, t, body, &local);
  if (targets == NULL)
    return ab_engine_propagate (error, local), NULL;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "results");
  json_builder_begin_array (b);
  GPtrArray *caches = t->schema->cache_defs;
  struct _AbMaint *m = engine->maint;
  if (m != NULL) /* after a background round, never beside one */
    g_mutex_lock (&m->round);
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < targets->len; i++)
    {
      const PruneTarget *pt = &g_array_index (targets, PruneTarget, i);
      if (!keeps_direction (t, pt->dir)) /* a cache keeps the directions its table keeps */
        continue;
      for (guint k = 0; ok && k < caches->len; k++)
        {
          guint removed = 0;
          ok = prune_cache_row (engine, t, caches->pdata[k], pt, &removed, error);
          if (ok)
            add_prune_result (b, pt, caches->pdata[k], removed > 0);
        }
    }
  if (m != NULL)
    g_mutex_unlock (&m->round);
  if (!ok)
    return NULL;
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
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
  ab_engine_cache_notes_start (engine);
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
  ab_engine_cache_notes_stop (engine);
  g_mutex_clear (&m->round);
  g_mutex_clear (&m->mu);
  g_cond_clear (&m->cond);
  g_free (m);
  engine->maint = NULL;
}
