/* Datastore references (upstream's DatastoreTableReferences): the catalog
 * objects bound to an HBase table `namespace:table` by their storage — v3
 * tables (LABEL), v2 storages (STORAGE) and the aliases of those tables. */
#include <string.h>
#include "catalog/catalog.h"
#include "model/json_get.h"

void
ab_datastore_ref_free (AbDatastoreRef *r)
{
  g_free (r->ns);
  g_free (r->table);
  g_free (r->name);
  g_free (r);
}

const gchar *
ab_datastore_ref_kind_name (AbDatastoreRefKind kind)
{
  switch (kind)
    {
      case AB_DATASTORE_REF_STORAGE: return "STORAGE";
      case AB_DATASTORE_REF_LABEL: return "LABEL";
      case AB_DATASTORE_REF_ALIAS: return "ALIAS";
    }
  return "";
}

static void
add_ref (GPtrArray *out, const gchar *ns, const gchar *table, AbDatastoreRefKind kind, gchar *name,
         gboolean active)
{
  AbDatastoreRef *r = g_new0 (AbDatastoreRef, 1);
  r->ns = *ns != '\0' ? g_strdup (ns) : NULL;
  r->table = g_strdup (table);
  r->kind = kind;
  r->name = name;
  r->active = active;
  g_ptr_array_add (out, r);
}

/* datastore://ns/table (ns may be empty): TRUE with both parts. */
static gboolean
uri_target (const gchar *storage, gchar **ns, gchar **table)
{
  static const gchar scheme[] = "datastore://";
  if (storage == NULL || !g_str_has_prefix (storage, scheme))
    return FALSE;
  const gchar *rest = storage + strlen (scheme), *slash = strchr (rest, '/');
  if (slash == NULL || slash[1] == '\0' || strchr (slash + 1, '/') != NULL)
    return FALSE;
  *ns = g_strndup (rest, (gsize) (slash - rest));
  *table = g_strdup (slash + 1);
  return TRUE;
}

/* A v2 storage's conf {namespace, tableName} (or hbaseNamespace, hbaseTable),
 * or those members beside its name as the upstream console sends them. */
static void
storage_refs (AbCatalog *cat, GPtrArray *out)
{
  g_autoptr (GPtrArray) all = ab_catalog_list_storages (cat);
  for (guint i = 0; i < all->len; i++)
    {
      JsonObject *o = JSON_NODE_HOLDS_OBJECT ((JsonNode *) all->pdata[i])
                          ? json_node_get_object (all->pdata[i])
                          : NULL;
      if (o == NULL)
        continue;
      /* upstream's conf object, or the console's members beside the name */
      JsonNode *cn = json_object_get_member (o, "conf");
      JsonObject *conf = cn != NULL && JSON_NODE_HOLDS_OBJECT (cn) ? json_node_get_object (cn) : o;
      const gchar *ns = json_object_get_string_member_with_default (
          conf, "namespace",
          json_object_get_string_member_with_default (conf, "hbaseNamespace", NULL));
      const gchar *table = json_object_get_string_member_with_default (
          conf, "tableName", json_object_get_string_member_with_default (conf, "hbaseTable", NULL));
      if (ns != NULL && table != NULL)
        add_ref (out, ns, table, AB_DATASTORE_REF_STORAGE,
                 g_strdup (json_object_get_string_member_with_default (o, "name", "")),
                 json_object_get_boolean_member_with_default (o, "active", TRUE));
    }
}

GPtrArray *
ab_catalog_datastore_refs (AbCatalog *cat)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_datastore_ref_free);
  storage_refs (cat, out);
  g_autoptr (GPtrArray) dbs = ab_catalog_list_databases (cat);
  for (guint d = 0; d < dbs->len; d++)
    {
      const gchar *db = ((AbDatabaseDesc *) dbs->pdata[d])->database;
      g_autoptr (GPtrArray) tables = ab_catalog_list_tables (cat, db);
      g_autoptr (GPtrArray) aliases = ab_catalog_list_aliases (cat, db);
      for (guint t = 0; t < tables->len; t++)
        {
          const AbTableDesc *td = tables->pdata[t];
          g_autofree gchar *ns = NULL, *table = NULL;
          if (!uri_target (td->storage, &ns, &table))
            continue;
          add_ref (out, ns, table, AB_DATASTORE_REF_LABEL, g_strdup_printf ("%s.%s", db, td->table),
                   td->active);
          for (guint a = 0; a < aliases->len; a++)
            {
              const AbAliasDesc *ad = aliases->pdata[a];
              if (g_str_equal (ad->table, td->table))
                add_ref (out, ns, table, AB_DATASTORE_REF_ALIAS,
                         g_strdup_printf ("%s.%s", db, ad->alias), ad->active);
            }
        }
    }
  return out;
}

gboolean
ab_datastore_ref_matches (const AbDatastoreRef *r, const gchar *ns, const gchar *table)
{
  return g_str_equal (r->table, table) && (r->ns == NULL || ns == NULL || g_str_equal (r->ns, ns));
}
