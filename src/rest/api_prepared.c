/* /graph/v3/prepared-queries: registering, listing, reading, amending and
 * deleting prepared queries and their aliases (upstream's newest contract;
 * the engine keeps them in the catalog). Running one is api_query.c's. */
#include "rest/api-private.h"

/* What prepared queries and their aliases differ in: the path parameter
 * that names one, and the engine's calls. */
typedef struct {
  const gchar *param;
  JsonNode *(*create) (AbEngine *e, JsonObject *req, const gchar *actor, GError **error);
  GPtrArray *(*list) (AbEngine *e, AbPreparedStatus status);
  JsonNode *(*get) (AbEngine *e, const gchar *name, GError **error);
  JsonNode *(*update) (AbEngine *e, const gchar *name, JsonObject *req, const gchar *actor,
                       GError **error);
  gboolean (*remove) (AbEngine *e, const gchar *name, GError **error);
} Prepared;

static const Prepared QUERIES = {
  "id",
  ab_engine_prepared_register,
  ab_engine_prepared_list,
  ab_engine_prepared_get,
  ab_engine_prepared_amend,
  ab_engine_prepared_delete,
};

static const Prepared ALIASES = {
  "alias",
  ab_engine_prepared_alias_create,
  ab_engine_prepared_aliases,
  ab_engine_prepared_alias_get,
  ab_engine_prepared_alias_update,
  ab_engine_prepared_alias_delete,
};

/* 200 with the entity, or the error. */
static void
answer (AbHttpResponse *resp, JsonNode *entity, GError *error)
{
  if (entity == NULL)
    return ab_api_fail (resp, error);
  ab_http_response_json (resp, 200, entity);
}

static gboolean
status_of (const AbHttpRequest *req, AbHttpResponse *resp, AbPreparedStatus *st)
{
  g_autoptr (GError) error = NULL;
  if (ab_engine_prepared_status (ab_http_query_get (req, "status"), st, &error))
    return TRUE;
  ab_api_error (resp, error);
  return FALSE;
}

/* The request body as an object (*node keeps it), or NULL after a 400. */
static JsonObject *
body_object (const AbHttpRequest *req, AbHttpResponse *resp, JsonNode **node)
{
  *node = ab_api_body (req, resp);
  return *node != NULL ? ab_api_object (*node, resp) : NULL;
}

/* The handlers below take an AbApiRoute of a Prepared. */

/* POST of the collection creates one, PUT of one (named in the path)
 * updates it. */
static void
write_one (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const Prepared *kind = route->kind;
  const gchar *name = ab_http_param (req, kind->param);
  g_autoptr (JsonNode) body = NULL;
  JsonObject *o = body_object (req, resp, &body);
  if (o == NULL)
    return;
  GError *error = NULL;
  JsonNode *r = name == NULL ? kind->create (route->engine, o, ab_api_actor (req), &error)
                             : kind->update (route->engine, name, o, ab_api_actor (req), &error);
  answer (resp, r, error);
}

static void
list_all (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const Prepared *kind = route->kind;
  AbPreparedStatus st;
  if (!status_of (req, resp, &st))
    return;
  g_autoptr (GPtrArray) all = kind->list (route->engine, st);
  JsonArray *a = json_array_new ();
  for (guint i = 0; i < all->len; i++)
    json_array_add_element (a, json_node_ref (all->pdata[i]));
  ab_http_response_json (resp, 200, json_node_init_array (json_node_alloc (), a));
  json_array_unref (a);
}

static void
get_one (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const Prepared *kind = route->kind;
  GError *error = NULL;
  JsonNode *r = kind->get (route->engine, ab_http_param (req, kind->param), &error);
  answer (resp, r, error);
}

/* 204, or the error. */
static void
delete_one (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const Prepared *kind = route->kind;
  GError *error = NULL;
  if (!kind->remove (route->engine, ab_http_param (req, kind->param), &error))
    return ab_api_fail (resp, error);
  ab_http_response_empty (resp, 204);
}

void
ab_api_register_prepared (AbRouter *r, AbEngine *e)
{
  AbApiRoute *q = ab_api_route (r, e, &QUERIES), *a = ab_api_route (r, e, &ALIASES);
#define PQ "/graph/v3/prepared-queries"
  ab_router_add (r, "POST", PQ, AB_ROUTE_BLOCKING, write_one, q);
  ab_router_add (r, "GET", PQ, AB_ROUTE_INLINE, list_all, q);
  ab_router_add (r, "GET", PQ "/{id}", AB_ROUTE_INLINE, get_one, q);
  ab_router_add (r, "PUT", PQ "/{id}", AB_ROUTE_BLOCKING, write_one, q);
  ab_router_add (r, "DELETE", PQ "/{id}", AB_ROUTE_BLOCKING, delete_one, q);
  ab_router_add (r, "POST", PQ "/aliases", AB_ROUTE_BLOCKING, write_one, a);
  ab_router_add (r, "GET", PQ "/aliases", AB_ROUTE_INLINE, list_all, a);
  ab_router_add (r, "GET", PQ "/aliases/{alias}", AB_ROUTE_INLINE, get_one, a);
  ab_router_add (r, "PUT", PQ "/aliases/{alias}", AB_ROUTE_BLOCKING, write_one, a);
  ab_router_add (r, "DELETE", PQ "/aliases/{alias}", AB_ROUTE_BLOCKING, delete_one, a);
#undef PQ
}
