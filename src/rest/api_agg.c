/* Group, cache and multihop endpoints: GET …/edges/agg/{group} (a group's
 * value and cells per start), GET …/multi-edges/count (an agg of the edges to
 * one target), GET …/edges/seek/{cache} (an EdgeFrame in cache order) and
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

/* The sum of an agg's cells: a group's value (upstream's `value`). */
static gint64
agg_value (const AbAggResult *r)
{
  gint64 sum = 0;
  for (guint c = 0; c < r->values->len; c++)
    sum += g_array_index (r->values, gint64, c);
  return sum;
}

/* One item of `groups`: upstream's {start, direction, value, context} with
 * our per-key `cells` and `hasNext`. */
static void
agg_group (AbJsonw *w, AbQueryDirection dir, const AbAggResult *r)
{
  ab_api_start_begin (w, &r->start, dir);
  ab_jsonw_member_int (w, "value", agg_value (r));
  ab_jsonw_key (w, "cells");
  ab_jsonw_begin_array (w);
  for (guint c = 0; c < r->values->len; c++)
    {
      ab_jsonw_begin_object (w);
      ab_jsonw_key (w, "key");
      ab_jsonw_begin_object (w);
      for (guint f = 0; f < r->n_fields; f++)
        ab_jsonw_member_value (w, r->fields[f],
                               &g_array_index (r->keys, AbValue, c * r->n_fields + f));
      ab_jsonw_end_object (w);
      ab_jsonw_member_int (w, "value", g_array_index (r->values, gint64, c));
      ab_jsonw_end_object (w);
    }
  ab_jsonw_end_array (w);
  ab_jsonw_member_bool (w, "hasNext", r->has_next);
  ab_jsonw_member_empty_object (w, "context");
  ab_jsonw_end_object (w);
}

/* start, direction, limit and ranges of a window read (agg, seek); FALSE
 * with 400 answered when one is missing or malformed. */
static gboolean
window_params (const AbHttpRequest *req, const gchar **start, AbQueryDirection *dir, gint *limit,
               const gchar **ranges, AbHttpResponse *resp)
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

/* The `start` values (repeatable or comma separated), at most this many. */
#define MAX_STARTS 1000

static GPtrArray *
starts_param (const AbHttpRequest *req, AbHttpResponse *resp)
{
  g_autoptr (GPtrArray) starts = ab_api_list_param (req, "start");
  if (starts->len == 0)
    return ab_http_response_error (resp, 400, "'start' is required."), NULL;
  if (starts->len > MAX_STARTS)
    return ab_http_response_error (resp, 400, "at most 1000 'start' values per request."), NULL;
  return g_steal_pointer (&starts);
}

typedef void (*AggItemFn) (AbJsonw *w, AbQueryDirection dir, const AbAggResult *r);

/* {["group",] member: [one item per start, in request order], "count",
 * "context"}: the agg of p for each start, written by item. */
static void
agg_each (const AbHttpRequest *req, AbHttpResponse *resp, AbEngine *e, AbAggParams *p,
          GPtrArray *starts, const gchar *group, const gchar *member, AggItemFn item)
{
  g_auto (AbJsonw) w;
  ab_jsonw_init (&w, 256);
  ab_jsonw_begin_object (&w);
  if (group != NULL)
    ab_jsonw_member_string (&w, "group", group);
  ab_jsonw_key (&w, member);
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < starts->len; i++)
    {
      p->start = starts->pdata[i];
      g_autoptr (GError) error = NULL;
      g_autoptr (AbAggResult) r = ab_engine_agg (e, ab_http_param (req, "database"),
                                                 ab_http_param (req, "table"), p, &error);
      if (r == NULL)
        return ab_api_error (resp, error);
      item (&w, p->direction, r);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_member_int (&w, "count", starts->len);
  ab_jsonw_member_empty_object (&w, "context");
  ab_jsonw_end_object (&w);
  ab_http_response_bytes (resp, 200, NULL, ab_jsonw_finish (&w));
}

/* One group per `start` (repeatable), in request order; a group with fields
 * needs `ranges` here (internal callers read whole rows). */
static void
agg (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  AbAggParams p = { .group = ab_http_param (req, "group"), .require_ranges = TRUE };
  if (!window_params (req, &p.start, &p.direction, &p.limit, &p.ranges, resp))
    return;
  g_autoptr (GPtrArray) starts = starts_param (req, resp);
  if (starts != NULL)
    agg_each (req, resp, ENGINE (ud), &p, starts, p.group, "groups", agg_group);
}

/* The multi-edges from each start to one target, counted by a COUNT group
 * whose first field is the counter (`_target` going OUT, `_source` IN): its
 * agg with ranges `counter:eq:target` before the caller's own. */
#define MULTI_EDGE_COUNT_GROUP "_count"

static void
count_item (AbJsonw *w, AbQueryDirection dir, const AbAggResult *r)
{
  ab_api_count_object (w, &r->start, dir, agg_value (r));
}

static void
multi_edge_count (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const gchar *target = ab_http_query_get (req, "target");
  const gchar *ranges = ab_http_query_get (req, "ranges");
  const gchar *group = ab_http_query_get (req, "group");
  AbQueryDirection dir;
  if (!ab_api_require_direction (req, &dir, resp))
    return;
  if (target == NULL)
    return ab_http_response_error (resp, 400, "'start' and 'target' are required.");
  g_autoptr (GPtrArray) starts = starts_param (req, resp);
  if (starts == NULL)
    return;
  if (strpbrk (target, ";") != NULL)
    return ab_http_response_error (resp, 400, "'target' may not hold ';' (it goes into ranges).");
  g_autofree gchar *all = g_strdup_printf (
      "%s:eq:%s%s%s", dir == AB_QDIR_OUT ? "_target" : "_source", target,
      ranges != NULL && *ranges != '\0' ? ";" : "", ranges != NULL ? ranges : "");
  AbAggParams p = { .group = group != NULL ? group : MULTI_EDGE_COUNT_GROUP,
                    .direction = dir,
                    .ranges = all,
                    .limit = -1 };
  agg_each (req, resp, ENGINE (ud), &p, starts, NULL, "counts", count_item);
}

static void
seek (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  static const gchar *const rejected[] = { "filters", "features", NULL };
  for (guint i = 0; rejected[i] != NULL; i++)
    if (ab_http_query_get (req, rejected[i]) != NULL)
      {
        g_autofree gchar *msg
            = g_strdup_printf ("`%s` is not supported in seek query.", rejected[i]);
        return ab_http_response_error (resp, 400, msg);
      }
  AbSeekParams p
      = { .cache = ab_http_param (req, "cache"), .offset = ab_http_query_get (req, "offset") };
  if (p.offset != NULL && p.offset[0] == '\0')
    p.offset = NULL;
  if (!window_params (req, &p.start, &p.direction, &p.limit, &p.ranges, resp))
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AbEdgeFrame) f = ab_engine_seek (ENGINE (ud), ab_http_param (req, "database"),
                                              ab_http_param (req, "table"), &p, &error);
  if (f == NULL)
    return ab_api_error (resp, error);
  ab_http_response_bytes (resp, 200, NULL, ab_api_frame_body (f));
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
  gboolean ok;
  JsonNode *n = ab_api_opt_member (o, name, G_TYPE_INT64, &ok, resp);
  *out = -1;
  if (n == NULL)
    return ok;
  if (json_node_get_int (n) >= 0 && json_node_get_int (n) <= G_MAXINT32)
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
                                               "direction, limit?, ranges?}.",
                                               where);
      ab_http_response_error (resp, 400, msg);
      return FALSE;
    }
  JsonObject *o = json_node_get_object (node);
  const gchar *dir = NULL;
  if (!ab_api_opt_string (o, "table", &hop->table, resp)
      || !ab_api_opt_string (o, "cache", &hop->cache, resp)
      || !ab_api_opt_string (o, "index", &hop->index, resp)
      || !ab_api_opt_string (o, "ranges", &hop->ranges, resp)
      || !ab_api_opt_string (o, "direction", &dir, resp)
      || !opt_int (o, "limit", &hop->limit, resp))
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
  if (!ab_api_opt_string (o, "order", &order, resp)
      || !ab_api_opt_string (o, "filters", &p->filters, resp)
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

static GBytes *
multihop_body (const AbMultihopResult *r)
{
  AbJsonw w;
  ab_jsonw_init (&w, 256 + 192 * (gsize) r->edges->len);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "edges");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < r->edges->len; i++)
    {
      ab_api_edge_begin (&w, r->edges->pdata[i]);
      ab_jsonw_key (&w, "context");
      ab_jsonw_begin_object (&w);
      ab_jsonw_member_int (&w, "hits", g_array_index (r->hits, guint, i));
      ab_jsonw_key (&w, "via");
      ab_jsonw_begin_array (&w);
      GArray *via = r->via->pdata[i];
      for (guint v = 0; v < via->len; v++)
        ab_jsonw_value (&w, &g_array_index (via, AbValue, v));
      ab_jsonw_end_array (&w);
      ab_jsonw_end_object (&w);
      ab_jsonw_end_object (&w);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_member_int (&w, "count", r->edges->len);
  ab_jsonw_member_int (&w, "total", -1);
  ab_jsonw_member_string (&w, "offset", NULL);
  ab_jsonw_member_bool (&w, "hasNext", r->has_next);
  ab_jsonw_key (&w, "context");
  ab_jsonw_begin_object (&w);
  ab_jsonw_member_int (&w, "firstHopEdges", r->first_hop_edges);
  ab_jsonw_member_int (&w, "secondHopNodes", r->second_hop_nodes);
  ab_jsonw_member_int (&w, "secondHopEdges", r->second_hop_edges);
  ab_jsonw_end_object (&w);
  ab_jsonw_end_object (&w);
  return ab_jsonw_finish (&w);
}

static void
multihop (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = ab_api_body (req, resp);
  JsonObject *o = node != NULL ? ab_api_object (node, resp) : NULL;
  if (o == NULL)
    return;
  g_autoptr (GPtrArray) starts = g_ptr_array_new_with_free_func (g_free);
  AbMultihopParams p = { .database = ab_http_param (req, "database"),
                         .starts = starts,
                         .dedup = TRUE,
                         .exclude_start = TRUE };
  JsonNode *hops = json_object_get_member (o, "hops");
  if (hops == NULL || !JSON_NODE_HOLDS_ARRAY (hops)
      || json_array_get_length (json_node_get_array (hops)) != 2)
    return ab_http_response_error (resp, 400, "'hops' must be an array of exactly two hops.");
  JsonArray *ha = json_node_get_array (hops);
  if (!body_starts (o, starts, resp)
      || !parse_hop (json_array_get_element (ha, 0), 0, &p.hops[0], resp)
      || !parse_hop (json_array_get_element (ha, 1), 1, &p.hops[1], resp)
      || !parse_flags (o, &p, resp))
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AbMultihopResult) r = ab_engine_multihop (ENGINE (ud), &p, &error);
  if (r == NULL)
    return ab_api_error (resp, error);
  ab_http_response_bytes (resp, 200, NULL, multihop_body (r));
}

void
ab_api_register_agg (AbRouter *r, AbEngine *e)
{
  const gchar *t = "/graph/v3/databases/{database}/tables/{table}";
  g_autofree gchar *a = g_strconcat (t, "/edges/agg/{group}", NULL);
  g_autofree gchar *s = g_strconcat (t, "/edges/seek/{cache}", NULL);
  ab_router_add (r, "GET", a, AB_ROUTE_INLINE, agg, e);
  g_autofree gchar *m = g_strconcat (t, "/multi-edges/count", NULL);
  ab_router_add (r, "GET", m, AB_ROUTE_INLINE, multi_edge_count, e);
  ab_router_add (r, "GET", s, AB_ROUTE_INLINE, seek, e);
  ab_router_add (r, "POST", "/graph/v3/databases/{database}/edges/multihop", AB_ROUTE_BLOCKING,
                 multihop, e);
}
