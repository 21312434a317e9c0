/* Internals shared by the catalog's storage/read half (catalog.c) and its
 * DDL half (ddl.c): the cache struct, the reserved key layout, reload. Not
 * for use outside src/catalog. */
#pragma once
#include <stdatomic.h>
#include "catalog/catalog.h"

#define KIND_DATABASE 'd'
#define KIND_TABLE 't'
#define KIND_ALIAS 'a'
#define KIND_REVISION '#'
#define KIND_KEY 'k'
#define KIND_STORAGE 's'    /* documents (AbCatalogDoc): a v2 storage */
#define KIND_QUERY 'q'      /* a prepared query */
#define KIND_QUERY_NAME 'n' /* a prepared query's alias */

struct _AbCatalog {
  AbStore *store;
  GRWLock lock;          /* guards the three maps and revision */
  GMutex ddl;            /* one DDL at a time in this process */
  GHashTable *databases; /* name -> AbDatabaseDesc* */
  GHashTable *tables;    /* "db\x1ftable" -> AbTableDesc* */
  GHashTable *aliases;   /* "db\x1falias" -> AbAliasDesc* */
  GHashTable *keys;      /* hash -> AbApiKey* */
  GHashTable *docs;      /* "<kind char>name" -> JsonNode* (documents.c) */
  gint64 revision;
  guint64 id;                      /* unique in the process (resolved.c's cache key) */
  atomic_uint_fast64_t generation; /* +1 each time the maps are replaced */
};

gchar *ab_catalog_pair_key (const gchar *db, const gchar *name);
GByteArray *ab_catalog_meta_key (gchar kind, const gchar *db, const gchar *name);
gint64 ab_catalog_now_ms (void);
gboolean ab_catalog_reload (AbCatalog *cat, GError **error);

/* documents.c: the document row (key kind, key) goes into docs; FALSE
 * when the kind is not a document kind. */
gboolean ab_catalog_doc_load (GHashTable *docs, gchar kind, const guint8 *key, gsize klen,
                              JsonNode *node);
GHashTable *ab_catalog_docs_new (void);

/* keys.c: parsing a stored key back. */
AbApiKey *ab_catalog_key_from_json (JsonNode *node, GError **error);
gboolean ab_catalog_persist (AbCatalog *cat, gchar kind, const gchar *db, const gchar *name,
                             JsonNode *node, GError **error);
