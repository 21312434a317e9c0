/* Mutation requests: options, statuses, mode resolution (semantics.md §8),
 * parsing into key groups and the answer sorted by key; applying the keys
 * is apply.c's job. */
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
    ab_engine_apply (engine, t, opts, groups, results);
  return results;
}
