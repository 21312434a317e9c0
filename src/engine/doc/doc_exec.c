/* The query document's executor: a planning pass that resolves every table,
 * index and cache and bounds each item's fan-out before anything is read,
 * then the items in order (SELF/GET/COUNT/SCAN/CACHE), each from values, an
 * earlier item's column or a nested item, then its post-processors and
 * aggregators, or one item alone (the v2 label edge read). Caps are
 * multihop's (engine.h). */
#include <string.h>
#include "engine/doc/doc.h"
#include "engine/read/read.h"
#include "engine/plan/plan.h"
#include "codec/keys.h"

#define UNBOUNDED G_MAXUINT64

static const gchar *const item_kinds[] = { "SELF", "GET", "COUNT", "SCAN", "CACHE", "SQL", "TOPK" };
#define SQL_MAX_US (2 * G_USEC_PER_SEC) /* how long one transform may run */

static guint64
times (guint64 a, guint64 b)
{
  if (a == UNBOUNDED || b == UNBOUNDED)
    return UNBOUNDED;
  return b != 0 && a > (UNBOUNDED - 1) / b ? UNBOUNDED - 1 : a * b;
}

static gboolean item_fail (const AbDocItem *it, GError **error, const gchar *fmt, ...)
    G_GNUC_PRINTF (3, 4);

static gboolean
item_fail (const AbDocItem *it, GError **error, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "item `%s` (%s): %s", it->name,
                         item_kinds[it->kind], msg);
}

/* The table of an item and, for SCAN/CACHE, its window limit checked
 * against the caps; *cache set for CACHE. */
static AbTableDesc *
item_table (AbEngine *engine, const AbDocItem *it, const AbCache **cache, guint *limit,
            GError **error)
{
  g_autoptr (AbTableDesc) t = ab_engine_resolve (engine, it->database, it->table, NULL, error);
  if (t == NULL)
    return NULL;
  AbTableKind kind = t->schema->kind;
  if (kind == AB_TABLE_IMMUTABLE_EDGE && it->kind != AB_ITEM_SCAN)
    return item_fail (it, error, "%s.%s is an immutable table: only SCAN reads it", it->database,
                      it->table),
           NULL;
  if (it->kind == AB_ITEM_GET && kind != AB_TABLE_EDGE)
    return item_fail (it, error, "GET reads edge tables; %s.%s is a %s table (use SELF)",
                      it->database, it->table, ab_table_kind_name (kind)),
           NULL;
  if ((it->kind == AB_ITEM_SCAN || it->kind == AB_ITEM_CACHE || it->kind == AB_ITEM_COUNT)
      && kind == AB_TABLE_VERTEX)
    return item_fail (it, error, "%s.%s is a vertex table (use SELF)", it->database, it->table),
           NULL;
  guint max = engine->cfg.max_scan_limit, dflt = max;
  *cache = NULL;
  if (it->kind == AB_ITEM_CACHE)
    {
      if ((*cache = ab_engine_find_cache (t, it->cache, error)) == NULL)
        return NULL;
      ab_cache_limits (*cache, &dflt, &max);
    }
  else if (it->kind == AB_ITEM_SCAN && ab_schema_index (t->schema, it->index) == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "index `%s` is not found in label `%s.%s`.", it->index, it->database,
                           it->table),
           NULL;
  *limit = it->limit < 0 ? dflt : (guint) it->limit;
  if (*cache != NULL && *limit > max)
    *limit = max; /* as seek: cut to what a trimmed row keeps */
  if ((it->kind == AB_ITEM_SCAN || it->kind == AB_ITEM_CACHE) && (*limit < 1 || *limit > max))
    return item_fail (it, error, "limit must be between 1 and %u", max), NULL;
  return g_steal_pointer (&t);
}

/* ---- planning: every name, table and bound before any read ---- */

typedef struct {
  AbEngine *engine;
  GHashTable *bounds; /* top-level item name -> guint64* rows at most */
} Plan;

static gboolean plan_item (Plan *pl, const AbDocItem *it, guint64 *rows, GError **error);

static gboolean
plan_vertex (Plan *pl, const AbDocItem *it, const AbDocVertex *v, guint64 *n, GError **error)
{
  const AbEngineConfig *c = &pl->engine->cfg;
  if (v->kind == AB_VERTEX_VALUE)
    {
      *n = v->values->len;
      if (*n > c->max_hop_starts)
        return item_fail (it, error, "too many values: %u > %u", v->values->len, c->max_hop_starts);
      return TRUE;
    }
  if (v->kind == AB_VERTEX_STEP)
    return plan_item (pl, v->step, n, error);
  guint64 *b = g_hash_table_lookup (pl->bounds, v->ref);
  if (b == NULL)
    return item_fail (it, error, "ref `%s` names no earlier item", v->ref);
  *n = *b;
  return TRUE;
}

static gboolean
check_fanout (const Plan *pl, const AbDocItem *it, guint64 starts, guint limit, GError **error)
{
  const AbEngineConfig *c = &pl->engine->cfg;
  if (starts != UNBOUNDED && starts > c->max_hop_nodes)
    return item_fail (it, error,
                      "fan-out too large: up to %" G_GUINT64_FORMAT " start vertices > %u", starts,
                      c->max_hop_nodes);
  guint64 edges = times (starts, limit);
  if (edges != UNBOUNDED && edges > c->max_hop_edges)
    return item_fail (it, error,
                      "fan-out too large: up to %" G_GUINT64_FORMAT " vertices x "
                      "limit %u = %" G_GUINT64_FORMAT " rows > %u",
                      starts, limit, edges, c->max_hop_edges);
  return TRUE;
}

static gboolean
plan_item (Plan *pl, const AbDocItem *it, guint64 *rows, GError **error)
{
  guint64 s, t = 1;
  guint limit = 1;
  const AbCache *cache;
  if (it->kind == AB_ITEM_SQL)
    return *rows = pl->engine->cfg.max_hop_edges, TRUE; /* bounded when run */
  if (it->kind == AB_ITEM_TOPK)                         /* left unresolved: inside a STEP */
    return item_fail (it, error, "TOPK items run at the top level of `fetch`");
  if (!plan_vertex (pl, it, &it->source, &s, error)
      || (it->kind == AB_ITEM_GET && !plan_vertex (pl, it, &it->target, &t, error)))
    return FALSE;
  g_autoptr (AbTableDesc) table = item_table (pl->engine, it, &cache, &limit, error);
  if (table == NULL)
    return FALSE;
  gboolean window = it->kind == AB_ITEM_SCAN || it->kind == AB_ITEM_CACHE;
  if (!check_fanout (pl, it, times (s, t), window ? limit : 1, error))
    return FALSE;
  *rows = times (times (s, t), window ? limit : 1);
  for (guint i = 0; i < it->post->len; i++)
    {
      const AbPostProc *p = it->post->pdata[i];
      if (p->kind == AB_POST_SPLIT_EXPLODE)
        *rows = times (*rows, p->limit > 0 ? (guint64) p->limit : UNBOUNDED);
    }
  for (guint i = 0; i < it->aggs->len; i++)
    {
      const AbAggregator *a = it->aggs->pdata[i];
      if (a->kind != AB_AGGR_FLATTEN)
        *rows = MIN (*rows, a->limit);
    }
  return TRUE;
}

static gboolean
plan (AbEngine *engine, GPtrArray *items, GError **error)
{
  Plan pl = { engine, g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free) };
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < items->len; i++)
    {
      const AbDocItem *it = items->pdata[i];
      guint64 rows;
      if (g_hash_table_contains (pl.bounds, it->name))
        ok = ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                             "two items are named `%s`: item names must be unique", it->name);
      else if ((ok = plan_item (&pl, it, &rows, error)))
        g_hash_table_insert (pl.bounds, it->name, g_memdup2 (&rows, sizeof rows));
    }
  g_hash_table_unref (pl.bounds);
  return ok;
}

/* ---- running ---- */

typedef struct {
  AbEngine *engine;
  GHashTable *done; /* top-level item name -> AbRows* */
} Run;

static AbRows *run_item (Run *r, const AbDocItem *it, GError **error);

/* The distinct non-null values of a column of rows, or a 400 naming it. */
static GArray *
column_values (Run *r, const AbDocItem *it, const AbRows *rows, const gchar *of, const gchar *field,
               GError **error)
{
  gint col = ab_rows_column (rows, field);
  if (col < 0)
    {
      g_autoptr (GString) cols = g_string_new (NULL);
      for (guint c = 0; c < rows->columns->len; c++)
        g_string_append_printf (cols, "%s%s", c > 0 ? ", " : "",
                                (const gchar *) rows->columns->pdata[c]);
      return item_fail (it, error, "`%s` is not a column of `%s` (columns: %s)", field, of,
                        cols->str),
             NULL;
    }
  GArray *vals = ab_rows_distinct (rows, (guint) col);
  if (vals->len > r->engine->cfg.max_hop_nodes)
    {
      item_fail (it, error, "fan-out too large: %u start vertices > %u", vals->len,
                 r->engine->cfg.max_hop_nodes);
      return g_array_unref (vals), NULL;
    }
  return vals;
}

static GArray *
resolve_vertex (Run *r, const AbDocItem *it, const AbDocVertex *v, GError **error)
{
  if (v->kind == AB_VERTEX_VALUE)
    {
      const gchar *col[] = { "value" };
      g_autoptr (AbRows) tmp = ab_rows_new (col, 1);
      for (guint i = 0; i < v->values->len; i++)
        ab_value_copy (&g_array_index (ab_rows_add (tmp), AbValue, 0),
                       &g_array_index (v->values, AbValue, i));
      return ab_rows_distinct (tmp, 0);
    }
  if (v->kind == AB_VERTEX_REF)
    return column_values (r, it, g_hash_table_lookup (r->done, v->ref), v->ref, v->field, error);
  g_autoptr (AbRows) step = run_item (r, v->step, error);
  return step != NULL ? column_values (r, it, step, v->step->name, v->field, error) : NULL;
}

/* Casts vertices to a key type, dropping the ones that become equal (1 and
 * "1"): a value that does not cast is a 400 when given literally (strict),
 * else skipped (a column of another type). */
static GArray *
cast_all (const AbDocItem *it, GArray *vals, AbType type, const gchar *what, gboolean strict,
          GError **error)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (AbValue));
  g_array_set_clear_func (out, (GDestroyNotify) ab_value_clear);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < vals->len; i++)
    {
      g_autofree gchar *text = ab_value_to_string (&g_array_index (vals, AbValue, i));
      g_autoptr (GError) bad = NULL;
      AbValue v = AB_VALUE_INIT;
      if (ab_model_cast_text (text, type, what, &v, &bad))
        {
          if (g_hash_table_add (seen, ab_value_to_string (&v)))
            g_array_append_val (out, v);
          else
            ab_value_clear (&v);
        }
      else if (strict)
        return item_fail (it, error, "%s", bad->message), g_array_unref (out), NULL;
    }
  return out;
}

static AbRows *
edge_rows (const AbTableDesc *t)
{
  static const gchar *const fixed[] = { "direction", "version", "source", "target" };
  AbRows *rows = ab_rows_new (fixed, G_N_ELEMENTS (fixed));
  for (guint f = 0; f < t->schema->fields->len; f++)
    {
      const gchar *name = ((AbField *) t->schema->fields->pdata[f])->name;
      if (name[0] != '_') /* a multi-edge's internal _source/_target, as on REST */
        g_ptr_array_add (rows->columns, g_strdup (name));
    }
  return rows;
}

static void
add_edges (AbRows *rows, const AbEdgeFrame *f, AbQueryDirection dir)
{
  for (guint i = 0; i < f->edges->len; i++)
    {
      const AbEdgeOut *e = f->edges->pdata[i];
      GArray *row = ab_rows_add (rows);
      const gchar *d = dir == AB_QDIR_OUT ? "OUT" : "IN";
      ab_value_set_string (&g_array_index (row, AbValue, 0), AB_VALUE_STRING, d, strlen (d));
      ab_value_set_int (&g_array_index (row, AbValue, 1), AB_VALUE_INT64, e->version);
      ab_value_copy (&g_array_index (row, AbValue, 2), &e->source);
      ab_value_copy (&g_array_index (row, AbValue, 3), &e->target);
      for (guint p = 0; p < e->n_props; p++)
        {
          gint col = ab_rows_column (rows, e->names[p]);
          if (col >= 0)
            ab_value_copy (&g_array_index (row, AbValue, col), &e->values[p]);
        }
    }
}

/* SELF and GET: point reads of State rows. SELF reads a vertex's own row:
 * (id, id) on a multi-edge table, (id, "-") on a vertex table, (s, s) on an
 * edge table. */
static AbRows *
read_states (Run *r, const AbTableDesc *t, GArray *srcs, GArray *tgts, GError **error)
{
  g_autoptr (GPtrArray) ps = g_ptr_array_new ();
  g_autoptr (GPtrArray) pt = g_ptr_array_new ();
  AbValue dash = AB_VALUE_INIT;
  ab_value_set_string (&dash, AB_VALUE_STRING, AB_VERTEX_MARKER, strlen (AB_VERTEX_MARKER));
  for (guint i = 0; i < srcs->len; i++)
    for (guint j = 0; j < (tgts != NULL ? tgts->len : 1); j++)
      {
        g_ptr_array_add (ps, &g_array_index (srcs, AbValue, i));
        g_ptr_array_add (pt, tgts != NULL ? &g_array_index (tgts, AbValue, j)
                             : t->schema->kind == AB_TABLE_VERTEX
                                 ? &dash
                                 : &g_array_index (srcs, AbValue, i));
      }
  g_autoptr (AbEdgeFrame) f = ab_edge_frame_new ();
  gboolean ok = ab_query_fetch_states (r->engine, t, ps, pt, f, error);
  ab_value_clear (&dash);
  if (!ok)
    return NULL;
  AbRows *rows = edge_rows (t);
  add_edges (rows, f, AB_QDIR_OUT);
  return rows;
}

static AbRows *
read_counts (Run *r, const AbDocItem *it, const AbTableDesc *t, GArray *srcs, GError **error)
{
  static const gchar *const cols[] = { "source", "COUNT(1)", "direction" };
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  GError *local = NULL;
  for (guint i = 0; i < srcs->len; i++)
    {
      GByteArray *k = ab_codec_count_key (&g_array_index (srcs, AbValue, i),
                                          (AbDirection) it->direction, t->code, &local);
      if (k == NULL)
        return ab_engine_propagate (error, local), NULL;
      g_ptr_array_add (keys, g_byte_array_free_to_bytes (k));
    }
  g_autoptr (GArray) got = ab_kv_array_new ();
  if (keys->len > 0 && !ab_store_multi_get (r->engine->store, keys, got, &local))
    return ab_engine_propagate (error, local), NULL;
  AbRows *rows = ab_rows_new (cols, G_N_ELEMENTS (cols));
  const gchar *d = it->direction == AB_QDIR_OUT ? "OUT" : "IN";
  for (guint i = 0; i < srcs->len; i++)
    {
      GBytes *v = g_array_index (got, AbKv, i).value;
      GArray *row = ab_rows_add (rows);
      ab_value_copy (&g_array_index (row, AbValue, 0), &g_array_index (srcs, AbValue, i));
      ab_value_set_int (&g_array_index (row, AbValue, 1), AB_VALUE_INT64,
                        v != NULL && g_bytes_get_size (v) == 8
                            ? (gint64) ab_codec_get_be64 (g_bytes_get_data (v, NULL))
                            : 0);
      ab_value_set_string (&g_array_index (row, AbValue, 2), AB_VALUE_STRING, d, strlen (d));
    }
  return rows;
}

/* SCAN and CACHE: one window per start vertex, concurrently. */
static AbRows *
read_windows (Run *r, const AbDocItem *it, AbTableDesc *t, const AbCache *cache, guint limit,
              GArray *srcs, GError **error)
{
  AbHopPlan hp = { .t = t,
                   .cache = cache,
                   .index = it->index,
                   .dir = it->direction,
                   .limit = limit,
                   .ranges = it->ranges,
                   .offset = it->offset };
  g_autoptr (GPtrArray) filters = ab_predicates_parse (t, it->filters, TRUE, "filters", error);
  if (filters == NULL)
    return NULL;
  GError *local = NULL;
  AbHopRead *reads = ab_hop_read_all (r->engine, &hp, srcs, TRUE, &local);
  AbRows *rows = local == NULL ? edge_rows (t) : NULL;
  for (guint i = 0; rows != NULL && i < srcs->len; i++)
    if (reads[i].frame != NULL)
      {
        ab_edge_frame_filter (reads[i].frame, filters);
        add_edges (rows, reads[i].frame, it->direction);
        if (srcs->len == 1 && reads[i].frame->has_next)
          {
            rows->has_next = TRUE;
            rows->offset = g_strdup (reads[i].frame->offset);
          }
      }
  ab_hop_reads_free (reads, srcs->len);
  if (local != NULL)
    ab_engine_propagate (error, local);
  return rows;
}

static AbRows *
read_item (Run *r, const AbDocItem *it, GError **error)
{
  const AbCache *cache;
  guint limit;
  g_autoptr (AbTableDesc) t = item_table (r->engine, it, &cache, &limit, error);
  g_autoptr (GArray) starts = t != NULL ? resolve_vertex (r, it, &it->source, error) : NULL;
  if (starts == NULL)
    return NULL;
  const AbSchema *s = t->schema;
  gboolean window = it->kind == AB_ITEM_SCAN || it->kind == AB_ITEM_CACHE;
  AbType type = (window || it->kind == AB_ITEM_COUNT) && it->direction == AB_QDIR_IN
                    ? s->target_type
                : it->kind == AB_ITEM_SELF && s->kind == AB_TABLE_MULTI_EDGE ? s->id_type
                                                                             : s->source_type;
  g_autoptr (GArray) srcs
      = cast_all (it, starts, type, "source", it->source.kind == AB_VERTEX_VALUE, error);
  if (srcs == NULL)
    return NULL;
  if (window)
    return read_windows (r, it, t, cache, limit, srcs, error);
  if (it->kind == AB_ITEM_COUNT)
    return read_counts (r, it, t, srcs, error);
  if (it->kind == AB_ITEM_SELF)
    return read_states (r, t, srcs, NULL, error);
  g_autoptr (GArray) ends = resolve_vertex (r, it, &it->target, error);
  g_autoptr (GArray) tgts = ends != NULL ? cast_all (it, ends, s->target_type, "target",
                                                     it->target.kind == AB_VERTEX_VALUE, error)
                                         : NULL;
  if (tgts == NULL)
    return NULL;
  if ((guint64) srcs->len * tgts->len > r->engine->cfg.max_hop_nodes)
    return item_fail (it, error, "fan-out too large: %u sources x %u targets > %u", srcs->len,
                      tgts->len, r->engine->cfg.max_hop_nodes),
           NULL;
  return read_states (r, t, srcs, tgts, error);
}

static AbRows *
run_sql (Run *r, const AbDocItem *it, GError **error)
{
  AbSqlLimits lim = { r->engine->cfg.max_hop_edges, SQL_MAX_US };
  GError *local = NULL;
  AbRows *rows = ab_doc_sql_run (r->done, it->sql, it->sql_args, &lim, &local);
  if (rows == NULL)
    {
      item_fail (it, error, "%s", local->message);
      g_error_free (local);
    }
  return rows;
}

static AbRows *
run_item (Run *r, const AbDocItem *it, GError **error)
{
  g_autoptr (AbRows) rows
      = it->kind == AB_ITEM_SQL ? run_sql (r, it, error) : read_item (r, it, error);
  if (rows == NULL)
    return NULL;
  for (guint i = 0; i < it->post->len; i++)
    {
      g_clear_pointer (&rows->offset, g_free);
      rows->has_next = FALSE;
      if (!ab_rows_post (&rows, it->post->pdata[i], error))
        return NULL;
      if (rows->rows->len > r->engine->cfg.max_hop_edges)
        return item_fail (it, error, "too many rows after %s: %u > %u", "SPLIT_EXPLODE",
                          rows->rows->len, r->engine->cfg.max_hop_edges),
               NULL;
    }
  for (guint i = 0; i < it->aggs->len; i++)
    if (!ab_rows_aggregate (&rows, it->aggs->pdata[i], error))
      return NULL; /* a COUNT or SUM answers new rows: no cursor (ab_rows_new) */
  rows->name = g_strdup (it->name);
  return g_steal_pointer (&rows);
}

/* The type of a column of an item's rows: COUNT's source is the start
 * vertex, a multi-edge's target (and SELF source) its id. */
static AbType
column_type (const AbTableDesc *t, const AbDocItem *it, const gchar *name)
{
  const AbSchema *s = t->schema;
  gboolean source = g_str_equal (name, "source");
  AbType type = AB_TYPE_STRING;
  if (g_str_equal (name, "COUNT(1)"))
    return AB_TYPE_LONG;
  if (it->kind == AB_ITEM_COUNT && source)
    return it->direction == AB_QDIR_IN ? s->target_type : s->source_type;
  if (s->kind == AB_TABLE_MULTI_EDGE
      && (g_str_equal (name, "target") || (source && it->kind == AB_ITEM_SELF)))
    return s->id_type;
  if (g_str_equal (name, "direction") || !ab_engine_field_type (t, name, &type))
    return AB_TYPE_STRING;
  return type;
}

AbRows *
ab_engine_query_item (AbEngine *engine, JsonNode *item, const gchar *filters, GArray **types,
                      GError **error)
{
  JsonArray *query = json_array_new ();
  JsonObject *o = json_object_new ();
  json_array_add_element (query, json_node_copy (item));
  json_object_set_array_member (o, "query", query);
  g_autoptr (JsonNode) doc = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (doc, o); /* {"query": [item]} */
  g_autoptr (GPtrArray) items = ab_doc_parse (doc, error);
  if (items == NULL || !plan (engine, items, error))
    return NULL;
  AbDocItem *it = items->pdata[0];
  it->filters = g_strdup (filters);
  Run r = { engine,
            g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) ab_rows_free) };
  g_autoptr (AbRows) rows = run_item (&r, it, error);
  g_hash_table_unref (r.done);
  if (rows == NULL || types == NULL)
    return g_steal_pointer (&rows);
  g_autoptr (AbTableDesc) t = ab_engine_resolve (engine, it->database, it->table, NULL, error);
  if (t == NULL)
    return NULL;
  *types = g_array_sized_new (FALSE, FALSE, sizeof (AbType), rows->columns->len);
  for (guint c = 0; c < rows->columns->len; c++)
    {
      AbType type = column_type (t, it, rows->columns->pdata[c]);
      g_array_append_val (*types, type);
    }
  return g_steal_pointer (&rows);
}

/* A body in upstream's current form ({arguments, fetch, transform}): its
 * placeholders bound to the arguments sent with it, as they came. */
GPtrArray *
ab_engine_query_doc (AbEngine *engine, JsonNode *body, GError **error)
{
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (body) ? json_node_get_object (body) : NULL;
  if (o == NULL || json_object_has_member (o, "query"))
    return ab_engine_query_bound (engine, body, error);
  JsonNode *args = json_object_get_member (o, "arguments");
  if (args != NULL && !JSON_NODE_HOLDS_OBJECT (args) && !JSON_NODE_HOLDS_NULL (args))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "'arguments' must be an object of values by name."),
           NULL;
  g_autoptr (JsonNode) bound = ab_doc_bind (
      o, NULL, args != NULL && JSON_NODE_HOLDS_OBJECT (args) ? json_node_get_object (args) : NULL,
      error);
  return bound != NULL ? ab_engine_query_bound (engine, bound, error) : NULL;
}

GPtrArray *
ab_engine_query_bound (AbEngine *engine, JsonNode *body, GError **error)
{
  g_autoptr (GPtrArray) items = ab_doc_parse (body, error);
  if (items == NULL || !ab_doc_resolve_topks (engine, items, error) || !plan (engine, items, error))
    return NULL;
  Run r = { engine,
            g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) ab_rows_free) };
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_rows_free);
  for (guint i = 0; out != NULL && i < items->len; i++)
    {
      const AbDocItem *it = items->pdata[i];
      AbRows *rows = run_item (&r, it, error);
      if (rows == NULL)
        g_clear_pointer (&out, g_ptr_array_unref);
      else
        g_hash_table_insert (r.done, rows->name, rows);
    }
  for (guint i = 0; out != NULL && i < items->len; i++)
    {
      const AbDocItem *it = items->pdata[i];
      gpointer rows;
      if (it->include && g_hash_table_steal_extended (r.done, it->name, NULL, &rows))
        g_ptr_array_add (out, rows);
    }
  g_hash_table_unref (r.done);
  return out;
}
