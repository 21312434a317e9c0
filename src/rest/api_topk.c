/* Top-K endpoints: this server's GET …/edges/topk/{topk} and GET
 * /graph/v3/aggregations, and upstream's /aggregations/v1 (aggregate, sweep,
 * metadata, topks reads). docs/rest-api.md §7 and §11.6. */
#include "rest/api-private.h"
#include "model/groups.h"
#include "model/jsonw.h"

#define ENGINE(ud) ((AbEngine *) (ud))

static void
topk (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  AbTopkParams p = { .topk = ab_http_param (req, "topk"),
                     .entity = ab_http_query_get (req, "entity"),
                     .direction = ab_http_query_get (req, "direction"),
                     .filters = ab_http_query_get (req, "filters"),
                     .offset = ab_http_query_get (req, "offset"),
                     .limit = -1 };
  const gchar *limit = ab_http_query_get (req, "limit");
  gint64 n;
  if (limit != NULL && !g_ascii_string_to_signed (limit, 10, 0, G_MAXINT32, &n, NULL))
    return ab_http_response_error (resp, 400, "'limit' must be a non-negative integer.");
  if (limit != NULL)
    p.limit = (gint) n;
  if (p.offset != NULL && p.offset[0] == '\0')
    p.offset = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (AbEdgeFrame) f = ab_engine_topk (ENGINE (ud), ab_http_param (req, "database"),
                                              ab_http_param (req, "table"), &p, &error);
  if (f == NULL)
    return ab_api_error (resp, error);
  ab_http_response_bytes (resp, 200, NULL, ab_api_frame_body (f));
}

static void
definition (AbJsonw *w, const AbTableDesc *t, const AbGroup *g, const AbTopk *k)
{
  ab_jsonw_begin_object (w);
  ab_jsonw_member_string (w, "type", "TOPK");
  ab_jsonw_member_string (w, "database", t->database);
  ab_jsonw_member_string (w, "table", t->table);
  ab_jsonw_member_string (w, "group", g->name);
  ab_jsonw_member_string (w, "topk", k->name);
  ab_jsonw_member_string (w, "ranges", k->ranges);
  ab_jsonw_member_int (w, "refreshAfterMillis", k->refresh_after_ms);
  ab_jsonw_key (w, "score");
  if (k->score_table != NULL)
    ab_jsonw_string (w, k->score_table);
  else
    ab_jsonw_null (w);
  ab_jsonw_end_object (w);
}

/* Every table of every database through fn, inside {"<member>": [...]}. */
static void
list_tables (AbHttpResponse *resp, AbEngine *e, const gchar *member,
             void (*fn) (AbJsonw *w, const AbTableDesc *t))
{
  AbCatalog *cat = ab_engine_catalog (e);
  g_autoptr (GPtrArray) dbs = ab_catalog_list_databases (cat);
  AbJsonw w;
  ab_jsonw_init (&w, 256);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, member);
  ab_jsonw_begin_array (&w);
  for (guint d = 0; d < dbs->len; d++)
    {
      const AbDatabaseDesc *db = dbs->pdata[d];
      g_autoptr (GPtrArray) tables = ab_catalog_list_tables (cat, db->database);
      for (guint i = 0; tables != NULL && i < tables->len; i++)
        fn (&w, tables->pdata[i]);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_end_object (&w);
  ab_http_response_bytes (resp, 200, NULL, ab_jsonw_finish (&w));
}

static void
definitions (AbJsonw *w, const AbTableDesc *t)
{
  for (guint j = 0; t->schema->group_defs != NULL && j < t->schema->group_defs->len; j++)
    {
      const AbGroup *g = t->schema->group_defs->pdata[j];
      for (guint k = 0; k < g->topks->len; k++)
        definition (w, t, g, g->topks->pdata[k]);
    }
}

static void
aggregations (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  (void) req;
  list_tables (resp, ENGINE (ud), "topk", definitions);
}

/* The fields that identify a rank row of k, so a consumer may collapse a
 * batch of events before aggregating: the entity's end (per direction kept)
 * unless global, then the group's fields without a bucket. Appended to out
 * unless already there. */
static void
dedupe_fields (const AbGroup *g, const AbRankTopk *k, GPtrArray *out)
{
  const gchar *ends[] = { !k->global && g->direction != AB_DIRTYPE_IN ? "source" : NULL,
                          !k->global && g->direction != AB_DIRTYPE_OUT ? "target" : NULL };
  for (guint i = 0; i < G_N_ELEMENTS (ends); i++)
    if (ends[i] != NULL && !g_ptr_array_find_with_equal_func (out, ends[i], g_str_equal, NULL))
      g_ptr_array_add (out, (gpointer) ends[i]);
  for (guint f = 0; f < g->n_fields; f++)
    if (g->fields[f].bucket == NULL
        && !g_ptr_array_find_with_equal_func (out, g->fields[f].name, g_str_equal, NULL))
      g_ptr_array_add (out, g->fields[f].name);
}

static void
string_array (AbJsonw *w, const gchar *name, GPtrArray *values)
{
  ab_jsonw_key (w, name);
  ab_jsonw_begin_array (w);
  for (guint i = 0; i < values->len; i++)
    ab_jsonw_string (w, values->pdata[i]);
  ab_jsonw_end_array (w);
}

/* A table declaring upstream's top-K: {type, database, table, dedupes}. */
static void
rank_item (AbJsonw *w, const AbTableDesc *t)
{
  gboolean any = FALSE;
  for (guint j = 0; t->schema->group_defs != NULL && j < t->schema->group_defs->len; j++)
    any = any || ((const AbGroup *) t->schema->group_defs->pdata[j])->ranks->len > 0;
  if (!any)
    return;
  ab_jsonw_begin_object (w);
  ab_jsonw_member_string (w, "type", "TOPK");
  ab_jsonw_member_string (w, "database", t->database);
  ab_jsonw_member_string (w, "table", t->table);
  g_autoptr (GPtrArray) all = g_ptr_array_new ();
  ab_jsonw_key (w, "dedupes");
  ab_jsonw_begin_array (w);
  for (guint j = 0; j < t->schema->group_defs->len; j++)
    {
      const AbGroup *g = t->schema->group_defs->pdata[j];
      for (guint k = 0; k < g->ranks->len; k++)
        {
          const AbRankTopk *rk = g->ranks->pdata[k];
          g_autoptr (GPtrArray) fields = g_ptr_array_new ();
          dedupe_fields (g, rk, fields);
          dedupe_fields (g, rk, all);
          ab_jsonw_begin_object (w);
          ab_jsonw_member_string (w, "name", rk->name);
          string_array (w, "fields", fields);
          ab_jsonw_end_object (w);
        }
    }
  ab_jsonw_end_array (w);
  string_array (w, "dedupeFields", all); /* the other stored form: every dedupe's fields */
  ab_jsonw_end_object (w);
}

/* GET /aggregations/v1/metadata[?type=TOPK]: the tables that declare
 * upstream's top-K. */
static void
rank_metadata (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const gchar *type = ab_http_query_get (req, "type");
  if (type != NULL && g_ascii_strcasecmp (type, "TOPK") != 0)
    return ab_http_response_error (resp, 400, "'type' must be TOPK.");
  list_tables (resp, ENGINE (ud), "items", rank_item);
}

static void
items_call (const AbHttpRequest *req, AbHttpResponse *resp, AbEngine *e,
            JsonNode *(*fn) (AbEngine *, JsonObject *, GError **) )
{
  g_autoptr (JsonNode) body = ab_api_body (req, resp);
  JsonObject *o = body != NULL ? ab_api_object (body, resp) : NULL;
  if (o == NULL)
    return;
  g_autoptr (GError) error = NULL;
  JsonNode *out = fn (e, o, &error);
  if (out == NULL)
    return ab_api_error (resp, error);
  ab_http_response_json (resp, 200, out);
}

/* POST /aggregations/v1/aggregate: upstream's top-K rank rows, recomputed */
static void
aggregate (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  items_call (req, resp, ENGINE (ud), ab_engine_aggregate);
}

/* POST /aggregations/v1/sweep: queued refreshes recomputed */
static void
sweep (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  items_call (req, resp, ENGINE (ud), ab_engine_sweep);
}

static gint
column_of (const AbRows *r, const gchar *name)
{
  for (guint i = 0; i < r->columns->len; i++)
    if (g_str_equal (r->columns->pdata[i], name))
      return (gint) i;
  return -1;
}

/* POST /aggregations/v1/databases/{db}/tables/{t}/topks/{topk} {entity?,
 * dimensionValues?, limit?, offset?}: a ranking of upstream's top-K as
 * {"topks":[{value, metric, properties}], "count"} (the TOPK step's rows). */
static void
rank_read (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) body = ab_api_body (req, resp);
  JsonObject *o = body != NULL ? ab_api_object (body, resp) : NULL;
  if (o == NULL)
    return;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "fetch");
  json_builder_begin_array (b);
  json_builder_begin_object (b);
  static const gchar *const fixed[][2] = { { "type", "TOPK" },
                                           { "name", "topks" },
                                           { "database", "database" },
                                           { "table", "table" },
                                           { "topk", "topk" } };
  for (guint i = 0; i < G_N_ELEMENTS (fixed); i++)
    {
      json_builder_set_member_name (b, fixed[i][0]);
      const gchar *param = i < 2 ? NULL : ab_http_param (req, fixed[i][1]);
      json_builder_add_string_value (b, param != NULL ? param : fixed[i][1]);
    }
  json_builder_set_member_name (b, "include");
  json_builder_add_boolean_value (b, TRUE);
  JsonNode *entity = json_object_get_member (o, "entity");
  if (entity != NULL && !JSON_NODE_HOLDS_NULL (entity))
    {
      json_builder_set_member_name (b, "entity");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "VALUE");
      json_builder_set_member_name (b, "value");
      json_builder_begin_array (b);
      json_builder_add_value (b, json_node_copy (entity));
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  static const gchar *const passed[] = { "dimensionValues", "limit", "offset" };
  for (guint i = 0; i < G_N_ELEMENTS (passed); i++)
    {
      JsonNode *v = json_object_get_member (o, passed[i]);
      if (v != NULL && !JSON_NODE_HOLDS_NULL (v))
        {
          json_builder_set_member_name (b, passed[i]);
          json_builder_add_value (b, json_node_copy (v));
        }
    }
  json_builder_end_object (b);
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonNode) doc = json_builder_get_root (b);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) items = ab_engine_query_bound (ENGINE (ud), doc, &error);
  if (items == NULL)
    return ab_api_error (resp, error);
  const AbRows *rows = items->pdata[0];
  gint target = column_of (rows, "target");
  gint metric = column_of (rows, "metric");
  gint extra = column_of (rows, "additionalProperties");
  AbJsonw w;
  ab_jsonw_init (&w, 64 + 64 * (gsize) rows->rows->len);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "topks");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < rows->rows->len; i++)
    {
      GArray *row = rows->rows->pdata[i];
      ab_jsonw_begin_object (&w);
      if (target >= 0)
        ab_jsonw_member_value (&w, "value", &g_array_index (row, AbValue, target));
      if (metric >= 0)
        ab_jsonw_member_value (&w, "metric", &g_array_index (row, AbValue, metric));
      const AbValue *props = extra >= 0 ? &g_array_index (row, AbValue, extra) : NULL;
      g_autoptr (JsonNode) parsed = props != NULL && props->kind == AB_VALUE_STRING
                                        ? json_from_string (props->u.s.data, NULL)
                                        : NULL;
      if (parsed != NULL && JSON_NODE_HOLDS_OBJECT (parsed))
        {
          ab_jsonw_key (&w, "properties");
          ab_jsonw_node (&w, parsed);
        }
      else
        ab_jsonw_member_empty_object (&w, "properties");
      ab_jsonw_end_object (&w);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_member_int (&w, "count", rows->rows->len);
  ab_jsonw_end_object (&w);
  ab_http_response_bytes (resp, 200, NULL, ab_jsonw_finish (&w));
}

void
ab_api_register_topk (AbRouter *r, AbEngine *e)
{
  ab_router_add (r, "POST", "/aggregations/v1/aggregate", AB_ROUTE_BLOCKING, aggregate, e);
  ab_router_add (r, "POST", "/aggregations/v1/sweep", AB_ROUTE_BLOCKING, sweep, e);
  ab_router_add (r, "POST", "/aggregations/v1/databases/{database}/tables/{table}/topks/{topk}",
                 AB_ROUTE_BLOCKING, rank_read, e);
  ab_router_add (r, "GET", "/graph/v3/databases/{database}/tables/{table}/edges/topk/{topk}",
                 AB_ROUTE_INLINE, topk, e);
  ab_router_add (r, "GET", "/graph/v3/aggregations", AB_ROUTE_INLINE, aggregations, e);
  ab_router_add (r, "GET", "/aggregations/v1/metadata", AB_ROUTE_INLINE, rank_metadata, e);
}
