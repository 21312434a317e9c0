/* Data endpoints (docs/rest-api.md §3-§4, §11.2): edge, multi-edge and vertex
 * mutations, cache prune, count and counts, get (GET and POST), vertices/get,
 * and index scans, with the EdgeFrame / VertexFrame / Count response shapes. */
#include <stdlib.h>
#include <string.h>
#include "rest/api-private.h"

#define ENGINE(ud) ((AbEngine *) (ud))

static gboolean
query_bool (const AbHttpRequest *req, const gchar *name, gboolean dflt, gboolean *out,
            AbHttpResponse *resp)
{
  const gchar *v = ab_http_query_get (req, name);
  *out = dflt;
  if (v == NULL)
    return TRUE;
  if (g_ascii_strcasecmp (v, "true") == 0)
    *out = TRUE;
  else if (g_ascii_strcasecmp (v, "false") == 0)
    *out = FALSE;
  else
    {
      g_autofree gchar *msg = g_strdup_printf ("'%s' must be true or false.", name);
      ab_http_response_error (resp, 400, msg);
      return FALSE;
    }
  return TRUE;
}

void
ab_api_key_result_tail (AbJsonw *w, const AbKeyResult *r)
{
  if (r->message != NULL && (r->status == AB_STATUS_ERROR || r->status == AB_STATUS_INVALID))
    ab_jsonw_member_string (w, "message", r->message);
  if (r->context != NULL)
    {
      ab_jsonw_key (w, "context");
      ab_jsonw_node (w, r->context);
    }
}

/* {"results":[{source, target | id, status, count, message?, context?}]}:
 * message (ours, upstream has none) says why a key is ERROR or INVALID.
 * multi_edge: keys by id (multi-edges and vertices). */
GBytes *
ab_api_mutation_body (GArray *results, gboolean multi_edge)
{
  AbJsonw w;
  ab_jsonw_init (&w, 64 + 96 * (gsize) results->len);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "results");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < results->len; i++)
    {
      const AbKeyResult *r = &g_array_index (results, AbKeyResult, i);
      ab_jsonw_begin_object (&w);
      if (multi_edge)
        ab_jsonw_member_value (&w, "id", &r->source);
      else
        {
          ab_jsonw_member_value (&w, "source", &r->source);
          ab_jsonw_member_value (&w, "target", &r->target);
        }
      ab_jsonw_member_string (&w, "status", ab_key_status_name (r->status));
      ab_jsonw_member_int (&w, "count", r->count);
      ab_api_key_result_tail (&w, r);
      ab_jsonw_end_object (&w);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_end_object (&w);
  return ab_jsonw_finish (&w);
}

/* A mutation whose answer waits for its group commit without holding the
 * worker: the engine calls back on the store's completion thread. */
typedef struct {
  AbHttpResponse *resp;
  gboolean multi;
} MutationReply;

static void
mutation_done (GArray *results, GError *error, gpointer data)
{
  MutationReply *reply = data;
  if (results == NULL)
    ab_api_error (reply->resp, error);
  else
    ab_http_response_bytes (reply->resp, 200, NULL, ab_api_mutation_body (results, reply->multi));
  g_clear_pointer (&results, g_array_unref);
  g_clear_error (&error);
  AbHttpResponse *resp = reply->resp;
  g_free (reply);
  ab_http_response_resume (resp);
}

void
ab_api_mutate_options (const AbHttpRequest *req, AbMutateOptions *o)
{
  ab_mutate_options_init (o);
  o->request_id = req->request_id;
  o->actor = ab_api_actor (req);
  const gchar *ctx = ab_http_header_get (req, "ab-include-mutation-context");
  o->include_context = ctx != NULL && g_ascii_strcasecmp (ctx, "true") == 0;
}

/* Which mutation route a request came by (an AbApiRoute's kind). */
typedef enum { EP_EDGES, EP_MULTI_EDGES, EP_VERTICES } Endpoint;
typedef struct {
  Endpoint ep;
  gboolean sync; /* …/sync */
} Mutation;

/* MUTATIONS[ep][sync] */
static const Mutation MUTATIONS[][2] = {
  [EP_EDGES] = { { EP_EDGES, FALSE }, { EP_EDGES, TRUE } },
  [EP_MULTI_EDGES] = { { EP_MULTI_EDGES, FALSE }, { EP_MULTI_EDGES, TRUE } },
  [EP_VERTICES] = { { EP_VERTICES, FALSE }, { EP_VERTICES, TRUE } },
};

static void
mutate (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const Mutation *m = route->kind;
  gboolean multi = m->ep != EP_EDGES; /* results keyed by id */
  AbMutateOptions o;
  ab_api_mutate_options (req, &o);
  o.database = ab_http_param (req, "database");
  o.table = ab_http_param (req, "table");
  o.multi_edge = m->ep == EP_MULTI_EDGES;
  o.vertex = m->ep == EP_VERTICES;
  o.edges_endpoint = m->ep == EP_EDGES;
  o.sync_request = m->sync;
  if (!query_bool (req, "lock", TRUE, &o.lock, resp)
      || !query_bool (req, "force", FALSE, &o.force, resp))
    return;
  g_autoptr (JsonNode) body = ab_api_body (req, resp);
  if (body == NULL)
    return;
  AbHttpResponse *later = ab_http_response_defer (resp);
  if (later != NULL)
    {
      MutationReply *reply = g_new (MutationReply, 1);
      *reply = (MutationReply){ later, multi };
      ab_engine_mutate_async (route->engine, &o, body, mutation_done, reply);
      return;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) results = ab_engine_mutate (route->engine, &o, body, &error);
  if (results == NULL)
    return ab_api_error (resp, error);
  ab_http_response_bytes (resp, 200, NULL, ab_api_mutation_body (results, multi));
}

gboolean
ab_api_require_direction (const AbHttpRequest *req, AbQueryDirection *dir, AbHttpResponse *resp)
{
  const gchar *d = ab_http_query_get (req, "direction");
  if (d == NULL)
    ab_http_response_error (resp, 400, "'direction' is required (OUT or IN).");
  else if (!ab_query_direction_parse (d, dir))
    {
      g_autofree gchar *msg = g_strdup_printf ("Invalid direction '%s': expected OUT or IN.", d);
      ab_http_response_error (resp, 400, msg);
    }
  else
    return TRUE;
  return FALSE;
}

gboolean
ab_api_reject_params (const AbHttpRequest *req, const gchar *const *names, const gchar *what,
                      AbHttpResponse *resp)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      const gchar *v = ab_http_query_get (req, names[i]);
      if (v != NULL && v[0] != '\0')
        {
          g_autofree gchar *msg
              = g_strdup_printf ("`%s` is not yet supported in %s query.", names[i], what);
          ab_http_response_error (resp, 400, msg);
          return FALSE;
        }
    }
  return TRUE;
}

void
ab_api_start_begin (AbJsonw *w, const AbValue *start, AbQueryDirection dir)
{
  ab_jsonw_begin_object (w);
  ab_jsonw_member_value (w, "start", start);
  ab_jsonw_member_string (w, "direction", dir == AB_QDIR_OUT ? "OUT" : "IN");
}

void
ab_api_count_object (AbJsonw *w, const AbValue *start, AbQueryDirection dir, gint64 count)
{
  ab_api_start_begin (w, start, dir);
  ab_jsonw_member_int (w, "count", count);
  ab_jsonw_member_empty_object (w, "context");
  ab_jsonw_end_object (w);
}

static void
count (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  static const gchar *const rejected[] = { "ranges", "filters", "features", NULL };
  AbQueryDirection dir;
  const gchar *start = ab_http_query_get (req, "start");
  if (!ab_api_reject_params (req, rejected, "count", resp)
      || !ab_api_require_direction (req, &dir, resp))
    return;
  if (start == NULL)
    return ab_http_response_error (resp, 400, "'start' is required.");
  AbValue sv = AB_VALUE_INIT;
  gint64 n;
  g_autoptr (GError) error = NULL;
  if (!ab_engine_count (ENGINE (ud), ab_http_param (req, "database"), ab_http_param (req, "table"),
                        start, dir, &sv, &n, &error))
    return ab_api_error (resp, error);
  AbJsonw w;
  ab_jsonw_init (&w, 128);
  ab_api_count_object (&w, &sv, dir, n);
  ab_value_clear (&sv);
  ab_api_answer (resp, &w);
}

static void
counts (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  AbQueryDirection dir;
  if (!ab_api_require_direction (req, &dir, resp))
    return;
  g_autoptr (GPtrArray) starts = ab_api_list_param (req, "start");
  if (starts->len == 0)
    return ab_http_response_error (resp, 400, "'start' is required.");
  g_auto (AbJsonw) w = { 0 };
  ab_jsonw_init (&w, 32 + 128 * (gsize) starts->len);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "counts");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < starts->len; i++)
    {
      AbValue sv = AB_VALUE_INIT;
      gint64 n;
      g_autoptr (GError) error = NULL;
      if (!ab_engine_count (ENGINE (ud), ab_http_param (req, "database"),
                            ab_http_param (req, "table"), starts->pdata[i], dir, &sv, &n, &error))
        return ab_api_error (resp, error);
      ab_api_count_object (&w, &sv, dir, n);
      ab_value_clear (&sv);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_member_int (&w, "count", starts->len);
  ab_jsonw_member_empty_object (&w, "context");
  ab_jsonw_end_object (&w);
  ab_api_answer (resp, &w);
}

void
ab_api_edge_begin (AbJsonw *w, const AbEdgeOut *e)
{
  ab_jsonw_begin_object (w);
  ab_jsonw_member_int (w, "version", e->version);
  ab_jsonw_member_value (w, "source", &e->source);
  ab_jsonw_member_value (w, "target", &e->target);
  ab_jsonw_key (w, "properties");
  ab_jsonw_begin_object (w);
  for (guint p = 0; p < e->n_props; p++)
    ab_jsonw_member_value (w, e->names[p], &e->values[p]);
  ab_jsonw_end_object (w);
}

GBytes *
ab_api_frame_body (const AbEdgeFrame *f)
{
  AbJsonw w;
  ab_jsonw_init (&w, 128 + 160 * (gsize) f->edges->len);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "edges");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < f->edges->len; i++)
    {
      ab_api_edge_begin (&w, f->edges->pdata[i]);
      ab_jsonw_member_empty_object (&w, "context");
      ab_jsonw_end_object (&w);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_member_int (&w, "count", f->edges->len);
  ab_jsonw_member_int (&w, "total", f->total);
  ab_jsonw_member_string (&w, "offset", f->offset);
  ab_jsonw_member_bool (&w, "hasNext", f->has_next);
  ab_jsonw_member_empty_object (&w, "context");
  ab_jsonw_end_object (&w);
  return ab_jsonw_finish (&w);
}

static void
answer_frame (AbHttpResponse *resp, AbEdgeFrame *frame, GError *error)
{
  if (frame == NULL)
    return ab_api_fail (resp, error);
  ab_http_response_bytes (resp, 200, NULL, ab_api_frame_body (frame));
  ab_edge_frame_free (frame);
}

static void
get_edges (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  static const gchar *const rejected[] = { "ranges", "features", NULL };
  if (!ab_api_reject_params (req, rejected, "get", resp))
    return;
  g_autoptr (GPtrArray) sources = ab_api_list_param (req, "source");
  g_autoptr (GPtrArray) targets = ab_api_list_param (req, "target");
  GError *error = NULL;
  AbEdgeFrame *f
      = ab_engine_get (ENGINE (ud), ab_http_param (req, "database"), ab_http_param (req, "table"),
                       sources, targets, ab_http_query_get (req, "filters"), &error);
  answer_frame (resp, f, error);
}

/* POST form: {source:[...], target:[...], filters?}; scalars accepted too. */
static gboolean
body_list (JsonObject *o, const gchar *name, GPtrArray *out, AbHttpResponse *resp)
{
  JsonNode *n = json_object_get_member (o, name);
  if (n != NULL && JSON_NODE_HOLDS_VALUE (n))
    {
      g_autoptr (JsonGenerator) g = json_generator_new ();
      g_ptr_array_add (out,
                       json_node_get_value_type (n) == G_TYPE_STRING
                           ? g_strdup (json_node_get_string (n))
                           : (json_generator_set_root (g, n), json_generator_to_data (g, NULL)));
      return TRUE;
    }
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    {
      g_autofree gchar *msg = g_strdup_printf ("'%s' must be an array.", name);
      ab_http_response_error (resp, 400, msg);
      return FALSE;
    }
  JsonArray *a = json_node_get_array (n);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_VALUE (e))
        continue;
      g_autoptr (JsonGenerator) g = json_generator_new ();
      json_generator_set_root (g, e);
      g_ptr_array_add (out, json_node_get_value_type (e) == G_TYPE_STRING
                                ? g_strdup (json_node_get_string (e))
                                : json_generator_to_data (g, NULL));
    }
  return TRUE;
}

static void
post_get_edges (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = ab_api_body (req, resp);
  JsonObject *o = node != NULL ? ab_api_object (node, resp) : NULL;
  g_autoptr (GPtrArray) sources = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) targets = g_ptr_array_new_with_free_func (g_free);
  const gchar *filters = NULL;
  if (o == NULL || !body_list (o, "source", sources, resp)
      || !body_list (o, "target", targets, resp)
      || !ab_api_opt_string (o, "filters", &filters, resp))
    return;
  GError *error = NULL;
  AbEdgeFrame *f = ab_engine_get (ENGINE (ud), ab_http_param (req, "database"),
                                  ab_http_param (req, "table"), sources, targets, filters, &error);
  answer_frame (resp, f, error);
}

static void
scan (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  AbScanParams p = { .index = ab_http_param (req, "index"), .limit = -1 };
  p.start = ab_http_query_get (req, "start");
  if (!ab_api_require_direction (req, &p.direction, resp))
    return;
  if (p.start == NULL)
    return ab_http_response_error (resp, 400, "'start' is required.");
  const gchar *limit = ab_http_query_get (req, "limit");
  if (limit != NULL)
    {
      gint64 n;
      if (!g_ascii_string_to_signed (limit, 10, G_MININT32, G_MAXINT32, &n, NULL))
        return ab_http_response_error (resp, 400, "'limit' must be an integer.");
      /* -1 means "absent" to the engine: an explicit value below 1 is passed
       * as 0, which it refuses with the allowed range. */
      p.limit = n < 1 ? 0 : (gint) n;
    }
  p.offset = ab_http_query_get (req, "offset");
  if (p.offset != NULL && p.offset[0] == '\0')
    p.offset = NULL;
  p.ranges = ab_http_query_get (req, "ranges");
  p.filters = ab_http_query_get (req, "filters");
  p.features = ab_http_query_get (req, "features");
  GError *error = NULL;
  AbEdgeFrame *f = ab_engine_scan (ENGINE (ud), ab_http_param (req, "database"),
                                   ab_http_param (req, "table"), &p, &error);
  answer_frame (resp, f, error);
}

static void
scan_delete (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  AbScanParams p = { .index = ab_http_param (req, "index"), .limit = -1 };
  p.start = ab_http_query_get (req, "start");
  if (!ab_api_require_direction (req, &p.direction, resp))
    return;
  const gchar *limit = ab_http_query_get (req, "limit");
  gint64 n;
  if (p.start == NULL || limit == NULL)
    return ab_http_response_error (resp, 400, "'start' and 'limit' are required.");
  if (!g_ascii_string_to_signed (limit, 10, 1, 1000, &n, NULL))
    return ab_http_response_error (resp, 400, "'limit' must be an integer between 1 and 1000.");
  p.limit = (gint) n;
  p.ranges = ab_http_query_get (req, "ranges");
  guint deleted = 0;
  g_autoptr (GError) error = NULL;
  if (!ab_engine_scan_delete (ENGINE (ud), ab_http_param (req, "database"),
                              ab_http_param (req, "table"), &p, &deleted, &error))
    return ab_api_error (resp, error);
  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "database", ab_http_param (req, "database"));
  json_object_set_string_member (o, "table", ab_http_param (req, "table"));
  json_object_set_string_member (o, "index", p.index);
  json_object_set_int_member (o, "deleted", deleted);
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, o);
  ab_http_response_json (resp, 200, node);
}

static void
get_ids (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (GPtrArray) ids = ab_api_list_param (req, "ids");
  GError *error = NULL;
  AbEdgeFrame *f = ab_engine_get_ids (ENGINE (ud), ab_http_param (req, "database"),
                                      ab_http_param (req, "table"), ids,
                                      ab_http_query_get (req, "filters"), &error);
  answer_frame (resp, f, error);
}

static void
post_get_ids (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = ab_api_body (req, resp);
  JsonObject *o = node != NULL ? ab_api_object (node, resp) : NULL;
  g_autoptr (GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  const gchar *filters = NULL;
  if (o == NULL || !body_list (o, "ids", ids, resp)
      || !ab_api_opt_string (o, "filters", &filters, resp))
    return;
  GError *error = NULL;
  AbEdgeFrame *f = ab_engine_get_ids (ENGINE (ud), ab_http_param (req, "database"),
                                      ab_http_param (req, "table"), ids, filters, &error);
  answer_frame (resp, f, error);
}

/* The VertexFrame of upstream: {"vertices":[{version, id, properties,
 * context}], count, total, context}; no paging. */
static GBytes *
vertex_frame_body (const AbEdgeFrame *f)
{
  AbJsonw w;
  ab_jsonw_init (&w, 128 + 160 * (gsize) f->edges->len);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "vertices");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < f->edges->len; i++)
    {
      const AbEdgeOut *e = f->edges->pdata[i];
      ab_jsonw_begin_object (&w);
      ab_jsonw_member_int (&w, "version", e->version);
      ab_jsonw_member_value (&w, "id", &e->source);
      ab_jsonw_key (&w, "properties");
      ab_jsonw_begin_object (&w);
      for (guint p = 0; p < e->n_props; p++)
        ab_jsonw_member_value (&w, e->names[p], &e->values[p]);
      ab_jsonw_end_object (&w);
      ab_jsonw_member_empty_object (&w, "context");
      ab_jsonw_end_object (&w);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_member_int (&w, "count", f->edges->len);
  ab_jsonw_member_int (&w, "total", f->total);
  ab_jsonw_member_empty_object (&w, "context");
  ab_jsonw_end_object (&w);
  return ab_jsonw_finish (&w);
}

/* GET …/vertices/get?id=a&id=b (or id=a,b), filters optional. */
static void
get_vertices (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (GPtrArray) ids = ab_api_list_param (req, "id");
  g_autoptr (GError) error = NULL;
  g_autoptr (AbEdgeFrame) f = ab_engine_get_vertices (ENGINE (ud), ab_http_param (req, "database"),
                                                      ab_http_param (req, "table"), ids,
                                                      ab_http_query_get (req, "filters"), &error);
  if (f == NULL)
    return ab_api_error (resp, error);
  ab_http_response_bytes (resp, 200, NULL, vertex_frame_body (f));
}

/* POST …/edges/prune: cache rows of the given starts trimmed now (§11.2). */
static void
prune (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) body = ab_api_body (req, resp);
  JsonObject *o = body != NULL ? ab_api_object (body, resp) : NULL;
  if (o == NULL)
    return;
  g_autoptr (GError) error = NULL;
  JsonNode *out = ab_engine_prune (ENGINE (ud), ab_http_param (req, "database"),
                                   ab_http_param (req, "table"), o, &error);
  if (out == NULL)
    return ab_api_error (resp, error);
  ab_http_response_json (resp, 200, out);
}

void
ab_api_register_data (AbRouter *r, AbEngine *e)
{
  const AbRouteFlags I = AB_ROUTE_INLINE, B = AB_ROUTE_BLOCKING;
  const gchar *t = "/graph/v3/databases/{database}/tables/{table}";
  g_autofree gchar *e1 = g_strconcat (t, "/edges", NULL);
  g_autofree gchar *e2 = g_strconcat (t, "/edges/sync", NULL);
  g_autofree gchar *m1 = g_strconcat (t, "/multi-edges", NULL);
  g_autofree gchar *m2 = g_strconcat (t, "/multi-edges/sync", NULL);
  g_autofree gchar *c1 = g_strconcat (t, "/edges/count", NULL);
  g_autofree gchar *c2 = g_strconcat (t, "/edges/counts", NULL);
  g_autofree gchar *g1 = g_strconcat (t, "/edges/get", NULL);
  g_autofree gchar *s1 = g_strconcat (t, "/edges/scan/{index}", NULL);
  ab_router_add (r, "POST", e1, B, mutate, ab_api_route (r, e, &MUTATIONS[EP_EDGES][0]));
  ab_router_add (r, "POST", e2, B, mutate, ab_api_route (r, e, &MUTATIONS[EP_EDGES][1]));
  ab_router_add (r, "POST", m1, B, mutate, ab_api_route (r, e, &MUTATIONS[EP_MULTI_EDGES][0]));
  ab_router_add (r, "POST", m2, B, mutate, ab_api_route (r, e, &MUTATIONS[EP_MULTI_EDGES][1]));
  ab_router_add (r, "GET", c1, I, count, e);
  ab_router_add (r, "GET", c2, I, counts, e);
  ab_router_add (r, "GET", g1, I, get_edges, e);
  ab_router_add (r, "POST", g1, I, post_get_edges, e);
  ab_router_add (r, "GET", s1, I, scan, e);
  ab_router_add (r, "DELETE", s1, B, scan_delete, e);
  g_autofree gchar *p1 = g_strconcat (t, "/edges/prune", NULL);
  ab_router_add (r, "POST", p1, B, prune, e);
  g_autofree gchar *i1 = g_strconcat (t, "/multi-edges/ids", NULL);
  ab_router_add (r, "GET", i1, I, get_ids, e);
  ab_router_add (r, "POST", i1, I, post_get_ids, e);
  g_autofree gchar *v1 = g_strconcat (t, "/vertices", NULL);
  g_autofree gchar *v2 = g_strconcat (t, "/vertices/sync", NULL);
  g_autofree gchar *v3 = g_strconcat (t, "/vertices/get", NULL);
  ab_router_add (r, "POST", v1, B, mutate, ab_api_route (r, e, &MUTATIONS[EP_VERTICES][0]));
  ab_router_add (r, "POST", v2, B, mutate, ab_api_route (r, e, &MUTATIONS[EP_VERTICES][1]));
  ab_router_add (r, "GET", v3, I, get_vertices, e);
}
