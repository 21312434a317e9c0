/* Admin endpoints for API keys: create (the secret is returned once), list
 * (never the secret or its hash) and revoke, under /admin/v1/keys. */
#include "rest/api-private.h"
#include "model/json_get.h"

#define CAT(ud) ab_engine_catalog ((AbEngine *) (ud))

/* A key as clients see it: never the hash; the secret only at creation. */
static JsonNode *
key_json (const AbApiKey *k, const gchar *token)
{
  JsonNode *n = ab_api_key_to_json (k, FALSE);
  if (token != NULL)
    json_object_set_string_member (json_node_get_object (n), "key", token);
  return n;
}

static void
key_create (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = ab_api_body (req, resp);
  JsonObject *o = node != NULL ? ab_api_object (node, resp) : NULL;
  const gchar *name;
  if (o == NULL || !ab_api_opt_string (o, "name", &name, resp))
    return;
  if (name == NULL || name[0] == '\0')
    return ab_http_response_error (resp, 400,
                                   "'name' is required: a label saying who or what uses the key.");
  JsonNode *gn = json_object_get_member (o, "grants");
  if (gn == NULL || !JSON_NODE_HOLDS_ARRAY (gn))
    return ab_http_response_error (resp, 400, "'grants' must be an array of {scope, permissions}.");
  JsonArray *ga = json_node_get_array (gn);
  guint n = json_array_get_length (ga);
  g_autofree AbGrant *grants = g_new0 (AbGrant, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      JsonNode *e = json_array_get_element (ga, i);
      JsonObject *g = JSON_NODE_HOLDS_OBJECT (e) ? json_node_get_object (e) : NULL;
      grants[i].scope = g ? (gchar *) ab_model_json_get_string (g, "scope") : NULL;
      grants[i].permissions = g ? (gchar *) ab_model_json_get_string (g, "permissions") : NULL;
    }
  g_autofree gchar *token = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (AbApiKey) k
      = ab_catalog_create_key (CAT (ud), name, grants, n, ab_api_actor (req), &token, &error);
  if (k == NULL)
    return ab_api_error (resp, error);
  ab_http_response_json (resp, 200, key_json (k, token));
}

static void
key_list (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (GPtrArray) keys = ab_catalog_list_keys (CAT (ud));
  JsonArray *arr = json_array_new ();
  for (guint i = 0; i < keys->len; i++)
    json_array_add_element (arr, key_json (keys->pdata[i], NULL));
  JsonNode *n = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (n, arr);
  ab_http_response_json (resp, 200, n);
}

static void
key_revoke (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (GError) error = NULL;
  if (!ab_catalog_revoke_key (CAT (ud), ab_http_param (req, "id"), &error))
    return ab_api_error (resp, error);
  ab_http_response_empty (resp, 204);
}

void
ab_api_register_admin (AbRouter *r, AbEngine *e)
{
  ab_router_add (r, "POST", "/admin/v1/keys", AB_ROUTE_BLOCKING, key_create, e);
  ab_router_add (r, "GET", "/admin/v1/keys", AB_ROUTE_INLINE, key_list, e);
  ab_router_add (r, "DELETE", "/admin/v1/keys/{id}", AB_ROUTE_BLOCKING, key_revoke, e);
}
