/* Catalog DDL: create, update and delete databases, tables and aliases with
 * the metadata rules of docs/data-model.md §15. Each change writes its descriptor
 * row, then bumps the catalog revision, then reloads the cache. */
#include <string.h>
#include "catalog/catalog-private.h"
#include "codec/fail.h"

/* Model validation errors become catalog INVALID errors with the same text. */
static gboolean
check (gboolean ok, GError **error, GError **local)
{
  if (ok)
    return TRUE;
  g_set_error_literal (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_INVALID, (*local)->message);
  g_clear_error (local);
  return FALSE;
}

/* Writes (put or delete when node == NULL) one descriptor row and bumps the
 * revision, then reloads the cache. Other nodes reload when they read a new
 * revision, so the revision must never be visible before the descriptor: on
 * a store whose batch is atomic both go in one batch; elsewhere (hbase, where
 * a batch's puts and increments run concurrently) the descriptor is written
 * first and the revision bumped only once that write returned. */
gboolean
ab_catalog_persist (AbCatalog *cat, gchar kind, const gchar *db, const gchar *name, JsonNode *node,
                    GError **error)
{
  g_autoptr (GByteArray) k = ab_catalog_meta_key (kind, db, name);
  g_autoptr (GByteArray) rev = ab_catalog_meta_key (KIND_REVISION, NULL, NULL);
  g_autoptr (AbBatch) b = ab_batch_new ();
  if (node != NULL)
    {
      g_autofree gchar *text = json_to_string (node, FALSE);
      ab_batch_put (b, k->data, k->len, (const guint8 *) text, strlen (text));
    }
  else
    ab_batch_delete (b, k->data, k->len);
  g_autoptr (AbBatch) bump = ab_batch_new ();
  ab_batch_increment (ab_store_batch_is_atomic (cat->store) ? b : bump, rev->data, rev->len, 1);
  g_autoptr (GError) local = NULL;
  if (!ab_store_batch (cat->store, b, &local)
      || (ab_batch_len (bump) > 0 && !ab_store_batch (cat->store, bump, &local))
      || !ab_catalog_reload (cat, &local))
    return ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_STORE, "catalog write failed: %s",
                    local->message);
  return TRUE;
}

static void
audit_create (AbAudit *a, const gchar *actor)
{
  a->revision = 1;
  a->created_at = a->updated_at = ab_catalog_now_ms ();
  g_free (a->created_by);
  g_free (a->updated_by);
  a->created_by = g_strdup (actor != NULL ? actor : "-");
  a->updated_by = g_strdup (a->created_by);
}

static void
audit_update (AbAudit *a, const gchar *actor)
{
  a->revision++;
  a->updated_at = ab_catalog_now_ms ();
  g_free (a->updated_by);
  a->updated_by = g_strdup (actor != NULL ? actor : "-");
}

static void
set_str (gchar **dst, const gchar *src)
{
  if (src == NULL)
    return;
  g_free (*dst);
  *dst = g_strdup (src);
}

/* ---- databases ---- */

AbDatabaseDesc *
ab_catalog_create_database (AbCatalog *cat, const gchar *db, const gchar *comment,
                            const gchar *actor, GError **error)
{
  GError *local = NULL;
  if (!check (ab_model_validate_name ("database", db, &local), error, &local)
      || !check (ab_model_validate_comment (comment, &local), error, &local))
    return NULL;
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
  g_autoptr (AbDatabaseDesc) old = ab_catalog_get_database (cat, db);
  if (old != NULL)
    {
      ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_EXISTS, "Database %s already exists.", db);
      return NULL;
    }
  g_autoptr (AbDatabaseDesc) d = ab_database_desc_new ();
  set_str (&d->tenant, "default");
  set_str (&d->database, db);
  set_str (&d->comment, comment);
  d->active = TRUE;
  audit_create (&d->audit, actor);
  g_autoptr (JsonNode) node = ab_database_desc_to_json (d);
  if (!ab_catalog_persist (cat, KIND_DATABASE, db, NULL, node, error))
    return NULL;
  return ab_catalog_get_database (cat, db);
}

AbDatabaseDesc *
ab_catalog_update_database (AbCatalog *cat, const gchar *db, const gboolean *active,
                            const gchar *comment, const gchar *actor, GError **error)
{
  GError *local = NULL;
  if (comment != NULL && !check (ab_model_validate_comment (comment, &local), error, &local))
    return NULL;
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
  g_autoptr (AbDatabaseDesc) old = ab_catalog_get_database (cat, db);
  if (old == NULL)
    {
      ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_NOT_FOUND, "Database %s does not exist.",
               db);
      return NULL;
    }
  g_autoptr (AbDatabaseDesc) d = ab_database_desc_copy (old);
  if (active != NULL)
    d->active = *active;
  set_str (&d->comment, comment);
  audit_update (&d->audit, actor);
  g_autoptr (JsonNode) node = ab_database_desc_to_json (d);
  if (!ab_catalog_persist (cat, KIND_DATABASE, db, NULL, node, error))
    return NULL;
  return ab_catalog_get_database (cat, db);
}

/* Deleting a database also drops its table and alias descriptors. */
gboolean
ab_catalog_delete_database (AbCatalog *cat, const gchar *db, GError **error)
{
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
  g_autoptr (AbDatabaseDesc) old = ab_catalog_get_database (cat, db);
  if (old == NULL)
    return ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_NOT_FOUND,
                    "Database %s does not exist.", db);
  if (old->active)
    return ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_INVALID,
                    "Database %s is active; deactivate it (active: false) before deleting.", db);
  g_autoptr (GPtrArray) tables = ab_catalog_list_tables (cat, db);
  g_autoptr (GPtrArray) aliases = ab_catalog_list_aliases (cat, db);
  for (guint i = 0; i < aliases->len; i++)
    if (!ab_catalog_persist (cat, KIND_ALIAS, db, ((AbAliasDesc *) aliases->pdata[i])->alias, NULL,
                             error))
      return FALSE;
  for (guint i = 0; i < tables->len; i++)
    if (!ab_catalog_persist (cat, KIND_TABLE, db, ((AbTableDesc *) tables->pdata[i])->table, NULL,
                             error))
      return FALSE;
  return ab_catalog_persist (cat, KIND_DATABASE, db, NULL, NULL, error);
}

/* ---- tables ---- */

AbTableDesc *
ab_catalog_create_table (AbCatalog *cat, AbTableDesc *proto, const gchar *actor, GError **error)
{
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
  g_autoptr (AbDatabaseDesc) db = ab_catalog_get_database (cat, proto->database);
  if (db == NULL)
    {
      ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_MISSING, "Database %s does not exist.",
               proto->database);
      return NULL;
    }
  g_autoptr (AbTableDesc) old = ab_catalog_get_table (cat, proto->database, proto->table);
  g_autoptr (AbAliasDesc) alias = ab_catalog_get_alias (cat, proto->database, proto->table);
  if (old != NULL || alias != NULL)
    {
      ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_EXISTS, "%s %s.%s already exists.",
               old != NULL ? "Table" : "An alias named", proto->database, proto->table);
      return NULL;
    }
  g_autoptr (AbTableDesc) t = ab_table_desc_copy (proto);
  set_str (&t->tenant, "default");
  audit_create (&t->audit, actor);
  g_autoptr (JsonNode) node = ab_table_desc_to_json (t);
  if (!ab_catalog_persist (cat, KIND_TABLE, t->database, t->table, node, error))
    return NULL;
  return ab_catalog_get_table (cat, t->database, t->table);
}

static gboolean
has_active_alias (AbCatalog *cat, const gchar *db, const gchar *table)
{
  g_autoptr (GPtrArray) aliases = ab_catalog_list_aliases (cat, db);
  for (guint i = 0; i < aliases->len; i++)
    {
      const AbAliasDesc *a = aliases->pdata[i];
      if (a->active && g_strcmp0 (a->table, table) == 0)
        return TRUE;
    }
  return FALSE;
}

AbTableDesc *
ab_catalog_update_table (AbCatalog *cat, const gchar *db, const gchar *table,
                         const gboolean *active, const AbSchema *schema, const AbMutationMode *mode,
                         const gchar *comment, const gchar *actor, GError **error)
{
  GError *local = NULL;
  if (comment != NULL && !check (ab_model_validate_comment (comment, &local), error, &local))
    return NULL;
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
  g_autoptr (AbTableDesc) old = ab_catalog_get_table (cat, db, table);
  if (old == NULL)
    {
      ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_NOT_FOUND, "Table %s.%s does not exist.",
               db, table);
      return NULL;
    }
  if (active != NULL && !*active && old->active && has_active_alias (cat, db, table))
    {
      ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_INVALID,
               "Table %s.%s is the target of an active alias; deactivate the alias first.", db,
               table);
      return NULL;
    }
  if (schema != NULL
      && !check (ab_schema_check_update (old->schema, schema, &local), error, &local))
    return NULL;
  g_autoptr (AbTableDesc) t = ab_table_desc_copy (old);
  if (active != NULL)
    t->active = *active;
  if (schema != NULL)
    {
      ab_schema_free (t->schema);
      t->schema = ab_schema_copy (schema);
    }
  if (mode != NULL)
    t->mode = *mode;
  set_str (&t->comment, comment);
  audit_update (&t->audit, actor);
  g_autoptr (JsonNode) node = ab_table_desc_to_json (t);
  if (!ab_catalog_persist (cat, KIND_TABLE, db, table, node, error))
    return NULL;
  return ab_catalog_get_table (cat, db, table);
}

gboolean
ab_catalog_delete_table (AbCatalog *cat, const gchar *db, const gchar *table, GError **error)
{
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
  g_autoptr (AbTableDesc) old = ab_catalog_get_table (cat, db, table);
  if (old == NULL)
    return ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_NOT_FOUND,
                    "Table %s.%s does not exist.", db, table);
  if (old->active)
    return ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_INVALID,
                    "Table %s.%s is active; deactivate it (active: false) before deleting.", db,
                    table);
  return ab_catalog_persist (cat, KIND_TABLE, db, table, NULL, error);
}

/* ---- aliases ---- */

static gboolean
check_alias_target (AbCatalog *cat, const gchar *db, const gchar *table, GError **error)
{
  g_autoptr (AbTableDesc) t = ab_catalog_get_table (cat, db, table);
  if (t == NULL)
    return ab_fail (
        error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_MISSING,
        "Alias target table %s.%s does not exist (aliases point into the same database).", db,
        table);
  return TRUE;
}

AbAliasDesc *
ab_catalog_create_alias (AbCatalog *cat, const gchar *db, const gchar *alias, const gchar *table,
                         const gchar *comment, const gchar *actor, GError **error)
{
  GError *local = NULL;
  if (!check (ab_model_validate_name ("alias", alias, &local), error, &local)
      || !check (ab_model_validate_comment (comment, &local), error, &local))
    return NULL;
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
  g_autoptr (AbDatabaseDesc) d = ab_catalog_get_database (cat, db);
  if (d == NULL)
    {
      ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_MISSING, "Database %s does not exist.",
               db);
      return NULL;
    }
  g_autoptr (AbAliasDesc) old = ab_catalog_get_alias (cat, db, alias);
  g_autoptr (AbTableDesc) same = ab_catalog_get_table (cat, db, alias);
  if (old != NULL || same != NULL)
    {
      ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_EXISTS, "%s %s.%s already exists.",
               old != NULL ? "Alias" : "A table named", db, alias);
      return NULL;
    }
  if (!check_alias_target (cat, db, table, error))
    return NULL;
  g_autoptr (AbAliasDesc) a = ab_alias_desc_new ();
  set_str (&a->tenant, "default");
  set_str (&a->database, db);
  set_str (&a->alias, alias);
  set_str (&a->table, table);
  set_str (&a->comment, comment);
  a->active = TRUE;
  audit_create (&a->audit, actor);
  g_autoptr (JsonNode) node = ab_alias_desc_to_json (a);
  if (!ab_catalog_persist (cat, KIND_ALIAS, db, alias, node, error))
    return NULL;
  return ab_catalog_get_alias (cat, db, alias);
}

AbAliasDesc *
ab_catalog_update_alias (AbCatalog *cat, const gchar *db, const gchar *alias,
                         const gboolean *active, const gchar *table, const gchar *comment,
                         const gchar *actor, GError **error)
{
  GError *local = NULL;
  if (comment != NULL && !check (ab_model_validate_comment (comment, &local), error, &local))
    return NULL;
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
  g_autoptr (AbAliasDesc) old = ab_catalog_get_alias (cat, db, alias);
  if (old == NULL)
    {
      ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_NOT_FOUND, "Alias %s.%s does not exist.",
               db, alias);
      return NULL;
    }
  if (table != NULL && !check_alias_target (cat, db, table, error))
    return NULL;
  g_autoptr (AbAliasDesc) a = ab_alias_desc_copy (old);
  if (active != NULL)
    a->active = *active;
  set_str (&a->table, table);
  set_str (&a->comment, comment);
  audit_update (&a->audit, actor);
  g_autoptr (JsonNode) node = ab_alias_desc_to_json (a);
  if (!ab_catalog_persist (cat, KIND_ALIAS, db, alias, node, error))
    return NULL;
  return ab_catalog_get_alias (cat, db, alias);
}

gboolean
ab_catalog_delete_alias (AbCatalog *cat, const gchar *db, const gchar *alias, GError **error)
{
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
  g_autoptr (AbAliasDesc) old = ab_catalog_get_alias (cat, db, alias);
  if (old == NULL)
    return ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_NOT_FOUND,
                    "Alias %s.%s does not exist.", db, alias);
  if (old->active)
    return ab_fail (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_INVALID,
                    "Alias %s.%s is active; deactivate it (active: false) before deleting.", db,
                    alias);
  return ab_catalog_persist (cat, KIND_ALIAS, db, alias, NULL, error);
}
