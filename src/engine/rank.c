/* Upstream's current top-K: POST /aggregations/v1/aggregate recomputes, for
 * each ranking an event belongs to, its metric from the group's counts and
 * writes it as a row of the user's rank table; the TOPK fetch step's keys. */
#include <stdatomic.h>
#include <string.h>
#include "catalog/catalog.h"
#include "engine/doc.h"
#include "engine/engine-private.h"
#include "model/groups.h"
#include "model/json_get.h"

#define GLOBAL_ENTITY "__GLOBAL__"

void
ab_rank_key_append (GString *key, const gchar *value)
{
  if (key->len > 0)
    g_string_append_c (key, '|');
  for (const gchar *p = value; *p != '\0'; p++)
    {
      if (*p == '|' || *p == '\\')
        g_string_append_c (key, '\\');
      g_string_append_c (key, *p);
    }
}

/* A field of the event as text: source/_source, target/_target or a
 * property ("" when absent). */
static gchar *
event_field (JsonObject *edge, const gchar *name)
{
  const gchar *bare = name[0] == '_' ? name + 1 : name;
  JsonNode *pn = json_object_get_member (edge, "properties");
  JsonObject *props = pn != NULL && JSON_NODE_HOLDS_OBJECT (pn) ? json_node_get_object (pn) : NULL;
  JsonNode *v = g_str_equal (bare, "source") || g_str_equal (bare, "target")
                    ? json_object_get_member (edge, bare)
                    : (props != NULL ? json_object_get_member (props, name) : NULL);
  if (v == NULL || JSON_NODE_HOLDS_NULL (v))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (v));
  return json_to_string (v, FALSE);
}

static gboolean
same_field (const gchar *a, const gchar *b)
{
  return g_str_equal (a[0] == '_' ? a + 1 : a, b[0] == '_' ? b + 1 : b);
}

/* The group fields that key a ranking: no bucket, not the dimension. */
static gboolean
keys_ranking (const AbGroupField *f, const AbRankTopk *k)
{
  return f->bucket == NULL && !same_field (f->name, k->dimension);
}

GString *
ab_rank_key (const gchar *db, const gchar *table, const AbGroup *g, const AbRankTopk *k,
             const gchar *entity, GHashTable *values)
{
  GString *key = g_string_new (NULL);
  const gchar *head[] = { db, table, k->name, k->global ? GLOBAL_ENTITY : entity };
  for (guint i = 0; i < G_N_ELEMENTS (head); i++)
    ab_rank_key_append (key, head[i]);
  for (guint i = 0; i < g->n_fields; i++)
    if (keys_ranking (&g->fields[i], k))
      {
        const gchar *v = values != NULL ? g_hash_table_lookup (values, g->fields[i].name) : NULL;
        ab_rank_key_append (key, v != NULL ? v : "");
      }
  return key;
}

/* The ranges template with each {name} the event's value. */
static gchar *
interpolate (const gchar *ranges, JsonObject *edge)
{
  g_autoptr (GString) out = g_string_new (NULL);
  for (const gchar *p = ranges; *p != '\0';)
    {
      const gchar *end = *p == '{' ? strchr (p, '}') : NULL;
      if (end == NULL || end == p + 1)
        {
          g_string_append_c (out, *p++);
          continue;
        }
      g_autofree gchar *name = g_strndup (p + 1, (gsize) (end - p - 1));
      g_autofree gchar *v = event_field (edge, name);
      g_string_append (out, v);
      p = end + 1;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Versions of rank rows: the engine's clock, never twice the same. */
static gint64
next_version (AbEngine *e)
{
  static atomic_int_fast64_t last;
  gint64 now = ab_engine_now_ms (e), prev = atomic_load (&last), next;
  do
    next = MAX (now, prev + 1);
  while (!atomic_compare_exchange_weak (&last, &prev, next));
  return next;
}

/* One ranking of one event: its metric (the group's cells under the
 * ranges, summed) written as the rank row source -> dimension value. */
static gboolean
rank_one (AbEngine *e, const AbTableDesc *t, const AbGroup *g, const AbRankTopk *k,
          JsonObject *edge, AbQueryDirection dir, gchar **source_out, gchar **target_out,
          GError **error)
{
  g_autofree gchar *directed = event_field (edge, dir == AB_QDIR_OUT ? "source" : "target");
  g_autoptr (GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  for (guint i = 0; i < g->n_fields; i++)
    g_hash_table_insert (values, g->fields[i].name, event_field (edge, g->fields[i].name));
  g_autoptr (GString) key = ab_rank_key (t->database, t->table, g, k, directed, values);
  g_autofree gchar *dim = event_field (edge, k->dimension);
  *source_out = g_strdup (key->str);
  *target_out = g_strdup (dim);
  g_autofree gchar *ranges = interpolate (k->ranges, edge);
  AbAggParams p = { .group = g->name,
                    .start = directed,
                    .direction = dir,
                    .ranges = *ranges != '\0' ? ranges : NULL,
                    .limit = -1 };
  g_autoptr (AbAggResult) r = ab_engine_agg (e, t->database, t->table, &p, error);
  if (r == NULL)
    return FALSE;
  gint64 metric = 0;
  for (guint c = 0; c < r->values->len; c++)
    metric += g_array_index (r->values, gint64, c);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "mutations");
  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "INSERT");
  json_builder_set_member_name (b, "edge");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, next_version (e));
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, key->str);
  json_builder_set_member_name (b, "target");
  json_builder_add_string_value (b, dim);
  json_builder_set_member_name (b, "properties");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "metric");
  json_builder_add_int_value (b, metric);
  if (k->additional[0] != NULL)
    {
      g_autoptr (JsonBuilder) extra = json_builder_new ();
      json_builder_begin_object (extra);
      for (guint i = 0; k->additional[i] != NULL; i++)
        {
          g_autofree gchar *v = event_field (edge, k->additional[i]);
          json_builder_set_member_name (extra, k->additional[i]);
          json_builder_add_string_value (extra, v);
        }
      json_builder_end_object (extra);
      g_autoptr (JsonNode) root = json_builder_get_root (extra);
      g_autofree gchar *text = json_to_string (root, FALSE);
      json_builder_set_member_name (b, "additionalProperties");
      json_builder_add_string_value (b, text);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonNode) body = json_builder_get_root (b);
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = k->rank_db;
  o.table = k->rank_table;
  o.edges_endpoint = TRUE;
  o.sync_request = TRUE;
  o.actor = "aggregate";
  g_autoptr (GArray) results = ab_engine_mutate (e, &o, body, error);
  if (results == NULL)
    return FALSE;
  const AbKeyResult *kr = &g_array_index (results, AbKeyResult, 0);
  if (kr->status == AB_STATUS_ERROR || kr->status == AB_STATUS_INVALID)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "the rank row of %s.%s: %s",
                           k->rank_db, k->rank_table, kr->message != NULL ? kr->message : "");
  return TRUE;
}

static void
add_result (JsonBuilder *b, const AbRankTopk *k, const gchar *source, const gchar *target,
            const GError *error)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "database");
  json_builder_add_string_value (b, k->rank_db);
  json_builder_set_member_name (b, "table");
  json_builder_add_string_value (b, k->rank_table);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, source);
  json_builder_set_member_name (b, "target");
  json_builder_add_string_value (b, target);
  json_builder_set_member_name (b, "status");
  json_builder_add_string_value (b, error == NULL ? "SUCCESS" : "ERROR");
  json_builder_set_member_name (b, "error");
  if (error == NULL)
    json_builder_add_null_value (b);
  else
    json_builder_add_string_value (b, error->message);
  json_builder_end_object (b);
}

/* Every ranking of one item {database, table, edge}; 400 for a bad item. */
static gboolean
aggregate_item (AbEngine *e, JsonObject *item, const gchar *path, JsonBuilder *out, GError **error)
{
  g_autofree gchar *db = NULL, *table = NULL;
  JsonObject *edge = NULL;
  if (!ab_model_json_string (item, path, "database", TRUE, NULL, &db, error)
      || !ab_model_json_string (item, path, "table", TRUE, NULL, &table, error)
      || !ab_model_json_child (item, path, "edge", TRUE, &edge, error))
    return FALSE;
  if (!json_object_has_member (edge, "source") || !json_object_has_member (edge, "target"))
    return ab_model_invalid (error, "'%s.edge' needs a source and a target.", path);
  g_autoptr (AbTableDesc) t = ab_engine_resolve (e, db, table, NULL, error);
  if (t == NULL)
    return FALSE;
  for (guint i = 0; t->schema->group_defs != NULL && i < t->schema->group_defs->len; i++)
    {
      const AbGroup *g = t->schema->group_defs->pdata[i];
      for (guint r = 0; r < g->ranks->len; r++)
        for (guint d = 0; d < 2; d++)
          {
            AbQueryDirection dir = d == 0 ? AB_QDIR_OUT : AB_QDIR_IN;
            if (g->direction != AB_DIRTYPE_BOTH
                && (g->direction == AB_DIRTYPE_OUT) != (dir == AB_QDIR_OUT))
              continue;
            g_autofree gchar *source = NULL, *target = NULL;
            g_autoptr (GError) local = NULL;
            rank_one (e, t, g, g->ranks->pdata[r], edge, dir, &source, &target, &local);
            add_result (out, g->ranks->pdata[r], source != NULL ? source : "",
                        target != NULL ? target : "", local);
          }
    }
  return TRUE;
}

JsonNode *
ab_engine_aggregate (AbEngine *e, JsonObject *body, GError **error)
{
  JsonArray *items = NULL;
  GError *local = NULL;
  if (!ab_model_json_array (body, NULL, "items", TRUE, &items, &local))
    return ab_engine_propagate (error, local), NULL;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "items");
  json_builder_begin_array (b);
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      g_autofree gchar *path = g_strdup_printf ("items[%u]", i);
      JsonObject *item = ab_model_json_object (json_array_get_element (items, i), path, &local);
      if (item == NULL || !aggregate_item (e, item, path, b, &local))
        return ab_engine_propagate (error, local), NULL;
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* ---- the TOPK fetch step ---- */

static gboolean
resolve_topk (AbEngine *e, AbDocItem *it, GError **error)
{
  g_autoptr (AbTableDesc) t = ab_engine_resolve (e, it->database, it->table, NULL, error);
  if (t == NULL)
    return FALSE;
  const AbGroup *g = NULL;
  const AbRankTopk *k = ab_schema_rank_topk (t->schema, it->topk, &g);
  if (k == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "Unknown topk `%s` for %s.%s.",
                           it->topk, t->database, t->table);
  g_autoptr (AbTableDesc) rank = ab_engine_resolve (e, k->rank_db, k->rank_table, NULL, error);
  if (rank == NULL)
    return FALSE;
  if (ab_schema_index (rank->schema, "metric_desc") == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "rank table %s.%s of topk `%s` has no index `metric_desc`.", k->rank_db,
                           k->rank_table, it->topk);
  if (it->source.kind != AB_VERTEX_VALUE)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "item `%s` (TOPK): `entity` must be a VALUE vertex.", it->name);
  for (guint i = 0; i < it->source.values->len; i++)
    {
      AbValue *v = &g_array_index (it->source.values, AbValue, i);
      g_autofree gchar *entity = ab_value_to_string (v);
      GString *key = ab_rank_key (t->database, t->table, g, k, entity, it->dims);
      ab_value_clear (v);
      gsize len = key->len;
      ab_value_take_string (v, AB_VALUE_STRING, g_string_free (key, FALSE), len);
    }
  it->kind = AB_ITEM_SCAN;
  g_free (it->database), it->database = g_strdup (k->rank_db);
  g_free (it->table), it->table = g_strdup (k->rank_table);
  it->index = g_strdup ("metric_desc");
  it->direction = AB_QDIR_OUT;
  return TRUE;
}

gboolean
ab_doc_resolve_topks (AbEngine *engine, GPtrArray *items, GError **error)
{
  for (guint i = 0; i < items->len; i++)
    {
      AbDocItem *it = items->pdata[i];
      if (it->kind == AB_ITEM_TOPK && !resolve_topk (engine, it, error))
        return FALSE;
    }
  return TRUE;
}
