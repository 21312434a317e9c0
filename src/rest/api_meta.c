/* Metadata v3 (docs/rest-api.md §1): databases, tables and aliases under
 * /graph/v3/databases, list/get/create/update/delete, with both the
 * name-in-body and the older name-in-path create routes. */
#include <string.h>
#include "rest/api-private.h"

#define ENGINE_CAT(ud) ab_engine_catalog ((AbEngine *) (ud))

typedef JsonNode *(*ToJson) (gconstpointer desc);

static void
answer_list (AbHttpResponse *resp, GPtrArray *items, ToJson to_json)
{
  JsonArray *arr = json_array_new ();
  for (guint i = 0; i < items->len && i < 1000; i++)
    json_array_add_element (arr, to_json (items->pdata[i]));
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, arr);
  ab_http_response_json (resp, 200, node);
}

/* One descriptor, or 404 with an empty body (docs/rest-api.md §1: metadata GET). */
static void
answer_one (AbHttpResponse *resp, gpointer desc, ToJson to_json, GDestroyNotify unref)
{
  if (desc == NULL)
    {
      ab_http_response_empty (resp, 404);
      return;
    }
  ab_http_response_json (resp, 200, to_json (desc));
  unref (desc);
}

static void
answer_ddl (AbHttpResponse *resp, gpointer desc, GError *error, ToJson to_json,
            GDestroyNotify unref)
{
  if (desc == NULL)
    return ab_api_fail (resp, error);
  answer_one (resp, desc, to_json, unref);
}

static void
answer_delete (AbHttpResponse *resp, gboolean ok, GError *error)
{
  if (!ok)
    return ab_api_fail (resp, error);
  ab_http_response_empty (resp, 204);
}

/* Name from the path or from the body; both given and different = 400. */
static const gchar *
pick_name (const AbHttpRequest *req, JsonObject *body, const gchar *member, AbHttpResponse *resp)
{
  const gchar *path = ab_http_param (req, member);
  const gchar *in_body = NULL;
  if (!ab_api_opt_string (body, member, &in_body, resp))
    return NULL;
  if (path != NULL && in_body != NULL && g_strcmp0 (path, in_body) != 0)
    {
      g_autofree gchar *msg = g_strdup_printf ("'%s' in the body (%s) differs from the path (%s).",
                                               member, in_body, path);
      ab_http_response_error (resp, 400, msg);
      return NULL;
    }
  const gchar *name = path != NULL ? path : in_body;
  if (name == NULL)
    {
      g_autofree gchar *msg = g_strdup_printf ("'%s' is required.", member);
      ab_http_response_error (resp, 400, msg);
    }
  return name;
}

static gboolean
require_comment (JsonObject *body, const gchar **comment, AbHttpResponse *resp)
{
  if (!ab_api_opt_string (body, "comment", comment, resp))
    return FALSE;
  if (*comment == NULL)
    ab_http_response_error (resp, 400, "'comment' is required.");
  return *comment != NULL;
}

/* ^[a-zA-Z][a-zA-Z0-9_-]{0,63}$ */
static gboolean
upstream_name (const gchar *name)
{
  gsize n = strlen (name);
  if (n == 0 || n > 64 || !g_ascii_isalpha (name[0]))
    return FALSE;
  for (gsize i = 1; i < n; i++)
    if (!g_ascii_isalnum (name[i]) && name[i] != '_' && name[i] != '-')
      return FALSE;
  return TRUE;
}

/* Upstream's name rule (V3NameValidator) on every database, table and alias
 * a path names, for reads, updates and deletes too: 400, not 404. */
static gboolean
names_ok (const AbHttpRequest *req, AbHttpResponse *resp)
{
  static const gchar *const params[] = { "database", "table", "alias" };
  for (guint i = 0; i < G_N_ELEMENTS (params); i++)
    {
      const gchar *name = ab_http_param (req, params[i]);
      if (name != NULL && !upstream_name (name))
        {
          g_autofree gchar *msg = g_strdup_printf (
              "Invalid %s: must start with a letter, contain only alphanumeric/underscore/"
              "hyphen, max 64 chars",
              params[i]);
          ab_http_response_error (resp, 400, msg);
          return FALSE;
        }
    }
  return TRUE;
}

/* names_ok, then the body as an object (*node keeps it); NULL with 400
 * answered. */
static JsonObject *
checked_body (const AbHttpRequest *req, AbHttpResponse *resp, JsonNode **node)
{
  if (!names_ok (req, resp))
    return NULL;
  *node = ab_api_body (req, resp);
  return *node != NULL ? ab_api_object (*node, resp) : NULL;
}

/* A PUT body: checked_body, then its string members names (NULL-terminated,
 * read in that order into values), then `active`; NULL with 400 answered. */
static JsonObject *
update_body (const AbHttpRequest *req, AbHttpResponse *resp, JsonNode **node,
             const gchar *const *names, const gchar **values, gboolean *has_active,
             gboolean *active)
{
  JsonObject *body = checked_body (req, resp, node);
  for (guint i = 0; body != NULL && names[i] != NULL; i++)
    if (!ab_api_opt_string (body, names[i], &values[i], resp))
      return NULL;
  if (body == NULL || !ab_api_opt_bool (body, "active", has_active, active, resp))
    return NULL;
  return body;
}

/* ?status=ACTIVE (default) | INACTIVE | ALL, exact upper case as upstream's
 * MetadataStatus; FALSE with 400 answered otherwise. *want: 1 active only,
 * 0 inactive only, -1 all. */
static gboolean
status_filter (const AbHttpRequest *req, gint *want, AbHttpResponse *resp)
{
  const gchar *s = ab_http_query_get (req, "status");
  *want = s == NULL || g_str_equal (s, "ACTIVE") ? 1
          : g_str_equal (s, "INACTIVE")          ? 0
          : g_str_equal (s, "ALL")               ? -1
                                                 : -2;
  if (*want == -2)
    ab_http_response_error (resp, 400, "status must be ACTIVE, INACTIVE or ALL");
  return *want != -2;
}

/* Drops the items whose active flag does not match want (see status_filter). */
static void
keep_status (GPtrArray *items, gint want, gboolean (*active) (gconstpointer desc))
{
  for (guint i = items->len; want >= 0 && i-- > 0;)
    if (active (items->pdata[i]) != (want == 1))
      g_ptr_array_remove_index (items, i);
}

static gboolean
db_active (gconstpointer d)
{
  return ((const AbDatabaseDesc *) d)->active;
}
static gboolean
table_active (gconstpointer t)
{
  return ((const AbTableDesc *) t)->active;
}
static gboolean
alias_active (gconstpointer a)
{
  return ((const AbAliasDesc *) a)->active;
}

/* ---- databases ---- */

static void
db_list (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  if (!names_ok (req, resp))
    return;
  gint want;
  if (!status_filter (req, &want, resp))
    return;
  g_autoptr (GPtrArray) items = ab_catalog_list_databases (ENGINE_CAT (ud));
  keep_status (items, want, db_active);
  answer_list (resp, items, (ToJson) ab_database_desc_to_json);
}

static void
db_get (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  if (!names_ok (req, resp))
    return;
  answer_one (resp, ab_catalog_get_database (ENGINE_CAT (ud), ab_http_param (req, "database")),
              (ToJson) ab_database_desc_to_json, (GDestroyNotify) ab_database_desc_unref);
}

static void
db_create (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = NULL;
  JsonObject *body = checked_body (req, resp, &node);
  const gchar *name, *comment;
  if (body == NULL || (name = pick_name (req, body, "database", resp)) == NULL
      || !require_comment (body, &comment, resp))
    return;
  GError *error = NULL;
  AbDatabaseDesc *d
      = ab_catalog_create_database (ENGINE_CAT (ud), name, comment, ab_api_actor (req), &error);
  answer_ddl (resp, d, error, (ToJson) ab_database_desc_to_json,
              (GDestroyNotify) ab_database_desc_unref);
}

static void
db_update (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  static const gchar *const members[] = { "comment", NULL };
  g_autoptr (JsonNode) node = NULL;
  const gchar *comment;
  gboolean has_active, active;
  if (update_body (req, resp, &node, members, &comment, &has_active, &active) == NULL)
    return;
  GError *error = NULL;
  AbDatabaseDesc *d = ab_catalog_update_database (ENGINE_CAT (ud), ab_http_param (req, "database"),
                                                  has_active ? &active : NULL, comment,
                                                  ab_api_actor (req), &error);
  answer_ddl (resp, d, error, (ToJson) ab_database_desc_to_json,
              (GDestroyNotify) ab_database_desc_unref);
}

static void
db_delete (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  if (!names_ok (req, resp))
    return;
  GError *error = NULL;
  gboolean ok
      = ab_catalog_delete_database (ENGINE_CAT (ud), ab_http_param (req, "database"), &error);
  answer_delete (resp, ok, error);
}

/* ---- tables and aliases ---- */

/* A database's tables or aliases: their catalog calls, the path parameter
 * that names one, and their descriptors' active flag and JSON. */
typedef struct {
  const AbApiInDatabase *calls;
  const gchar *param;
  gboolean (*active) (gconstpointer desc);
  ToJson to_json;
} InDatabase;

static const InDatabase TABLES
    = { &ab_api_tables, "table", table_active, (ToJson) ab_table_desc_to_json };
static const InDatabase ALIASES
    = { &ab_api_aliases, "alias", alias_active, (ToJson) ab_alias_desc_to_json };

/* Listing inside a database that does not exist is a metadata GET of a
 * missing object: 404 with an empty body, like GET of the database. */
static gboolean
database_exists (const AbHttpRequest *req, AbHttpResponse *resp, AbCatalog *cat)
{
  g_autoptr (AbDatabaseDesc) d = ab_catalog_get_database (cat, ab_http_param (req, "database"));
  if (d == NULL)
    ab_http_response_empty (resp, 404);
  return d != NULL;
}

/* GET of a database's tables or aliases (ud: an AbApiRoute of an InDatabase),
 * status-filtered. */
static void
list_in_database (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const InDatabase *kind = route->kind;
  AbCatalog *cat = ab_engine_catalog (route->engine);
  if (!names_ok (req, resp))
    return;
  gint want;
  if (!status_filter (req, &want, resp) || !database_exists (req, resp, cat))
    return;
  g_autoptr (GPtrArray) items = kind->calls->list (cat, ab_http_param (req, "database"));
  keep_status (items, want, kind->active);
  answer_list (resp, items, kind->to_json);
}

static void
get_in_database (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const InDatabase *kind = route->kind;
  if (!names_ok (req, resp))
    return;
  answer_one (resp,
              kind->calls->get (ab_engine_catalog (route->engine), ab_http_param (req, "database"),
                                ab_http_param (req, kind->param)),
              kind->to_json, kind->calls->unref);
}

static void
delete_in_database (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const InDatabase *kind = route->kind;
  if (!names_ok (req, resp))
    return;
  GError *error = NULL;
  gboolean ok
      = kind->calls->remove (ab_engine_catalog (route->engine), ab_http_param (req, "database"),
                             ab_http_param (req, kind->param), &error);
  answer_delete (resp, ok, error);
}

static void
table_create (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = NULL;
  if (checked_body (req, resp, &node) == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_create_request (
      ab_http_param (req, "database"), ab_http_param (req, "table"), node, &error);
  AbTableDesc *t
      = proto != NULL ? ab_catalog_create_table (ENGINE_CAT (ud), proto, ab_api_actor (req), &error)
                      : NULL;
  answer_ddl (resp, t, error, (ToJson) ab_table_desc_to_json, (GDestroyNotify) ab_table_desc_unref);
}

static void
table_update (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  static const gchar *const members[] = { "comment", "mode", NULL };
  g_autoptr (JsonNode) node = NULL;
  const gchar *given[2];
  gboolean has_active, active;
  JsonObject *body = update_body (req, resp, &node, members, given, &has_active, &active);
  if (body == NULL)
    return;
  const gchar *comment = given[0], *mode_text = given[1];
  AbMutationMode mode = AB_MODE_SYNC;
  if (mode_text != NULL && !ab_mode_parse (mode_text, &mode))
    {
      ab_http_response_error (resp, 400, "mode must be SYNC, ASYNC, DROP or DENY.");
      return;
    }
  GError *error = NULL;
  g_autoptr (AbSchema) schema = NULL;
  JsonNode *sn = json_object_get_member (body, "schema");
  if (sn != NULL && !JSON_NODE_HOLDS_NULL (sn)
      && (schema = ab_schema_from_json (sn, &error)) == NULL)
    {
      answer_ddl (resp, NULL, error, NULL, NULL);
      return;
    }
  AbTableDesc *t = ab_catalog_update_table (
      ENGINE_CAT (ud), ab_http_param (req, "database"), ab_http_param (req, "table"),
      has_active ? &active : NULL, schema, mode_text != NULL ? &mode : NULL, comment,
      ab_api_actor (req), &error);
  answer_ddl (resp, t, error, (ToJson) ab_table_desc_to_json, (GDestroyNotify) ab_table_desc_unref);
}

static void
alias_create (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = NULL;
  JsonObject *body = checked_body (req, resp, &node);
  const gchar *name, *table, *comment;
  if (body == NULL || (name = pick_name (req, body, "alias", resp)) == NULL
      || !ab_api_opt_string (body, "table", &table, resp)
      || !require_comment (body, &comment, resp))
    return;
  if (table == NULL)
    {
      ab_http_response_error (resp, 400, "'table' is required.");
      return;
    }
  GError *error = NULL;
  AbAliasDesc *a = ab_catalog_create_alias (ENGINE_CAT (ud), ab_http_param (req, "database"), name,
                                            table, comment, ab_api_actor (req), &error);
  answer_ddl (resp, a, error, (ToJson) ab_alias_desc_to_json, (GDestroyNotify) ab_alias_desc_unref);
}

static void
alias_update (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  static const gchar *const members[] = { "table", "comment", NULL };
  g_autoptr (JsonNode) node = NULL;
  const gchar *given[2]; /* table, comment */
  gboolean has_active, active;
  if (update_body (req, resp, &node, members, given, &has_active, &active) == NULL)
    return;
  GError *error = NULL;
  AbAliasDesc *a = ab_catalog_update_alias (
      ENGINE_CAT (ud), ab_http_param (req, "database"), ab_http_param (req, "alias"),
      has_active ? &active : NULL, given[0], given[1], ab_api_actor (req), &error);
  answer_ddl (resp, a, error, (ToJson) ab_alias_desc_to_json, (GDestroyNotify) ab_alias_desc_unref);
}

void
ab_api_register_meta (AbRouter *r, AbEngine *e)
{
  const AbRouteFlags I = AB_ROUTE_INLINE, B = AB_ROUTE_BLOCKING;
  const gchar *dbs = "/graph/v3/databases", *db = "/graph/v3/databases/{database}";
  const gchar *ts = "/graph/v3/databases/{database}/tables";
  const gchar *t = "/graph/v3/databases/{database}/tables/{table}";
  const gchar *as = "/graph/v3/databases/{database}/aliases";
  const gchar *a = "/graph/v3/databases/{database}/aliases/{alias}";
  ab_router_add (r, "GET", dbs, I, db_list, e);
  ab_router_add (r, "POST", dbs, B, db_create, e);
  ab_router_add (r, "GET", db, I, db_get, e);
  ab_router_add (r, "POST", db, B, db_create, e);
  ab_router_add (r, "PUT", db, B, db_update, e);
  ab_router_add (r, "DELETE", db, B, db_delete, e);
  AbApiRoute *tables = ab_api_route (r, e, &TABLES), *aliases = ab_api_route (r, e, &ALIASES);
  ab_router_add (r, "GET", ts, I, list_in_database, tables);
  ab_router_add (r, "POST", ts, B, table_create, e);
  ab_router_add (r, "GET", t, I, get_in_database, tables);
  ab_router_add (r, "POST", t, B, table_create, e);
  ab_router_add (r, "PUT", t, B, table_update, e);
  ab_router_add (r, "DELETE", t, B, delete_in_database, tables);
  ab_router_add (r, "GET", as, I, list_in_database, aliases);
  ab_router_add (r, "POST", as, B, alias_create, e);
  ab_router_add (r, "GET", a, I, get_in_database, aliases);
  ab_router_add (r, "POST", a, B, alias_create, e);
  ab_router_add (r, "PUT", a, B, alias_update, e);
  ab_router_add (r, "DELETE", a, B, delete_in_database, aliases);
}
