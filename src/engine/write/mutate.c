/* Mutation requests: options, statuses, mode resolution (docs/data-model.md §8),
 * parsing into key groups and the answer sorted by key; applying the keys
 * is apply.c's job. */
#include <string.h>
#include "engine/write/write.h"

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
  static const gchar *names[]
      = { "CREATED", "UPDATED", "DELETED", "IDLE", "QUEUED", "ERROR", "INVALID" };
  return AB_ENUM_NAME (names, s);
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

/* §8: mode = force ? request : (system ?: request ?: table); FALSE (400)
 * for the combinations upstream refuses and for DENY. */
static gboolean
effective_mode (AbEngine *engine, const AbTableDesc *t, const AbMutateOptions *o,
                AbMutationMode *mode, GError **error)
{
  gint system = engine->cfg.system_mode;
  if (o->internal)
    {
      *mode = AB_MODE_SYNC;
      return TRUE;
    }
  if (o->force && !o->sync_request)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "force=true requires a request mode (use /edges/sync)");
  if (o->force)
    {
      *mode = AB_MODE_SYNC;
      return TRUE;
    }
  if (o->sync_request && t->mode == AB_MODE_DROP && system < 0)
    return ab_engine_fail (
        error, AB_ENGINE_ERROR_BAD_REQUEST,
        "Table %s.%s drops mutations (mode DROP); a SYNC request needs force=true.", t->database,
        t->table);
  *mode = system >= 0 ? (AbMutationMode) system : o->sync_request ? AB_MODE_SYNC : t->mode;
  if (*mode == AB_MODE_DENY || t->mode == AB_MODE_DENY)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "Table %s.%s denies mutations (mode DENY).", t->database, t->table);
  if (*mode == AB_MODE_ASYNC && engine->cfg.async_refused != NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_UNAVAILABLE, "%s", engine->cfg.async_refused);
  return TRUE;
}

/* Queued keys: QUEUED, or the intent of the key's highest-version event when
 * only the system mode made a SYNC table asynchronous (§8). */
static void
queue_results (const AbTableDesc *t, const AbMutateOptions *o, gint system, GPtrArray *groups,
               GArray *results)
{
  gboolean intent = system == AB_MODE_ASYNC && t->mode == AB_MODE_SYNC && !o->sync_request;
  for (guint i = 0; i < groups->len; i++)
    {
      AbKeyGroup *g = groups->pdata[i];
      AbKeyResult *r = &g_array_index (results, AbKeyResult, i);
      ab_value_copy (&r->source, &g->source);
      ab_value_copy (&r->target, &g->target);
      r->status = AB_STATUS_QUEUED;
      r->count = g->events->len;
      if (!intent)
        continue;
      const AbEvent *top = ab_events_last_folded (g->events);
      r->status = top->type == AB_OP_INSERT   ? AB_STATUS_CREATED
                  : top->type == AB_OP_UPDATE ? AB_STATUS_UPDATED
                                              : AB_STATUS_DELETED; /* DELETE, PURGE */
    }
}

/* One WAL record per event before anything is applied; queued requests wait
 * until the records are durable (else 503 and nothing changes). */
static gboolean
write_wal (AbEngine *engine, const AbWalContext *ctx, GPtrArray *groups, GError **error)
{
  if (ctx->opts->internal || ab_sink_is_none (engine->wal))
    return TRUE;
  g_autoptr (GPtrArray) records = ab_engine_wal_records (engine, ctx, groups);
  GError *local = NULL;
  if (ab_sink_append (engine->wal, records, ctx->queued, &local))
    return TRUE;
  ab_engine_fail (error, AB_ENGINE_ERROR_UNAVAILABLE, "the WAL could not record the mutation: %s",
                  local->message);
  g_error_free (local);
  return FALSE;
}

static gint
by_sort_key (gconstpointer a, gconstpointer b)
{
  const AbKeyGroup *x = *(AbKeyGroup *const *) a, *y = *(AbKeyGroup *const *) b;
  return strcmp (x->sort_key, y->sort_key);
}

/* Each table kind has its endpoints (docs/data-model.md §11): /multi-edges
 * for multi-edge tables, /vertices for vertex tables, /edges for the others.
 * A vertex table also takes edge items (source = id) from the engine's own
 * writers, which do not set edges_endpoint. */
static gboolean
check_endpoint (const AbTableDesc *t, const AbMutateOptions *o, GError **error)
{
  AbTableKind kind = t->schema->kind;
  const gchar *use = kind == AB_TABLE_MULTI_EDGE ? "/multi-edges"
                     : kind == AB_TABLE_VERTEX   ? "/vertices"
                                                 : "/edges";
  const gchar *is = NULL;
  if (o->vertex && kind != AB_TABLE_VERTEX)
    is = "is not a vertex table";
  else if (o->vertex)
    return TRUE;
  else if ((kind == AB_TABLE_MULTI_EDGE) != o->multi_edge)
    is = o->multi_edge ? "is not a multi-edge table" : "is a multi-edge table";
  else if (kind == AB_TABLE_VERTEX && o->edges_endpoint)
    is = "is a vertex table";
  if (is == NULL)
    return TRUE;
  return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                         "Table %s.%s %s: use the %s endpoints.", t->database, t->table, is, use);
}

/* PURGE items come from the v2 purge route (opts->purge) or, replayed from
 * the WAL, from internal writes; any other request naming one is a 400 as
 * for an unknown type. */
static gboolean
check_purges (const AbMutateOptions *o, GPtrArray *groups, GError **error)
{
  const AbEvent *first = NULL;
  for (guint i = 0; !o->purge && !o->internal && i < groups->len; i++)
    {
      GPtrArray *events = ((AbKeyGroup *) groups->pdata[i])->events;
      for (guint e = 0; e < events->len; e++)
        {
          const AbEvent *ev = events->pdata[e];
          if (ev->type == AB_OP_PURGE && (first == NULL || ev->seq < first->seq))
            first = ev;
        }
    }
  return first == NULL
         || ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                            "mutations[%u]: type must be INSERT, UPDATE or DELETE", first->seq);
}

/* One mutation request from its body to its results; lives until they are
 * handed over (the async path owns it on the heap). */
typedef struct {
  AbEngine *engine;
  AbTableDesc *table;
  gchar *alias;
  AbMutateOptions opts;
  AbWalContext ctx;
  GPtrArray *groups;
  GArray *results;
  AbMutateDone done;
  gpointer user;
  /* the request's items: a JSON body or typed items (borrowed until begun) */
  JsonNode *body;
  const AbMutationItem *items;
  guint n_items;
  gboolean typed;
} MutateJob;

static void
mutate_job_free (MutateJob *job)
{
  g_clear_pointer (&job->table, ab_table_desc_unref);
  g_free (job->alias);
  g_clear_pointer (&job->groups, g_ptr_array_unref);
  g_clear_pointer (&job->results, g_array_unref);
  g_free (job);
}

/* Steps before applying: resolve, mode, parse and validate every item
 * (nothing written on a 400), sort, WAL. FALSE + error: nothing happened. */
static gboolean
mutate_begin (MutateJob *job, GError **error)
{
  AbEngine *engine = job->engine;
  const AbMutateOptions *opts = &job->opts;
  AbTableDesc *t = job->table
      = ab_engine_resolve (engine, opts->database, opts->table, &job->alias, error);
  if (t == NULL)
    return FALSE;
  if (!check_endpoint (t, opts, error))
    return FALSE;
  AbMutationMode mode = AB_MODE_SYNC;
  if (!effective_mode (engine, t, opts, &mode, error))
    return FALSE;
  gboolean merge = ab_engine_insert_merge (engine, t->database);
  job->groups = !job->typed ? ab_engine_parse_mutations (t, job->body, opts->vertex, merge,
                                                         engine->cfg.max_mutations, error)
                            : ab_engine_group_items (t, job->items, job->n_items, merge,
                                                     engine->cfg.max_mutations, error);
  if (job->groups == NULL || !check_purges (opts, job->groups, error))
    return FALSE;
  /* Results are answered sorted by "<source>:<target>" (or the id). */
  g_ptr_array_sort (job->groups, by_sort_key);
  job->results = g_array_sized_new (FALSE, TRUE, sizeof (AbKeyResult), job->groups->len);
  g_array_set_clear_func (job->results, (GDestroyNotify) key_result_clear);
  g_array_set_size (job->results, job->groups->len);
  job->ctx = (AbWalContext){ .table = t,
                             .alias = job->alias,
                             .opts = opts,
                             .table_mode = t->mode,
                             .system_mode = engine->cfg.system_mode,
                             .queued = mode == AB_MODE_ASYNC || mode == AB_MODE_DROP };
  if (!write_wal (engine, &job->ctx, job->groups, error))
    return FALSE;
  if (job->ctx.queued)
    queue_results (t, opts, engine->cfg.system_mode, job->groups, job->results);
  return TRUE;
}

/* A request the store refused whole (nothing of it written) answers 503
 * with the store's reason rather than ERROR per key: the client retries it
 * as it is (docs/rest-api.md §3.4). */
static void
mutate_applied (const GError *refused, gpointer data)
{
  MutateJob *job = data;
  if (refused != NULL)
    job->done (NULL,
               g_error_new (AB_ENGINE_ERROR, AB_ENGINE_ERROR_UNAVAILABLE,
                            "nothing of the mutation was written: %s", refused->message),
               job->user);
  else
    job->done (g_steal_pointer (&job->results), NULL, job->user);
  mutate_job_free (job);
}

static void
mutate_start (MutateJob *job)
{
  GError *error = NULL;
  gboolean begun = mutate_begin (job, &error);
  job->body = NULL;
  job->items = NULL;
  if (!begun)
    {
      job->done (NULL, error, job->user);
      mutate_job_free (job);
    }
  else if (job->ctx.queued)
    mutate_applied (NULL, job);
  else
    ab_engine_apply_async (job->engine, &job->ctx, job->groups, job->results, mutate_applied, job);
}

static MutateJob *
mutate_job_new (AbEngine *engine, const AbMutateOptions *opts, AbMutateDone done, gpointer user)
{
  MutateJob *job = g_new0 (MutateJob, 1);
  job->engine = engine;
  job->opts = *opts;
  job->done = done;
  job->user = user;
  return job;
}

void
ab_engine_mutate_async (AbEngine *engine, const AbMutateOptions *opts, JsonNode *body,
                        AbMutateDone done, gpointer user)
{
  MutateJob *job = mutate_job_new (engine, opts, done, user);
  job->body = body;
  mutate_start (job);
}

void
ab_engine_mutate_items_async (AbEngine *engine, const AbMutateOptions *opts,
                              const AbMutationItem *items, guint n_items, AbMutateDone done,
                              gpointer user)
{
  MutateJob *job = mutate_job_new (engine, opts, done, user);
  job->items = items;
  job->n_items = n_items;
  job->typed = TRUE;
  mutate_start (job);
}

/* Waiting for the asynchronous forms. */
typedef struct {
  AbWait wait;
  GArray *results;
  GError *error;
} MutateWait;

static void
mutate_wait_done (GArray *results, GError *error, gpointer data)
{
  MutateWait *w = data;
  w->results = results;
  w->error = error;
  ab_wait_signal (&w->wait);
}

static GArray *
mutate_wait (MutateWait *w, GError **error)
{
  ab_wait_until_signalled (&w->wait);
  if (w->error != NULL)
    g_propagate_error (error, w->error);
  return w->results;
}

GArray *
ab_engine_mutate (AbEngine *engine, const AbMutateOptions *opts, JsonNode *body, GError **error)
{
  MutateWait w = { 0 };
  ab_wait_init (&w.wait);
  ab_engine_mutate_async (engine, opts, body, mutate_wait_done, &w);
  return mutate_wait (&w, error);
}

GArray *
ab_engine_mutate_items (AbEngine *engine, const AbMutateOptions *opts, const AbMutationItem *items,
                        guint n_items, GError **error)
{
  MutateWait w = { 0 };
  ab_wait_init (&w.wait);
  ab_engine_mutate_items_async (engine, opts, items, n_items, mutate_wait_done, &w);
  return mutate_wait (&w, error);
}
