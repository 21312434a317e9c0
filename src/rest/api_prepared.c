/* /graph/v3/prepared-queries: registering, listing, reading, amending and
 * deleting prepared queries and their aliases (upstream's newest contract;
 * the engine keeps them in the catalog). Running one is api_query.c's. */
#include "rest/api-private.h"

#define ENGINE(ud) ((AbEngine *) (ud))

/* 200 with the entity, or the error. */
static void
answer (AbHttpResponse *resp, JsonNode *entity, GError *error)
{
  if (entity == NULL)
    {
      ab_api_error (resp, error);
      g_error_free (error);
      return;
    }
  ab_http_response_json (resp, 200, entity);
}

static void
answer_list (AbHttpResponse *resp, GPtrArray *all)
{
  JsonArray *a = json_array_new ();
  for (guint i = 0; i < all->len; i++)
    json_array_add_element (a, json_node_ref (all->pdata[i]));
  ab_http_response_json (resp, 200, json_node_init_array (json_node_alloc (), a));
  json_array_unref (a);
}

/* 204, or the error. */
static void
answer_deleted (AbHttpResponse *resp, gboolean ok, GError *error)
{
  if (!ok)
    {
      ab_api_error (resp, error);
      g_error_free (error);
      return;
    }
  ab_http_response_empty (resp, 204);
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

static void
register_query (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) body = NULL;
  JsonObject *o = body_object (req, resp, &body);
  if (o == NULL)
    return;
  GError *error = NULL;
  JsonNode *r = ab_engine_prepared_register (ENGINE (ud), o, ab_api_actor (req), &error);
  answer (resp, r, error);
}

static void
list_queries (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  AbPreparedStatus st;
  if (!status_of (req, resp, &st))
    return;
  g_autoptr (GPtrArray) all = ab_engine_prepared_list (ENGINE (ud), st);
  answer_list (resp, all);
}

static void
get_query (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  GError *error = NULL;
  JsonNode *r = ab_engine_prepared_get (ENGINE (ud), ab_http_param (req, "id"), &error);
  answer (resp, r, error);
}

static void
amend_query (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) body = NULL;
  JsonObject *o = body_object (req, resp, &body);
  if (o == NULL)
    return;
  GError *error = NULL;
  JsonNode *r = ab_engine_prepared_amend (ENGINE (ud), ab_http_param (req, "id"), o,
                                          ab_api_actor (req), &error);
  answer (resp, r, error);
}

static void
delete_query (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  GError *error = NULL;
  gboolean r = ab_engine_prepared_delete (ENGINE (ud), ab_http_param (req, "id"), &error);
  answer_deleted (resp, r, error);
}

static void
create_alias (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) body = NULL;
  JsonObject *o = body_object (req, resp, &body);
  if (o == NULL)
    return;
  GError *error = NULL;
  JsonNode *r = ab_engine_prepared_alias_create (ENGINE (ud), o, ab_api_actor (req), &error);
  answer (resp, r, error);
}

static void
list_aliases (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  AbPreparedStatus st;
  if (!status_of (req, resp, &st))
    return;
  g_autoptr (GPtrArray) all = ab_engine_prepared_aliases (ENGINE (ud), st);
  answer_list (resp, all);
}

static void
get_alias (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  GError *error = NULL;
  JsonNode *r = ab_engine_prepared_alias_get (ENGINE (ud), ab_http_param (req, "alias"), &error);
  answer (resp, r, error);
}

static void
update_alias (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) body = NULL;
  JsonObject *o = body_object (req, resp, &body);
  if (o == NULL)
    return;
  GError *error = NULL;
  JsonNode *r = ab_engine_prepared_alias_update (ENGINE (ud), ab_http_param (req, "alias"), o,
                                                 ab_api_actor (req), &error);
  answer (resp, r, error);
}

static void
delete_alias (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  GError *error = NULL;
  gboolean r = ab_engine_prepared_alias_delete (ENGINE (ud), ab_http_param (req, "alias"), &error);
  answer_deleted (resp, r, error);
}

void
ab_api_register_prepared (AbRouter *r, AbEngine *e)
{
#define PQ "/graph/v3/prepared-queries"
  ab_router_add (r, "POST", PQ, AB_ROUTE_BLOCKING, register_query, e);
  ab_router_add (r, "GET", PQ, AB_ROUTE_INLINE, list_queries, e);
  ab_router_add (r, "GET", PQ "/{id}", AB_ROUTE_INLINE, get_query, e);
  ab_router_add (r, "PUT", PQ "/{id}", AB_ROUTE_BLOCKING, amend_query, e);
  ab_router_add (r, "DELETE", PQ "/{id}", AB_ROUTE_BLOCKING, delete_query, e);
  ab_router_add (r, "POST", PQ "/aliases", AB_ROUTE_BLOCKING, create_alias, e);
  ab_router_add (r, "GET", PQ "/aliases", AB_ROUTE_INLINE, list_aliases, e);
  ab_router_add (r, "GET", PQ "/aliases/{alias}", AB_ROUTE_INLINE, get_alias, e);
  ab_router_add (r, "PUT", PQ "/aliases/{alias}", AB_ROUTE_BLOCKING, update_alias, e);
  ab_router_add (r, "DELETE", PQ "/aliases/{alias}", AB_ROUTE_BLOCKING, delete_alias, e);
#undef PQ
}
