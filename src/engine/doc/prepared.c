/* Prepared queries: query documents registered with typed arguments, kept as
 * catalog documents (by a UUID id, and aliases by name), listed, amended,
 * deleted and run by id or alias (docs/rest-api.md §11.5). */
#include <string.h>
#include "catalog/catalog.h"
#include "engine/doc/doc.h"
#include "engine/core/core.h"
#include "model/json_get.h"
#include "model/schema.h"

#define ALIAS_MAX 64

static AbCatalog *
cat_of (AbEngine *e)
{
  return ab_engine_catalog (e);
}

static JsonObject *
obj (JsonNode *n)
{
  return json_node_get_object (n);
}

/* A node owning a (new) array or object. */
static JsonNode *
array_node (JsonArray *a)
{
  JsonNode *n = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (n, a);
  return n;
}

static JsonNode *
object_node (JsonObject *o)
{
  JsonNode *n = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (n, o);
  return n;
}

/* ^[a-z][a-z0-9_]{0,63}$: an alias; anything else is read as an id. */
static gboolean
alias_shaped (const gchar *s)
{
  if (!g_ascii_islower (s[0]))
    return FALSE;
  gsize n = 1;
  for (; s[n] != '\0'; n++)
    if (!(g_ascii_islower (s[n]) || g_ascii_isdigit (s[n]) || s[n] == '_'))
      return FALSE;
  return n <= ALIAS_MAX;
}

static gboolean
not_found (GError **error, const gchar *what, const gchar *name)
{
  return ab_engine_fail (error, AB_ENGINE_ERROR_NOT_FOUND, "No prepared %s `%s`.", what, name);
}

gboolean
ab_engine_prepared_status (const gchar *text, AbPreparedStatus *out, GError **error)
{
  static const gchar *const names[] = { "ACTIVE", "INACTIVE", "ALL" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (text == NULL ? i == 0 : g_str_equal (text, names[i]))
      return *out = (AbPreparedStatus) i, TRUE;
  return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                         "'status' must be one of ACTIVE, INACTIVE, ALL; got \"%s\".", text);
}

static gboolean
status_admits (AbPreparedStatus st, JsonNode *entity)
{
  gboolean active = json_object_get_boolean_member_with_default (obj (entity), "active", FALSE);
  return st == AB_PREPARED_ALL || (st == AB_PREPARED_ACTIVE) == active;
}

static void
audit (JsonObject *o, const gchar *actor, gboolean create)
{
  gint64 now = g_get_real_time () / 1000;
  const gchar *who = actor != NULL ? actor : "-";
  gint64 rev = create ? 0 : json_object_get_int_member_with_default (o, "revision", 0);
  json_object_set_int_member (o, "revision", rev + 1);
  if (create)
    {
      json_object_set_int_member (o, "createdAt", now);
      json_object_set_string_member (o, "createdBy", who);
    }
  json_object_set_int_member (o, "updatedAt", now);
  json_object_set_string_member (o, "updatedBy", who);
}

/* A member that must be an array when present: a copy of it, or of `def`. */
static gboolean
array_member (JsonObject *req, const gchar *name, JsonNode *def, JsonNode **out, GError **error)
{
  JsonNode *n = json_object_get_member (req, name);
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return *out = def != NULL ? json_node_copy (def) : array_node (json_array_new ()), TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return ab_model_invalid (error, "'%s' must be an array.", name);
  *out = json_node_copy (n);
  return TRUE;
}

/* The declared arguments as stored: [{name, type (v3 name), comment, nullable:false}]. */
static JsonNode *
arguments_entity (JsonArray *declared, GHashTable *types)
{
  JsonArray *out = json_array_new ();
  for (guint i = 0; i < json_array_get_length (declared); i++)
    {
      JsonObject *d = json_array_get_object_element (declared, i);
      const gchar *name = json_object_get_string_member (d, "name");
      const AbType *t = g_hash_table_lookup (types, name);
      JsonObject *a = json_object_new ();
      json_object_set_string_member (a, "name", name);
      json_object_set_string_member (a, "type", ab_type_name (*t));
      json_object_set_string_member (a, "comment",
                                     ab_model_json_get_string (d, "comment") != NULL
                                         ? ab_model_json_get_string (d, "comment")
                                         : "");
      json_object_set_boolean_member (a, "nullable", FALSE);
      json_array_add_object_element (out, a);
    }
  return array_node (out);
}

/* A value of each declared type that casts: "1" for numbers and text. */
static JsonObject *
samples (GHashTable *types)
{
  JsonObject *o = json_object_new ();
  GHashTableIter it;
  gpointer name, type;
  g_hash_table_iter_init (&it, types);
  while (g_hash_table_iter_next (&it, &name, &type))
    {
      AbType t = *(AbType *) type;
      if (t == AB_TYPE_BOOLEAN)
        json_object_set_boolean_member (o, name, TRUE);
      else if (t == AB_TYPE_OBJECT)
        json_object_set_object_member (o, name, json_object_new ());
      else
        json_object_set_string_member (o, name, "1");
    }
  return o;
}

/* The checks of a registration or an amendment: the declarations, the
 * placeholders against them, and the document's shape once bound with a
 * sample of each type (tables and SQL are checked when it runs). */
static gboolean
check_document (JsonObject *doc, GError **error)
{
  JsonArray *declared = json_object_get_array_member (doc, "arguments");
  g_autoptr (GHashTable) types = NULL;
  if (!ab_doc_declarations (declared, &types, error)
      || !ab_doc_check_placeholders (doc, types, error))
    return FALSE;
  g_autoptr (JsonObject) args = samples (types);
  g_autoptr (JsonNode) bound = ab_doc_bind (doc, types, args, error);
  if (bound == NULL)
    return FALSE;
  if (!json_object_has_member (obj (bound), "fetch"))
    json_object_set_array_member (obj (bound), "fetch", json_array_new ());
  g_autoptr (GPtrArray) items = ab_doc_parse (bound, error);
  return items != NULL;
}

/* req's comment/arguments/fetch/transform/stats over `base` (an entity or
 * NULL for defaults) into a new entity; 400 on a bad member. */
static JsonNode *
merge_request (JsonObject *req, JsonObject *base, GError **error)
{
  static const gchar *const arrays[] = { "arguments", "fetch", "transform", "stats" };
  g_autoptr (JsonNode) out
      = object_node (base != NULL ? json_object_ref (base) : json_object_new ());
  JsonObject *o = obj (out);
  g_autofree gchar *comment = NULL;
  const gchar *old_comment = base != NULL ? ab_model_json_get_string (base, "comment") : NULL;
  if (!ab_model_json_string (req, NULL, "comment", FALSE, old_comment != NULL ? old_comment : "",
                             &comment, error)
      || !ab_model_validate_comment (comment, error))
    return NULL;
  json_object_set_string_member (o, "comment", comment);
  for (guint i = 0; i < G_N_ELEMENTS (arrays); i++)
    {
      JsonNode *v = NULL;
      if (!array_member (req, arrays[i],
                         base != NULL ? json_object_get_member (base, arrays[i]) : NULL, &v, error))
        return NULL;
      json_object_set_member (o, arrays[i], v);
    }
  if (!check_document (o, error))
    return NULL;
  g_autoptr (GHashTable) types = NULL;
  ab_doc_declarations (json_object_get_array_member (o, "arguments"), &types, NULL);
  json_object_set_member (o, "arguments",
                          arguments_entity (json_object_get_array_member (o, "arguments"), types));
  return g_steal_pointer (&out);
}

JsonNode *
ab_engine_prepared_register (AbEngine *e, JsonObject *req, const gchar *actor, GError **error)
{
  GError *local = NULL;
  g_autoptr (JsonNode) entity = merge_request (req, NULL, &local);
  if (entity == NULL)
    return ab_engine_propagate (error, local), NULL;
  g_autofree gchar *id = g_uuid_string_random ();
  JsonObject *o = obj (entity);
  json_object_set_string_member (o, "tenant", e->cfg.tenant);
  json_object_set_string_member (o, "id", id);
  json_object_set_boolean_member (o, "active", TRUE);
  audit (o, actor, TRUE);
  if (!ab_catalog_put_doc (cat_of (e), AB_CATALOG_QUERY, id, entity, &local))
    return ab_engine_propagate (error, local), NULL;
  return g_steal_pointer (&entity);
}

/* The active alias `name` -> its target id (new), or NULL. */
static gchar *
alias_target (AbEngine *e, const gchar *name)
{
  g_autoptr (JsonNode) a = ab_catalog_get_doc (cat_of (e), AB_CATALOG_QUERY_ALIAS, name);
  if (a == NULL || !json_object_get_boolean_member_with_default (obj (a), "active", FALSE))
    return NULL;
  return g_strdup (ab_model_json_get_string (obj (a), "target"));
}

/* The active query an id or alias names, or NULL + 404. */
static JsonNode *
lookup (AbEngine *e, const gchar *id_or_alias)
{
  g_autofree gchar *id
      = alias_shaped (id_or_alias) ? alias_target (e, id_or_alias) : g_strdup (id_or_alias);
  JsonNode *q = id != NULL ? ab_catalog_get_doc (cat_of (e), AB_CATALOG_QUERY, id) : NULL;
  if (q != NULL && !status_admits (AB_PREPARED_ACTIVE, q))
    g_clear_pointer (&q, json_node_unref);
  return q;
}

/* A miss refreshes the catalog once: another node may have registered it. */
static JsonNode *
resolve (AbEngine *e, const gchar *id_or_alias, GError **error)
{
  JsonNode *q = lookup (e, id_or_alias);
  if (q == NULL && ab_engine_refresh (e, NULL))
    q = lookup (e, id_or_alias);
  if (q == NULL)
    not_found (error, "query", id_or_alias);
  return q;
}

JsonNode *
ab_engine_prepared_peek (AbEngine *e, const gchar *id_or_alias)
{
  return lookup (e, id_or_alias);
}

JsonNode *
ab_engine_prepared_get (AbEngine *e, const gchar *id_or_alias, GError **error)
{
  return resolve (e, id_or_alias, error);
}

static GPtrArray *
list_docs (AbEngine *e, AbCatalogDoc kind, AbPreparedStatus st)
{
  g_autoptr (GPtrArray) all = ab_catalog_list_docs (cat_of (e), kind);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  for (guint i = 0; i < all->len; i++)
    if (status_admits (st, all->pdata[i]))
      g_ptr_array_add (out, json_node_ref (all->pdata[i]));
  return out;
}

GPtrArray *
ab_engine_prepared_list (AbEngine *e, AbPreparedStatus st)
{
  return list_docs (e, AB_CATALOG_QUERY, st);
}

/* One change of a document of kind `kind` (a query or an alias) named name. */
typedef struct {
  AbEngine *e;
  AbCatalogDoc kind;
  const gchar *name;
  JsonObject *req;
  const gchar *actor;
  JsonNode *result;
} Change;

/* The document of kind `kind` named name, or NULL + 404. */
static JsonNode *
existing (AbCatalog *cat, AbCatalogDoc kind, const gchar *name, GError **error)
{
  JsonNode *n = ab_catalog_get_doc (cat, kind, name);
  if (n == NULL)
    not_found (error, kind == AB_CATALOG_QUERY ? "query" : "query alias", name);
  return n;
}

/* Stamps entity (created or amended by c->actor), stores it as c's kind of
 * document named name, and makes it c's result. */
static gboolean
keep (AbCatalog *cat, const gchar *name, Change *c, gboolean create, JsonNode **entity,
      GError **error)
{
  audit (obj (*entity), c->actor, create);
  if (!ab_catalog_put_doc (cat, c->kind, name, *entity, error))
    return FALSE;
  c->result = g_steal_pointer (entity);
  return TRUE;
}

/* Runs change under the catalog's DDL lock; its result (NULL on error). */
static JsonNode *
changed (AbEngine *e, AbCatalogChange change, AbCatalogDoc kind, const gchar *name, JsonObject *req,
         const gchar *actor, GError **error)
{
  Change c = { e, kind, name, req, actor, NULL };
  if (!ab_catalog_change_docs (cat_of (e), change, &c, error))
    return NULL;
  /* a deletion answers an empty object: its caller only asks whether it worked */
  return c.result != NULL ? c.result : object_node (json_object_new ());
}

static JsonNode *alias_amended (AbCatalog *cat, JsonObject *req, JsonNode *old, GError **error);

/* The amendment of a query or an alias by c->req. */
static gboolean
amend (AbCatalog *cat, gpointer user, GError **error)
{
  Change *c = user;
  g_autoptr (JsonNode) old = existing (cat, c->kind, c->name, error);
  if (old == NULL)
    return FALSE;
  GError *local = NULL;
  g_autoptr (JsonNode) entity = c->kind == AB_CATALOG_QUERY
                                    ? merge_request (c->req, obj (old), &local)
                                    : alias_amended (cat, c->req, old, &local);
  if (entity == NULL)
    return ab_engine_propagate (error, local), FALSE;
  return keep (cat, c->name, c, FALSE, &entity, error);
}

JsonNode *
ab_engine_prepared_amend (AbEngine *e, const gchar *id, JsonObject *req, const gchar *actor,
                          GError **error)
{
  return changed (e, amend, AB_CATALOG_QUERY, id, req, actor, error);
}

/* 400 while aliases name the query id. */
static gboolean
unnamed (AbCatalog *cat, const gchar *id, GError **error)
{
  g_autoptr (GPtrArray) aliases = ab_catalog_list_docs (cat, AB_CATALOG_QUERY_ALIAS);
  g_autoptr (GString) naming = g_string_new (NULL);
  for (guint i = 0; i < aliases->len; i++)
    if (g_strcmp0 (ab_model_json_get_string (obj (aliases->pdata[i]), "target"), id) == 0)
      g_string_append_printf (naming, "%s%s", naming->len > 0 ? ", " : "",
                              ab_model_json_get_string (obj (aliases->pdata[i]), "alias"));
  if (naming->len > 0)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "`%s` is still named by %s; drop those first.", id, naming->str);
  return TRUE;
}

/* The deletion of a query (once no alias names it) or an alias. */
static gboolean
delete_doc (AbCatalog *cat, gpointer user, GError **error)
{
  Change *c = user;
  g_autoptr (JsonNode) old = existing (cat, c->kind, c->name, error);
  if (old == NULL || (c->kind == AB_CATALOG_QUERY && !unnamed (cat, c->name, error)))
    return FALSE;
  return ab_catalog_put_doc (cat, c->kind, c->name, NULL, error);
}

static gboolean
deleted (AbEngine *e, AbCatalogDoc kind, const gchar *name, GError **error)
{
  g_autoptr (JsonNode) done = changed (e, delete_doc, kind, name, NULL, NULL, error);
  return done != NULL;
}

gboolean
ab_engine_prepared_delete (AbEngine *e, const gchar *id, GError **error)
{
  return deleted (e, AB_CATALOG_QUERY, id, error);
}

/* ---- aliases ---- */

static gboolean
check_alias_name (const gchar *alias, GError **error)
{
  if (alias_shaped (alias) && !g_str_equal (alias, "aliases"))
    return TRUE;
  return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                         "'alias' must match ^[a-z][a-z0-9_]{0,63}$ and not be \"aliases\" (an id "
                         "cannot be an alias); got \"%s\".",
                         alias);
}

/* 404 unless target is the id of an active query. */
static gboolean
check_target (AbCatalog *cat, const gchar *target, GError **error)
{
  g_autoptr (JsonNode) q = ab_catalog_get_doc (cat, AB_CATALOG_QUERY, target);
  if (q != NULL && status_admits (AB_PREPARED_ACTIVE, q))
    return TRUE;
  return not_found (error, "query", target);
}

static gboolean
alias_create (AbCatalog *cat, gpointer user, GError **error)
{
  Change *c = user;
  g_autofree gchar *alias = NULL, *target = NULL, *comment = NULL;
  GError *local = NULL;
  if (!ab_model_json_string (c->req, NULL, "alias", TRUE, NULL, &alias, &local)
      || !ab_model_json_string (c->req, NULL, "target", TRUE, NULL, &target, &local)
      || !ab_model_json_string (c->req, NULL, "comment", FALSE, "", &comment, &local)
      || !ab_model_validate_comment (comment, &local))
    return ab_engine_propagate (error, local), FALSE;
  if (!check_alias_name (alias, error) || !check_target (cat, target, error))
    return FALSE;
  g_autoptr (JsonNode) old = ab_catalog_get_doc (cat, AB_CATALOG_QUERY_ALIAS, alias);
  if (old != NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "alias name already exists : %s",
                           alias);
  g_autoptr (JsonNode) entity = object_node (json_object_new ());
  JsonObject *o = obj (entity);
  json_object_set_string_member (o, "tenant", c->e->cfg.tenant);
  json_object_set_string_member (o, "alias", alias);
  json_object_set_string_member (o, "target", target);
  json_object_set_boolean_member (o, "active", TRUE);
  json_object_set_string_member (o, "comment", comment);
  return keep (cat, alias, c, TRUE, &entity, error);
}

JsonNode *
ab_engine_prepared_alias_create (AbEngine *e, JsonObject *req, const gchar *actor, GError **error)
{
  return changed (e, alias_create, AB_CATALOG_QUERY_ALIAS, NULL, req, actor, error);
}

GPtrArray *
ab_engine_prepared_aliases (AbEngine *e, AbPreparedStatus st)
{
  return list_docs (e, AB_CATALOG_QUERY_ALIAS, st);
}

JsonNode *
ab_engine_prepared_alias_get (AbEngine *e, const gchar *alias, GError **error)
{
  JsonNode *a = ab_catalog_get_doc (cat_of (e), AB_CATALOG_QUERY_ALIAS, alias);
  if (a == NULL)
    not_found (error, "query alias", alias);
  return a;
}

/* The alias old amended by req (its target, comment, active): old itself. */
static JsonNode *
alias_amended (AbCatalog *cat, JsonObject *req, JsonNode *old, GError **error)
{
  JsonObject *o = obj (old);
  g_autofree gchar *target = NULL, *comment = NULL;
  gboolean active = json_object_get_boolean_member_with_default (o, "active", FALSE);
  if (!ab_model_json_string (req, NULL, "target", FALSE, NULL, &target, error)
      || !ab_model_json_string (req, NULL, "comment", FALSE, NULL, &comment, error)
      || !ab_model_json_bool (req, NULL, "active", active, &active, error)
      || (comment != NULL && !ab_model_validate_comment (comment, error))
      || (target != NULL && !check_target (cat, target, error)))
    return NULL;
  if (target != NULL)
    json_object_set_string_member (o, "target", target);
  if (comment != NULL)
    json_object_set_string_member (o, "comment", comment);
  json_object_set_boolean_member (o, "active", active);
  return json_node_ref (old);
}

JsonNode *
ab_engine_prepared_alias_update (AbEngine *e, const gchar *alias, JsonObject *req,
                                 const gchar *actor, GError **error)
{
  return changed (e, amend, AB_CATALOG_QUERY_ALIAS, alias, req, actor, error);
}

gboolean
ab_engine_prepared_alias_delete (AbEngine *e, const gchar *alias, GError **error)
{
  return deleted (e, AB_CATALOG_QUERY_ALIAS, alias, error);
}

/* ---- running ---- */

GPtrArray *
ab_engine_prepared_run (AbEngine *e, const gchar *id_or_alias, JsonObject *args, GError **error)
{
  g_autoptr (JsonNode) q = resolve (e, id_or_alias, error);
  if (q == NULL)
    return NULL;
  GError *local = NULL;
  g_autoptr (GHashTable) types = NULL;
  if (!ab_doc_declarations (json_object_get_array_member (obj (q), "arguments"), &types, &local))
    return ab_engine_propagate (error, local), NULL;
  g_autoptr (JsonNode) bound = ab_doc_bind (obj (q), types, args, error);
  return bound != NULL ? ab_engine_query_bound (e, bound, error) : NULL;
}
