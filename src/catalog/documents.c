/* Catalog documents: catalog-wide JSON entities kept by kind and name (v2
 * storages, prepared queries and their aliases), persisted and reloaded with
 * the descriptors; the catalog checks only their names. */
#include <string.h>
#include "catalog/catalog-private.h"
#include "model/types.h"

static gboolean
is_doc_kind (gchar kind)
{
  return kind == KIND_STORAGE || kind == KIND_QUERY || kind == KIND_QUERY_NAME;
}

static gchar *
doc_key (gchar kind, const gchar *name)
{
  return g_strdup_printf ("%c%s", kind, name);
}

GHashTable *
ab_catalog_docs_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_node_unref);
}

gboolean
ab_catalog_doc_load (GHashTable *docs, gchar kind, const guint8 *key, gsize klen, JsonNode *node)
{
  g_autoptr (GByteArray) head = ab_catalog_meta_key (kind, NULL, "");
  if (!is_doc_kind (kind) || klen < head->len || memcmp (key, head->data, head->len) != 0)
    return FALSE;
  g_autofree gchar *name = g_strndup ((const gchar *) key + head->len, klen - head->len);
  g_hash_table_replace (docs, doc_key (kind, name), json_node_ref (node));
  return TRUE;
}

static gint
by_key (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar *const *) a, *(const gchar *const *) b);
}

GPtrArray *
ab_catalog_list_docs (AbCatalog *cat, AbCatalogDoc kind)
{
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_rw_lock_reader_lock (&cat->lock);
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, cat->docs);
  while (g_hash_table_iter_next (&it, &k, NULL))
    if (((const gchar *) k)[0] == (gchar) kind)
      g_ptr_array_add (keys, k);
  g_ptr_array_sort (keys, by_key);
  for (guint i = 0; i < keys->len; i++)
    g_ptr_array_add (out,
                     ab_model_json_deep_copy (g_hash_table_lookup (cat->docs, keys->pdata[i])));
  g_rw_lock_reader_unlock (&cat->lock);
  return out;
}

JsonNode *
ab_catalog_get_doc (AbCatalog *cat, AbCatalogDoc kind, const gchar *name)
{
  g_autofree gchar *k = doc_key ((gchar) kind, name);
  g_rw_lock_reader_lock (&cat->lock);
  JsonNode *n = g_hash_table_lookup (cat->docs, k);
  JsonNode *copy = n != NULL ? ab_model_json_deep_copy (n) : NULL;
  g_rw_lock_reader_unlock (&cat->lock);
  return copy;
}

static gboolean
put_doc (AbCatalog *cat, AbCatalogDoc kind, const gchar *name, JsonNode *entity, GError **error)
{
  if (name == NULL || name[0] == '\0' || (entity != NULL && !JSON_NODE_HOLDS_OBJECT (entity)))
    return g_set_error (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_INVALID,
                        "a catalog document is a JSON object with a name"),
           FALSE;
  return ab_catalog_persist (cat, (gchar) kind, NULL, name, entity, error);
}

/* The DDL lock is not recursive: put_doc is what a change function calls,
 * ab_catalog_put_doc what everybody else does. */
static GPrivate in_change;

gboolean
ab_catalog_put_doc (AbCatalog *cat, AbCatalogDoc kind, const gchar *name, JsonNode *entity,
                    GError **error)
{
  if (g_private_get (&in_change) == cat)
    return put_doc (cat, kind, name, entity, error);
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
  return put_doc (cat, kind, name, entity, error);
}

gboolean
ab_catalog_change_docs (AbCatalog *cat, AbCatalogChange change, gpointer user, GError **error)
{
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
  if (!ab_catalog_refresh (cat, error)) /* what other nodes changed first */
    return FALSE;
  g_private_set (&in_change, cat);
  gboolean ok = change (cat, user, error);
  g_private_set (&in_change, NULL);
  return ok;
}

/* ---- v2 storages ---- */

GPtrArray *
ab_catalog_list_storages (AbCatalog *cat)
{
  return ab_catalog_list_docs (cat, AB_CATALOG_STORAGE);
}

gboolean
ab_catalog_has_storage (AbCatalog *cat, const gchar *name)
{
  g_autoptr (JsonNode) n = ab_catalog_get_doc (cat, AB_CATALOG_STORAGE, name);
  return n != NULL;
}

gboolean
ab_catalog_put_storage (AbCatalog *cat, const gchar *name, JsonNode *entity, GError **error)
{
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (entity) ? json_node_get_object (entity) : NULL;
  if (o == NULL
      || g_strcmp0 (json_object_get_string_member_with_default (o, "name", NULL), name) != 0)
    return g_set_error (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_INVALID,
                        "storage entity must be an object named %s", name),
           FALSE;
  return ab_catalog_put_doc (cat, AB_CATALOG_STORAGE, name, entity, error);
}
