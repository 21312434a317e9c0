/* The access-control guard: maps each route to the permission it needs
 * (r read, w write, c metadata control, a admin) and its scope, finds the
 * caller's key by the SHA-256 of the presented token, and checks grants. */
#include <string.h>
#include "rest/auth.h"
#include "catalog/catalog.h"
#include "model/types.h"
#include "model/json_get.h"

struct _AbAuth {
  AbEngine *engine;
  gchar *admin_hash;
};

AbAuth *
ab_auth_new (AbEngine *engine, const gchar *admin_key)
{
  AbAuth *a = g_new0 (AbAuth, 1);
  a->engine = engine;
  if (admin_key != NULL && admin_key[0] != '\0')
    a->admin_hash = ab_api_key_hash (admin_key);
  return a;
}

void
ab_auth_free (AbAuth *a)
{
  if (a == NULL)
    return;
  g_free (a->admin_hash);
  g_free (a);
}

static gchar *
scope_of (const AbHttpRequest *req, const gchar *db_param, const gchar *obj_param)
{
  const gchar *db = ab_http_param (req, db_param);
  const gchar *obj = obj_param != NULL ? ab_http_param (req, obj_param) : NULL;
  if (db == NULL)
    return g_strdup ("*");
  return obj != NULL ? g_strdup_printf ("%s.%s", db, obj) : g_strdup (db);
}

static gboolean
is_read (const AbHttpRequest *req)
{
  return g_str_equal (req->method, "GET") || g_str_equal (req->method, "HEAD");
}

static void
queue_need (const AbHttpRequest *req, AbAuthNeed *n)
{
  const gchar *route = req->route;
  gboolean messages = g_str_has_suffix (route, "/messages") || g_str_has_suffix (route, "/poll");
  /* /queue/v1/namespaces/{ns}/... or /queue/v1/databases/{database}/... */
  const gchar *db = ab_http_param (req, "ns") != NULL ? "ns" : "database";
  if (messages)
    {
      n->letters = is_read (req) ? "r" : "w";
      n->scope = scope_of (req, db, "queue");
    }
  else
    {
      n->letters = is_read (req) ? "rc" : "c";
      n->scope = scope_of (req, db, NULL);
    }
}

/* Every "database" (with its "table") named anywhere in a query document:
 * a superset of what the engine will read, items nested in STEPs included.
 * A body that does not parse names nothing: the handler refuses it with
 * 400 before reading anything. */
static void
collect_scopes (JsonNode *n, GPtrArray *out)
{
  if (JSON_NODE_HOLDS_ARRAY (n))
    {
      JsonArray *a = json_node_get_array (n);
      for (guint i = 0; i < json_array_get_length (a); i++)
        collect_scopes (json_array_get_element (a, i), out);
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (n))
    return;
  JsonObject *o = json_node_get_object (n);
  const gchar *db = ab_model_json_get_string (o, "database");
  const gchar *table = ab_model_json_get_string (o, "table");
  JsonNode *dbn = json_object_get_member (o, "database");
  if (dbn != NULL && (db == NULL || !JSON_NODE_HOLDS_VALUE (dbn)))
    g_ptr_array_add (out, g_strdup ("*")); /* not a string: only "*" covers it */
  else if (db != NULL)
    g_ptr_array_add (out, table != NULL ? g_strdup_printf ("%s.%s", db, table) : g_strdup (db));
  GList *members = json_object_get_values (o);
  for (GList *m = members; m != NULL; m = m->next)
    collect_scopes (m->data, out);
  g_list_free (members);
}

/* A query document's tables: the body's, or those of the prepared query
 * the route names (by id or alias). */
static void
query_need (AbEngine *engine, const AbHttpRequest *req, AbAuthNeed *n)
{
  g_autoptr (JsonNode) doc = NULL;
  const gchar *id = ab_http_param (req, "id");
  if (id != NULL)
    doc = ab_engine_prepared_peek (engine, id);
  else
    {
      gsize len;
      const gchar *data = g_bytes_get_data (req->body, &len);
      doc = ab_model_json_parse (data, (gssize) len, NULL);
    }
  n->letters = "r";
  n->more = g_ptr_array_new_with_free_func (g_free);
  if (doc != NULL)
    collect_scopes (doc, n->more);
  n->scope = n->more->len > 0 ? g_strdup (n->more->pdata[0]) : g_strdup ("*");
}

/* /graph/v2/edge: w on the body's "label" ("service.label" = db.table);
 * "*" when it has none (the handler answers 400). */
static void
v2_edge_need (const AbHttpRequest *req, AbAuthNeed *n)
{
  gsize len;
  const gchar *data = g_bytes_get_data (req->body, &len);
  g_autoptr (JsonNode) body = ab_model_json_parse (data, (gssize) len, NULL);
  const gchar *label = body != NULL && JSON_NODE_HOLDS_OBJECT (body)
                           ? ab_model_json_get_string (json_node_get_object (body), "label")
                           : NULL;
  n->letters = "w";
  n->scope = g_strdup (label != NULL && strchr (label, '.') != NULL ? label : "*");
}

void
ab_auth_need_clear (AbAuthNeed *n)
{
  g_clear_pointer (&n->scope, g_free);
  g_clear_pointer (&n->more, g_ptr_array_unref);
}

void
ab_auth_need_of (AbEngine *engine, const AbHttpRequest *req, AbAuthNeed *n)
{
  const gchar *route = req->route != NULL ? req->route : "";
  memset (n, 0, sizeof *n);
  /* /ui: the web console's static page is public; the API calls it makes carry the key.
   * So is the API's description (/openapi.json, /openapi.yaml). */
  if (g_str_equal (route, "/graph/health/readiness") && !is_read (req))
    n->letters = "a", n->scope = g_strdup ("*"); /* draining a node */
  else if (g_str_equal (route, "/health") || g_str_equal (route, "/graph/v3")
           || g_str_equal (route, "/graph/v2") || g_str_equal (route, "/ui")
           || g_str_has_prefix (route, "/ui/") || g_str_equal (route, "/")
           || g_str_has_prefix (route, "/openapi.") || g_str_has_prefix (route, "/graph/health"))
    n->open = TRUE;
  else if (g_str_equal (route, "/metrics"))
    n->letters = "r", n->scope = g_strdup ("*");
  else if (g_str_has_prefix (route, "/admin/"))
    n->letters = "a", n->scope = g_strdup ("*");
  else if (g_str_has_prefix (route, "/graph/v3/datastore/")) /* HBase tables: a to drop one */
    n->letters = is_read (req) ? "rc" : "a", n->scope = g_strdup ("*");
  else if (g_str_has_prefix (route, "/queue/v1/"))
    queue_need (req, n);
  else if (strstr (route, "/tables/{table}/edges") != NULL
           || strstr (route, "/tables/{table}/multi-edges") != NULL
           || strstr (route, "/tables/{table}/vertices") != NULL)
    {
      gboolean read = is_read (req) || g_str_has_suffix (route, "/edges/get")
                      || g_str_has_suffix (route, "/multi-edges/ids");
      n->letters = read ? "r" : "w";
      n->scope = scope_of (req, "database", "table");
    }
  else if (g_str_has_suffix (route, "/topks/{topk}"))
    n->letters = "r", n->scope = scope_of (req, "database", "table");
  else if (g_str_equal (route, "/aggregations/v1/aggregate")
           || g_str_equal (route, "/aggregations/v1/sweep"))
    n->letters = "w", n->scope = g_strdup ("*"); /* writes the rank tables its schemas name */
  else if (g_str_equal (route, "/graph/v2/edge"))
    v2_edge_need (req, n);
  else if (strstr (route, "/label/{l}/edge") != NULL) /* GET: the v2 edge read; writes, purge: w */
    n->letters = is_read (req) ? "r" : "w", n->scope = scope_of (req, "s", "l");
  else if (g_str_equal (route, "/graph/v3/query") || g_str_equal (route, "/graph/v3/query/{id}"))
    query_need (engine, req, n);
  else if (g_str_has_suffix (route, "/edges/multihop"))
    {
      /* a read over tables of one database (POST only for its body) */
      n->letters = "r";
      n->scope = scope_of (req, "database", NULL);
    }
  else
    {
      /* Metadata (v3 and v2): read with r or c, change with c. */
      n->letters = is_read (req) ? "rc" : "c";
      n->scope = scope_of (req, ab_http_param (req, "database") != NULL ? "database" : "s", NULL);
    }
}

static gboolean
scope_covers (const gchar *grant, const gchar *need)
{
  if (g_str_equal (grant, "*"))
    return TRUE;
  if (g_str_equal (need, "*"))
    return FALSE;
  if (g_str_equal (grant, need))
    return TRUE;
  gsize n = strlen (grant); /* "db" covers "db.table" */
  return strchr (grant, '.') == NULL && strncmp (need, grant, n) == 0 && need[n] == '.';
}

static gboolean
allows (GArray *grants, const gchar *letters, const gchar *scope)
{
  for (guint i = 0; i < grants->len; i++)
    {
      const AbGrant *g = &g_array_index (grants, AbGrant, i);
      if (!scope_covers (g->scope, scope))
        continue;
      if (strchr (g->permissions, 'a') != NULL || strpbrk (g->permissions, letters) != NULL)
        return TRUE;
    }
  return FALSE;
}

gboolean
ab_auth_grants_allow (GArray *grants, const AbAuthNeed *need, const gchar **missing)
{
  const gchar *lack = allows (grants, need->letters, need->scope) ? NULL : need->scope;
  for (guint i = 0; lack == NULL && need->more != NULL && i < need->more->len; i++)
    if (!allows (grants, need->letters, need->more->pdata[i]))
      lack = need->more->pdata[i];
  if (missing != NULL)
    *missing = lack;
  return lack == NULL;
}

static const gchar *
token_of (const AbHttpRequest *req)
{
  const gchar *h = ab_http_header_get (req, "authorization");
  if (h == NULL)
    return NULL;
  while (*h == ' ')
    h++;
  if (g_ascii_strncasecmp (h, "Bearer ", 7) == 0)
    h += 7;
  return h[0] != '\0' ? h : NULL;
}

static gboolean
guard (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  AbAuth *a = data;
  g_auto (AbAuthNeed) need = { 0 };
  ab_auth_need_of (a->engine, req, &need);
  if (need.open)
    return TRUE;
  const gchar *token = token_of (req);
  if (token == NULL)
    {
      ab_http_response_error (resp, 401, "An API key is required (Authorization: Bearer <key>).");
      return FALSE;
    }
  g_autofree gchar *hash = ab_api_key_hash (token);
  if (a->admin_hash != NULL && g_str_equal (hash, a->admin_hash))
    return TRUE;
  g_autoptr (AbApiKey) key = ab_catalog_find_key (ab_engine_catalog (a->engine), hash);
  if (key == NULL)
    {
      ab_http_response_error (resp, 401, "The API key is not valid.");
      return FALSE;
    }
  const gchar *scope;
  if (ab_auth_grants_allow (key->grants, &need, &scope))
    return TRUE;
  g_autofree gchar *msg
      = g_strdup_printf ("API key %s has no '%c' grant on %s.", key->id, need.letters[0], scope);
  ab_http_response_error (resp, 403, msg);
  return FALSE;
}

void
ab_auth_install (AbAuth *auth, AbRouter *router)
{
  ab_router_set_guard (router, guard, auth);
}
