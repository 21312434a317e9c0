/* Catalog storage and cache: descriptors live as JSON under a reserved key
 * prefix that no edge row can have (byte 5 = 0x00 is never an element
 * header); every DDL bumps a revision counter after its descriptor row is
 * written, and a reload never installs an older revision than it holds. */
#include <string.h>
#include "catalog/catalog-private.h"
#include "codec/record.h"

G_DEFINE_QUARK (ab - catalog - error - quark, ab_catalog_error)

/* 4 zero salt bytes, then 0x00 where an element header would stand. */
static const guint8 META_PREFIX[] = { 0, 0, 0, 0, 0, 'a', 'b', 'm', 'e', 't', 'a', 0 };

gchar *
ab_catalog_pair_key (const gchar *db, const gchar *name)
{
  return g_strconcat (db, "\x1f", name, NULL);
}

GByteArray *
ab_catalog_meta_key (gchar kind, const gchar *db, const gchar *name)
{
  GByteArray *k = g_byte_array_new ();
  g_byte_array_append (k, META_PREFIX, sizeof META_PREFIX);
  g_byte_array_append (k, (const guint8 *) &kind, 1);
  if (db != NULL)
    {
      g_byte_array_append (k, (const guint8 *) "", 1);
      g_byte_array_append (k, (const guint8 *) db, strlen (db));
    }
  if (name != NULL)
    {
      g_byte_array_append (k, (const guint8 *) "", 1);
      g_byte_array_append (k, (const guint8 *) name, strlen (name));
    }
  return k;
}

gboolean
ab_catalog_key_database (const guint8 *key, gsize klen, gchar **database)
{
  gsize at = sizeof META_PREFIX + 1; /* after the kind byte */
  *database = NULL;
  if (klen < at || memcmp (key, META_PREFIX, sizeof META_PREFIX) != 0)
    return FALSE;
  gchar kind = (gchar) key[sizeof META_PREFIX];
  if ((kind != KIND_DATABASE && kind != KIND_TABLE && kind != KIND_ALIAS) || klen <= at
      || key[at] != 0)
    return TRUE; /* catalog-wide: revision, API keys, documents */
  const guint8 *db = key + at + 1;
  const guint8 *end = memchr (db, 0, klen - at - 1);
  *database = g_strndup ((const gchar *) db, end != NULL ? (gsize) (end - db) : klen - at - 1);
  return TRUE;
}

gboolean
ab_catalog_bump_revision (AbStore *store, GError **error)
{
  g_autoptr (GByteArray) rev = ab_catalog_meta_key (KIND_REVISION, NULL, NULL);
  return ab_store_increment (store, rev->data, rev->len, 1, NULL, error);
}

gint64
ab_catalog_now_ms (void)
{
  return g_get_real_time () / 1000;
}

static GHashTable *
new_map (GDestroyNotify unref)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, unref);
}

static gboolean
read_revision (AbStore *store, gint64 *rev, GError **error)
{
  g_autoptr (GByteArray) k = ab_catalog_meta_key (KIND_REVISION, NULL, NULL);
  g_autoptr (GBytes) v = NULL;
  if (!ab_store_get (store, k->data, k->len, &v, error))
    return FALSE;
  *rev = 0;
  if (v != NULL && g_bytes_get_size (v) == 8)
    *rev = ab_codec_get_be64 (g_bytes_get_data (v, NULL));
  return TRUE;
}

static JsonNode *
parse_json_bytes (GBytes *bytes, GError **error)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  gsize len;
  const gchar *data = g_bytes_get_data (bytes, &len);
  if (!json_parser_load_from_data (p, data, (gssize) len, error))
    return NULL;
  return json_node_copy (json_parser_get_root (p));
}

/* Decodes one stored descriptor row into the right map. */
static gboolean
load_row (const AbKv *kv, GHashTable *dbs, GHashTable *tables, GHashTable *aliases,
          GHashTable *keys, GHashTable *docs, GError **error)
{
  gsize klen;
  const guint8 *k = g_bytes_get_data (kv->key, &klen);
  gchar kind = (gchar) k[sizeof META_PREFIX];
  if (kind == KIND_REVISION)
    return TRUE;
  g_autoptr (JsonNode) node = parse_json_bytes (kv->value, error);
  if (node == NULL)
    return FALSE;
  if (kind == KIND_DATABASE)
    {
      AbDatabaseDesc *d = ab_database_desc_from_json (node, error);
      if (d == NULL)
        return FALSE;
      g_hash_table_replace (dbs, g_strdup (d->database), d);
    }
  else if (kind == KIND_TABLE)
    {
      AbTableDesc *t = ab_table_desc_from_json (node, error);
      if (t == NULL)
        return FALSE;
      g_hash_table_replace (tables, ab_catalog_pair_key (t->database, t->table), t);
    }
  else if (kind == KIND_ALIAS)
    {
      AbAliasDesc *a = ab_alias_desc_from_json (node, error);
      if (a == NULL)
        return FALSE;
      g_hash_table_replace (aliases, ab_catalog_pair_key (a->database, a->alias), a);
    }
  else if (kind == KIND_KEY)
    {
      AbApiKey *k = ab_catalog_key_from_json (node, error);
      if (k == NULL)
        return FALSE;
      g_hash_table_replace (keys, g_strdup (k->hash), k);
    }
  else
    ab_catalog_doc_load (docs, kind, k, klen, node);
  return TRUE;
}

gboolean
ab_catalog_reload (AbCatalog *cat, GError **error)
{
  gint64 rev;
  if (!read_revision (cat->store, &rev, error))
    return FALSE;
  g_autoptr (GByteArray) stop = g_byte_array_new ();
  g_byte_array_append (stop, META_PREFIX, sizeof META_PREFIX);
  stop->data[stop->len - 1] = 1;
  AbScanRange range = { .start = META_PREFIX,
                        .start_len = sizeof META_PREFIX,
                        .start_inclusive = TRUE,
                        .stop = stop->data,
                        .stop_len = stop->len,
                        .stop_inclusive = FALSE };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  if (!ab_store_scan (cat->store, &range, rows, error))
    return FALSE;
  g_autoptr (GHashTable) dbs = new_map ((GDestroyNotify) ab_database_desc_unref);
  g_autoptr (GHashTable) tables = new_map ((GDestroyNotify) ab_table_desc_unref);
  g_autoptr (GHashTable) aliases = new_map ((GDestroyNotify) ab_alias_desc_unref);
  g_autoptr (GHashTable) keys = new_map ((GDestroyNotify) ab_api_key_unref);
  g_autoptr (GHashTable) docs = ab_catalog_docs_new ();
  for (guint i = 0; i < rows->len; i++)
    if (!load_row (&g_array_index (rows, AbKv, i), dbs, tables, aliases, keys, docs, error))
      {
        g_prefix_error (error, "catalog row is corrupt: ");
        return FALSE;
      }
  g_rw_lock_writer_lock (&cat->lock);
  if (rev < cat->revision)
    {
      /* A concurrent reload that read a newer revision got here first. */
      g_rw_lock_writer_unlock (&cat->lock);
      return TRUE;
    }
  g_hash_table_unref (cat->databases);
  g_hash_table_unref (cat->tables);
  g_hash_table_unref (cat->aliases);
  g_hash_table_unref (cat->keys);
  g_hash_table_unref (cat->docs);
  cat->databases = g_steal_pointer (&dbs);
  cat->tables = g_steal_pointer (&tables);
  cat->aliases = g_steal_pointer (&aliases);
  cat->keys = g_steal_pointer (&keys);
  cat->docs = g_steal_pointer (&docs);
  cat->revision = rev;
  atomic_fetch_add_explicit (&cat->generation, 1, memory_order_release);
  g_rw_lock_writer_unlock (&cat->lock);
  return TRUE;
}

AbCatalog *
ab_catalog_open (AbStore *store, GError **error)
{
  AbCatalog *cat = g_new0 (AbCatalog, 1);
  cat->store = store;
  g_rw_lock_init (&cat->lock);
  g_mutex_init (&cat->ddl);
  cat->databases = new_map ((GDestroyNotify) ab_database_desc_unref);
  cat->tables = new_map ((GDestroyNotify) ab_table_desc_unref);
  cat->aliases = new_map ((GDestroyNotify) ab_alias_desc_unref);
  cat->keys = new_map ((GDestroyNotify) ab_api_key_unref);
  cat->docs = ab_catalog_docs_new ();
  cat->revision = -1;
  static atomic_uint_fast64_t ids;
  cat->id = atomic_fetch_add (&ids, 1) + 1;
  GError *local = NULL;
  if (!ab_catalog_reload (cat, &local))
    {
      /* A store that is down (a remote gateway) is not fatal: the catalog
       * loads on the first refresh that reaches it. Corrupt rows are. */
      gboolean down = local->domain == AB_STORE_ERROR;
      if (!down)
        {
          g_propagate_error (error, local);
          ab_catalog_free (cat);
          return NULL;
        }
      g_warning ("catalog not loaded yet (store unreachable): %s", local->message);
      g_error_free (local);
    }
  return cat;
}

void
ab_catalog_free (AbCatalog *cat)
{
  if (cat == NULL)
    return;
  g_hash_table_unref (cat->databases);
  g_hash_table_unref (cat->tables);
  g_hash_table_unref (cat->aliases);
  g_hash_table_unref (cat->keys);
  g_hash_table_unref (cat->docs);
  g_rw_lock_clear (&cat->lock);
  g_mutex_clear (&cat->ddl);
  g_free (cat);
}

gboolean
ab_catalog_refresh (AbCatalog *cat, GError **error)
{
  gint64 rev;
  if (!read_revision (cat->store, &rev, error))
    return FALSE;
  g_rw_lock_reader_lock (&cat->lock);
  gboolean same = rev == cat->revision;
  g_rw_lock_reader_unlock (&cat->lock);
  return same ? TRUE : ab_catalog_reload (cat, error);
}

gint64
ab_catalog_revision (AbCatalog *cat)
{
  g_rw_lock_reader_lock (&cat->lock);
  gint64 rev = cat->revision;
  g_rw_lock_reader_unlock (&cat->lock);
  return rev;
}

/* ---- reads ---- */

typedef gpointer (*RefFunc) (gpointer);

static gpointer
lookup_ref (AbCatalog *cat, GHashTable **map, const gchar *key, RefFunc ref)
{
  g_rw_lock_reader_lock (&cat->lock);
  gpointer v = g_hash_table_lookup (*map, key);
  if (v != NULL)
    v = ref (v);
  g_rw_lock_reader_unlock (&cat->lock);
  return v;
}

typedef const gchar *(*NameFunc) (gconstpointer);

static gint
by_name (gconstpointer a, gconstpointer b, gpointer name_of)
{
  NameFunc f = (NameFunc) name_of;
  return g_strcmp0 (f (*(gpointer *) a), f (*(gpointer *) b));
}

static const gchar *
db_name (gconstpointer d)
{
  return ((const AbDatabaseDesc *) d)->database;
}
static const gchar *
table_name (gconstpointer t)
{
  return ((const AbTableDesc *) t)->table;
}
static const gchar *
alias_name (gconstpointer a)
{
  return ((const AbAliasDesc *) a)->alias;
}
static const gchar *
table_db (gconstpointer t)
{
  return ((const AbTableDesc *) t)->database;
}
static const gchar *
alias_db (gconstpointer a)
{
  return ((const AbAliasDesc *) a)->database;
}

static GPtrArray *
list_map (AbCatalog *cat, GHashTable **map, const gchar *db, NameFunc db_of, NameFunc name_of,
          RefFunc ref, GDestroyNotify unref)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (unref);
  g_rw_lock_reader_lock (&cat->lock);
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, *map);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (db == NULL || g_strcmp0 (db_of (v), db) == 0)
      g_ptr_array_add (out, ref (v));
  g_rw_lock_reader_unlock (&cat->lock);
  g_ptr_array_sort_with_data (out, by_name, (gpointer) name_of);
  return out;
}

GPtrArray *
ab_catalog_list_databases (AbCatalog *cat)
{
  return list_map (cat, &cat->databases, NULL, NULL, db_name, (RefFunc) ab_database_desc_ref,
                   (GDestroyNotify) ab_database_desc_unref);
}

AbDatabaseDesc *
ab_catalog_get_database (AbCatalog *cat, const gchar *db)
{
  return lookup_ref (cat, &cat->databases, db, (RefFunc) ab_database_desc_ref);
}

GPtrArray *
ab_catalog_list_tables (AbCatalog *cat, const gchar *db)
{
  return list_map (cat, &cat->tables, db, table_db, table_name, (RefFunc) ab_table_desc_ref,
                   (GDestroyNotify) ab_table_desc_unref);
}

/* lookup_ref by (db, name): the pair key built on the stack when short (a
 * lookup per request should not allocate), on the heap otherwise. */
static gpointer
lookup_pair (AbCatalog *cat, GHashTable **map, const gchar *db, const gchar *name, RefFunc ref)
{
  gchar small[128];
  gsize dl = strlen (db), nl = strlen (name);
  if (dl + nl + 2 > sizeof small)
    {
      g_autofree gchar *k = ab_catalog_pair_key (db, name);
      return lookup_ref (cat, map, k, ref);
    }
  memcpy (small, db, dl);
  small[dl] = '\x1f';
  memcpy (small + dl + 1, name, nl + 1);
  return lookup_ref (cat, map, small, ref);
}

AbTableDesc *
ab_catalog_get_table (AbCatalog *cat, const gchar *db, const gchar *table)
{
  return lookup_pair (cat, &cat->tables, db, table, (RefFunc) ab_table_desc_ref);
}

GPtrArray *
ab_catalog_list_aliases (AbCatalog *cat, const gchar *db)
{
  return list_map (cat, &cat->aliases, db, alias_db, alias_name, (RefFunc) ab_alias_desc_ref,
                   (GDestroyNotify) ab_alias_desc_unref);
}

AbAliasDesc *
ab_catalog_get_alias (AbCatalog *cat, const gchar *db, const gchar *alias)
{
  return lookup_pair (cat, &cat->aliases, db, alias, (RefFunc) ab_alias_desc_ref);
}
