/* The mutation pipeline: mode resolution (semantics.md §8), then per key
 * lock -> read State -> fold events by version -> plan -> one batch ->
 * unlock, with the keys of a request applied concurrently on a pool. */
#include <string.h>
#include "engine/engine-private.h"

void
ab_mutate_options_init (AbMutateOptions *o)
{
  memset (o, 0, sizeof *o);
  o->lock = TRUE;
  o->request_id = "-";
  o->actor = "-";
}

const gchar *
ab_key_status_name (AbKeyStatus s)
{
  static const gchar *names[] = { "CREATED", "UPDATED", "DELETED", "IDLE",
                                  "QUEUED", "ERROR", "INVALID" };
  return names[s];
}

static void
key_result_clear (AbKeyResult *r)
{
  ab_value_clear (&r->source);
  ab_value_clear (&r->target);
  g_free (r->message);
  if (r->context != NULL)
    json_node_unref (r->context);
}

typedef struct {
  AbEngine *engine;
  const AbTableDesc *table;
  const AbMutateOptions *opts;
  gboolean insert_merge;
  AbKeyGroup *group;
  AbKeyResult *result;
  /* completion of the request's jobs */
  GMutex *mu;
  GCond *cond;
  guint *pending;
} KeyJob;

static gint
by_version (gconstpointer a, gconstpointer b)
{
  const AbEvent *x = *(AbEvent *const *) a, *y = *(AbEvent *const *) b;
  if (x->version != y->version)
    return x->version < y->version ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static JsonNode *
storage_ops (const AbBatch *b)
{
  g_autoptr (JsonBuilder) jb = json_builder_new ();
  json_builder_begin_object (jb);
  json_builder_set_member_name (jb, "storageOps");
  json_builder_begin_array (jb);
  for (guint i = 0; i < b->items->len; i++)
    {
      const AbMutation *m = &g_array_index (b->items, AbMutation, i);
      static const gchar *kinds[] = { "Put", "Delete", "Increment" };
      gsize klen, vlen = 0;
      const guint8 *k = g_bytes_get_data (m->key, &klen);
      guint8 delta[8];
      const guint8 *v = m->value != NULL ? g_bytes_get_data (m->value, &vlen) : NULL;
      if (m->kind == AB_MUT_INCREMENT)
        {
          ab_codec_put_be64 (delta, m->delta);
          v = delta;
          vlen = 8;
        }
      g_autofree gchar *row = g_base64_encode (k, klen);
      g_autofree gchar *val = g_base64_encode (v != NULL ? v : (const guint8 *) "", vlen);
      json_builder_begin_object (jb);
      json_builder_set_member_name (jb, "kind");
      json_builder_add_string_value (jb, kinds[m->kind]);
      json_builder_set_member_name (jb, "table");
      json_builder_add_string_value (jb, "edges");
      json_builder_set_member_name (jb, "cells");
      json_builder_begin_array (jb);
      json_builder_begin_object (jb);
      json_builder_set_member_name (jb, "family");
      json_builder_add_string_value (jb, "Zg==");
      json_builder_set_member_name (jb, "qualifier");
      json_builder_add_string_value (jb, "ZQ==");
      json_builder_set_member_name (jb, "row");
      json_builder_add_string_value (jb, row);
      json_builder_set_member_name (jb, "value");
      json_builder_add_string_value (jb, val);
      json_builder_end_object (jb);
      json_builder_end_array (jb);
      json_builder_end_object (jb);
    }
  json_builder_end_array (jb);
  json_builder_end_object (jb);
  return json_builder_get_root (jb);
}

/* Reads the stored state (or the initial one). */
static gboolean
read_state (AbEngine *engine, const AbTableDesc *t, const AbKeyGroup *g, AbState *out,
            GError **error)
{
  gboolean multi = t->schema->kind == AB_TABLE_MULTI_EDGE;
  g_autoptr (GByteArray) key = ab_codec_state_key (&g->source, multi ? &g->source : &g->target,
                                                   t->code, error);
  g_autoptr (GBytes) value = NULL;
  if (key == NULL || !ab_store_get (engine->store, key->data, key->len, &value, error))
    return FALSE;
  if (value == NULL)
    {
      ab_state_init (out, t->schema->fields->len);
      return TRUE;
    }
  gsize len;
  const guint8 *data = g_bytes_get_data (value, &len);
  return ab_state_decode (t->schema, data, len, out, error);
}

/* Folds, plans and writes one key; the lock is held by the caller. */
static AbKeyStatus
apply_locked (KeyJob *job, GError **error)
{
  const AbTableDesc *t = job->table;
  AbKeyGroup *g = job->group;
  AbState before, after;
  gboolean immutable = t->schema->kind == AB_TABLE_IMMUTABLE_EDGE;
  if (immutable)
    ab_state_init (&before, t->schema->fields->len);
  else if (!read_state (job->engine, t, g, &before, error))
    return AB_STATUS_ERROR;
  ab_state_copy (&after, &before);
  g_ptr_array_sort (g->events, by_version);
  for (guint i = 0; i < g->events->len; i++)
    ab_state_transit (&after, g->events->pdata[i], job->insert_merge);
  AbKeyStatus status = AB_STATUS_ERROR;
  g_autoptr (AbBatch) batch = ab_batch_new ();
  GError *local = NULL;
  if (!ab_state_check_valid (t->schema, &after, &local))
    {
      status = job->insert_merge ? AB_STATUS_INVALID : AB_STATUS_ERROR;
      g_propagate_error (error, local);
    }
  else if (immutable)
    {
      /* Immutable tables keep Index rows only. */
      g_autoptr (AbBatch) all = ab_batch_new ();
      status = ab_engine_plan (t, &g->source, &g->target, &before, &after, all, error);
      for (guint i = 0; status != AB_STATUS_ERROR && i < all->items->len; i++)
        {
          AbMutation *m = &g_array_index (all->items, AbMutation, i);
          gsize kl, vl;
          const guint8 *k = g_bytes_get_data (m->key, &kl);
          if (i > 0 && m->kind == AB_MUT_PUT) /* item 0 is the State row */
            ab_batch_put (batch, k, kl, g_bytes_get_data (m->value, &vl), vl);
        }
    }
  else
    status = ab_engine_plan (t, &g->source, &g->target, &before, &after, batch, error);
  if (status != AB_STATUS_ERROR && status != AB_STATUS_INVALID
      && !ab_store_batch (job->engine->store, batch, error))
    status = AB_STATUS_ERROR;
  if (status != AB_STATUS_ERROR && job->opts->include_context)
    job->result->context = storage_ops (batch);
  ab_state_clear (&before);
  ab_state_clear (&after);
  return status;
}

static void
run_key (KeyJob *job)
{
  AbKeyGroup *g = job->group;
  AbKeyResult *r = job->result;
  ab_value_copy (&r->source, &g->source);
  ab_value_copy (&r->target, &g->target);
  gboolean multi = job->table->schema->kind == AB_TABLE_MULTI_EDGE;
  gboolean use_lock = job->opts->lock && job->table->schema->kind != AB_TABLE_IMMUTABLE_EDGE;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) lock_key = NULL, token = NULL;
  if (use_lock)
    {
      GByteArray *k = ab_codec_lock_key (&g->source, multi ? &g->source : &g->target,
                                         job->table->code, &error);
      if (k != NULL)
        lock_key = g_byte_array_free_to_bytes (k);
    }
  if (use_lock && (lock_key == NULL || !ab_engine_lock (job->engine, lock_key, &token, &error)))
    r->status = AB_STATUS_ERROR;
  else
    r->status = apply_locked (job, &error);
  if (token != NULL)
    ab_engine_unlock (job->engine, lock_key, token);
  r->count = r->status == AB_STATUS_ERROR ? 0 : g->events->len;
  if (error != NULL)
    {
      r->message = g_strdup (error->message);
      if (r->status == AB_STATUS_ERROR)
        g_warning ("mutation of %s failed: %s", g->sort_key, error->message);
    }
}

void
ab_engine_key_job_run (gpointer data, gpointer engine)
{
  KeyJob *job = data;
  run_key (job);
  g_mutex_lock (job->mu);
  if (--*job->pending == 0)
    g_cond_signal (job->cond);
  g_mutex_unlock (job->mu);
}

/* §8: the effective mode; FALSE (400) for forbidden combinations. */
static gboolean
effective_mode (const AbTableDesc *t, const AbMutateOptions *o, AbMutationMode *mode,
                GError **error)
{
  if (o->force && !o->sync_request)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "force=true requires a request mode (use /edges/sync)");
  if (o->force)
    {
      *mode = AB_MODE_SYNC;
      return TRUE;
    }
  if (t->mode == AB_MODE_DENY)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "Table %s.%s denies mutations (mode DENY).", t->database, t->table);
  if (o->sync_request && t->mode == AB_MODE_DROP)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "Table %s.%s drops mutations (mode DROP); a SYNC request needs force=true.",
                           t->database, t->table);
  *mode = o->sync_request ? AB_MODE_SYNC : t->mode;
  return TRUE;
}

static gint
by_sort_key (gconstpointer a, gconstpointer b)
{
  const AbKeyGroup *x = *(AbKeyGroup *const *) a, *y = *(AbKeyGroup *const *) b;
  return strcmp (x->sort_key, y->sort_key);
}

static void
run_all (AbEngine *engine, const AbTableDesc *t, const AbMutateOptions *opts,
         GPtrArray *groups, GArray *results)
{
  GMutex mu;
  GCond cond;
  guint pending = groups->len;
  g_mutex_init (&mu);
  g_cond_init (&cond);
  KeyJob *jobs = g_new0 (KeyJob, groups->len);
  gboolean merge = ab_engine_insert_merge (engine, t->database);
  for (guint i = 0; i < groups->len; i++)
    {
      jobs[i] = (KeyJob){ engine, t, opts, merge, groups->pdata[i],
                          &g_array_index (results, AbKeyResult, i), &mu, &cond, &pending };
      if (groups->len == 1)
        ab_engine_key_job_run (&jobs[i], engine);
      else
        g_thread_pool_push (engine->key_pool, &jobs[i], NULL);
    }
  g_mutex_lock (&mu);
  while (pending > 0)
    g_cond_wait (&cond, &mu);
  g_mutex_unlock (&mu);
  g_mutex_clear (&mu);
  g_cond_clear (&cond);
  g_free (jobs);
}

GArray *
ab_engine_mutate (AbEngine *engine, const AbMutateOptions *opts, JsonNode *body,
                  GError **error)
{
  g_autofree gchar *alias = NULL;
  g_autoptr (AbTableDesc) t = ab_engine_resolve (engine, opts->database, opts->table, &alias,
                                                 error);
  if (t == NULL)
    return NULL;
  gboolean multi = t->schema->kind == AB_TABLE_MULTI_EDGE;
  if (multi != opts->multi_edge)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, multi
                           ? "Table %s.%s is a multi-edge table: use the /multi-edges endpoints."
                           : "Table %s.%s is not a multi-edge table: use the /edges endpoints.",
                           t->database, t->table), NULL;
  AbMutationMode mode = AB_MODE_SYNC;
  if (!effective_mode (t, opts, &mode, error))
    return NULL;
  g_autoptr (GPtrArray) groups = ab_engine_parse_mutations (
      t, body, multi, ab_engine_insert_merge (engine, t->database), engine->cfg.max_mutations,
      error);
  if (groups == NULL)
    return NULL;
  /* Results are answered sorted by "<source>:<target>" (or the id). */
  g_ptr_array_sort (groups, by_sort_key);
  GArray *results = g_array_sized_new (FALSE, TRUE, sizeof (AbKeyResult), groups->len);
  g_array_set_clear_func (results, (GDestroyNotify) key_result_clear);
  g_array_set_size (results, groups->len);
  if (mode == AB_MODE_ASYNC || mode == AB_MODE_DROP)
    for (guint i = 0; i < groups->len; i++)
      {
        AbKeyGroup *g = groups->pdata[i];
        AbKeyResult *r = &g_array_index (results, AbKeyResult, i);
        ab_value_copy (&r->source, &g->source);
        ab_value_copy (&r->target, &g->target);
        r->status = AB_STATUS_QUEUED;
        r->count = g->events->len;
      }
  else
    run_all (engine, t, opts, groups, results);
  return results;
}
