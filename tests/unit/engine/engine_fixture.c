/* Engine suite fixtures: temp stores, schema and event builders, and thin
 * wrappers that assert the engine call itself succeeded. */
#include <glib/gstdio.h>
#include "engine_fixture.h"
#include "../store/store_test_util.h"
#include "../../hbase/hbase_test_uri.h"
#include "model/types.h"

int
ab_test_n_stores (void)
{
  return (int) ab_hbase_test_n_stores (ab_test_local_stores ());
}

const gchar *
ab_test_store_kind (int i)
{
  static const gchar *const kinds[] = { "memory", "lmdb", "rocksdb", "hbase" };
  g_assert (i >= 0 && i < (int) G_N_ELEMENTS (kinds));
  return kinds[i];
}

gchar *
ab_test_store_uri (int i, gchar **tmpdir)
{
  *tmpdir = NULL;
  if (i == AB_TEST_MEMORY)
    return g_strdup ("memory:");
  if (i == AB_TEST_HBASE)
    return ab_hbase_test_uri ("engine", 4);
  *tmpdir = g_dir_make_tmp ("ab-engine-XXXXXX", NULL);
  return g_strdup_printf ("%s:%s?sync=0", ab_test_store_kind (i), *tmpdir);
}

void
ab_test_rmdir (const gchar *dir)
{
  st_rmtree (dir);
}

JsonNode *
ab_test_json (const gchar *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *n = json_from_string (text, &error);
  ck_assert_msg (n != NULL, "bad test JSON %s: %s", text, error ? error->message : "");
  return n;
}

AbSchema *
ab_test_schema (const gchar *json)
{
  g_autoptr (JsonNode) n = ab_test_json (json);
  g_autoptr (GError) error = NULL;
  AbSchema *s = ab_schema_from_json (n, &error);
  ck_assert_msg (s != NULL, "schema: %s", error ? error->message : "");
  return s;
}

AbEvent *
ab_test_event (const AbSchema *s, AbOpType type, gint64 version, const gchar *props)
{
  AbEvent *ev = g_new0 (AbEvent, 1);
  ab_event_init (ev, s->fields->len);
  ev->type = type;
  ev->version = version;
  if (props == NULL)
    return ev;
  g_autoptr (JsonNode) n = ab_test_json (props);
  JsonObject *o = json_node_get_object (n);
  for (guint f = 0; f < s->fields->len; f++)
    {
      const AbField *field = s->fields->pdata[f];
      JsonNode *v = json_object_get_member (o, field->name);
      if (v == NULL)
        continue;
      g_autoptr (GError) error = NULL;
      ck_assert (ab_model_cast_json (v, field->type, field->name, &ev->props[f].value, &error));
      ev->props[f].present = TRUE;
    }
  return ev;
}

void
ab_test_event_free (AbEvent *ev)
{
  ab_event_clear (ev);
  g_free (ev);
}

void
ab_test_env_open_with (AbTestEnv *env, int store_index, const AbEngineConfig *cfg)
{
  g_autofree gchar *uri = ab_test_store_uri (store_index, &env->tmpdir);
  g_autoptr (GError) error = NULL;
  env->engine = ab_engine_open (uri, cfg, &error);
  ck_assert_msg (env->engine != NULL, "open %s: %s", uri, error ? error->message : "");
}

static void
test_config (AbEngineConfig *cfg)
{
  ab_engine_config_init (cfg);
  cfg->lock_retries = 5;
  cfg->lock_backoff_ms = 20;
}

void
ab_test_env_open (AbTestEnv *env, int store_index)
{
  AbEngineConfig cfg;
  test_config (&cfg);
  ab_test_env_open_with (env, store_index, &cfg);
}

gint64
ab_test_clock_now (gpointer clock)
{
  return atomic_load (&((AbTestClock *) clock)->ms);
}

void
ab_test_clock_advance (AbTestClock *clock, gint64 delta_ms)
{
  atomic_fetch_add (&clock->ms, delta_ms);
}

void
ab_test_env_open_clocked (AbTestEnv *env, int store_index, AbTestClock *clock)
{
  atomic_store (&clock->ms, AB_TEST_CLOCK_T0);
  AbEngineConfig cfg;
  test_config (&cfg);
  cfg.ttl_sweep_ms = 0;
  cfg.now_ms = ab_test_clock_now;
  cfg.now_data = clock;
  ab_test_env_open_with (env, store_index, &cfg);
}

void
ab_test_env_close (AbTestEnv *env)
{
  ab_engine_close (env->engine);
  ab_test_rmdir (env->tmpdir);
  g_free (env->tmpdir);
}

void
ab_test_create_table (AbTestEnv *env, const gchar *db, const gchar *create_json)
{
  AbCatalog *cat = ab_engine_catalog (env->engine);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbDatabaseDesc) existing = ab_catalog_get_database (cat, db);
  if (existing == NULL)
    {
      g_autoptr (AbDatabaseDesc) d = ab_catalog_create_database (cat, db, "test", "tester", &error);
      ck_assert_msg (d != NULL, "create db: %s", error ? error->message : "");
    }
  g_autoptr (JsonNode) body = ab_test_json (create_json);
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_create_request (db, NULL, body, &error);
  ck_assert_msg (proto != NULL, "create request: %s", error ? error->message : "");
  g_autoptr (AbTableDesc) t = ab_catalog_create_table (cat, proto, "tester", &error);
  ck_assert_msg (t != NULL, "create table: %s", error ? error->message : "");
}

GArray *
ab_test_mutate (AbTestEnv *env, const gchar *db, const gchar *table, const gchar *body)
{
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = db;
  o.table = table;
  g_autoptr (JsonNode) n = ab_test_json (body);
  g_autoptr (GError) error = NULL;
  GArray *r = ab_engine_mutate (env->engine, &o, n, &error);
  ck_assert_msg (r != NULL, "mutate: %s", error ? error->message : "");
  return r;
}

gint64
ab_test_count (AbTestEnv *env, const gchar *db, const gchar *table, const gchar *start,
               AbQueryDirection dir)
{
  AbValue sv = AB_VALUE_INIT;
  gint64 n = -1;
  g_autoptr (GError) error = NULL;
  ck_assert_msg (ab_engine_count (env->engine, db, table, start, dir, &sv, &n, &error), "count: %s",
                 error ? error->message : "");
  ab_value_clear (&sv);
  return n;
}
