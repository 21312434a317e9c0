/* WAL and CDC through the engine on LMDB with file sinks: record shapes of
 * docs/data-model.md §13 field by field, modes (ASYNC applied by the built-in
 * applier and equal to SYNC, DROP never applied, DENY rejected, system-mode
 * intent statuses). */
#include <string.h>
#include "engine_fixture.h"
#include "ab_check.h"

static const gchar *LIKES_T
    = "{\"table\":\"%s\",\"storage\":\"datastore://likes/"
      "likes\",\"comment\":\"likes\",\"mode\":\"%s\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"},"
      "{\"name\":\"note\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]}]}}";

static AbEngine *engine;
static gchar *dir;

/* kind: the embedded store (lmdb or rocksdb) under the engine. */
static void
open_engine_on (const gchar *kind, gint system_mode)
{
  dir = g_dir_make_tmp ("ab-wal-XXXXXX", NULL);
  g_autofree gchar *store = g_strdup_printf ("%s:%s/data?sync=0", kind, dir);
  g_autofree gchar *wal = g_strdup_printf ("file:%s/wal", dir);
  g_autofree gchar *cdc = g_strdup_printf ("file:%s/cdc", dir);
  AbEngineConfig cfg;
  ab_engine_config_init (&cfg);
  cfg.wal_uri = wal;
  cfg.cdc_uri = cdc;
  cfg.system_mode = system_mode;
  cfg.phase = "test";
  cfg.tenant = "t1";
  g_autoptr (GError) error = NULL;
  engine = ab_engine_open (store, &cfg, &error);
  ck_assert_msg (engine != NULL, "%s", error ? error->message : "");
  AbCatalog *cat = ab_engine_catalog (engine);
  g_autoptr (AbDatabaseDesc) d = ab_catalog_create_database (cat, "likes", "c", "t", &error);
  ck_assert (d != NULL);
}

static void
open_engine (gint system_mode)
{
  open_engine_on ("lmdb", system_mode);
}

static void
create_table (const gchar *name, const gchar *mode)
{
  g_autofree gchar *json = g_strdup_printf (LIKES_T, name, mode);
  g_autoptr (JsonNode) body = ab_test_json (json);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_create_request ("likes", NULL, body, &error);
  ck_assert_msg (proto != NULL, "%s", error ? error->message : "");
  g_autoptr (AbTableDesc) t
      = ab_catalog_create_table (ab_engine_catalog (engine), proto, "t", &error);
  ck_assert_msg (t != NULL, "%s", error ? error->message : "");
}

static void
rm_rf (const gchar *path)
{
  g_autofree gchar *cmd = g_strdup_printf ("rm -rf '%s'", path);
  ck_assert_int_eq (system (cmd), 0);
}

static void
close_engine (void)
{
  ab_engine_close (engine);
  rm_rf (dir);
  g_clear_pointer (&dir, g_free);
}

/* purge: as the v2 purge route asks (PURGE items allowed). */
static GArray *
mutate_with (const gchar *table, const gchar *body, gboolean sync, gboolean purge, GError **error)
{
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = "likes";
  o.table = table;
  o.sync_request = sync;
  o.purge = purge;
  o.request_id = "req-1";
  o.actor = "alice";
  g_autoptr (JsonNode) n = ab_test_json (body);
  return ab_engine_mutate (engine, &o, n, error);
}

static GArray *
mutate (const gchar *table, const gchar *body, gboolean sync, GError **error)
{
  return mutate_with (table, body, sync, FALSE, error);
}

/* Every JSON line of every segment in dir/sub, in order. */
static GPtrArray *
read_lines (const gchar *sub)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autofree gchar *d = g_build_filename (dir, sub, NULL);
  GDir *gd = g_dir_open (d, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const gchar *name;
  while (gd != NULL && (name = g_dir_read_name (gd)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  if (gd != NULL)
    g_dir_close (gd);
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree gchar *p = g_build_filename (d, *(gchar **) &names->pdata[i], NULL);
      g_autofree gchar *text = NULL;
      ck_assert (g_file_get_contents (p, &text, NULL, NULL));
      g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
      for (guint l = 0; lines[l] != NULL; l++)
        if (lines[l][0] != '\0')
          g_ptr_array_add (out, ab_test_json (lines[l]));
    }
  return out;
}

static const gchar *
str_at (JsonNode *n, const gchar *a, const gchar *b)
{
  JsonObject *o = json_node_get_object (n);
  if (b != NULL)
    o = json_object_get_object_member (o, a);
  const gchar *key = b != NULL ? b : a;
  JsonNode *v = json_object_get_member (o, key);
  ck_assert_msg (v != NULL, "missing %s.%s", a, b ? b : "");
  return JSON_NODE_HOLDS_NULL (v) ? NULL : json_node_get_string (v);
}

static gint64
int_at (JsonNode *n, const gchar *a, const gchar *b)
{
  JsonObject *o = json_node_get_object (n);
  if (b != NULL)
    o = json_object_get_object_member (o, a);
  return json_object_get_int_member (o, b != NULL ? b : a);
}

START_TEST (wal_and_cdc_shapes)
{
  open_engine (-1);
  create_table ("likes", "SYNC");
  g_autoptr (GError) error = NULL;
  g_autoptr (AbAliasDesc) a = ab_catalog_create_alias (ab_engine_catalog (engine), "likes", "fav",
                                                       "likes", "c", "t", &error);
  g_autoptr (GArray) r1
      = mutate ("likes",
                "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":10,"
                "\"source\":\"Alice\",\"target\":\"Phone\",\"properties\":{\"created_at\":10}}}]}",
                FALSE, &error);
  g_autoptr (GArray) r2
      = mutate ("fav",
                "{\"mutations\":[{\"type\":\"UPDATE\",\"edge\":{\"version\":11,"
                "\"source\":\"Alice\",\"target\":\"Phone\",\"properties\":{\"note\":\"hi\"}}}]}",
                TRUE, &error);
  g_autoptr (GArray) r3 = mutate ("likes",
                                  "{\"mutations\":[{\"type\":\"DELETE\",\"edge\":{\"version\":12,"
                                  "\"source\":\"Alice\",\"target\":\"Phone\"}}]}",
                                  FALSE, &error);
  g_autoptr (GPtrArray) wal = read_lines ("wal");
  ck_assert_uint_eq (wal->len, 3);
  JsonNode *w0 = wal->pdata[0];
  ck_assert_int_eq (int_at (w0, "edge", "ts"), 10);
  ck_assert_str_eq (str_at (w0, "edge", "src"), "Alice");
  ck_assert_str_eq (str_at (w0, "edge", "tgt"), "Phone");
  ck_assert_int_eq (strlen (str_at (w0, "edge", "traceId")), 26);
  ck_assert_int_eq (
      json_object_get_int_member (
          json_object_get_object_member (
              json_object_get_object_member (json_node_get_object (w0), "edge"), "props"),
          "created_at"),
      10);
  ck_assert_str_eq (str_at (w0, "op", NULL), "INSERT");
  ck_assert_str_eq (str_at (w0, "mode", "l"), "SYNC");
  ck_assert_ptr_null (str_at (w0, "mode", "g"));
  ck_assert_ptr_null (str_at (w0, "mode", "r"));
  ck_assert_ptr_null (str_at (w0, "mode", "i"));
  ck_assert (!json_object_get_boolean_member (
      json_object_get_object_member (json_node_get_object (w0), "mode"), "queue"));
  ck_assert_str_eq (str_at (w0, "audit", "actor"), "alice");
  ck_assert_str_eq (str_at (w0, "requestId", NULL), "req-1");
  ck_assert (int_at (w0, "ts", NULL) > 1600000000000);
  ck_assert_ptr_null (str_at (w0, "alias", NULL));
  ck_assert_str_eq (str_at (w0, "label", NULL), "likes.likes");
  ck_assert_str_eq (str_at (w0, "version", NULL), "2");
  ck_assert_str_eq (str_at (w0, "phase", NULL), "test");
  ck_assert_str_eq (str_at (w0, "tenant", NULL), "t1");
  ck_assert_str_eq (str_at (wal->pdata[1], "op", NULL), "UPDATE");
  ck_assert_str_eq (str_at (wal->pdata[1], "alias", NULL), "likes.fav");
  ck_assert_str_eq (str_at (wal->pdata[1], "mode", "r"), "SYNC");
  ck_assert_str_eq (str_at (wal->pdata[2], "op", NULL), "DELETE");
  g_autoptr (GPtrArray) cdc = read_lines ("cdc");
  ck_assert_uint_eq (cdc->len, 3);
  ck_assert_str_eq (str_at (cdc->pdata[0], "status", NULL), "CREATED");
  ck_assert_int_eq (int_at (cdc->pdata[0], "acc", NULL), 1);
  ck_assert (json_object_get_null_member (json_node_get_object (cdc->pdata[0]), "before"));
  ck_assert_int_eq (int_at (cdc->pdata[0], "after", "ts"), 10);
  ck_assert (json_object_get_boolean_member (
      json_object_get_object_member (json_node_get_object (cdc->pdata[0]), "after"), "active"));
  ck_assert_str_eq (str_at (cdc->pdata[1], "status", NULL), "UPDATED");
  ck_assert_str_eq (str_at (cdc->pdata[1], "alias", NULL), "likes.fav");
  ck_assert_int_eq (int_at (cdc->pdata[1], "before", "ts"), 10);
  ck_assert_str_eq (str_at (cdc->pdata[2], "status", NULL), "DELETED");
  ck_assert_int_eq (int_at (cdc->pdata[2], "acc", NULL), -1);
  ck_assert (!json_object_get_boolean_member (
      json_object_get_object_member (json_node_get_object (cdc->pdata[2]), "after"), "active"));
  close_engine ();
}
END_TEST

static gint64
count (const gchar *table, const gchar *src)
{
  AbValue sv = AB_VALUE_INIT;
  gint64 c = -1;
  ck_assert (ab_engine_count (engine, "likes", table, src, AB_QDIR_OUT, &sv, &c, NULL));
  ab_value_clear (&sv);
  return c;
}

/* The same shuffled events on an ASYNC table and a SYNC table end equal. */
START_TEST (async_equals_sync)
{
  open_engine_on (_i == 0 ? "lmdb" : "rocksdb", -1); /* the applier on both embedded stores */
  create_table ("a", "ASYNC");
  create_table ("s", "SYNC");
  GRand *rand = g_rand_new_with_seed (99);
  guint n = 2000, per = 100;
  gint64 *versions = g_new (gint64, n);
  for (guint i = 0; i < n; i++)
    versions[i] = i + 1;
  for (guint i = n - 1; i > 0; i--)
    {
      guint j = g_rand_int_range (rand, 0, i + 1);
      gint64 t = versions[i];
      versions[i] = versions[j];
      versions[j] = t;
    }
  for (guint off = 0; off < n; off += per)
    {
      GString *b = g_string_new ("{\"mutations\":[");
      for (guint i = off; i < off + per; i++)
        g_string_append_printf (
            b,
            "%s{\"type\":\"%s\",\"edge\":{\"version\":%" G_GINT64_FORMAT ","
            "\"source\":\"u%u\",\"target\":\"t%u\",\"properties\":{\"created_at\":%" G_GINT64_FORMAT
            "}}}",
            i > off ? "," : "", versions[i] % 3 == 0 ? "DELETE" : "INSERT", versions[i],
            (guint) (versions[i] % 10), (guint) (versions[i] % 100), versions[i]);
      g_string_append (b, "]}");
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) ra = mutate ("a", b->str, FALSE, &error);
      ck_assert_msg (ra != NULL, "%s", error ? error->message : "");
      ck_assert_int_eq (g_array_index (ra, AbKeyResult, 0).status, AB_STATUS_QUEUED);
      g_autoptr (GArray) rs = mutate ("s", b->str, FALSE, &error);
      g_string_free (b, TRUE);
    }
  ck_assert (ab_engine_applier_drain (engine, 60000));
  for (guint u = 0; u < 10; u++)
    {
      g_autofree gchar *src = g_strdup_printf ("u%u", u);
      ck_assert_int_eq (count ("a", src), count ("s", src));
      AbScanParams p = { .index = "recent", .start = src, .direction = AB_QDIR_OUT, .limit = 1000 };
      g_autoptr (AbEdgeFrame) fa = ab_engine_scan (engine, "likes", "a", &p, NULL);
      g_autoptr (AbEdgeFrame) fs = ab_engine_scan (engine, "likes", "s", &p, NULL);
      ck_assert_uint_eq (fa->edges->len, fs->edges->len);
      for (guint i = 0; i < fa->edges->len; i++)
        ck_assert_int_eq (((AbEdgeOut *) fa->edges->pdata[i])->version,
                          ((AbEdgeOut *) fs->edges->pdata[i])->version);
    }
  g_free (versions);
  g_rand_free (rand);
  close_engine ();
}
END_TEST

START_TEST (drop_deny_and_system_mode)
{
  open_engine (-1);
  create_table ("dropped", "DROP");
  create_table ("denied", "DENY");
  const gchar *ins = "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":"
                     "\"a\",\"target\":\"b\",\"properties\":{\"created_at\":1}}}]}";
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) r = mutate ("dropped", ins, FALSE, &error);
  ck_assert_int_eq (g_array_index (r, AbKeyResult, 0).status, AB_STATUS_QUEUED);
  g_autoptr (GArray) r2 = mutate ("dropped", ins, TRUE, &error); /* SYNC on DROP: 400 */
  ck_assert_ptr_null (r2);
  g_clear_error (&error);
  g_autoptr (GArray) r3 = mutate ("denied", ins, FALSE, &error);
  ck_assert_ptr_null (r3);
  ab_assert_error (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST);
  g_clear_error (&error);
  ck_assert (ab_engine_applier_drain (engine, 30000));
  ck_assert_int_eq (count ("dropped", "a"), 0);
  g_autoptr (GPtrArray) wal = read_lines ("wal");
  ck_assert_uint_eq (wal->len, 1); /* DENY wrote nothing */
  close_engine ();
  open_engine (AB_MODE_ASYNC);
  create_table ("likes", "SYNC");
  g_autoptr (GArray) r4 = mutate ("likes", ins, FALSE, &error);
  ck_assert_int_eq (g_array_index (r4, AbKeyResult, 0).status, AB_STATUS_CREATED); /* intent */
  ck_assert (ab_engine_applier_drain (engine, 30000));
  ck_assert_int_eq (count ("likes", "a"), 1);
  close_engine ();
}
END_TEST

#define EDGE_ITEM(type, v, src, tgt)                                                             \
  "{\"type\":\"" type "\",\"edge\":{\"version\":" #v ",\"source\":\"" src "\",\"target\":\"" tgt \
  "\",\"properties\":{\"created_at\":" #v "}}}"
#define ONE(type, v, src, tgt) "{\"mutations\":[" EDGE_ITEM (type, v, src, tgt) "]}"

static AbKeyStatus
status_of (GArray *r, guint i)
{
  ck_assert_ptr_nonnull (r);
  ck_assert_uint_lt (i, r->len);
  return g_array_index (r, AbKeyResult, i).status;
}

static JsonObject *
member_object (JsonNode *n, const gchar *name)
{
  return json_object_get_object_member (json_node_get_object (n), name);
}

/* A PURGE's WAL record (op PURGE, no props) and CDC records (DELETED, after
 * null, acc -1 for an active edge and 0 for a tombstone); on an ASYNC table
 * QUEUED, then applied from the WAL: no State row left, so an older INSERT
 * creates the edge again. Under a system ASYNC mode its intent is DELETED. */
START_TEST (purge_records_and_async)
{
  open_engine (-1);
  create_table ("a", "ASYNC");
  create_table ("s", "SYNC");
  g_autoptr (GError) error = NULL;
  const gchar *both = "{\"mutations\":[" EDGE_ITEM ("INSERT", 10, "u", "v") "," EDGE_ITEM (
      "INSERT", 10, "w", "x") "]}";
  g_autoptr (GArray) i1 = mutate ("a", both, TRUE, &error);
  g_autoptr (GArray) i2 = mutate ("s", both, FALSE, &error);
  g_autoptr (GArray) d1 = mutate ("s", ONE ("DELETE", 11, "w", "x"), FALSE, &error);
  ck_assert_int_eq (status_of (d1, 0), AB_STATUS_DELETED);
  const gchar *purge
      = "{\"mutations\":[{\"type\":\"PURGE\",\"edge\":{\"version\":1,\"source\":\"u\","
        "\"target\":\"v\",\"properties\":{}}},{\"type\":\"PURGE\",\"edge\":{\"version\":1,"
        "\"source\":\"w\",\"target\":\"x\",\"properties\":{}}}]}";
  g_autoptr (GArray) q = mutate_with ("a", purge, FALSE, TRUE, &error);
  ck_assert_int_eq (status_of (q, 0), AB_STATUS_QUEUED);
  g_autoptr (GArray) p = mutate_with ("s", purge, FALSE, TRUE, &error);
  ck_assert_int_eq (status_of (p, 0), AB_STATUS_DELETED);
  ck_assert_int_eq (status_of (p, 1), AB_STATUS_DELETED); /* its tombstone */
  ck_assert_int_eq (count ("s", "u"), 0);
  ck_assert_int_eq (count ("s", "w"), 0);
  /* WAL: 2 + 2 inserts, the delete, then the purges of a and s */
  g_autoptr (GPtrArray) wal = read_lines ("wal");
  ck_assert_uint_eq (wal->len, 9);
  for (guint i = 5; i < 9; i++)
    {
      ck_assert_str_eq (str_at (wal->pdata[i], "op", NULL), "PURGE");
      ck_assert_int_eq (int_at (wal->pdata[i], "edge", "ts"), 1);
      JsonObject *edge = member_object (wal->pdata[i], "edge");
      ck_assert_uint_eq (json_object_get_size (json_object_get_object_member (edge, "props")), 0);
    }
  ck_assert (json_object_get_boolean_member (member_object (wal->pdata[5], "mode"), "queue"));
  /* CDC: s's purges at once, a's once the applier has run them */
  ck_assert (ab_engine_applier_drain (engine, 30000));
  g_autoptr (GPtrArray) cdc = read_lines ("cdc");
  guint purges = 0;
  for (guint i = 0; i < cdc->len; i++)
    {
      JsonNode *c = cdc->pdata[i];
      if (g_strcmp0 (str_at (c, "op", NULL), "PURGE") != 0)
        continue;
      purges++;
      ck_assert_str_eq (str_at (c, "status", NULL), "DELETED");
      ck_assert (json_object_get_null_member (json_node_get_object (c), "after"));
      ck_assert (!json_object_get_null_member (json_node_get_object (c), "before"));
      gboolean was_active = json_object_get_boolean_member (member_object (c, "before"), "active");
      ck_assert_int_eq (int_at (c, "acc", NULL), was_active ? -1 : 0);
    }
  ck_assert_uint_eq (purges, 4); /* s's two, and a's two once applied */
  /* the applier purged a's edges: gone, counts down, and no State row */
  ck_assert_int_eq (count ("a", "u"), 0);
  ck_assert_int_eq (count ("a", "w"), 0);
  g_autoptr (GArray) again = mutate ("a", ONE ("INSERT", 5, "u", "v"), TRUE, &error);
  ck_assert_int_eq (status_of (again, 0), AB_STATUS_CREATED);
  g_autoptr (GArray) again_s = mutate ("s", ONE ("INSERT", 5, "w", "x"), FALSE, &error);
  ck_assert_int_eq (status_of (again_s, 0), AB_STATUS_CREATED);
  close_engine ();
  /* a system ASYNC mode answers a purge's intent */
  open_engine (AB_MODE_ASYNC);
  create_table ("likes", "SYNC");
  g_autoptr (GArray) c = mutate ("likes", ONE ("INSERT", 10, "u", "v"), FALSE, &error);
  ck_assert_int_eq (status_of (c, 0), AB_STATUS_CREATED);
  g_autoptr (GArray) intent = mutate_with ("likes", purge, FALSE, TRUE, &error);
  ck_assert_int_eq (status_of (intent, 0), AB_STATUS_DELETED);
  ck_assert (ab_engine_applier_drain (engine, 30000));
  ck_assert_int_eq (count ("likes", "u"), 0);
  close_engine ();
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("engine-wal");
  TCase *tc = tcase_create ("wal");
  tcase_set_timeout (tc, 180);
  tcase_add_test (tc, wal_and_cdc_shapes);
  tcase_add_loop_test (tc, async_equals_sync, 0, 2);
  tcase_add_test (tc, drop_deny_and_system_mode);
  tcase_add_test (tc, purge_records_and_async);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
