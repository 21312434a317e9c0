/* v3 descriptor JSON (docs/rest-api.md §1.1): database, table and alias descriptors to
 * and from their response form (also the persisted form), and the v3 create
 * and update requests with every validation rule of docs/rest-api.md §1.5. */
#include <string.h>
#include "model/json_get.h"
#include "codec/keys.h"
#include "model/schema-private.h"

/* ---- shared pieces ------------------------------------------------------- */

static void
add_audit (JsonBuilder *b, const AbAudit *a)
{
  json_builder_set_member_name (b, "revision");
  json_builder_add_int_value (b, a->revision);
  json_builder_set_member_name (b, "createdAt");
  json_builder_add_int_value (b, a->created_at);
  ab_model_json_add_string (b, "createdBy", a->created_by);
  json_builder_set_member_name (b, "updatedAt");
  json_builder_add_int_value (b, a->updated_at);
  ab_model_json_add_string (b, "updatedBy", a->updated_by);
}

static gboolean
read_audit (JsonObject *o, AbAudit *a, GError **error)
{
  g_autofree gchar *cby = NULL, *uby = NULL;
  if (!ab_model_json_int (o, NULL, "revision", -1, &a->revision, error)
      || !ab_model_json_int (o, NULL, "createdAt", -1, &a->created_at, error)
      || !ab_model_json_string (o, NULL, "createdBy", FALSE, "", &cby, error)
      || !ab_model_json_int (o, NULL, "updatedAt", -1, &a->updated_at, error)
      || !ab_model_json_string (o, NULL, "updatedBy", FALSE, "", &uby, error))
    return FALSE;
  g_free (a->created_by);
  a->created_by = g_steal_pointer (&cby);
  g_free (a->updated_by);
  a->updated_by = g_steal_pointer (&uby);
  return TRUE;
}

/* Reads an optional string member into *slot (kept when absent). */
static gboolean
read_string (JsonObject *o, const gchar *member, gboolean required, gchar **slot, GError **error)
{
  gchar *value = NULL;
  if (!ab_model_json_string (o, NULL, member, required, *slot, &value, error))
    return FALSE;
  g_free (*slot);
  *slot = value;
  return TRUE;
}

/* The object's name: from the path when given (a differing body name is an
 * error), else the required body member. */
static gboolean
read_name (JsonObject *o, const gchar *member, const gchar *path_name, gchar **out, GError **error)
{
  g_autofree gchar *body_name = NULL;
  if (!ab_model_json_string (o, NULL, member, path_name == NULL, NULL, &body_name, error))
    return FALSE;
  if (path_name && body_name && strcmp (path_name, body_name) != 0)
    {
      g_set_error (error, AB_MODEL_ERROR, AB_MODEL_ERROR_INVALID,
                   "The %s name in the body ('%s') differs from the one in "
                   "the path ('%s')",
                   member, body_name, path_name);
      return FALSE;
    }
  *out = g_strdup (path_name ? path_name : body_name);
  return ab_model_validate_name (member, *out, error);
}

static gboolean
read_comment (JsonObject *o, gboolean required, gchar **slot, GError **error)
{
  return read_string (o, "comment", required, slot, error)
         && ab_model_validate_comment (*slot, error);
}

/* ---- database ------------------------------------------------------------ */

JsonNode *
ab_database_desc_to_json (const AbDatabaseDesc *d)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "tenant", d->tenant);
  ab_model_json_add_string (b, "database", d->database);
  ab_model_json_add_bool (b, "active", d->active);
  ab_model_json_add_string (b, "comment", d->comment);
  add_audit (b, &d->audit);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

AbDatabaseDesc *
ab_database_desc_from_json (JsonNode *node, GError **error)
{
  JsonObject *o = ab_model_json_object (node, "database descriptor", error);
  if (o == NULL)
    return NULL;
  g_autoptr (AbDatabaseDesc) d = ab_database_desc_new ();
  if (!read_string (o, "tenant", FALSE, &d->tenant, error)
      || !read_string (o, "database", TRUE, &d->database, error)
      || !ab_model_json_bool (o, NULL, "active", TRUE, &d->active, error)
      || !read_string (o, "comment", FALSE, &d->comment, error)
      || !read_audit (o, &d->audit, error))
    return NULL;
  return g_steal_pointer (&d);
}

AbDatabaseDesc *
ab_database_desc_from_create_request (const gchar *path_name, JsonNode *body, GError **error)
{
  JsonObject *o = ab_model_json_object (body, "The request body", error);
  if (o == NULL)
    return NULL;
  g_autoptr (AbDatabaseDesc) d = ab_database_desc_new ();
  g_clear_pointer (&d->database, g_free);
  if (!read_name (o, "database", path_name, &d->database, error)
      || !read_comment (o, TRUE, &d->comment, error))
    return NULL;
  return g_steal_pointer (&d);
}

AbDatabaseDesc *
ab_database_desc_apply_update (const AbDatabaseDesc *old, JsonNode *body, GError **error)
{
  JsonObject *o = ab_model_json_object (body, "The request body", error);
  if (o == NULL)
    return NULL;
  g_autoptr (AbDatabaseDesc) d = ab_database_desc_copy (old);
  if (!ab_model_json_bool (o, NULL, "active", d->active, &d->active, error)
      || !read_comment (o, FALSE, &d->comment, error))
    return NULL;
  return g_steal_pointer (&d);
}

/* ---- table --------------------------------------------------------------- */

JsonNode *
ab_table_desc_to_json (const AbTableDesc *t)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "type", ab_table_kind_name (t->schema->kind));
  ab_model_json_add_string (b, "tenant", t->tenant);
  ab_model_json_add_string (b, "database", t->database);
  ab_model_json_add_string (b, "table", t->table);
  json_builder_set_member_name (b, "schema");
  json_builder_add_value (b, ab_schema_to_json (t->schema));
  ab_model_json_add_string (b, "storage", t->storage);
  ab_model_json_add_string (b, "mode", ab_mode_name (t->mode));
  ab_model_json_add_bool (b, "active", t->active);
  ab_model_json_add_string (b, "comment", t->comment);
  add_audit (b, &t->audit);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static gboolean
read_schema (JsonObject *o, gboolean required, AbSchema **slot, GError **error)
{
  JsonNode *n = json_object_get_member (o, "schema");
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return required ? ab_model_json_missing (NULL, "schema", error) : TRUE;
  AbSchema *s = ab_schema_from_json (n, error);
  if (s == NULL)
    return FALSE;
  ab_schema_free (*slot);
  *slot = s;
  return TRUE;
}

AbTableDesc *
ab_table_desc_from_json (JsonNode *node, GError **error)
{
  JsonObject *o = ab_model_json_object (node, "table descriptor", error);
  if (o == NULL)
    return NULL;
  g_autoptr (AbTableDesc) t = ab_table_desc_new ();
  if (!read_string (o, "tenant", FALSE, &t->tenant, error)
      || !read_string (o, "database", TRUE, &t->database, error)
      || !read_string (o, "table", TRUE, &t->table, error)
      || !read_schema (o, TRUE, &t->schema, error)
      || !read_string (o, "storage", FALSE, &t->storage, error)
      || !ab_model_json_mode (o, NULL, "mode", &t->mode, error)
      || !ab_model_json_bool (o, NULL, "active", TRUE, &t->active, error)
      || !read_string (o, "comment", FALSE, &t->comment, error)
      || !read_audit (o, &t->audit, error))
    return NULL;
  t->code = ab_codec_table_code (t->database, t->table);
  return g_steal_pointer (&t);
}

static gboolean
read_storage (JsonObject *o, gchar **slot, GError **error)
{
  return read_string (o, "storage", TRUE, slot, error) && ab_model_validate_storage (*slot, error);
}

AbTableDesc *
ab_table_desc_from_create_request (const gchar *database, const gchar *path_name, JsonNode *body,
                                   GError **error)
{
  JsonObject *o = ab_model_json_object (body, "The request body", error);
  if (o == NULL)
    return NULL;
  g_autoptr (AbTableDesc) t = ab_table_desc_new ();
  g_free (t->database);
  t->database = g_strdup (database);
  g_clear_pointer (&t->table, g_free);
  if (!read_name (o, "table", path_name, &t->table, error)
      || !read_schema (o, TRUE, &t->schema, error) || !read_storage (o, &t->storage, error)
      || !ab_model_json_mode (o, NULL, "mode", &t->mode, error)
      || !read_comment (o, TRUE, &t->comment, error))
    return NULL;
  t->code = ab_codec_table_code (t->database, t->table);
  return g_steal_pointer (&t);
}

AbTableDesc *
ab_table_desc_apply_update (const AbTableDesc *old, JsonNode *body, GError **error)
{
  JsonObject *o = ab_model_json_object (body, "The request body", error);
  if (o == NULL)
    return NULL;
  g_autoptr (AbTableDesc) t = ab_table_desc_copy (old);
  JsonNode *mode = json_object_get_member (o, "mode");
  if (!ab_model_json_bool (o, NULL, "active", t->active, &t->active, error)
      || !read_schema (o, FALSE, &t->schema, error)
      || !ab_schema_check_update (old->schema, t->schema, error)
      || (mode && !JSON_NODE_HOLDS_NULL (mode)
          && !ab_model_json_mode (o, NULL, "mode", &t->mode, error))
      || !read_comment (o, FALSE, &t->comment, error))
    return NULL;
  return g_steal_pointer (&t);
}

/* ---- alias --------------------------------------------------------------- */

JsonNode *
ab_alias_desc_to_json (const AbAliasDesc *a)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "tenant", a->tenant);
  ab_model_json_add_string (b, "database", a->database);
  ab_model_json_add_string (b, "alias", a->alias);
  ab_model_json_add_string (b, "table", a->table);
  ab_model_json_add_bool (b, "active", a->active);
  ab_model_json_add_string (b, "comment", a->comment);
  add_audit (b, &a->audit);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

AbAliasDesc *
ab_alias_desc_from_json (JsonNode *node, GError **error)
{
  JsonObject *o = ab_model_json_object (node, "alias descriptor", error);
  if (o == NULL)
    return NULL;
  g_autoptr (AbAliasDesc) a = ab_alias_desc_new ();
  if (!read_string (o, "tenant", FALSE, &a->tenant, error)
      || !read_string (o, "database", TRUE, &a->database, error)
      || !read_string (o, "alias", TRUE, &a->alias, error)
      || !read_string (o, "table", TRUE, &a->table, error)
      || !ab_model_json_bool (o, NULL, "active", TRUE, &a->active, error)
      || !read_string (o, "comment", FALSE, &a->comment, error)
      || !read_audit (o, &a->audit, error))
    return NULL;
  return g_steal_pointer (&a);
}

static gboolean
read_alias_target (JsonObject *o, gboolean required, gchar **slot, GError **error)
{
  return read_string (o, "table", required, slot, error)
         && ab_model_validate_name ("table", *slot, error);
}

AbAliasDesc *
ab_alias_desc_from_create_request (const gchar *database, const gchar *path_name, JsonNode *body,
                                   GError **error)
{
  JsonObject *o = ab_model_json_object (body, "The request body", error);
  if (o == NULL)
    return NULL;
  g_autoptr (AbAliasDesc) a = ab_alias_desc_new ();
  g_free (a->database);
  a->database = g_strdup (database);
  g_clear_pointer (&a->alias, g_free);
  if (!read_name (o, "alias", path_name, &a->alias, error)
      || !read_alias_target (o, TRUE, &a->table, error)
      || !read_comment (o, TRUE, &a->comment, error))
    return NULL;
  return g_steal_pointer (&a);
}

AbAliasDesc *
ab_alias_desc_apply_update (const AbAliasDesc *old, JsonNode *body, GError **error)
{
  JsonObject *o = ab_model_json_object (body, "The request body", error);
  if (o == NULL)
    return NULL;
  g_autoptr (AbAliasDesc) a = ab_alias_desc_copy (old);
  if (!ab_model_json_bool (o, NULL, "active", a->active, &a->active, error)
      || !read_alias_target (o, FALSE, &a->table, error)
      || !read_comment (o, FALSE, &a->comment, error))
    return NULL;
  return g_steal_pointer (&a);
}
