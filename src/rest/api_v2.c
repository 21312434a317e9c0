/* Metadata v2 (docs/rest-api.md §2, §8): services, labels, aliases and storages in the
 * singular (/graph/v2/service/...) and plural (/graph/v2/services/...)
 * spellings, answering DdlStatus {status,result,message} and DdlPage. */
#include "rest/api-private.h"

#define CAT(ud) ab_engine_catalog ((AbEngine *) (ud))

static void
answer_status (AbHttpResponse *resp, const gchar *status, JsonNode *result)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "status");
  json_builder_add_string_value (b, status);
  json_builder_set_member_name (b, "result");
  json_builder_add_value (b, result != NULL ? result : json_node_new (JSON_NODE_NULL));
  json_builder_set_member_name (b, "message");
  json_builder_add_null_value (b);
  json_builder_end_object (b);
  ab_http_response_json (resp, 200, json_builder_get_root (b));
}

static void
answer_page (AbHttpResponse *resp, JsonArray *content)
{
  JsonObject *o = json_object_new ();
  json_object_set_int_member (o, "count", json_array_get_length (content));
  json_object_set_array_member (o, "content", content);
  JsonNode *n = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (n, o);
  ab_http_response_json (resp, 200, n);
}

typedef JsonNode *(*Entity) (gconstpointer desc);

/* A DdlPage of items, each as its entity. */
static void
answer_items (AbHttpResponse *resp, GPtrArray *items, Entity entity)
{
  JsonArray *arr = json_array_new ();
  for (guint i = 0; i < items->len; i++)
    json_array_add_element (arr, entity (items->pdata[i]));
  answer_page (resp, arr);
}

/* 200 with desc's entity (desc unreffed), or 404 with message missing. */
static void
answer_entity (AbHttpResponse *resp, gpointer desc, Entity entity, GDestroyNotify unref,
               const gchar *missing)
{
  if (desc == NULL)
    return ab_http_response_error (resp, 404, missing);
  ab_http_response_json (resp, 200, entity (desc));
  unref (desc);
}

/* DdlStatus status with desc's entity, or the error (desc NULL). */
static void
answer_written (AbHttpResponse *resp, const gchar *status, gconstpointer desc, Entity entity,
                GError *error)
{
  if (desc == NULL)
    return ab_api_fail (resp, error);
  answer_status (resp, status, entity (desc));
}

/* DdlStatus DELETED, or the error. */
static void
answer_deleted (AbHttpResponse *resp, gboolean ok, GError *error)
{
  if (!ok)
    return ab_api_fail (resp, error);
  answer_status (resp, "DELETED", NULL);
}

static JsonNode *
service_entity (const AbDatabaseDesc *d)
{
  JsonObject *o = json_object_new ();
  json_object_set_boolean_member (o, "active", d->active);
  json_object_set_string_member (o, "name", d->database);
  json_object_set_string_member (o, "desc", d->comment != NULL ? d->comment : "");
  JsonNode *n = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (n, o);
  return n;
}

static JsonNode *
alias_entity (const AbAliasDesc *a)
{
  JsonObject *o = json_object_new ();
  g_autofree gchar *name = g_strdup_printf ("%s.%s", a->database, a->alias);
  g_autofree gchar *target = g_strdup_printf ("%s.%s", a->database, a->table);
  json_object_set_boolean_member (o, "active", a->active);
  json_object_set_string_member (o, "name", name);
  json_object_set_string_member (o, "desc", a->comment != NULL ? a->comment : "");
  json_object_set_string_member (o, "target", target);
  JsonNode *n = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (n, o);
  return n;
}

/* Reads body {desc?, active?}; answers 400 itself on a bad body. */
static JsonObject *
read_body (const AbHttpRequest *req, AbHttpResponse *resp, JsonNode **keep, const gchar **desc,
           gboolean *has_active, gboolean *active)
{
  *keep = ab_api_body (req, resp);
  JsonObject *o = *keep != NULL ? ab_api_object (*keep, resp) : NULL;
  if (o == NULL || !ab_api_opt_string (o, "desc", desc, resp)
      || !ab_api_opt_bool (o, "active", has_active, active, resp))
    return NULL;
  return o;
}

/* POST creates, PUT updates (the routes of both share a path). */
static gboolean
creates (const AbHttpRequest *req)
{
  return g_ascii_strcasecmp (req->method, "POST") == 0;
}

/* ---- services ---- */

static void
service_list (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (GPtrArray) items = ab_catalog_list_databases (CAT (ud));
  answer_items (resp, items, (Entity) service_entity);
}

static void
service_get (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  answer_entity (resp, ab_catalog_get_database (CAT (ud), ab_http_param (req, "s")),
                 (Entity) service_entity, (GDestroyNotify) ab_database_desc_unref,
                 "No such service.");
}

static void
service_write (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  gboolean create = creates (req);
  g_autoptr (JsonNode) keep = NULL;
  const gchar *desc, *s = ab_http_param (req, "s");
  gboolean has_active, active;
  if (read_body (req, resp, &keep, &desc, &has_active, &active) == NULL)
    return;
  if (create && desc == NULL)
    return ab_http_response_error (resp, 400, "'desc' is required.");
  GError *error = NULL;
  g_autoptr (AbDatabaseDesc) d
      = create ? ab_catalog_create_database (CAT (ud), s, desc, ab_api_actor (req), &error)
               : ab_catalog_update_database (CAT (ud), s, has_active ? &active : NULL, desc,
                                             ab_api_actor (req), &error);
  answer_written (resp, create ? "CREATED" : "UPDATED", d, (Entity) service_entity, error);
}

static void
service_delete (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  GError *error = NULL;
  gboolean ok = ab_catalog_delete_database (CAT (ud), ab_http_param (req, "s"), &error);
  answer_deleted (resp, ok, error);
}

/* ---- labels and aliases ---- */

/* A service's labels or aliases: their catalog calls, the path parameter
 * that names one, their v2 entity and the 404 message. */
typedef struct {
  const AbApiInDatabase *calls;
  const gchar *param;
  Entity entity;
  const gchar *missing;
} InService;

static const InService LABELS
    = { &ab_api_tables, "l", (Entity) ab_table_desc_to_v2_label, "No such label." };
static const InService ALIASES = { &ab_api_aliases, "a", (Entity) alias_entity, "No such alias." };

/* ud: an AbApiRoute of an InService. */
static void
list_in_service (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const InService *kind = route->kind;
  g_autoptr (GPtrArray) items = kind->calls->list (CAT (route->engine), ab_http_param (req, "s"));
  answer_items (resp, items, kind->entity);
}

static void
get_in_service (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const InService *kind = route->kind;
  gpointer desc = kind->calls->get (CAT (route->engine), ab_http_param (req, "s"),
                                    ab_http_param (req, kind->param));
  answer_entity (resp, desc, kind->entity, kind->calls->unref, kind->missing);
}

static void
delete_in_service (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const InService *kind = route->kind;
  GError *error = NULL;
  gboolean ok = kind->calls->remove (CAT (route->engine), ab_http_param (req, "s"),
                                     ab_http_param (req, kind->param), &error);
  answer_deleted (resp, ok, error);
}

static void
label_create (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = ab_api_body (req, resp);
  if (node == NULL || ab_api_object (node, resp) == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_v2_label (
      ab_http_param (req, "s"), ab_http_param (req, "l"), node, &error);
  /* a storage given by name must have been created (POST /graph/v2/storage/{name}) */
  if (proto != NULL && !g_str_has_prefix (proto->storage, "datastore:")
      && !ab_catalog_has_storage (CAT (ud), proto->storage))
    {
      g_autofree gchar *msg = g_strdup_printf ("storage %s is not found: create it first "
                                               "(POST /graph/v2/storage/%s) or give a "
                                               "datastore:// URI",
                                               proto->storage, proto->storage);
      return ab_http_response_error (resp, 400, msg);
    }
  g_autoptr (AbTableDesc) t
      = proto != NULL ? ab_catalog_create_table (CAT (ud), proto, ab_api_actor (req), &error)
                      : NULL;
  answer_written (resp, "CREATED", t, (Entity) ab_table_desc_to_v2_label, error);
}

static void
label_update (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) keep = NULL;
  const gchar *desc, *mode_text = NULL;
  gboolean has_active, active;
  JsonObject *o = read_body (req, resp, &keep, &desc, &has_active, &active);
  if (o == NULL || !ab_api_opt_string (o, "mode", &mode_text, resp))
    return;
  AbMutationMode mode = AB_MODE_SYNC;
  if (mode_text != NULL && !ab_mode_parse (mode_text, &mode))
    return ab_http_response_error (resp, 400,
                                   "mode must be SYNC, ASYNC, IGNORE (or DROP) or DENY.");
  GError *error = NULL;
  g_autoptr (AbTableDesc) t = ab_catalog_update_table (
      CAT (ud), ab_http_param (req, "s"), ab_http_param (req, "l"), has_active ? &active : NULL,
      NULL, mode_text != NULL ? &mode : NULL, desc, ab_api_actor (req), &error);
  answer_written (resp, "UPDATED", t, (Entity) ab_table_desc_to_v2_label, error);
}

/* v2 targets are "service.label"; this server keeps aliases in one database. */
static gboolean
split_target (const gchar *service, const gchar *target, gchar **table, AbHttpResponse *resp)
{
  const gchar *dot = target != NULL ? strchr (target, '.') : NULL;
  if (target != NULL && dot == NULL)
    {
      *table = g_strdup (target);
      return TRUE;
    }
  if (dot == NULL || strncmp (target, service, (gsize) (dot - target)) != 0
      || service[dot - target] != '\0')
    {
      ab_http_response_error (resp, 400,
                              "'target' must be \"<service>.<label>\" in the same service.");
      return FALSE;
    }
  *table = g_strdup (dot + 1);
  return TRUE;
}

static void
alias_write (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  gboolean create = creates (req);
  g_autoptr (JsonNode) keep = NULL;
  const gchar *desc, *target = NULL, *s = ab_http_param (req, "s");
  gboolean has_active, active;
  JsonObject *o = read_body (req, resp, &keep, &desc, &has_active, &active);
  g_autofree gchar *table = NULL;
  if (o == NULL || !ab_api_opt_string (o, "target", &target, resp))
    return;
  if ((create || target != NULL) && !split_target (s, target, &table, resp))
    return;
  GError *error = NULL;
  g_autoptr (AbAliasDesc) a
      = create ? ab_catalog_create_alias (CAT (ud), s, ab_http_param (req, "a"), table,
                                          desc != NULL ? desc : "", ab_api_actor (req), &error)
               : ab_catalog_update_alias (CAT (ud), s, ab_http_param (req, "a"),
                                          has_active ? &active : NULL, table, desc,
                                          ab_api_actor (req), &error);
  answer_written (resp, create ? "CREATED" : "UPDATED", a, (Entity) alias_entity, error);
}

/* ---- storages ----
 * A v2 console convenience with no effect on where data goes (a server has
 * one store), persisted in the catalog so every node lists the same. */

static void
storage_list (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  JsonArray *arr = json_array_new ();
  g_autoptr (GPtrArray) all = ab_catalog_list_storages (CAT (ud));
  for (guint i = 0; i < all->len; i++)
    json_array_add_element (arr, json_node_copy (all->pdata[i]));
  answer_page (resp, arr);
}

static void
storage_create (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = ab_api_body (req, resp);
  JsonObject *o = node != NULL ? ab_api_object (node, resp) : NULL;
  if (o == NULL)
    return;
  JsonNode *entity = json_node_copy (node);
  json_object_set_string_member (json_node_get_object (entity), "name", ab_http_param (req, "n"));
  json_object_set_boolean_member (json_node_get_object (entity), "active", TRUE);
  GError *error = NULL;
  if (!ab_catalog_put_storage (CAT (ud), ab_http_param (req, "n"), entity, &error))
    {
      json_node_unref (entity);
      return ab_api_fail (resp, error);
    }
  answer_status (resp, "CREATED", entity);
}

/* The stored storage called name (a copy), or NULL. */
static JsonNode *
storage_find (AbEngine *e, const gchar *name)
{
  g_autoptr (GPtrArray) all = ab_catalog_list_storages (ab_engine_catalog (e));
  for (guint i = 0; i < all->len; i++)
    {
      JsonObject *o = json_node_get_object (all->pdata[i]);
      if (g_strcmp0 (json_object_get_string_member_with_default (o, "name", NULL), name) == 0)
        return json_node_copy (all->pdata[i]);
    }
  return NULL;
}

static void
storage_get (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  JsonNode *entity = storage_find (ud, ab_http_param (req, "n"));
  if (entity == NULL)
    return ab_http_response_error (resp, 404, "No such storage.");
  ab_http_response_json (resp, 200, entity);
}

/* PUT: desc, type, conf and active replace what is stored; the rest stays. */
static void
storage_update (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = ab_api_body (req, resp);
  JsonObject *o = node != NULL ? ab_api_object (node, resp) : NULL;
  if (o == NULL)
    return;
  const gchar *name = ab_http_param (req, "n");
  JsonNode *entity = storage_find (ud, name);
  if (entity == NULL)
    return ab_http_response_error (resp, 404, "No such storage.");
  static const gchar *const members[] = { "desc", "type", "conf", "active" };
  static const GType types[] = { G_TYPE_STRING, G_TYPE_STRING, G_TYPE_NONE, G_TYPE_BOOLEAN };
  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    {
      JsonNode *v = json_object_get_member (o, members[i]);
      if (v == NULL)
        continue;
      gboolean ok = types[i] == G_TYPE_NONE
                        ? JSON_NODE_HOLDS_OBJECT (v)
                        : JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == types[i];
      if (!ok)
        {
          json_node_unref (entity);
          g_autofree gchar *m = g_strdup_printf ("'%s' must be %s.", members[i],
                                                 types[i] == G_TYPE_NONE      ? "an object"
                                                 : types[i] == G_TYPE_BOOLEAN ? "a boolean"
                                                                              : "a string");
          return ab_http_response_error (resp, 400, m);
        }
      json_object_set_member (json_node_get_object (entity), members[i], json_node_copy (v));
    }
  GError *error = NULL;
  if (!ab_catalog_put_storage (CAT (ud), name, entity, &error))
    {
      json_node_unref (entity);
      return ab_api_fail (resp, error);
    }
  answer_status (resp, "UPDATED", entity);
}

/* GET /graph/v2: upstream's graph controller answers the v2 engine's class
 * name, {"engine":"Graph"}; the upstream console and health checks call it. */
static void
graph_info (const AbHttpRequest *req, AbHttpResponse *resp, gpointer engine_name)
{
  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "engine", engine_name);
  JsonNode *n = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (n, o);
  ab_http_response_json (resp, 200, n);
}

static void
both (AbRouter *r, const gchar *method, const gchar *singular, const gchar *plural,
      AbRouteFlags flags, AbRouteHandler h, gpointer ud)
{
  ab_router_add (r, method, singular, flags, h, ud);
  if (plural != NULL)
    ab_router_add (r, method, plural, flags, h, ud);
}

void
ab_api_register_v2 (AbRouter *r, AbEngine *e)
{
  const AbRouteFlags I = AB_ROUTE_INLINE, B = AB_ROUTE_BLOCKING;
  const gchar *ss = "/graph/v2/service", *ssp = "/graph/v2/services";
  const gchar *s = "/graph/v2/service/{s}", *sp = "/graph/v2/services/{s}";
  const gchar *ls = "/graph/v2/service/{s}/label", *lsp = "/graph/v2/services/{s}/labels";
  const gchar *l = "/graph/v2/service/{s}/label/{l}", *lp = "/graph/v2/services/{s}/labels/{l}";
  const gchar *as = "/graph/v2/service/{s}/alias", *asp = "/graph/v2/services/{s}/aliases";
  const gchar *a = "/graph/v2/service/{s}/alias/{a}", *ap = "/graph/v2/services/{s}/aliases/{a}";
  AbApiRoute *labels = ab_api_route (r, e, &LABELS), *aliases = ab_api_route (r, e, &ALIASES);
  both (r, "GET", ss, ssp, I, service_list, e);
  both (r, "GET", s, sp, I, service_get, e);
  both (r, "POST", s, sp, B, service_write, e);
  both (r, "PUT", s, sp, B, service_write, e);
  both (r, "DELETE", s, sp, B, service_delete, e);
  both (r, "GET", ls, lsp, I, list_in_service, labels);
  both (r, "GET", l, lp, I, get_in_service, labels);
  both (r, "POST", l, lp, B, label_create, e);
  both (r, "PUT", l, lp, B, label_update, e);
  both (r, "DELETE", l, lp, B, delete_in_service, labels);
  both (r, "GET", as, asp, I, list_in_service, aliases);
  both (r, "GET", a, ap, I, get_in_service, aliases);
  both (r, "POST", a, ap, B, alias_write, e);
  both (r, "PUT", a, ap, B, alias_write, e);
  both (r, "DELETE", a, ap, B, delete_in_service, aliases);
  both (r, "GET", "/graph/v2/storage", "/graph/v2/storages", I, storage_list, e);
  both (r, "POST", "/graph/v2/storage/{n}", NULL, B, storage_create, e);
  both (r, "GET", "/graph/v2/storage/{n}", NULL, I, storage_get, e);
  both (r, "PUT", "/graph/v2/storage/{n}", NULL, B, storage_update, e);
  ab_router_add (r, "GET", "/graph/v2", AB_ROUTE_ALWAYS_INLINE, graph_info, "Graph");
}
