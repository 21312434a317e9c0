/* The access-control guard: maps each route to the permission it needs
 * (r read, w write, c metadata control, a admin) and its scope, finds the
 * caller's key by the SHA-256 of the presented token, and checks grants. */
#include <string.h>
#include "rest/auth.h"
#include "catalog/catalog.h"

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
  if (messages)
    {
      n->letters = is_read (req) ? "r" : "w";
      n->scope = scope_of (req, "ns", "queue");
    }
  else
    {
      n->letters = is_read (req) ? "rc" : "c";
      n->scope = scope_of (req, "ns", NULL);
    }
}

void
ab_auth_need_of (const AbHttpRequest *req, AbAuthNeed *n)
{
  const gchar *route = req->route != NULL ? req->route : "";
  memset (n, 0, sizeof *n);
  if (g_str_equal (route, "/health") || g_str_equal (route, "/graph/v3")
      || g_str_equal (route, "/graph/v2"))
    n->open = TRUE;
  else if (g_str_equal (route, "/metrics"))
    n->letters = "r", n->scope = g_strdup ("*");
  else if (g_str_has_prefix (route, "/admin/"))
    n->letters = "a", n->scope = g_strdup ("*");
  else if (g_str_has_prefix (route, "/queue/v1/"))
    queue_need (req, n);
  else if (strstr (route, "/tables/{table}/edges") != NULL
           || strstr (route, "/tables/{table}/multi-edges") != NULL)
    {
      gboolean read = is_read (req) || g_str_has_suffix (route, "/edges/get")
                      || g_str_has_suffix (route, "/multi-edges/ids");
      n->letters = read ? "r" : "w";
      n->scope = scope_of (req, "database", "table");
    }
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

gboolean
ab_auth_grants_allow (GArray *grants, const AbAuthNeed *need)
{
  for (guint i = 0; i < grants->len; i++)
    {
      const AbGrant *g = &g_array_index (grants, AbGrant, i);
      if (!scope_covers (g->scope, need->scope))
        continue;
      if (strchr (g->permissions, 'a') != NULL || strpbrk (g->permissions, need->letters) != NULL)
        return TRUE;
    }
  return FALSE;
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
  AbAuthNeed need;
  ab_auth_need_of (req, &need);
  if (need.open)
    return TRUE;
  g_autofree gchar *scope = need.scope;
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
  if (ab_auth_grants_allow (key->grants, &need))
    return TRUE;
  g_autofree gchar *msg = g_strdup_printf ("API key %s has no '%c' grant on %s.", key->id,
                                           need.letters[0], scope);
  ab_http_response_error (resp, 403, msg);
  return FALSE;
}

void
ab_auth_install (AbAuth *auth, AbRouter *router)
{
  ab_router_set_guard (router, guard, auth);
}
