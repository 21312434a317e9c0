/* The catalog on a memory store: DDL of databases, tables and aliases with
 * their audit fields and rules (duplicates, unknown names, active objects),
 * alias resolution, API keys, v2 storages, and the revision-driven reload. */
#include <check.h>
#include <string.h>
#include "catalog/catalog-private.h"
#include "codec/keys.h"
#include "ab_check.h"

static AbStore *store;
static AbCatalog *cat;

static void
setup (void)
{
  g_autoptr (GError) error = NULL;
  store = ab_store_open ("memory:", &error);
  ck_assert_msg (store != NULL, "memory store: %s", error ? error->message : "");
  cat = ab_catalog_open (store, &error);
  ck_assert_msg (cat != NULL, "catalog: %s", error ? error->message : "");
}

static void
teardown (void)
{
  ab_catalog_free (cat);
  ab_store_close (store);
}

#define assert_catalog_error(err, c, needle)                                                       \
  do                                                                                               \
    {                                                                                              \
      ck_assert_msg ((err) != NULL && (err)->domain == AB_CATALOG_ERROR && (err)->code == (c),     \
                     "expected catalog error %d, got %s", (int) (c),                               \
                     (err) != NULL ? (err)->message : "none");                                     \
      ck_assert_msg (strstr ((err)->message, (needle)) != NULL, "'%s' lacks '%s'", (err)->message, \
                     (needle));                                                                    \
    }                                                                                              \
  while (0)

static void
new_database (const gchar *db)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AbDatabaseDesc) d = ab_catalog_create_database (cat, db, "c", "tester", &error);
  ck_assert_msg (d != NULL, "create database %s: %s", db, error ? error->message : "");
}

/* A table create request for db.table (string source and target). */
static AbTableDesc *
table_proto (const gchar *db, const gchar *table)
{
  g_autofree gchar *json = g_strdup_printf (
      "{\"table\":\"%s\",\"storage\":\"datastore://%s/%s\",\"comment\":\"t\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},"
      "\"target\":{\"type\":\"string\"},\"direction\":\"OUT\",\"properties\":[]}}",
      table, db, table);
  g_autoptr (JsonNode) body = json_from_string (json, NULL);
  ck_assert_ptr_nonnull (body);
  g_autoptr (GError) error = NULL;
  AbTableDesc *t = ab_table_desc_from_create_request (db, NULL, body, &error);
  ck_assert_msg (t != NULL, "create request: %s", error ? error->message : "");
  return t;
}

static AbTableDesc *
try_table (const gchar *db, const gchar *table, GError **error)
{
  g_autoptr (AbTableDesc) proto = table_proto (db, table);
  return ab_catalog_create_table (cat, proto, "tester", error);
}

static void
new_table (const gchar *db, const gchar *table)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AbTableDesc) t = try_table (db, table, &error);
  ck_assert_msg (t != NULL, "create table %s.%s: %s", db, table, error ? error->message : "");
}

static void
new_alias (const gchar *db, const gchar *alias, const gchar *table)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AbAliasDesc) a = ab_catalog_create_alias (cat, db, alias, table, "", "tester", &error);
  ck_assert_msg (a != NULL, "create alias %s.%s: %s", db, alias, error ? error->message : "");
}

static const gboolean NO = FALSE;

START_TEST (database_create_list_update)
{
  new_database ("zoo");
  new_database ("alpha");
  g_autoptr (GError) error = NULL;
  g_autoptr (AbDatabaseDesc) d
      = ab_catalog_create_database (cat, "shop", "the shop", "ann", &error);
  ck_assert_ptr_nonnull (d);
  ck_assert_str_eq (d->database, "shop");
  ck_assert_str_eq (d->comment, "the shop");
  ck_assert_str_eq (d->tenant, "default");
  ck_assert (d->active);
  ck_assert_int_eq (d->audit.revision, 1);
  ck_assert_str_eq (d->audit.created_by, "ann");
  ck_assert_str_eq (d->audit.updated_by, "ann");
  ck_assert_int_gt (d->audit.created_at, 0);

  g_autoptr (GPtrArray) all = ab_catalog_list_databases (cat);
  ck_assert_uint_eq (all->len, 3);
  ck_assert_str_eq (((AbDatabaseDesc *) all->pdata[0])->database, "alpha");
  ck_assert_str_eq (((AbDatabaseDesc *) all->pdata[1])->database, "shop");
  ck_assert_str_eq (((AbDatabaseDesc *) all->pdata[2])->database, "zoo");

  g_autoptr (AbDatabaseDesc) dup = ab_catalog_create_database (cat, "shop", "", "ann", &error);
  ck_assert_ptr_null (dup);
  assert_catalog_error (error, AB_CATALOG_ERROR_EXISTS, "Database shop already exists.");
  g_clear_error (&error);
  g_autoptr (AbDatabaseDesc) bad = ab_catalog_create_database (cat, "9shop", "", "ann", &error);
  ck_assert_ptr_null (bad);
  assert_catalog_error (error, AB_CATALOG_ERROR_INVALID, "Invalid database name");
  g_clear_error (&error);

  /* update: the audit moves, NULL leaves a field as it was */
  g_autoptr (AbDatabaseDesc) u
      = ab_catalog_update_database (cat, "shop", NULL, "renamed", "bob", &error);
  ck_assert_ptr_nonnull (u);
  ck_assert_str_eq (u->comment, "renamed");
  ck_assert (u->active);
  ck_assert_int_eq (u->audit.revision, 2);
  ck_assert_str_eq (u->audit.created_by, "ann");
  ck_assert_str_eq (u->audit.updated_by, "bob");
  g_autoptr (AbDatabaseDesc) off
      = ab_catalog_update_database (cat, "shop", &NO, NULL, NULL, &error);
  ck_assert (!off->active);
  ck_assert_str_eq (off->comment, "renamed");
  ck_assert_str_eq (off->audit.updated_by, "-");
  g_autoptr (AbDatabaseDesc) ghost
      = ab_catalog_update_database (cat, "ghost", NULL, "x", NULL, &error);
  ck_assert_ptr_null (ghost);
  assert_catalog_error (error, AB_CATALOG_ERROR_NOT_FOUND, "Database ghost does not exist.");
  g_clear_error (&error);

  /* delete: only inactive ones, only known ones */
  ck_assert (!ab_catalog_delete_database (cat, "zoo", &error));
  assert_catalog_error (error, AB_CATALOG_ERROR_INVALID, "deactivate it");
  g_clear_error (&error);
  ck_assert (ab_catalog_delete_database (cat, "shop", &error));
  g_autoptr (AbDatabaseDesc) gone = ab_catalog_get_database (cat, "shop");
  ck_assert_ptr_null (gone);
  ck_assert (!ab_catalog_delete_database (cat, "shop", &error));
  assert_catalog_error (error, AB_CATALOG_ERROR_NOT_FOUND, "Database shop does not exist.");
}
END_TEST

START_TEST (tables)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AbTableDesc) orphan = try_table ("nodb", "t", &error);
  ck_assert_ptr_null (orphan);
  assert_catalog_error (error, AB_CATALOG_ERROR_MISSING, "Database nodb does not exist.");
  g_clear_error (&error);

  new_database ("a");
  new_database ("b");
  new_table ("a", "views");
  new_table ("a", "likes");
  new_table ("b", "follows");
  g_autoptr (AbTableDesc) t = ab_catalog_get_table (cat, "a", "likes");
  ck_assert_ptr_nonnull (t);
  ck_assert_str_eq (t->database, "a");
  ck_assert_str_eq (t->tenant, "default");
  ck_assert_int_eq (t->code, ab_codec_table_code ("a", "likes"));
  ck_assert_int_eq (t->audit.revision, 1);
  ck_assert_str_eq (t->audit.created_by, "tester");
  g_autoptr (AbTableDesc) cross = ab_catalog_get_table (cat, "b", "likes");
  ck_assert_ptr_null (cross);

  g_autoptr (GPtrArray) in_a = ab_catalog_list_tables (cat, "a");
  ck_assert_uint_eq (in_a->len, 2);
  ck_assert_str_eq (((AbTableDesc *) in_a->pdata[0])->table, "likes");
  ck_assert_str_eq (((AbTableDesc *) in_a->pdata[1])->table, "views");

  g_autoptr (AbTableDesc) dup = try_table ("a", "likes", &error);
  ck_assert_ptr_null (dup);
  assert_catalog_error (error, AB_CATALOG_ERROR_EXISTS, "Table a.likes already exists.");
  g_clear_error (&error);

  AbMutationMode mode = AB_MODE_ASYNC;
  g_autoptr (AbTableDesc) u
      = ab_catalog_update_table (cat, "a", "likes", NULL, NULL, &mode, "async now", "bob", &error);
  ck_assert_ptr_nonnull (u);
  ck_assert_int_eq (u->mode, AB_MODE_ASYNC);
  ck_assert_str_eq (u->comment, "async now");
  ck_assert_int_eq (u->audit.revision, 2);
  ck_assert_str_eq (u->audit.updated_by, "bob");
  ck_assert_int_eq (u->code, t->code);
  g_autoptr (AbTableDesc) ghost
      = ab_catalog_update_table (cat, "a", "ghost", &NO, NULL, NULL, NULL, NULL, &error);
  ck_assert_ptr_null (ghost);
  assert_catalog_error (error, AB_CATALOG_ERROR_NOT_FOUND, "Table a.ghost does not exist.");
  g_clear_error (&error);

  ck_assert (!ab_catalog_delete_table (cat, "a", "likes", &error));
  assert_catalog_error (error, AB_CATALOG_ERROR_INVALID, "is active");
  g_clear_error (&error);
  g_autoptr (AbTableDesc) off
      = ab_catalog_update_table (cat, "a", "likes", &NO, NULL, NULL, NULL, NULL, &error);
  ck_assert (!off->active);
  ck_assert (ab_catalog_delete_table (cat, "a", "likes", &error));
  g_autoptr (GPtrArray) left = ab_catalog_list_tables (cat, "a");
  ck_assert_uint_eq (left->len, 1);
  ck_assert (!ab_catalog_delete_table (cat, "a", "likes", &error));
  assert_catalog_error (error, AB_CATALOG_ERROR_NOT_FOUND, "does not exist");
}
END_TEST

START_TEST (aliases)
{
  new_database ("db");
  new_table ("db", "likes");
  new_table ("db", "likes_v2");
  g_autoptr (GError) error = NULL;
  g_autoptr (AbAliasDesc) dangling
      = ab_catalog_create_alias (cat, "db", "fav", "nope", "", NULL, &error);
  ck_assert_ptr_null (dangling);
  assert_catalog_error (error, AB_CATALOG_ERROR_MISSING,
                        "Alias target table db.nope does not exist");
  g_clear_error (&error);
  g_autoptr (AbAliasDesc) no_db
      = ab_catalog_create_alias (cat, "x", "fav", "likes", "", NULL, &error);
  ck_assert_ptr_null (no_db);
  assert_catalog_error (error, AB_CATALOG_ERROR_MISSING, "Database x does not exist.");
  g_clear_error (&error);

  new_alias ("db", "fav", "likes");
  gchar *alias_used = NULL;
  g_autoptr (AbTableDesc) via = ab_catalog_resolve (cat, "db", "fav", &alias_used, &error);
  ck_assert_ptr_nonnull (via);
  ck_assert_str_eq (via->table, "likes");
  ck_assert_str_eq (alias_used, "fav");
  g_clear_pointer (&alias_used, g_free);
  g_autoptr (AbTableDesc) direct = ab_catalog_resolve (cat, "db", "likes", &alias_used, &error);
  ck_assert_ptr_nonnull (direct);
  ck_assert_ptr_null (alias_used);
  g_autoptr (AbTableDesc) none = ab_catalog_resolve (cat, "db", "nothing", &alias_used, &error);
  ck_assert_ptr_null (none);
  assert_catalog_error (error, AB_CATALOG_ERROR_NOT_FOUND, "No such label db.nothing.");
  g_clear_error (&error);

  /* tables and aliases share one name space */
  g_autoptr (AbAliasDesc) clash
      = ab_catalog_create_alias (cat, "db", "likes", "likes_v2", "", NULL, &error);
  ck_assert_ptr_null (clash);
  assert_catalog_error (error, AB_CATALOG_ERROR_EXISTS, "A table named db.likes already exists.");
  g_clear_error (&error);
  g_autoptr (AbTableDesc) clash2 = try_table ("db", "fav", &error);
  ck_assert_ptr_null (clash2);
  assert_catalog_error (error, AB_CATALOG_ERROR_EXISTS, "An alias named db.fav already exists.");
  g_clear_error (&error);
  g_autoptr (AbAliasDesc) dup
      = ab_catalog_create_alias (cat, "db", "fav", "likes", "", NULL, &error);
  ck_assert_ptr_null (dup);
  assert_catalog_error (error, AB_CATALOG_ERROR_EXISTS, "Alias db.fav already exists.");
  g_clear_error (&error);

  /* an active alias pins its table active */
  g_autoptr (AbTableDesc) pinned
      = ab_catalog_update_table (cat, "db", "likes", &NO, NULL, NULL, NULL, NULL, &error);
  ck_assert_ptr_null (pinned);
  assert_catalog_error (error, AB_CATALOG_ERROR_INVALID, "target of an active alias");
  g_clear_error (&error);

  /* retargeting: resolution follows */
  g_autoptr (AbAliasDesc) moved
      = ab_catalog_update_alias (cat, "db", "fav", NULL, "likes_v2", NULL, "bob", &error);
  ck_assert_ptr_nonnull (moved);
  ck_assert_int_eq (moved->audit.revision, 2);
  g_autoptr (AbTableDesc) now = ab_catalog_resolve (cat, "db", "fav", NULL, &error);
  ck_assert_str_eq (now->table, "likes_v2");
  g_autoptr (AbAliasDesc) bad_target
      = ab_catalog_update_alias (cat, "db", "fav", NULL, "nope", NULL, NULL, &error);
  ck_assert_ptr_null (bad_target);
  assert_catalog_error (error, AB_CATALOG_ERROR_MISSING, "does not exist");
  g_clear_error (&error);
  g_autoptr (AbAliasDesc) ghost
      = ab_catalog_update_alias (cat, "db", "ghost", &NO, NULL, NULL, NULL, &error);
  ck_assert_ptr_null (ghost);
  assert_catalog_error (error, AB_CATALOG_ERROR_NOT_FOUND, "Alias db.ghost does not exist.");
  g_clear_error (&error);

  /* an inactive alias whose table went away resolves to a precise 404 */
  g_autoptr (AbAliasDesc) off
      = ab_catalog_update_alias (cat, "db", "fav", &NO, NULL, NULL, NULL, &error);
  ck_assert (!off->active);
  g_autoptr (AbTableDesc) t_off
      = ab_catalog_update_table (cat, "db", "likes_v2", &NO, NULL, NULL, NULL, NULL, &error);
  ck_assert_ptr_nonnull (t_off);
  ck_assert (ab_catalog_delete_table (cat, "db", "likes_v2", &error));
  g_autoptr (AbTableDesc) lost = ab_catalog_resolve (cat, "db", "fav", NULL, &error);
  ck_assert_ptr_null (lost);
  assert_catalog_error (error, AB_CATALOG_ERROR_NOT_FOUND,
                        "No such label db.likes_v2 of the alias db.fav.");
  g_clear_error (&error);

  ck_assert (ab_catalog_delete_alias (cat, "db", "fav", &error));
  g_autoptr (GPtrArray) aliases = ab_catalog_list_aliases (cat, "db");
  ck_assert_uint_eq (aliases->len, 0);
  ck_assert (!ab_catalog_delete_alias (cat, "db", "fav", &error));
  assert_catalog_error (error, AB_CATALOG_ERROR_NOT_FOUND, "Alias db.fav does not exist.");
}
END_TEST

START_TEST (active_alias_is_not_deleted)
{
  new_database ("db");
  new_table ("db", "likes");
  new_alias ("db", "fav", "likes");
  g_autoptr (GError) error = NULL;
  ck_assert (!ab_catalog_delete_alias (cat, "db", "fav", &error));
  assert_catalog_error (error, AB_CATALOG_ERROR_INVALID, "Alias db.fav is active");
  g_autoptr (AbAliasDesc) still = ab_catalog_get_alias (cat, "db", "fav");
  ck_assert_ptr_nonnull (still);
}
END_TEST

/* Deleting a database drops its tables and aliases, not another database's. */
START_TEST (database_delete_cascades)
{
  new_database ("a");
  new_database ("b");
  new_table ("a", "t1");
  new_table ("a", "t2");
  new_alias ("a", "al", "t1");
  new_table ("b", "t1");
  gint64 rev = ab_catalog_revision (cat);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbDatabaseDesc) off = ab_catalog_update_database (cat, "a", &NO, NULL, NULL, &error);
  ck_assert (ab_catalog_delete_database (cat, "a", &error));
  /* one bump per descriptor row: the update, the alias, two tables, the database */
  ck_assert_int_eq (ab_catalog_revision (cat), rev + 5);
  g_autoptr (GPtrArray) ta = ab_catalog_list_tables (cat, "a");
  g_autoptr (GPtrArray) aa = ab_catalog_list_aliases (cat, "a");
  g_autoptr (GPtrArray) tb = ab_catalog_list_tables (cat, "b");
  ck_assert_uint_eq (ta->len, 0);
  ck_assert_uint_eq (aa->len, 0);
  ck_assert_uint_eq (tb->len, 1);
  /* and a new database of the same name starts empty */
  new_database ("a");
  g_autoptr (GPtrArray) again = ab_catalog_list_tables (cat, "a");
  ck_assert_uint_eq (again->len, 0);
}
END_TEST

static AbCatalog *
open_second (void)
{
  g_autoptr (GError) error = NULL;
  AbCatalog *c = ab_catalog_open (store, &error);
  ck_assert_msg (c != NULL, "second catalog: %s", error ? error->message : "");
  return c;
}

/* Another process's DDL is seen after a refresh, and only then; a refresh
 * that finds the same revision reads nothing else. */
START_TEST (revision_and_refresh)
{
  AbCatalog *other = open_second ();
  gint64 rev = ab_catalog_revision (cat);
  ck_assert_int_eq (ab_catalog_revision (other), rev);
  new_database ("db");
  ck_assert_int_eq (ab_catalog_revision (cat), rev + 1);
  g_autoptr (AbDatabaseDesc) unseen = ab_catalog_get_database (other, "db");
  ck_assert_ptr_null (unseen);
  ck_assert_int_eq (ab_catalog_revision (other), rev);
  g_autoptr (GError) error = NULL;
  ck_assert (ab_catalog_refresh (other, &error));
  ck_assert_int_eq (ab_catalog_revision (other), rev + 1);
  g_autoptr (AbDatabaseDesc) seen = ab_catalog_get_database (other, "db");
  ck_assert_ptr_nonnull (seen);

  AbStoreStats before, after;
  ab_store_stats (store, &before);
  ck_assert (ab_catalog_refresh (other, &error));
  ab_store_stats (store, &after);
  ck_assert_uint_eq (after.ops[AB_STORE_VERB_SCAN], before.ops[AB_STORE_VERB_SCAN]);
  ck_assert_uint_eq (after.ops[AB_STORE_VERB_GET], before.ops[AB_STORE_VERB_GET] + 1);

  /* changes and deletes travel the same way */
  new_table ("db", "likes");
  g_autoptr (AbDatabaseDesc) off
      = ab_catalog_update_database (other, "db", &NO, "by other", NULL, &error);
  ck_assert_ptr_nonnull (off);
  ck_assert (ab_catalog_refresh (cat, &error));
  g_autoptr (AbDatabaseDesc) mine = ab_catalog_get_database (cat, "db");
  ck_assert_str_eq (mine->comment, "by other");
  g_autoptr (AbTableDesc) t = ab_catalog_get_table (other, "db", "likes");
  ck_assert_ptr_nonnull (t); /* the update reloaded `other` first */
  ck_assert (ab_catalog_delete_database (cat, "db", &error));
  ck_assert (ab_catalog_refresh (other, &error));
  g_autoptr (GPtrArray) dbs = ab_catalog_list_databases (other);
  ck_assert_uint_eq (dbs->len, 0);
  ck_assert_int_eq (ab_catalog_revision (other), ab_catalog_revision (cat));
  ab_catalog_free (other);
}
END_TEST

/* Resolution remembers its answers per thread (resolved.c): an answer
 * belongs to one catalog and to the maps it came from. The same names in
 * another store's catalog resolve there; a change made by another catalog
 * of this store shows once this one refreshes, and not before. */
START_TEST (resolve_remembers_per_catalog)
{
  g_autoptr (GError) error = NULL;
  new_database ("db");
  new_table ("db", "likes");
  g_autoptr (AbStore) s2 = ab_store_open ("memory:", &error);
  AbCatalog *c2 = ab_catalog_open (s2, &error);
  ck_assert_ptr_nonnull (c2);
  g_autoptr (AbDatabaseDesc) d2 = ab_catalog_create_database (c2, "db", "c", "tester", &error);
  g_autoptr (AbTableDesc) proto = table_proto ("db", "likes");
  g_free (proto->comment);
  proto->comment = g_strdup ("second store");
  g_autoptr (AbTableDesc) made = ab_catalog_create_table (c2, proto, "tester", &error);
  ck_assert_msg (made != NULL, "%s", error ? error->message : "");
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr (AbTableDesc) a = ab_catalog_resolve (cat, "db", "likes", NULL, &error);
      g_autoptr (AbTableDesc) b = ab_catalog_resolve (c2, "db", "likes", NULL, &error);
      ck_assert_str_eq (a->comment, "t");
      ck_assert_str_eq (b->comment, "second store");
    }
  ab_catalog_free (c2);

  AbCatalog *other = open_second ();
  g_autoptr (AbTableDesc) changed
      = ab_catalog_update_table (other, "db", "likes", NULL, NULL, NULL, "changed", "bob", &error);
  ck_assert_ptr_nonnull (changed);
  g_autoptr (AbTableDesc) before = ab_catalog_resolve (cat, "db", "likes", NULL, &error);
  ck_assert_str_eq (before->comment, "t");
  ck_assert (ab_catalog_refresh (cat, &error));
  g_autoptr (AbTableDesc) after = ab_catalog_resolve (cat, "db", "likes", NULL, &error);
  ck_assert_str_eq (after->comment, "changed");
  ab_catalog_free (other);
}
END_TEST

/* A descriptor row that does not parse fails the load, and a refresh that
 * meets it keeps the cache it had. */
START_TEST (corrupt_row)
{
  new_database ("db");
  g_autoptr (GByteArray) k = ab_catalog_meta_key (KIND_TABLE, "db", "broken");
  g_autoptr (GByteArray) rev = ab_catalog_meta_key (KIND_REVISION, NULL, NULL);
  g_autoptr (AbBatch) b = ab_batch_new ();
  ab_batch_put (b, k->data, k->len, (const guint8 *) "{not json", 9);
  ab_batch_increment (b, rev->data, rev->len, 1);
  g_autoptr (GError) error = NULL;
  ck_assert (ab_store_batch (store, b, &error));
  gint64 before = ab_catalog_revision (cat);
  ck_assert (!ab_catalog_refresh (cat, &error));
  ck_assert_msg (strstr (error->message, "catalog row is corrupt") != NULL, "%s", error->message);
  g_clear_error (&error);
  ck_assert_int_eq (ab_catalog_revision (cat), before);
  g_autoptr (AbDatabaseDesc) kept = ab_catalog_get_database (cat, "db");
  ck_assert_ptr_nonnull (kept);
  AbCatalog *fresh = ab_catalog_open (store, &error);
  ck_assert_ptr_null (fresh);
  ck_assert_msg (strstr (error->message, "catalog row is corrupt") != NULL, "%s", error->message);
}
END_TEST

/* TRUE when some stored row's value contains text. */
static gboolean
store_holds (const gchar *text)
{
  static const guint8 all_start[] = { 0 };
  static const guint8 all_stop[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
  AbScanRange range = { .start = all_start,
                        .start_len = sizeof all_start,
                        .start_inclusive = TRUE,
                        .stop = all_stop,
                        .stop_len = sizeof all_stop };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  ck_assert (ab_store_scan (store, &range, rows, NULL));
  ck_assert_uint_gt (rows->len, 0);
  for (guint i = 0; i < rows->len; i++)
    {
      gsize len;
      const gchar *v = g_bytes_get_data (g_array_index (rows, AbKv, i).value, &len);
      if (g_strstr_len (v, (gssize) len, text) != NULL)
        return TRUE;
    }
  return FALSE;
}

START_TEST (api_keys)
{
  AbGrant grants[] = { { "*", "r" }, { "db", "rw" }, { "db.likes", "rwca" } };
  g_autoptr (GError) error = NULL;
  g_autofree gchar *token = NULL;
  g_autoptr (AbApiKey) k
      = ab_catalog_create_key (cat, "svc", grants, G_N_ELEMENTS (grants), "admin", &token, &error);
  ck_assert_msg (k != NULL, "%s", error ? error->message : "");
  ck_assert (g_str_has_prefix (token, "ab_"));
  ck_assert_uint_eq (strlen (token), 3 + 64);
  g_autofree gchar *hash = ab_api_key_hash (token);
  ck_assert_str_eq (k->hash, hash);
  ck_assert (strncmp (k->id, hash, 16) == 0 && strlen (k->id) == 16);
  ck_assert_str_eq (k->created_by, "admin");
  ck_assert_uint_eq (k->grants->len, 3);
  ck_assert_str_eq (g_array_index (k->grants, AbGrant, 2).scope, "db.likes");
  /* only the hash is kept */
  ck_assert (store_holds (hash));
  ck_assert (!store_holds (token));
  g_autoptr (JsonNode) shown = ab_api_key_to_json (k, FALSE);
  ck_assert (!json_object_has_member (json_node_get_object (shown), "hash"));
  g_autoptr (JsonNode) stored = ab_api_key_to_json (k, TRUE);
  ck_assert_str_eq (json_object_get_string_member (json_node_get_object (stored), "hash"), hash);

  g_autoptr (AbApiKey) found = ab_catalog_find_key (cat, hash);
  ck_assert_ptr_nonnull (found);
  ck_assert_str_eq (found->name, "svc");
  ck_assert_uint_eq (found->grants->len, 3);
  ck_assert_str_eq (g_array_index (found->grants, AbGrant, 1).permissions, "rw");
  g_autofree gchar *wrong = ab_api_key_hash ("ab_not-the-token");
  g_autoptr (AbApiKey) nobody = ab_catalog_find_key (cat, wrong);
  ck_assert_ptr_null (nobody);

  /* grants are validated before anything is stored */
  static const AbGrant bad[][1] = { { { "db.t.x", "r" } }, { { "db", "rx" } }, { { "", "r" } },
                                    { { ".t", "r" } },     { { "db.", "r" } }, { { "db", "" } } };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      gchar *t = NULL;
      g_autoptr (AbApiKey) no = ab_catalog_create_key (cat, "bad", bad[i], 1, NULL, &t, &error);
      ck_assert_msg (no == NULL, "grant %s/%s accepted", bad[i][0].scope, bad[i][0].permissions);
      ck_assert_ptr_null (t);
      assert_catalog_error (error, AB_CATALOG_ERROR_INVALID, "invalid grant");
      g_clear_error (&error);
    }
  g_autoptr (GPtrArray) keys = ab_catalog_list_keys (cat);
  ck_assert_uint_eq (keys->len, 1);

  ck_assert (ab_catalog_revoke_key (cat, k->id, &error));
  g_autoptr (AbApiKey) revoked = ab_catalog_find_key (cat, hash);
  ck_assert_ptr_null (revoked);
  ck_assert (!ab_catalog_revoke_key (cat, k->id, &error));
  assert_catalog_error (error, AB_CATALOG_ERROR_NOT_FOUND, "No such API key");
}
END_TEST

START_TEST (storages)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) wrong = json_from_string ("{\"name\":\"other\"}", NULL);
  ck_assert (!ab_catalog_put_storage (cat, "hb", wrong, &error));
  assert_catalog_error (error, AB_CATALOG_ERROR_INVALID, "named hb");
  g_clear_error (&error);
  ck_assert (!ab_catalog_has_storage (cat, "hb"));
  g_autoptr (JsonNode) v1 = json_from_string ("{\"name\":\"hb\",\"desc\":\"one\"}", NULL);
  g_autoptr (JsonNode) v2 = json_from_string ("{\"name\":\"hb\",\"desc\":\"two\"}", NULL);
  g_autoptr (JsonNode) a = json_from_string ("{\"name\":\"a\"}", NULL);
  ck_assert (ab_catalog_put_storage (cat, "hb", v1, &error));
  ck_assert (ab_catalog_put_storage (cat, "a", a, &error));
  ck_assert (ab_catalog_put_storage (cat, "hb", v2, &error)); /* replaces */
  ck_assert (ab_catalog_has_storage (cat, "hb"));
  g_autoptr (GPtrArray) all = ab_catalog_list_storages (cat);
  ck_assert_uint_eq (all->len, 2);
  JsonObject *second = json_node_get_object (all->pdata[1]);
  ck_assert_str_eq (json_object_get_string_member (second, "name"), "hb");
  ck_assert_str_eq (json_object_get_string_member (second, "desc"), "two");
  /* persisted: a catalog opened later sees them */
  AbCatalog *later = open_second ();
  ck_assert (ab_catalog_has_storage (later, "a"));
  ab_catalog_free (later);
}
END_TEST

/* Documents read from many threads at once (a prepared query run by every
 * worker): each read is a copy of its own. json_node_copy shares values
 * whose reference counts json-glib changes without atomics, which corrupted
 * the catalog's copy under load (a crash of the server, seen by
 * tests/bench/query-bench.sh). */
#define READERS 4
#define READS 20000

/* Under valgrind, which runs one thread at a time and so cannot meet the
 * races these reads are for, a tenth of them checks the same code. */
static guint
reads (void)
{
  return g_getenv ("AB_TEST_UNDER_VALGRIND") != NULL ? READS / 10 : READS;
}

static gpointer
read_docs (gpointer data)
{
  for (guint i = 0, n = reads (); i < n; i++)
    {
      g_autoptr (JsonNode) q = ab_catalog_get_doc (data, AB_CATALOG_QUERY, "q1");
      g_autoptr (GPtrArray) all = ab_catalog_list_docs (data, AB_CATALOG_QUERY);
      if (q == NULL || all->len != 1
          || json_object_get_int_member (json_node_get_object (q), "n") != 7)
        return GINT_TO_POINTER (1);
    }
  return NULL;
}

START_TEST (documents_across_threads)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) doc = json_from_string (
      "{\"id\":\"q1\",\"n\":7,\"x\":1.5,\"ok\":true,\"nothing\":null,"
      "\"fetch\":[{\"type\":\"SCAN\",\"limit\":\"{limit}\",\"value\":[\"a\",2,false]}]}",
      NULL);
  ck_assert (ab_catalog_put_doc (cat, AB_CATALOG_QUERY, "q1", doc, &error));
  GThread *t[READERS];
  for (guint i = 0; i < READERS; i++)
    t[i] = g_thread_new ("reader", read_docs, cat);
  guint failed = 0;
  for (guint i = 0; i < READERS; i++)
    failed += GPOINTER_TO_INT (g_thread_join (t[i]));
  ck_assert_uint_eq (failed, 0);
  /* and a copy changed by its reader leaves the catalog's as it was */
  g_autoptr (JsonNode) mine = ab_catalog_get_doc (cat, AB_CATALOG_QUERY, "q1");
  json_object_set_int_member (json_node_get_object (mine), "n", 8);
  g_autoptr (JsonNode) again = ab_catalog_get_doc (cat, AB_CATALOG_QUERY, "q1");
  ck_assert_int_eq (json_object_get_int_member (json_node_get_object (again), "n"), 7);
}
END_TEST

/* A table's description written out by many threads at once (concurrent
 * GETs of a table with groups and caches): its JSON parts are copied
 * deeply, so no reference count of the cached descriptor is touched. */
static gpointer
describe_table (gpointer data)
{
  for (guint i = 0, n = reads () / 4; i < n; i++)
    {
      g_autoptr (AbTableDesc) t = ab_catalog_get_table (data, "d", "g");
      g_autoptr (JsonNode) n = ab_table_desc_to_json (t);
      g_autoptr (AbSchema) copy = ab_schema_copy (t->schema);
      if (n == NULL || copy == NULL)
        return GINT_TO_POINTER (1);
    }
  return NULL;
}

START_TEST (tables_across_threads)
{
  new_database ("d");
  g_autoptr (JsonNode) body = json_from_string (
      "{\"table\":\"g\",\"storage\":\"datastore://d/g\",\"comment\":\"t\",\"schema\":{"
      "\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
      "\"direction\":\"OUT\",\"properties\":[{\"name\":\"at\",\"type\":\"long\",\"nullable\":"
      "false}],\"groups\":[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"at\","
      "\"bucket\":{\"type\":\"date\",\"unit\":\"day\"}}]}],\"caches\":[{\"cache\":\"c\","
      "\"fields\":[{\"field\":\"at\",\"order\":\"DESC\"}],\"limit\":5}]}}",
      NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_create_request ("d", NULL, body, &error);
  ck_assert_msg (proto != NULL, "%s", error ? error->message : "");
  g_autoptr (AbTableDesc) made = ab_catalog_create_table (cat, proto, "tester", &error);
  ck_assert_msg (made != NULL, "%s", error ? error->message : "");
  GThread *t[READERS];
  for (guint i = 0; i < READERS; i++)
    t[i] = g_thread_new ("describer", describe_table, cat);
  guint failed = 0;
  for (guint i = 0; i < READERS; i++)
    failed += GPOINTER_TO_INT (g_thread_join (t[i]));
  ck_assert_uint_eq (failed, 0);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("catalog");
  TCase *tc = tcase_create ("memory");
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, database_create_list_update);
  tcase_add_test (tc, tables);
  tcase_add_test (tc, aliases);
  tcase_add_test (tc, active_alias_is_not_deleted);
  tcase_add_test (tc, database_delete_cascades);
  tcase_add_test (tc, revision_and_refresh);
  tcase_add_test (tc, resolve_remembers_per_catalog);
  tcase_add_test (tc, corrupt_row);
  tcase_add_test (tc, api_keys);
  tcase_add_test (tc, storages);
  tcase_add_test (tc, documents_across_threads);
  tcase_add_test (tc, tables_across_threads);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
