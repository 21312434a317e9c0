/* Group, cache and multihop endpoints: GET …/edges/agg/{group} (cells of a
 * group row), GET …/edges/seek/{cache} (an EdgeFrame in cache order) and
 * POST /graph/v3/databases/{db}/edges/multihop (the 2-hop query). */
#include <string.h>
#include "rest/api-private.h"

#define ENGINE(ud) ((AbEngine *) (ud))

/* ?limit= as an int (absent: -1); FALSE with 400 answered when malformed. */
static gboolean
query_limit (const AbHttpRequest *req, gint *out, AbHttpResponse *resp)
{
  const gchar *text = ab_http_query_get (req, "limit");
  gint64 n;
  *out = -1;
  if (text == NULL)
    return TRUE;
  if (!g_ascii_string_to_signed (text, 10, 0, G_MAXINT32, &n, NULL))
    {
      ab_http_response_error (resp, 400, "'limit' must be a non-negative integer.");
      return FALSE;
    }
  *out = (gint) n;
  return TRUE;
}


static JsonNode *
agg_json (const gchar *group, AbQueryDirection dir, const AbAggResult *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  gint64 sum = 0;
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "group");
  json_builder_add_string_value (b, group);
  ab_api_add_value (b, "start", &r->start);
  json_builder_set_member_name (b, "direction");
  json_builder_add_string_value (b, dir == AB_QDIR_OUT ? "OUT" : "IN");
  json_builder_set_member_name (b, "cells");
  json_builder_begin_array (b);
  for (guint c = 0; c < r->values->len; c++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "key");
      json_builder_begin_object (b);
      for (guint f = 0; f < r->n_fields; f++)
        ab_api_add_value (b, r->fields[f], &g_array_index (r->keys, AbValue, c * r->n_fields + f));
      json_builder_end_object (b);
      json_builder_set_member_name (b, "value");
      json_builder_add_int_value (b, g_array_index (r->values, gint64, c));
      json_builder_end_object (b);
      sum += g_array_index (r->values, gint64, c);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "count");
  json_builder_add_int_value (b, r->values->len);
  json_builder_set_member_name (b, "sum");
  json_builder_add_int_value (b, sum);
  json_builder_set_member_name (b, "hasNext");
  json_builder_add_boolean_value (b, r->has_next);
  ab_api_empty_object (b, "context");
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* start, direction, limit and ranges of a window read (agg, seek); FALSE
 * with 400 answered when one is missing or malformed. */
static gboolean
window_params (const AbHttpRequest *req, const gchar **start, AbQueryDirection *dir,
               gint *limit, const gchar **ranges, AbHttpResponse *resp)
{
  *start = ab_http_query_get (req, "start");
  *ranges = ab_http_query_get (req, "ranges");
  if (!ab_api_require_direction (req, dir, resp) || !query_limit (req, limit, resp))
    return FALSE;
  if (*start == NULL)
    {
      ab_http_response_error (resp, 400, "'start' is required.");
      return FALSE;
    }
  return TRUE;
}

static void
agg (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  AbAggParams p = { .group = ab_http_param (req, "group") };
  if (!window_params (req, &p.start, &p.direction, &p.limit, &p.ranges, resp))
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AbAggResult) r = ab_engine_agg (ENGINE (ud), ab_http_param (req, "database"),
                                             ab_http_param (req, "table"), &p, &error);
  if (r == NULL)
    return ab_api_error (resp, error);
  ab_http_response_json (resp, 200, agg_json (p.group, p.direction, r));
}

static void
seek (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  static const gchar *const rejected[] = { "filters", "features", "offset", NULL };
  for (guint i = 0; rejected[i] != NULL; i++)
    if (ab_http_query_get (req, rejected[i]) != NULL)
      {
        g_autofree gchar *msg = g_strdup_printf ("`%s` is not supported in seek query.",
                                                 rejected[i]);
        return ab_http_response_error (resp, 400, msg);
      }
  AbSeekParams p = { .cache = ab_http_param (req, "cache") };
  if (!window_params (req, &p.start, &p.direction, &p.limit, &p.ranges, resp))
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AbEdgeFrame) f = ab_engine_seek (ENGINE (ud), ab_http_param (req, "database"),
                                              ab_http_param (req, "table"), &p, &error);
  if (f == NULL)
    return ab_api_error (resp, error);
  ab_http_response_json (resp, 200, ab_api_frame_json (f));
}

/* ---- multihop ---- */

static gchar *
scalar_text (JsonNode *n)
{
  if (json_node_get_value_type (n) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (n));
  g_autoptr (JsonGenerator) g = json_generator_new ();
  json_generator_set_root (g, n);
  return json_generator_to_data (g, NULL);
}

/* `start`: a scalar or an array of scalars. */
static gboolean
body_starts (JsonObject *o, GPtrArray *out, AbHttpResponse *resp)
{
  JsonNode *n = json_object_get_member (o, "start");
  if (n != NULL && JSON_NODE_HOLDS_VALUE (n))
    {
      g_ptr_array_add (out, scalar_text (n));
      return TRUE;
    }
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    {
      ab_http_response_error (resp, 400, "'start' is required: a node or an array of nodes.");
      return FALSE;
    }
  JsonArray *a = json_node_get_array (n);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_VALUE (e))
        {
          ab_http_response_error (resp, 400, "'start' items must be scalars.");
          return FALSE;
        }
      g_ptr_array_add (out, scalar_text (e));
    }
  return TRUE;
}

static gboolean
opt_int (JsonObject *o, const gchar *name, gint *out, AbHttpResponse *resp)
{
  JsonNode *n = json_object_get_member (o, name);
  *out = -1;
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64
      && json_node_get_int (n) >= 0 && json_node_get_int (n) <= G_MAXINT32)
    {
      *out = (gint) json_node_get_int (n);
      return TRUE;
    }
  g_autofree gchar *msg = g_strdup_printf ("'%s' must be a non-negative integer.", name);
  ab_http_response_error (resp, 400, msg);
  return FALSE;
}

static gboolean
parse_hop (JsonNode *node, guint k, AbHop *hop, AbHttpResponse *resp)
{
  g_autofree gchar *where = g_strdup_printf ("hops[%u]", k);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autofree gchar *msg = g_strdup_printf ("'%s' must be an object {table, cache|index, "
                                               "direction, limit?, ranges?}.", where);
      ab_http_response_error (resp, 400, msg);
      return FALSE;
    }
  JsonObject *o = json_node_get_object (node);
  const gchar *dir = NULL;
  if (!ab_api_opt_string (o, "table", &hop->table, resp)
      || !ab_api_opt_string (o, "cache", &hop->cache, resp)
      || !ab_api_opt_string (o, "index", &hop->index, resp)
      || !ab_api_opt_string (o, "ranges", &hop->ranges, resp)
      || !ab_api_opt_string (o, "direction", &dir, resp) || !opt_int (o, "limit", &hop->limit, resp))
    return FALSE;
  const gchar *problem = hop->table == NULL ? "needs 'table'"
                         : dir == NULL || !ab_query_direction_parse (dir, &hop->direction)
                             ? "needs 'direction' OUT or IN"
                             : NULL;
  if (problem == NULL)
    return TRUE;
  g_autofree gchar *msg = g_strdup_printf ("%s %s.", where, problem);
  ab_http_response_error (resp, 400, msg);
  return FALSE;
}

static gboolean
parse_flags (JsonObject *o, AbMultihopParams *p, AbHttpResponse *resp)
{
  static const gchar *const names[] = { "dedup", "excludeStart", "excludeFirstHop" };
  gboolean *slots[] = { &p->dedup, &p->exclude_start, &p->exclude_first_hop };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      gboolean set;
      if (!ab_api_opt_bool (o, names[i], &set, slots[i], resp))
        return FALSE;
    }
  const gchar *order = NULL;
  if (!ab_api_opt_string (o, "order", &order, resp) || !ab_api_opt_string (o, "filters", &p->filters, resp)
      || !opt_int (o, "limit", &p->limit, resp))
    return FALSE;
  if (order != NULL && !g_str_equal (order, "hop") && !g_str_equal (order, "hits"))
    {
      ab_http_response_error (resp, 400, "'order' must be \"hop\" or \"hits\".");
      return FALSE;
    }
  p->order_by_hits = order != NULL && g_str_equal (order, "hits");
  return TRUE;
}

static JsonNode *
multihop_json (const AbMultihopResult *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "edges");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->edges->len; i++)
    {
      ab_api_edge_begin (b, r->edges->pdata[i]);
      json_builder_set_member_name (b, "context");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "hits");
      json_builder_add_int_value (b, g_array_index (r->hits, guint, i));
      json_builder_set_member_name (b, "via");
      json_builder_begin_array (b);
      GArray *via = r->via->pdata[i];
      for (guint v = 0; v < via->len; v++)
        json_builder_add_value (b, ab_api_value (&g_array_index (via, AbValue, v)));
      json_builder_end_array (b);
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  const gchar *names[] = { "count", "total" };
  gint64 values[] = { r->edges->len, -1 };
  for (guint i = 0; i < 2; i++)
    {
      json_builder_set_member_name (b, names[i]);
      json_builder_add_int_value (b, values[i]);
    }
  json_builder_set_member_name (b, "offset");
  json_builder_add_null_value (b);
  json_builder_set_member_name (b, "hasNext");
  json_builder_add_boolean_value (b, r->has_next);
  json_builder_set_member_name (b, "context");
  json_builder_begin_object (b);
  const gchar *cnames[] = { "firstHopEdges", "secondHopNodes", "secondHopEdges" };
  guint cvalues[] = { r->first_hop_edges, r->second_hop_nodes, r->second_hop_edges };
  for (guint i = 0; i < 3; i++)
    {
      json_builder_set_member_name (b, cnames[i]);
      json_builder_add_int_value (b, cvalues[i]);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
multihop (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = ab_api_body (req, resp);
  JsonObject *o = node != NULL ? ab_api_object (node, resp) : NULL;
  if (o == NULL)
    return;
  g_autoptr (GPtrArray) starts = g_ptr_array_new_with_free_func (g_free);
  AbMultihopParams p = { .database = ab_http_param (req, "database"), .starts = starts,
                         .dedup = TRUE, .exclude_start = TRUE };
  JsonNode *hops = json_object_get_member (o, "hops");
  if (hops == NULL || !JSON_NODE_HOLDS_ARRAY (hops)
      || json_array_get_length (json_node_get_array (hops)) != 2)
    return ab_http_response_error (resp, 400, "'hops' must be an array of exactly two hops.");
  JsonArray *ha = json_node_get_array (hops);
  if (!body_starts (o, starts, resp) || !parse_hop (json_array_get_element (ha, 0), 0, &p.hops[0], resp)
      || !parse_hop (json_array_get_element (ha, 1), 1, &p.hops[1], resp) || !parse_flags (o, &p, resp))
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AbMultihopResult) r = ab_engine_multihop (ENGINE (ud), &p, &error);
  if (r == NULL)
    return ab_api_error (resp, error);
  ab_http_response_json (resp, 200, multihop_json (r));
}

void
ab_api_register_agg (AbRouter *r, AbEngine *e)
{
  const gchar *t = "/graph/v3/databases/{database}/tables/{table}";
  g_autofree gchar *a = g_strconcat (t, "/edges/agg/{group}", NULL);
  g_autofree gchar *s = g_strconcat (t, "/edges/seek/{cache}", NULL);
  ab_router_add (r, "GET", a, AB_ROUTE_INLINE, agg, e);
  ab_router_add (r, "GET", s, AB_ROUTE_INLINE, seek, e);
  ab_router_add (r, "POST", "/graph/v3/databases/{database}/edges/multihop", AB_ROUTE_BLOCKING,
                 multihop, e);
}
