/* libactionbase metadata calls: databases, tables (from the public struct or
 * the v3 JSON bodies), aliases; the catalog does the work, as for the REST
 * metadata endpoints. A drop deactivates first, then deletes. */
#include "lib/lib-private.h"
#include "catalog/catalog.h"
#include "model/json_get.h"
#include "model/schema.h"
#include "model/types.h"

#define ACTOR "libactionbase"

static AbCatalog *
cat_of (AbDb *db)
{
  return ab_engine_catalog (db->engine);
}

/* Takes a descriptor (or NULL with local set): TRUE when there is one. */
static gboolean
done (gpointer desc, GDestroyNotify unref, GError *local, GError **error)
{
  if (desc != NULL)
    {
      unref (desc);
      return TRUE;
    }
  ab_lib_propagate (error, local);
  return FALSE;
}

gboolean
ab_db_create_database (AbDb *db, const char *database, const char *comment, GError **error)
{
  if (!ab_lib_require (db, "db", error) || !ab_lib_require (database, "database", error))
    return FALSE;
  GError *local = NULL;
  AbDatabaseDesc *d = ab_catalog_create_database (cat_of (db), database,
                                                  comment != NULL ? comment : "", ACTOR, &local);
  return done (d, (GDestroyNotify) ab_database_desc_unref, local, error);
}

gboolean
ab_db_drop_database (AbDb *db, const char *database, GError **error)
{
  if (!ab_lib_require (db, "db", error) || !ab_lib_require (database, "database", error))
    return FALSE;
  GError *local = NULL;
  const gboolean inactive = FALSE;
  AbDatabaseDesc *d
      = ab_catalog_update_database (cat_of (db), database, &inactive, NULL, ACTOR, &local);
  if (!done (d, (GDestroyNotify) ab_database_desc_unref, local, error))
    return FALSE;
  if (ab_catalog_delete_database (cat_of (db), database, &local))
    return TRUE;
  ab_lib_propagate (error, local);
  return FALSE;
}

static gboolean
create_from_node (AbDb *db, const char *database, JsonNode *body, GError **error)
{
  GError *local = NULL;
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_create_request (database, NULL, body, &local);
  AbTableDesc *t
      = proto != NULL ? ab_catalog_create_table (cat_of (db), proto, ACTOR, &local) : NULL;
  return done (t, (GDestroyNotify) ab_table_desc_unref, local, error);
}

gboolean
ab_db_create_table_json (AbDb *db, const char *database, const char *json, GError **error)
{
  if (!ab_lib_require (db, "db", error) || !ab_lib_require (database, "database", error)
      || !ab_lib_require (json, "json", error))
    return FALSE;
  GError *local = NULL;
  g_autoptr (JsonNode) body = ab_model_json_parse (json, -1, &local);
  if (body == NULL)
    return ab_lib_propagate (error, local), FALSE;
  return create_from_node (db, database, body, error);
}

static const gchar *
field_type_name (AbDbFieldType t)
{
  return (guint) t <= AB_DB_FIELD_OBJECT ? ab_type_name ((AbType) t) : "unknown";
}

static JsonNode *
key_field (AbDbFieldType type)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "type", field_type_name (type));
  ab_model_json_add_string (b, "comment", "");
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
add_properties (JsonBuilder *b, const AbDbTableDesc *d)
{
  json_builder_set_member_name (b, "properties");
  json_builder_begin_array (b);
  for (guint i = 0; i < d->n_properties; i++)
    {
      json_builder_begin_object (b);
      ab_model_json_add_string (b, "name", d->properties[i].name);
      ab_model_json_add_string (b, "type", field_type_name (d->properties[i].type));
      ab_model_json_add_bool (b, "nullable", d->properties[i].nullable);
      ab_model_json_add_string (b, "comment", "");
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_indexes (JsonBuilder *b, const AbDbTableDesc *d)
{
  json_builder_set_member_name (b, "indexes");
  json_builder_begin_array (b);
  for (guint i = 0; i < d->n_indexes; i++)
    {
      const AbDbIndex *x = &d->indexes[i];
      g_autofree AbIndexField *fields = g_new (AbIndexField, x->n_fields);
      for (guint k = 0; k < x->n_fields; k++)
        fields[k] = (AbIndexField){ (gchar *) x->fields[k].field,
                                    x->fields[k].descending ? AB_ORDER_DESC : AB_ORDER_ASC };
      /* a view of the caller's strings, written as the model writes its own */
      AbIndex idx = { .name = (gchar *) x->name,
                      .comment = (gchar *) "",
                      .fields = fields,
                      .n_fields = x->n_fields };
      ab_index_add_json (b, &idx);
    }
  json_builder_end_array (b);
}

/* The struct as the v3 create body: one validation path for both forms. */
static JsonNode *
desc_to_body (const AbDbTableDesc *d)
{
  static const gchar *const kinds[] = { "EDGE", "MULTI_EDGE", "IMMUTABLE_EDGE", "VERTEX" };
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "table", d->name);
  ab_model_json_add_string (b, "comment", d->comment);
  g_autofree gchar *storage = g_strdup_printf ("datastore://actionbase/%s", d->name);
  ab_model_json_add_string (b, "storage", d->storage != NULL ? d->storage : storage);
  if (d->mode != NULL)
    ab_model_json_add_string (b, "mode", d->mode);
  json_builder_set_member_name (b, "schema");
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "type",
                            (guint) d->kind < G_N_ELEMENTS (kinds) ? kinds[d->kind] : "?");
  gboolean by_id = d->kind == AB_DB_TABLE_MULTI_EDGE || d->kind == AB_DB_TABLE_VERTEX;
  json_builder_set_member_name (b, by_id ? "id" : "source");
  json_builder_add_value (b, key_field (d->key_type));
  if (d->kind != AB_DB_TABLE_VERTEX)
    {
      if (d->kind == AB_DB_TABLE_MULTI_EDGE)
        {
          json_builder_set_member_name (b, "source");
          json_builder_add_value (b, key_field (d->target_type));
        }
      json_builder_set_member_name (b, "target");
      json_builder_add_value (b, key_field (d->target_type));
    }
  ab_model_json_add_string (b, "direction", d->both_directions ? "BOTH" : "OUT");
  add_properties (b, d);
  if (d->kind != AB_DB_TABLE_VERTEX)
    add_indexes (b, d);
  json_builder_end_object (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

gboolean
ab_db_create_table (AbDb *db, const char *database, const AbDbTableDesc *desc, GError **error)
{
  if (!ab_lib_require (db, "db", error) || !ab_lib_require (database, "database", error)
      || !ab_lib_require (desc, "desc", error) || !ab_lib_require (desc->name, "desc->name", error))
    return FALSE;
  g_autoptr (JsonNode) body = desc_to_body (desc);
  return create_from_node (db, database, body, error);
}

gboolean
ab_db_alter_table_json (AbDb *db, const char *database, const char *table, const char *json,
                        GError **error)
{
  if (!ab_lib_names_ok (db, database, table, error) || !ab_lib_require (json, "json", error))
    return FALSE;
  GError *local = NULL;
  g_autoptr (JsonNode) body = ab_model_json_parse (json, -1, &local);
  g_autoptr (AbTableDesc) old = ab_catalog_get_table (cat_of (db), database, table);
  if (body == NULL)
    return ab_lib_propagate (error, local), FALSE;
  if (old == NULL)
    return g_set_error (error, AB_DB_ERROR, AB_DB_ERROR_NOT_FOUND, "Table %s.%s does not exist.",
                        database, table),
           FALSE;
  g_autoptr (AbTableDesc) want = ab_table_desc_apply_update (old, body, &local);
  AbTableDesc *t = want != NULL ? ab_catalog_update_table (cat_of (db), database, table,
                                                           &want->active, want->schema, &want->mode,
                                                           want->comment, ACTOR, &local)
                                : NULL;
  return done (t, (GDestroyNotify) ab_table_desc_unref, local, error);
}

gboolean
ab_db_drop_table (AbDb *db, const char *database, const char *table, GError **error)
{
  if (!ab_lib_names_ok (db, database, table, error))
    return FALSE;
  GError *local = NULL;
  const gboolean inactive = FALSE;
  AbTableDesc *t = ab_catalog_update_table (cat_of (db), database, table, &inactive, NULL, NULL,
                                            NULL, ACTOR, &local);
  if (!done (t, (GDestroyNotify) ab_table_desc_unref, local, error))
    return FALSE;
  if (ab_catalog_delete_table (cat_of (db), database, table, &local))
    return TRUE;
  ab_lib_propagate (error, local);
  return FALSE;
}

gboolean
ab_db_create_alias (AbDb *db, const char *database, const char *alias, const char *table,
                    GError **error)
{
  if (!ab_lib_require (db, "db", error) || !ab_lib_require (database, "database", error)
      || !ab_lib_require (alias, "alias", error) || !ab_lib_require (table, "table", error))
    return FALSE;
  GError *local = NULL;
  AbAliasDesc *a = ab_catalog_create_alias (cat_of (db), database, alias, table, "", ACTOR, &local);
  return done (a, (GDestroyNotify) ab_alias_desc_unref, local, error);
}

gboolean
ab_db_drop_alias (AbDb *db, const char *database, const char *alias, GError **error)
{
  if (!ab_lib_require (db, "db", error) || !ab_lib_require (database, "database", error)
      || !ab_lib_require (alias, "alias", error))
    return FALSE;
  GError *local = NULL;
  const gboolean inactive = FALSE;
  AbAliasDesc *a = ab_catalog_update_alias (cat_of (db), database, alias, &inactive, NULL, NULL,
                                            ACTOR, &local);
  if (!done (a, (GDestroyNotify) ab_alias_desc_unref, local, error))
    return FALSE;
  if (ab_catalog_delete_alias (cat_of (db), database, alias, &local))
    return TRUE;
  ab_lib_propagate (error, local);
  return FALSE;
}
