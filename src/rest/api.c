/* Route registration and the helpers every API handler shares: body
 * parsing, the one place where engine/catalog/model errors become HTTP
 * statuses, and small JSON accessors. */
#include <string.h>
#include "rest/api-private.h"
#include "model/types.h"
#include "model/json_get.h"

JsonNode *
ab_api_body (const AbHttpRequest *req, AbHttpResponse *resp)
{
  gsize len;
  const gchar *data = g_bytes_get_data (req->body, &len);
  if (len == 0)
    {
      ab_http_response_error (resp, 400, "Request body is required (JSON).");
      return NULL;
    }
  if (!g_utf8_validate_len (data, len, NULL))
    {
      ab_http_response_error (resp, 400, "Request body is not valid UTF-8.");
      return NULL;
    }
  g_autoptr (GError) error = NULL;
  JsonNode *root = ab_model_json_parse (data, (gssize) len, &error);
  if (root == NULL)
    {
      const gchar *why = error->message; /* the model says "Malformed JSON: ..." */
      if (g_str_has_prefix (why, "Malformed JSON: "))
        why += strlen ("Malformed JSON: ");
      g_autofree gchar *msg = g_strdup_printf ("Malformed JSON request body: %s", why);
      ab_http_response_error (resp, 400, msg);
    }
  return root;
}

/* Values of a repeatable parameter, each also split on commas (empty parts dropped). */
GPtrArray *
ab_api_list_param (const AbHttpRequest *req, const gchar *name)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *given = ab_http_query_all (req, name);
  for (guint i = 0; given != NULL && i < given->len; i++)
    {
      g_auto (GStrv) parts = g_strsplit (given->pdata[i], ",", -1);
      for (gchar **p = parts; *p != NULL; p++)
        if (**p != '\0')
          g_ptr_array_add (out, g_strdup (*p));
    }
  return out;
}

JsonObject *
ab_api_object (JsonNode *node, AbHttpResponse *resp)
{
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    return json_node_get_object (node);
  ab_http_response_error (resp, 400, "Request body must be a JSON object.");
  return NULL;
}

guint
ab_api_status_of (const GError *error)
{
  if (error->domain == AB_CATALOG_ERROR)
    switch ((AbCatalogError) error->code)
      {
        case AB_CATALOG_ERROR_NOT_FOUND: return 404;
        case AB_CATALOG_ERROR_STORE: return 503;
        default: return 400;
      }
  if (error->domain == AB_ENGINE_ERROR)
    switch ((AbEngineError) error->code)
      {
        case AB_ENGINE_ERROR_BAD_REQUEST:
        case AB_ENGINE_ERROR_MISSING:
        case AB_ENGINE_ERROR_EXISTS: return 400;
        case AB_ENGINE_ERROR_NOT_FOUND: return 404;
        case AB_ENGINE_ERROR_CONFLICT: return 409;
        case AB_ENGINE_ERROR_UNAVAILABLE: return 503;
        case AB_ENGINE_ERROR_INTERNAL: return 500;
      }
  if (error->domain == AB_MODEL_ERROR)
    return 400;
  return 500;
}

void
ab_api_error (AbHttpResponse *resp, const GError *error)
{
  ab_http_response_error (resp, ab_api_status_of (error), error->message);
}

void
ab_api_fail (AbHttpResponse *resp, GError *error)
{
  ab_api_error (resp, error);
  g_error_free (error);
}

/* A member of a scalar type or absent; else 400 with the model's message. */
JsonNode *
ab_api_opt_member (JsonObject *o, const gchar *name, GType type, gboolean *ok, AbHttpResponse *resp)
{
  g_autoptr (GError) error = NULL;
  JsonNode *n;
  *ok = ab_model_json_scalar (o, NULL, name, type, &n, &error);
  if (!*ok)
    ab_http_response_error (resp, 400, error->message);
  return n;
}

gboolean
ab_api_opt_string (JsonObject *o, const gchar *name, const gchar **out, AbHttpResponse *resp)
{
  gboolean ok;
  JsonNode *n = ab_api_opt_member (o, name, G_TYPE_STRING, &ok, resp);
  *out = n != NULL ? json_node_get_string (n) : NULL;
  return ok;
}

gboolean
ab_api_opt_bool (JsonObject *o, const gchar *name, gboolean *set, gboolean *out,
                 AbHttpResponse *resp)
{
  gboolean ok;
  JsonNode *n = ab_api_opt_member (o, name, G_TYPE_BOOLEAN, &ok, resp);
  *set = n != NULL;
  if (n != NULL)
    *out = json_node_get_boolean (n);
  return ok;
}

const gchar *
ab_api_actor (const AbHttpRequest *req)
{
  const gchar *a = ab_http_header_get (req, "x-actor-id");
  if (a == NULL)
    a = ab_http_header_get (req, "x-ab-actor-id");
  return a != NULL ? a : "-";
}

void
ab_api_answer (AbHttpResponse *resp, AbJsonw *w)
{
  ab_http_response_bytes (resp, 200, NULL, ab_jsonw_finish (w));
}

AbApiRoute *
ab_api_route (AbRouter *router, AbEngine *engine, gconstpointer kind)
{
  AbApiRoute *route = g_new (AbApiRoute, 1);
  *route = (AbApiRoute){ engine, kind };
  return ab_router_take (router, route);
}

typedef gpointer (*GetFn) (AbCatalog *cat, const gchar *database, const gchar *name);

const AbApiInDatabase ab_api_tables = {
  ab_catalog_list_tables,
  (GetFn) ab_catalog_get_table,
  ab_catalog_delete_table,
  (GDestroyNotify) ab_table_desc_unref,
};

const AbApiInDatabase ab_api_aliases = {
  ab_catalog_list_aliases,
  (GetFn) ab_catalog_get_alias,
  ab_catalog_delete_alias,
  (GDestroyNotify) ab_alias_desc_unref,
};

static void
tenant_info (const AbHttpRequest *req, AbHttpResponse *resp, gpointer user_data)
{
  AbJsonw w;
  ab_jsonw_init (&w, 96);
  ab_jsonw_begin_object (&w);
  ab_jsonw_member_string (&w, "tenant", "default");
  ab_jsonw_member_string (&w, "server", "actionbase-c");
  ab_jsonw_member_string (&w, "version", PACKAGE_VERSION);
  ab_jsonw_end_object (&w);
  ab_api_answer (resp, &w);
}

void
ab_api_register (AbRouter *router, AbEngine *engine)
{
  static AbApiRegister *const files[]
      = { ab_api_register_meta,      ab_api_register_v2,       ab_api_register_v2_edge,
          ab_api_register_data,      ab_api_register_agg,      ab_api_register_topk,
          ab_api_register_queue,     ab_api_register_queue_db, ab_api_register_admin,
          ab_api_register_datastore, ab_api_register_query,    ab_api_register_prepared,
          ab_api_register_ui };
  ab_router_add (router, "GET", "/graph/v3", AB_ROUTE_INLINE, tenant_info, engine);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    files[i](router, engine);
}
