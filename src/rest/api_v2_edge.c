/* The label-based v2 edge writes (docs/rest-api.md §2.5): /graph/v2/edge with
 * {label, edges:[{ts, src, tgt, props}]} and /graph/v2/service/{s}/label/{l}/
 * edge[/sync|/delete|/purge] with {edges}, run as v3 mutations of table s.l. */
#include <string.h>
#include "rest/api-private.h"
#include "model/json_get.h"

typedef struct {
  AbOpType op;
  gboolean sync;     /* /edge/sync: applied before the answer */
  gboolean by_label; /* the label comes from the path */
} Route;

static const Route POST_EDGE = { AB_OP_INSERT, FALSE, FALSE };
static const Route PUT_EDGE = { AB_OP_UPDATE, FALSE, FALSE };
static const Route DELETE_EDGE = { AB_OP_DELETE, FALSE, FALSE };
static const Route PURGE_EDGE = { AB_OP_PURGE, FALSE, TRUE }; /* no mode: the table's */
static const Route LABEL_ROUTES[2][3] = {
  { { AB_OP_INSERT, FALSE, TRUE }, { AB_OP_UPDATE, FALSE, TRUE }, { AB_OP_DELETE, FALSE, TRUE } },
  { { AB_OP_INSERT, TRUE, TRUE }, { AB_OP_UPDATE, TRUE, TRUE }, { AB_OP_DELETE, TRUE, TRUE } },
};

static const gchar *const OP_NAMES[] = { "INSERT", "UPDATE", "DELETE", "PURGE" };

/* {"mutations":[{type, edge:{version, source, target, properties}}]} of the
 * v2 edges (a purge's properties left out: it ignores them); NULL + 400
 * answered when one is malformed. */
static JsonNode *
v3_body (JsonArray *edges, AbOpType op, AbHttpResponse *resp)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "mutations");
  json_builder_begin_array (b);
  for (guint i = 0; i < json_array_get_length (edges); i++)
    {
      JsonNode *n = json_array_get_element (edges, i);
      JsonObject *e = JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
      JsonNode *props = e != NULL ? json_object_get_member (e, "props") : NULL;
      if (e == NULL || !json_object_has_member (e, "ts") || !json_object_has_member (e, "src")
          || !json_object_has_member (e, "tgt")
          || (props != NULL && !JSON_NODE_HOLDS_OBJECT (props) && !JSON_NODE_HOLDS_NULL (props)))
        {
          g_autofree gchar *msg = g_strdup_printf (
              "'edges[%u]' must be {\"ts\", \"src\", \"tgt\", \"props\"?: {...}}.", i);
          ab_http_response_error (resp, 400, msg);
          return NULL;
        }
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, OP_NAMES[op]);
      json_builder_set_member_name (b, "edge");
      json_builder_begin_object (b);
      static const gchar *const from[] = { "ts", "src", "tgt" };
      static const gchar *const to[] = { "version", "source", "target" };
      for (guint k = 0; k < G_N_ELEMENTS (from); k++)
        {
          json_builder_set_member_name (b, to[k]);
          json_builder_add_value (b, json_node_copy (json_object_get_member (e, from[k])));
        }
      json_builder_set_member_name (b, "properties");
      if (props != NULL && JSON_NODE_HOLDS_OBJECT (props) && op != AB_OP_PURGE)
        json_builder_add_value (b, json_node_copy (props));
      else
        {
          json_builder_begin_object (b);
          json_builder_end_object (b);
        }
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* The request edge whose src and tgt read as the result's source and target. */
static JsonObject *
sent_edge (JsonArray *edges, const AbKeyResult *r)
{
  g_autofree gchar *s = ab_value_to_string (&r->source);
  g_autofree gchar *t = ab_value_to_string (&r->target);
  for (guint i = 0; i < json_array_get_length (edges); i++)
    {
      JsonObject *e = json_array_get_object_element (edges, i);
      JsonNode *src = json_object_get_member (e, "src"), *tgt = json_object_get_member (e, "tgt");
      g_autofree gchar *es = JSON_NODE_HOLDS_VALUE (src) ? json_to_string (src, FALSE) : NULL;
      g_autofree gchar *et = JSON_NODE_HOLDS_VALUE (tgt) ? json_to_string (tgt, FALSE) : NULL;
      const gchar *ss
          = json_node_get_value_type (src) == G_TYPE_STRING ? json_node_get_string (src) : es;
      const gchar *tt
          = json_node_get_value_type (tgt) == G_TYPE_STRING ? json_node_get_string (tgt) : et;
      if (g_strcmp0 (ss, s) == 0 && g_strcmp0 (tt, t) == 0)
        return e;
    }
  return NULL;
}

/* {"result":[{status, traceId, edge:{ts, src, tgt, props, active}|null, context?}]} */
static GBytes *
v2_body (GArray *results, JsonArray *edges, AbOpType op, const gchar *trace)
{
  AbJsonw w;
  ab_jsonw_init (&w, 64 + 128 * (gsize) results->len);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "result");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < results->len; i++)
    {
      const AbKeyResult *r = &g_array_index (results, AbKeyResult, i);
      gboolean failed = r->status == AB_STATUS_ERROR || r->status == AB_STATUS_INVALID;
      JsonObject *e = failed ? NULL : sent_edge (edges, r);
      ab_jsonw_begin_object (&w);
      ab_jsonw_member_string (&w, "status", ab_key_status_name (r->status));
      ab_jsonw_member_string (&w, "traceId", trace);
      ab_jsonw_key (&w, "edge");
      if (e == NULL)
        ab_jsonw_null (&w);
      else
        {
          ab_jsonw_begin_object (&w);
          ab_jsonw_key (&w, "ts");
          ab_jsonw_node (&w, json_object_get_member (e, "ts"));
          ab_jsonw_member_value (&w, "src", &r->source);
          ab_jsonw_member_value (&w, "tgt", &r->target);
          JsonNode *props = json_object_get_member (e, "props");
          if (props != NULL && JSON_NODE_HOLDS_OBJECT (props))
            {
              ab_jsonw_key (&w, "props");
              ab_jsonw_node (&w, props);
            }
          else
            ab_jsonw_member_empty_object (&w, "props");
          ab_jsonw_member_bool (&w, "active", op != AB_OP_DELETE && op != AB_OP_PURGE);
          ab_jsonw_end_object (&w);
        }
      ab_api_key_result_tail (&w, r);
      ab_jsonw_end_object (&w);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_end_object (&w);
  return ab_jsonw_finish (&w);
}

/* ?mode=SYNC applies before the answer; ASYNC (or none) follows the table. */
static gboolean
mode_param (const AbHttpRequest *req, gboolean *sync, AbHttpResponse *resp)
{
  const gchar *mode = ab_http_query_get (req, "mode");
  const gchar *bulk = ab_http_query_get (req, "bulk");
  if (bulk != NULL && g_ascii_strcasecmp (bulk, "true") != 0
      && g_ascii_strcasecmp (bulk, "false") != 0)
    return ab_http_response_error (resp, 400, "'bulk' must be true or false."), FALSE;
  if (mode == NULL || g_ascii_strcasecmp (mode, "ASYNC") == 0)
    return TRUE;
  if (g_ascii_strcasecmp (mode, "SYNC") == 0)
    return *sync = TRUE, TRUE;
  ab_http_response_error (resp, 400, "'mode' must be SYNC or ASYNC.");
  return FALSE;
}

/* ud: an AbApiRoute of a Route. */
static void
write_edges (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *with = ud;
  const Route *route = with->kind;
  g_autoptr (JsonNode) body = ab_api_body (req, resp);
  JsonObject *o = body != NULL ? ab_api_object (body, resp) : NULL;
  if (o == NULL)
    return;
  gboolean sync = route->sync;
  if (!route->sync && route->op != AB_OP_PURGE && !mode_param (req, &sync, resp))
    return;
  g_autofree gchar *db = NULL, *table = NULL;
  if (route->by_label)
    db = g_strdup (ab_http_param (req, "s")), table = g_strdup (ab_http_param (req, "l"));
  else
    {
      const gchar *label = ab_model_json_get_string (o, "label");
      const gchar *dot = label != NULL ? strchr (label, '.') : NULL;
      if (dot == NULL || dot == label || dot[1] == '\0')
        return ab_http_response_error (resp, 400, "'label' must be \"service.label\".");
      db = g_strndup (label, dot - label), table = g_strdup (dot + 1);
    }
  JsonNode *en = json_object_get_member (o, "edges");
  if (en == NULL || !JSON_NODE_HOLDS_ARRAY (en))
    return ab_http_response_error (resp, 400, "'edges' must be an array of edges.");
  JsonArray *edges = json_node_get_array (en);
  g_autoptr (JsonNode) v3 = v3_body (edges, route->op, resp);
  if (v3 == NULL)
    return;
  AbMutateOptions opt;
  ab_api_mutate_options (req, &opt);
  opt.database = db;
  opt.table = table;
  opt.edges_endpoint = TRUE;
  opt.sync_request = sync;
  opt.purge = route->op == AB_OP_PURGE;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) results = ab_engine_mutate (with->engine, &opt, v3, &error);
  if (results == NULL)
    return ab_api_error (resp, error);
  ab_http_response_bytes (resp, 200, NULL, v2_body (results, edges, route->op, req->request_id));
}

void
ab_api_register_v2_edge (AbRouter *r, AbEngine *e)
{
#define LABEL "/graph/v2/service/{s}/label/{l}/edge"
  static const struct {
    const gchar *method, *path;
    const Route *route;
  } routes[] = {
    { "POST", "/graph/v2/edge", &POST_EDGE },
    { "PUT", "/graph/v2/edge", &PUT_EDGE },
    { "DELETE", "/graph/v2/edge", &DELETE_EDGE },
    { "POST", LABEL, &LABEL_ROUTES[0][0] },
    { "PUT", LABEL, &LABEL_ROUTES[0][1] },
    { "DELETE", LABEL, &LABEL_ROUTES[0][2] },
    { "POST", LABEL "/delete", &LABEL_ROUTES[0][2] },
    { "POST", LABEL "/sync", &LABEL_ROUTES[1][0] },
    { "PUT", LABEL "/sync", &LABEL_ROUTES[1][1] },
    { "DELETE", LABEL "/sync", &LABEL_ROUTES[1][2] },
    { "POST", LABEL "/purge", &PURGE_EDGE },
    { "DELETE", LABEL "/purge", &PURGE_EDGE },
  };
#undef LABEL
  for (guint i = 0; i < G_N_ELEMENTS (routes); i++)
    ab_router_add (r, routes[i].method, routes[i].path, AB_ROUTE_BLOCKING, write_edges,
                   ab_api_route (r, e, routes[i].route));
  ab_api_register_v2_query (r, e); /* the GET of the same path */
}
