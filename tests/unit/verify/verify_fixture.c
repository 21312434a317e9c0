/* Verify suite fixtures: a fault-wrapped engine per test, tables from v3
 * create requests, mutations, and verification runs with their findings. */
#include <string.h>
#include "verify_fixture.h"
#include "../engine/engine_fixture.h"
#include "catalog/catalog.h"
#include "codec/bytes.h"
#include "../../hbase/hbase_test_uri.h"

guint
vf_n_stores (void)
{
  return ab_hbase_test_n_stores (ab_test_local_stores ());
}

gchar *
vf_store_uri (guint store, const gchar *tag, gchar **tmpdir)
{
  *tmpdir = NULL;
  if (store == VF_HBASE)
    return ab_hbase_test_uri (tag, 1);
  if (store == VF_MEMORY)
    return g_strdup ("memory:");
  g_autofree gchar *pattern = g_strdup_printf ("ab-%s-XXXXXX", tag);
  *tmpdir = g_dir_make_tmp (pattern, NULL);
  return g_strdup_printf ("%s:%s?sync=0", store == VF_LMDB ? "lmdb" : "rocksdb", *tmpdir);
}

static void
open_engine (VfEnv *env, guint store, AbEngineConfig *cfg)
{
  g_autoptr (GError) error = NULL;
  AbStore *inner;
  env->uri = vf_store_uri (store, "verify", &env->tmpdir);
  ck_assert_msg (env->uri != NULL, "store %u needs AB_HBASE_ADDR", store);
  inner = ab_store_open (env->uri, &error);
  ck_assert_msg (inner != NULL, "open %s: %s", env->uri, error ? error->message : "");
  env->fault = ab_store_fault_new (inner);
  env->engine = ab_engine_open_store (env->fault, cfg, &error);
  ck_assert_msg (env->engine != NULL, "engine: %s", error ? error->message : "");
}

static void
fault_config (AbEngineConfig *cfg)
{
  ab_engine_config_init (cfg);
  cfg->lock_retries = 5;
  cfg->lock_backoff_ms = 10;
  cfg->mutation_threads = 2;
  /* Trimming only when a test asks (ab_engine_maintain): on HBase a snapshot
   * sees a trim's deletes but not its later boundary marker, so a background
   * trim racing a verification reports cache cells as missing. */
  cfg->cache_prune_ms = 0;
}

void
vf_open (VfEnv *env, guint store)
{
  AbEngineConfig cfg;
  fault_config (&cfg);
  cfg.heal = FALSE; /* the damage injected here must stay for the verifier to find */
  open_engine (env, store, &cfg);
}

void
vf_open_healing_threads (VfEnv *env, guint store, guint retry_ms, guint sweep_ms,
                         gint64 (*now_ms) (gpointer), gpointer now_data, guint threads)
{
  AbEngineConfig cfg;
  fault_config (&cfg);
  cfg.heal_retry_ms = retry_ms;
  cfg.heal_sweep_ms = sweep_ms;
  cfg.now_ms = now_ms;
  cfg.now_data = now_data;
  if (threads > 0)
    cfg.mutation_threads = threads;
  open_engine (env, store, &cfg);
}

void
vf_open_healing (VfEnv *env, guint store, guint retry_ms, guint sweep_ms,
                 gint64 (*now_ms) (gpointer), gpointer now_data)
{
  vf_open_healing_threads (env, store, retry_ms, sweep_ms, now_ms, now_data, 0);
}

void
vf_close (VfEnv *env)
{
  ab_engine_close (env->engine);
  ab_test_rmdir (env->tmpdir);
  g_free (env->tmpdir);
  g_free (env->uri);
  memset (env, 0, sizeof *env);
}

JsonNode *
vf_json (const gchar *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *n = json_from_string (text, &error);
  ck_assert_msg (n != NULL, "bad test JSON %s: %s", text, error ? error->message : "");
  return n;
}

void
vf_create_table (VfEnv *env, const gchar *db, const gchar *create_json)
{
  AbCatalog *cat = ab_engine_catalog (env->engine);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbDatabaseDesc) existing = ab_catalog_get_database (cat, db);
  if (existing == NULL)
    {
      g_autoptr (AbDatabaseDesc) d = ab_catalog_create_database (cat, db, "test", "tester", &error);
      ck_assert_msg (d != NULL, "create db: %s", error ? error->message : "");
    }
  g_autoptr (JsonNode) body = vf_json (create_json);
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_create_request (db, NULL, body, &error);
  ck_assert_msg (proto != NULL, "create request: %s", error ? error->message : "");
  g_autoptr (AbTableDesc) t = ab_catalog_create_table (cat, proto, "tester", &error);
  ck_assert_msg (t != NULL, "create table: %s", error ? error->message : "");
}

GArray *
vf_mutate (VfEnv *env, const gchar *db, const gchar *table, gboolean multi, const gchar *body)
{
  AbMutateOptions o;
  g_autoptr (GError) error = NULL;
  ab_mutate_options_init (&o);
  o.database = db;
  o.table = table;
  o.multi_edge = multi;
  g_autoptr (JsonNode) n = vf_json (body);
  GArray *r = ab_engine_mutate (env->engine, &o, n, &error);
  ck_assert_msg (r != NULL, "mutate: %s", error ? error->message : "");
  return r;
}

void
vf_mutate_free (VfEnv *env, const gchar *db, const gchar *table, gboolean multi, const gchar *body)
{
  g_autoptr (GArray) r = vf_mutate (env, db, table, multi, body);
}

static void
collect (const AbMismatch *m, gpointer user)
{
  GHashTable *findings = user;
  g_autofree gchar *hex = ab_codec_hex (m->key, m->klen);
  gchar *k = g_strdup_printf ("%s %s", ab_mismatch_class_name (m->cls), hex);
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (findings, k));
  g_hash_table_replace (findings, k, GUINT_TO_POINTER (n + 1));
}

void
vf_verify_opts (VfEnv *env, AbVerifyOptions *o, VfResult *out)
{
  g_autoptr (GError) error = NULL;
  ab_verify_stats_init (&out->stats);
  out->findings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  o->on_mismatch = collect;
  o->user = out->findings;
  ck_assert_msg (ab_verify_run (env->engine, o, &out->stats, &error), "verify: %s",
                 error ? error->message : "");
}

void
vf_verify (VfEnv *env, guint shard, guint n, gboolean repair, VfResult *out)
{
  AbVerifyOptions o;
  ab_verify_options_init (&o);
  o.shard = shard;
  o.n_shards = n;
  o.repair = repair;
  vf_verify_opts (env, &o, out);
}

void
vf_result_clear (VfResult *r)
{
  ab_verify_stats_clear (&r->stats);
  g_clear_pointer (&r->findings, g_hash_table_unref);
}

void
vf_assert_classes (const VfResult *r, const guint64 *expected, const gchar *what)
{
  for (guint c = 0; c < AB_MISMATCH_N_CLASSES; c++)
    ck_assert_msg (r->stats.mismatches[c] == expected[c],
                   "%s: %s: expected %" G_GUINT64_FORMAT ", found %" G_GUINT64_FORMAT, what,
                   ab_mismatch_class_name (c), expected[c], r->stats.mismatches[c]);
}

void
vf_assert_clean (VfEnv *env, const gchar *what)
{
  static const guint64 none[AB_MISMATCH_N_CLASSES] = { 0 };
  VfResult r;
  vf_verify (env, 0, 1, FALSE, &r);
  vf_assert_classes (&r, none, what);
  vf_result_clear (&r);
}

const gchar *VF_LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://db/likes\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"},"
      "{\"name\":\"note\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]}]}}";

const gchar *VF_SETUP = "{\"mutations\":[" VF_INS (10, "A", "P", 10) "," VF_INS (
    20, "B", "P", 20) "," VF_INS (30, "A", "L", 30) "]}";

static guint
count_edges (AbEdgeFrame *f, const gchar *source, const gchar *target)
{
  guint n = 0;
  for (guint i = 0; i < f->edges->len; i++)
    {
      const AbEdgeOut *e = f->edges->pdata[i];
      if ((source == NULL || strcmp (e->source.u.s.data, source) == 0)
          && (target == NULL || strcmp (e->target.u.s.data, target) == 0))
        n++;
    }
  return n;
}

static void
check_node (VfEnv *env, AbEdgeFrame *active, const gchar *node, AbQueryDirection dir)
{
  g_autoptr (GError) error = NULL;
  AbValue sv = AB_VALUE_INIT;
  gint64 count = -1;
  guint expected
      = dir == AB_QDIR_OUT ? count_edges (active, node, NULL) : count_edges (active, NULL, node);
  AbScanParams p = { .index = "recent", .start = node, .direction = dir, .limit = 100 };
  ck_assert (ab_engine_count (env->engine, "db", "likes", node, dir, &sv, &count, &error));
  ab_value_clear (&sv);
  ck_assert_msg (count == expected, "count %s %d: %" G_GINT64_FORMAT " != %u", node, dir, count,
                 expected);
  g_autoptr (AbEdgeFrame) scan = ab_engine_scan (env->engine, "db", "likes", &p, &error);
  ck_assert_msg (scan != NULL, "scan: %s", error ? error->message : "");
  ck_assert_uint_eq (scan->edges->len, expected);
  for (guint i = 0; i < scan->edges->len; i++)
    {
      const AbEdgeOut *e = scan->edges->pdata[i];
      ck_assert_uint_eq (count_edges (active, e->source.u.s.data, e->target.u.s.data), 1);
    }
}

void
vf_check_queries (VfEnv *env)
{
  static const gchar *sources[] = { "A", "B", "C" }, *targets[] = { "P", "L" };
  g_autoptr (GPtrArray) s = g_ptr_array_new ();
  g_autoptr (GPtrArray) t = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  for (guint i = 0; i < 3; i++)
    g_ptr_array_add (s, (gpointer) sources[i]);
  for (guint i = 0; i < 2; i++)
    g_ptr_array_add (t, (gpointer) targets[i]);
  g_autoptr (AbEdgeFrame) active = ab_engine_get (env->engine, "db", "likes", s, t, NULL, &error);
  ck_assert_msg (active != NULL, "get: %s", error ? error->message : "");
  for (guint i = 0; i < 3; i++)
    check_node (env, active, sources[i], AB_QDIR_OUT);
  for (guint i = 0; i < 2; i++)
    check_node (env, active, targets[i], AB_QDIR_IN);
}
