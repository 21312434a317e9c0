/* Upstream's current top-K: POST /aggregations/v1/aggregate recomputes, for
 * each ranking an event belongs to, its metric from the group's counts and
 * writes it as a row of the user's rank table; the TOPK fetch step's keys. */
#include <stdatomic.h>
#include <string.h>
#include "catalog/catalog.h"
#include "engine/doc/doc.h"
#include "engine/core/core.h"
#include "engine/queue/queue.h"
#include "model/groups.h"
#include "model/json_get.h"

#define GLOBAL_ENTITY "__GLOBAL__"

static void
escape_into (GString *out, const gchar *value)
{
  for (const gchar *p = value; *p != '\0'; p++)
    {
      if (*p == '|' || *p == '\\')
        g_string_append_c (out, '\\');
      g_string_append_c (out, *p);
    }
}

void
ab_rank_key_append (GString *key, const gchar *value)
{
  if (key->len > 0)
    g_string_append_c (key, '|');
  escape_into (key, value);
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

/* The key's dimension values (the group fields that key a ranking, in
 * order), escaped and joined; a missing value is "". */
static gchar *
join_dims (const AbGroup *g, const AbRankTopk *k, GHashTable *values)
{
  GString *dims = g_string_new (NULL);
  gboolean first = TRUE;
  for (guint i = 0; i < g->n_fields; i++)
    if (keys_ranking (&g->fields[i], k))
      {
        const gchar *v = values != NULL ? g_hash_table_lookup (values, g->fields[i].name) : NULL;
        if (!first)
          g_string_append_c (dims, '|');
        first = FALSE;
        escape_into (dims, v != NULL ? v : "");
      }
  return g_string_free (dims, FALSE);
}

/* database|table|topk|entity, then the joined dimension values if the
 * group has any. */
static GString *
key_of (const gchar *db, const gchar *table, const AbGroup *g, const AbRankTopk *k,
        const gchar *entity, const gchar *dims)
{
  GString *key = g_string_new (NULL);
  const gchar *head[] = { db, table, k->name, k->global ? GLOBAL_ENTITY : entity };
  for (guint i = 0; i < G_N_ELEMENTS (head); i++)
    ab_rank_key_append (key, head[i]);
  for (guint i = 0; i < g->n_fields; i++)
    if (keys_ranking (&g->fields[i], k))
      {
        g_string_append_printf (key, "|%s", dims);
        break;
      }
  return key;
}

GString *
ab_rank_key (const gchar *db, const gchar *table, const AbGroup *g, const AbRankTopk *k,
             const gchar *entity, GHashTable *values)
{
  g_autofree gchar *dims = join_dims (g, k, values);
  return key_of (db, table, g, k, entity, dims);
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

/* One ranking to recompute, from an event or from a refresh message. */
typedef struct {
  AbQueryDirection dir;
  gchar *source, *target; /* the event's */
  gchar *directed;        /* the group row the metric is summed from */
  gchar *entity;          /* the key's entity: the directed value or __GLOBAL__ */
  gchar *dims;            /* the key's dimension values, escaped and joined */
  gchar *dim;             /* the ranked value: the rank row's target */
  gchar *ranges;          /* the filled template */
  JsonObject *extra;      /* additionalProperties, or NULL */
  GString *key;           /* the rank row's source */
} RankInput;

static void
rank_input_clear (RankInput *in)
{
  g_free (in->source);
  g_free (in->target);
  g_free (in->directed);
  g_free (in->entity);
  g_free (in->dims);
  g_free (in->dim);
  g_free (in->ranges);
  g_clear_pointer (&in->extra, json_object_unref);
  if (in->key != NULL)
    g_string_free (in->key, TRUE);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RankInput, rank_input_clear)

static void
input_from_event (const AbTableDesc *t, const AbGroup *g, const AbRankTopk *k, JsonObject *edge,
                  AbQueryDirection dir, RankInput *in)
{
  in->dir = dir;
  in->source = event_field (edge, "source");
  in->target = event_field (edge, "target");
  in->directed = g_strdup (dir == AB_QDIR_OUT ? in->source : in->target);
  in->entity = g_strdup (k->global ? GLOBAL_ENTITY : in->directed);
  g_autoptr (GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  for (guint i = 0; i < g->n_fields; i++)
    g_hash_table_insert (values, g->fields[i].name, event_field (edge, g->fields[i].name));
  in->dims = join_dims (g, k, values);
  in->dim = event_field (edge, k->dimension);
  in->ranges = interpolate (k->ranges, edge);
  if (k->additional[0] != NULL)
    {
      in->extra = json_object_new ();
      for (guint i = 0; k->additional[i] != NULL; i++)
        {
          g_autofree gchar *v = event_field (edge, k->additional[i]);
          json_object_set_string_member (in->extra, k->additional[i], v);
        }
    }
  in->key = key_of (t->database, t->table, g, k, in->entity, in->dims);
}

/* The ranking's metric (the group's cells under the ranges, summed) written
 * as the rank row key -> dimension value. */
static gboolean
rank_write (AbEngine *e, const AbTableDesc *t, const AbGroup *g, const AbRankTopk *k,
            const RankInput *in, GError **error)
{
  AbAggParams p = { .group = g->name,
                    .start = in->directed,
                    .direction = in->dir,
                    .ranges = *in->ranges != '\0' ? in->ranges : NULL,
                    .limit = -1 };
  g_autoptr (AbAggResult) r = ab_engine_agg (e, t->database, t->table, &p, error);
  if (r == NULL)
    return FALSE;
  gint64 metric = 0;
  for (guint c = 0; c < r->values->len; c++)
    metric += g_array_index (r->values, gint64, c);
  JsonObject *props = json_object_new ();
  json_object_set_int_member (props, "metric", metric);
  if (in->extra != NULL)
    {
      g_autoptr (JsonNode) extra = json_node_init_object (json_node_alloc (), in->extra);
      g_autofree gchar *text = json_to_string (extra, FALSE);
      json_object_set_string_member (props, "additionalProperties", text);
    }
  JsonObject *edge = json_object_new ();
  json_object_set_int_member (edge, "version", next_version (e));
  json_object_set_string_member (edge, "source", in->key->str);
  json_object_set_string_member (edge, "target", in->dim);
  json_object_set_object_member (edge, "properties", props);
  JsonObject *mutation = json_object_new ();
  json_object_set_string_member (mutation, "type", "INSERT");
  json_object_set_object_member (mutation, "edge", edge);
  JsonArray *mutations = json_array_new ();
  json_array_add_object_element (mutations, mutation);
  JsonObject *o = json_object_new ();
  json_object_set_array_member (o, "mutations", mutations);
  g_autoptr (JsonNode) body = json_node_init_object (json_node_alloc (), o);
  json_object_unref (o);
  AbMutateOptions opts;
  ab_mutate_options_init (&opts);
  opts.database = k->rank_db;
  opts.table = k->rank_table;
  opts.edges_endpoint = TRUE;
  opts.sync_request = TRUE;
  opts.actor = "aggregate";
  g_autoptr (GArray) results = ab_engine_mutate (e, &opts, body, error);
  if (results == NULL)
    return FALSE;
  const AbKeyResult *kr = &g_array_index (results, AbKeyResult, 0);
  if (kr->status == AB_STATUS_ERROR || kr->status == AB_STATUS_INVALID)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "the rank row of %s.%s: %s",
                           k->rank_db, k->rank_table, kr->message != NULL ? kr->message : "");
  return TRUE;
}

/* ---- refreshes: a ranking over a window relative to now is recomputed
 * once its oldest event may have left the window ---- */

/* The bucketed group field the ranges bound with `bt` from a time relative
 * to now (`day:bt:now-365d,now`), or NULL: nothing to refresh. */
static const AbGroupField *
window_field (const AbGroup *g, const gchar *ranges)
{
  g_auto (GStrv) items = g_strsplit (ranges, ";", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      g_auto (GStrv) part = g_strsplit (items[i], ":", 3);
      if (g_strv_length (part) < 3 || !g_str_equal (part[1], "bt"))
        continue;
      g_autofree gchar *lower = g_strndup (part[2], strcspn (part[2], ","));
      gint64 offset;
      gint f = ab_group_field_named (g, part[0]);
      if (f >= 0 && g->fields[f].bucket != NULL && ab_topk_now_offset (lower, &offset))
        return &g->fields[f];
    }
  return NULL;
}

/* When the ranking is due again: the start of the event's bucket, plus the
 * declared delay, plus one bucket (now plus the delay without a value). */
static gint64
refresh_at (AbEngine *e, const AbGroupField *f, const AbRankTopk *k, JsonObject *edge)
{
  g_autofree gchar *text = event_field (edge, f->name);
  gint64 v, start, next;
  if (g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &v, NULL)
      && ab_bucket_bounds (f->bucket, v, &start, &next))
    return start + k->refresh_after_ms + (next - start);
  return ab_engine_now_ms (e) + k->refresh_after_ms;
}

static void
set_string_or_empty (JsonObject *o, const gchar *name, const gchar *v)
{
  json_object_set_string_member (o, name, v != NULL ? v : "");
}

/* Queues {type: TOPK, item} on topk/<refreshQueue>, keyed by the ranking. */
static gboolean
queue_refresh (AbEngine *e, const AbTableDesc *t, const AbRankTopk *k, const RankInput *in,
               gint64 due, GError **error)
{
  JsonObject *item = json_object_new ();
  set_string_or_empty (item, "database", t->database);
  set_string_or_empty (item, "table", t->table);
  set_string_or_empty (item, "topk", k->name);
  set_string_or_empty (item, "source", in->source);
  set_string_or_empty (item, "target", in->target);
  set_string_or_empty (item, "direction", in->dir == AB_QDIR_OUT ? "OUT" : "IN");
  set_string_or_empty (item, "ranges", in->ranges);
  set_string_or_empty (item, "entity", in->entity);
  set_string_or_empty (item, "topkDimensionValue", in->dim);
  set_string_or_empty (item, "dimensionValues", in->dims);
  json_object_set_object_member (
      item, "properties", in->extra != NULL ? json_object_ref (in->extra) : json_object_new ());
  json_object_set_int_member (item, "refreshAt", due);
  JsonObject *value = json_object_new ();
  json_object_set_string_member (value, "type", "TOPK");
  json_object_set_object_member (value, "item", item);
  g_autoptr (GString) key = g_string_new (NULL);
  const gchar *parts[] = { t->database, t->table, k->name, in->entity, in->dim };
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    ab_rank_key_append (key, parts[i]);
  g_string_append_printf (key, "|%s", in->dims);
  JsonObject *message = json_object_new ();
  json_object_set_string_member (message, "key", key->str);
  json_object_set_int_member (message, "seq", due);
  json_object_set_object_member (message, "value", value);
  g_autoptr (JsonArray) messages = json_array_new ();
  json_array_add_object_element (messages, message);
  guint accepted = 0;
  g_autoptr (GArray) done
      = ab_queue_enqueue (e, "topk", k->refresh_queue, messages, &accepted, error);
  return done != NULL;
}

/* ---- POST /aggregations/v1/aggregate ---- */

static void
add_result (JsonBuilder *b, const AbRankTopk *k, const RankInput *in, const GError *error)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "database");
  json_builder_add_string_value (b, k->rank_db);
  json_builder_set_member_name (b, "table");
  json_builder_add_string_value (b, k->rank_table);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, in->key->str);
  json_builder_set_member_name (b, "target");
  json_builder_add_string_value (b, in->dim);
  json_builder_set_member_name (b, "status");
  json_builder_add_string_value (b, error == NULL ? "SUCCESS" : "ERROR");
  json_builder_set_member_name (b, "error");
  if (error == NULL)
    json_builder_add_null_value (b);
  else
    json_builder_add_string_value (b, error->message);
  json_builder_end_object (b);
}

/* Recomputes one ranking of the event, then queues its refresh if due. */
static void
aggregate_one (AbEngine *e, const AbTableDesc *t, const AbGroup *g, const AbRankTopk *k,
               JsonObject *edge, AbQueryDirection dir, JsonBuilder *out)
{
  g_auto (RankInput) in = { 0 };
  input_from_event (t, g, k, edge, dir, &in);
  g_autoptr (GError) local = NULL;
  const AbGroupField *window = k->refresh_after_ms > 0 ? window_field (g, in.ranges) : NULL;
  if (rank_write (e, t, g, k, &in, &local) && window != NULL
      && !queue_refresh (e, t, k, &in, refresh_at (e, window, k, edge), &local))
    g_prefix_error (&local, "the ranking was written, but its refresh was not queued: ");
  add_result (out, k, &in, local);
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
            if (g->direction == AB_DIRTYPE_BOTH
                || (g->direction == AB_DIRTYPE_OUT) == (dir == AB_QDIR_OUT))
              aggregate_one (e, t, g, g->ranks->pdata[r], edge, dir, out);
          }
    }
  return TRUE;
}

typedef gboolean (*ItemFn) (AbEngine *e, JsonObject *item, const gchar *path, JsonBuilder *out,
                            GError **error);

/* {items: [...]} -> {items: [...]}, each item through fn. */
static JsonNode *
each_item (AbEngine *e, JsonObject *body, ItemFn fn, GError **error)
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
      if (item == NULL || !fn (e, item, path, b, &local))
        return ab_engine_propagate (error, local), NULL;
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

JsonNode *
ab_engine_aggregate (AbEngine *e, JsonObject *body, GError **error)
{
  return each_item (e, body, aggregate_item, error);
}

/* ---- POST /aggregations/v1/sweep: a queued refresh recomputed ---- */

static void
add_swept (JsonBuilder *b, const gchar *db, const gchar *table, const gchar *topk,
           const gchar *entity, const gchar *status, const gchar *error)
{
  const gchar *names[] = { "database", "table", "topk", "entity", "status" };
  const gchar *values[] = { db, table, topk, entity, status };
  json_builder_begin_object (b);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      json_builder_set_member_name (b, names[i]);
      json_builder_add_string_value (b, values[i] != NULL ? values[i] : "");
    }
  json_builder_set_member_name (b, "error");
  if (error == NULL)
    json_builder_add_null_value (b);
  else
    json_builder_add_string_value (b, error);
  json_builder_end_object (b);
}

/* The refresh message's item as the ranking to recompute. */
static gboolean
input_from_refresh (JsonObject *item, const gchar *path, RankInput *in, GError **error)
{
  g_autofree gchar *direction = NULL;
  JsonObject *props = NULL;
  if (!ab_model_json_string (item, path, "source", TRUE, NULL, &in->source, error)
      || !ab_model_json_string (item, path, "target", TRUE, NULL, &in->target, error)
      || !ab_model_json_string (item, path, "direction", FALSE, "OUT", &direction, error)
      || !ab_model_json_string (item, path, "entity", TRUE, NULL, &in->entity, error)
      || !ab_model_json_string (item, path, "topkDimensionValue", TRUE, NULL, &in->dim, error)
      || !ab_model_json_string (item, path, "dimensionValues", FALSE, "", &in->dims, error)
      || !ab_model_json_string (item, path, "ranges", FALSE, "", &in->ranges, error)
      || !ab_model_json_child (item, path, "properties", FALSE, &props, error))
    return FALSE;
  if (g_ascii_strcasecmp (direction, "OUT") != 0 && g_ascii_strcasecmp (direction, "IN") != 0)
    return ab_model_invalid (error, "%s.direction must be OUT or IN, got '%s'", path, direction);
  in->dir = g_ascii_strcasecmp (direction, "OUT") == 0 ? AB_QDIR_OUT : AB_QDIR_IN;
  in->directed = g_strdup (in->dir == AB_QDIR_OUT ? in->source : in->target);
  if (props != NULL && json_object_get_size (props) > 0)
    in->extra = json_object_ref (props);
  return TRUE;
}

static gboolean
sweep_item (AbEngine *e, JsonObject *message, const gchar *path, JsonBuilder *out, GError **error)
{
  g_autofree gchar *type = NULL, *db = NULL, *table = NULL, *topk = NULL;
  g_autofree gchar *ipath = ab_model_json_path (path, "item");
  JsonObject *item = NULL;
  g_auto (RankInput) in = { 0 };
  if (!ab_model_json_string (message, path, "type", TRUE, NULL, &type, error)
      || !ab_model_json_child (message, path, "item", TRUE, &item, error)
      || !ab_model_json_string (item, ipath, "database", TRUE, NULL, &db, error)
      || !ab_model_json_string (item, ipath, "table", TRUE, NULL, &table, error)
      || !ab_model_json_string (item, ipath, "topk", TRUE, NULL, &topk, error)
      || !input_from_refresh (item, ipath, &in, error))
    return FALSE;
  if (!g_str_equal (type, "TOPK"))
    return ab_model_invalid (error, "%s.type: unknown refresh type '%s' (supported: TOPK)", path,
                             type);
  g_autoptr (GError) local = NULL;
  g_autoptr (AbTableDesc) t = ab_engine_resolve (e, db, table, NULL, &local);
  const AbGroup *g = NULL;
  const AbRankTopk *k = t != NULL ? ab_schema_rank_topk (t->schema, topk, &g) : NULL;
  if (k == NULL)
    {
      g_autofree gchar *why
          = local != NULL
                ? g_strdup (local->message)
                : g_strdup_printf ("topk `%s` is no longer declared on %s.%s", topk, db, table);
      add_swept (out, db, table, topk, in.entity, "SKIPPED", why);
      return TRUE;
    }
  in.key = key_of (t->database, t->table, g, k, in.entity, in.dims);
  rank_write (e, t, g, k, &in, &local);
  add_swept (out, db, table, topk, in.entity, local == NULL ? "SUCCESS" : "ERROR",
             local != NULL ? local->message : NULL);
  return TRUE;
}

JsonNode *
ab_engine_sweep (AbEngine *e, JsonObject *body, GError **error)
{
  return each_item (e, body, sweep_item, error);
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
