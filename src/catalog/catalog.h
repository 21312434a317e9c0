/* The catalog: databases, tables and aliases, persisted as JSON descriptors
 * in the datastore's reserved key space, cached in memory behind a lock, and
 * reloaded when another process bumps the stored revision counter. */
#pragma once
#include <glib.h>
#include "model/schema.h"
#include "store/store.h"

#define AB_CATALOG_ERROR (ab_catalog_error_quark ())
GQuark ab_catalog_error_quark (void);

typedef enum {
  AB_CATALOG_ERROR_NOT_FOUND,
  AB_CATALOG_ERROR_EXISTS,
  AB_CATALOG_ERROR_INVALID, /* a rule was broken (still active, bad target...) */
  AB_CATALOG_ERROR_STORE,   /* the datastore failed */
  AB_CATALOG_ERROR_MISSING, /* a name the call refers to (the database to create in, an alias's
                               table) does not exist: REST answers 400, the library NOT_FOUND */
} AbCatalogError;

typedef struct _AbCatalog AbCatalog;

AbCatalog *ab_catalog_open (AbStore *store, GError **error);
void ab_catalog_free (AbCatalog *cat);
/* Reloads everything if the stored revision moved; cheap otherwise. */
gboolean ab_catalog_refresh (AbCatalog *cat, GError **error);
gint64 ab_catalog_revision (AbCatalog *cat);

/* For tools that move catalog rows as raw bytes (actionbase-admin copy).
 * key_database: TRUE when key is a catalog row; *database is then the
 * database the row belongs to (its database, table or alias row; newly
 * allocated) or NULL for a catalog-wide row (revision, API key, storage).
 * bump_revision: +1 on the stored revision, so that the servers of that store
 * reload the catalog (catalog rows written under them). */
gboolean ab_catalog_key_database (const guint8 *key, gsize klen, gchar **database);
gboolean ab_catalog_bump_revision (AbStore *store, GError **error);

/* Reads return new references (or NULL when absent); lists are sorted by name
 * and own their elements (free with g_ptr_array_unref). */
GPtrArray *ab_catalog_list_databases (AbCatalog *cat);
AbDatabaseDesc *ab_catalog_get_database (AbCatalog *cat, const gchar *db);
GPtrArray *ab_catalog_list_tables (AbCatalog *cat, const gchar *db);
AbTableDesc *ab_catalog_get_table (AbCatalog *cat, const gchar *db, const gchar *table);
GPtrArray *ab_catalog_list_aliases (AbCatalog *cat, const gchar *db);
AbAliasDesc *ab_catalog_get_alias (AbCatalog *cat, const gchar *db, const gchar *alias);

/* Data endpoints: a table name or an alias name -> the table. *alias_out gets
 * the alias name when one was used. Error message "No such label db.t." */
AbTableDesc *ab_catalog_resolve (AbCatalog *cat, const gchar *db, const gchar *name,
                                 gchar **alias_out, GError **error);

/* DDL. `actor` fills createdBy/updatedBy. NULL pointers mean "leave as is". */
AbDatabaseDesc *ab_catalog_create_database (AbCatalog *cat, const gchar *db, const gchar *comment,
                                            const gchar *actor, GError **error);
AbDatabaseDesc *ab_catalog_update_database (AbCatalog *cat, const gchar *db, const gboolean *active,
                                            const gchar *comment, const gchar *actor,
                                            GError **error);
gboolean ab_catalog_delete_database (AbCatalog *cat, const gchar *db, GError **error);

/* Takes a descriptor built by the model (from a create request); fills
 * tenant, audit, code; checks the database exists and no alias has the name. */
AbTableDesc *ab_catalog_create_table (AbCatalog *cat, AbTableDesc *proto, const gchar *actor,
                                      GError **error);
AbTableDesc *ab_catalog_update_table (AbCatalog *cat, const gchar *db, const gchar *table,
                                      const gboolean *active, const AbSchema *schema,
                                      const AbMutationMode *mode, const gchar *comment,
                                      const gchar *actor, GError **error);
gboolean ab_catalog_delete_table (AbCatalog *cat, const gchar *db, const gchar *table,
                                  GError **error);

AbAliasDesc *ab_catalog_create_alias (AbCatalog *cat, const gchar *db, const gchar *alias,
                                      const gchar *table, const gchar *comment, const gchar *actor,
                                      GError **error);
AbAliasDesc *ab_catalog_update_alias (AbCatalog *cat, const gchar *db, const gchar *alias,
                                      const gboolean *active, const gchar *table,
                                      const gchar *comment, const gchar *actor, GError **error);
gboolean ab_catalog_delete_alias (AbCatalog *cat, const gchar *db, const gchar *alias,
                                  GError **error);

/* ---- API keys (access control) ----
 * A key is a random 256-bit token shown once; the catalog keeps only its
 * SHA-256. Grants: scope "*", "<db>" or "<db>.<table-or-alias>" with
 * permission letters r (read), w (write), c (metadata control), a (admin). */
typedef struct {
  gchar *scope;
  gchar *permissions;
} AbGrant;

typedef struct {
  gchar *id; /* first 16 hex chars of the hash: a public handle */
  gchar *name;
  gchar *hash;    /* hex SHA-256 of the token */
  GArray *grants; /* AbGrant */
  gint64 created_at;
  gchar *created_by;
} AbApiKey;

AbApiKey *ab_api_key_ref (AbApiKey *k);
void ab_api_key_unref (AbApiKey *k);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbApiKey, ab_api_key_unref)
/* {id, name, [hash,] grants, createdAt, createdBy}; the stored form has the
 * hash, answers to clients never do. */
JsonNode *ab_api_key_to_json (const AbApiKey *k, gboolean with_hash);
/* hex SHA-256 of a token. */
gchar *ab_api_key_hash (const gchar *token);

/* Creates a key; *token_out receives the secret (shown once). Grants are
 * validated (scope syntax, letters from "rwca"). */
AbApiKey *ab_catalog_create_key (AbCatalog *cat, const gchar *name, const AbGrant *grants,
                                 guint n_grants, const gchar *actor, gchar **token_out,
                                 GError **error);
GPtrArray *ab_catalog_list_keys (AbCatalog *cat);

/* ---- documents: catalog-wide JSON entities by kind and name ----
 * Persisted like every descriptor (every node and every restart sees the
 * same, backups and copies carry them); the catalog checks nothing in them
 * but their names: their meaning belongs to who writes them. */
typedef enum {
  AB_CATALOG_STORAGE = 's',     /* v2 storages (the upstream console's `create storage`) */
  AB_CATALOG_QUERY = 'q',       /* prepared queries, by id */
  AB_CATALOG_QUERY_ALIAS = 'n', /* their aliases, by alias */
} AbCatalogDoc;

/* JsonNode* deep copies (the caller may change them), sorted by name. */
GPtrArray *ab_catalog_list_docs (AbCatalog *cat, AbCatalogDoc kind);
/* A deep copy, or NULL when there is none. */
JsonNode *ab_catalog_get_doc (AbCatalog *cat, AbCatalogDoc kind, const gchar *name);
/* Creates or replaces (entity a JSON object), or deletes (entity NULL). */
gboolean ab_catalog_put_doc (AbCatalog *cat, AbCatalogDoc kind, const gchar *name, JsonNode *entity,
                             GError **error);
/* The same under the catalog's DDL lock held by the caller's function
 * `change`: it reads the documents it needs and writes with put (so that a
 * check and its write are one step among this process's DDL). */
typedef gboolean (*AbCatalogChange) (AbCatalog *cat, gpointer user, GError **error);
gboolean ab_catalog_change_docs (AbCatalog *cat, AbCatalogChange change, gpointer user,
                                 GError **error);

/* v2 storages: recorded, listed and checked by name for v2 label creation;
 * they do not change where data goes (a server has one store). */
GPtrArray *ab_catalog_list_storages (AbCatalog *cat); /* JsonNode* copies, by name */
gboolean ab_catalog_has_storage (AbCatalog *cat, const gchar *name);
/* Creates or replaces; entity is a JSON object whose "name" is name. */
gboolean ab_catalog_put_storage (AbCatalog *cat, const gchar *name, JsonNode *entity,
                                 GError **error);
/* Datastore references (references.c, docs/rest-api.md §7.1): every object
 * bound to an HBase table `ns:table` by its storage, active or not. */
typedef enum {
  AB_DATASTORE_REF_STORAGE, /* a v2 storage whose conf names the table */
  AB_DATASTORE_REF_LABEL,   /* a table whose storage URI names it */
  AB_DATASTORE_REF_ALIAS,   /* an alias of such a table */
} AbDatastoreRefKind;

typedef struct {
  gchar *ns; /* NULL: the URI left it out, so it matches any namespace */
  gchar *table;
  AbDatastoreRefKind kind;
  gchar *name; /* "db.table", "db.alias" or the storage's name */
  gboolean active;
} AbDatastoreRef;

GPtrArray *ab_catalog_datastore_refs (AbCatalog *cat); /* AbDatastoreRef* */
void ab_datastore_ref_free (AbDatastoreRef *r);
const gchar *ab_datastore_ref_kind_name (AbDatastoreRefKind kind);
/* ns NULL matches any namespace. */
gboolean ab_datastore_ref_matches (const AbDatastoreRef *r, const gchar *ns, const gchar *table);

/* The key whose hash matches, or NULL. */
AbApiKey *ab_catalog_find_key (AbCatalog *cat, const gchar *hash);
gboolean ab_catalog_revoke_key (AbCatalog *cat, const gchar *id, GError **error);
