/* Verifier suite on a store damaged in many places (faults over hundreds of
 * mutations, plus rows written by hand): sharded runs (n = 3, 7) report the
 * unsharded findings exactly once between them, sharded repair leaves a
 * clean store, the JSON report matches, and the actionbase-verify binary
 * answers with the documented exit codes. */
#include <string.h>
#include <sys/wait.h>
#include <glib/gstdio.h>
#include "verify_fixture.h"
#include "catalog/catalog.h"
#include "codec/keys.h"
#include "codec/record.h"

static gchar *verify_bin;

static const gchar *LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://db/likes\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"},"
      "{\"name\":\"note\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]},"
      "{\"index\":\"by_note\",\"fields\":[{\"field\":\"note\",\"order\":\"ASC\"},"
      "{\"field\":\"version\",\"order\":\"DESC\"}]}]}}";

/* INSERT sets both properties; UPDATE only the note, so the "recent" Index
 * key stays and its value changes; DELETE none. */
static void
mutate_one (VfEnv *env, GRand *rnd, const gchar *type, guint i, guint version, gboolean faulty)
{
  g_autofree gchar *props
      = g_str_equal (type, "INSERT")
            ? g_strdup_printf ("\"created_at\":%u,\"note\":\"n%u\"", version, version % 5)
        : g_str_equal (type, "UPDATE") ? g_strdup_printf ("\"note\":\"m%u\"", version % 3)
                                       : g_strdup ("");
  g_autofree gchar *body = g_strdup_printf (
      "{\"mutations\":[{\"type\":\"%s\",\"edge\":{\"version\":%u,\"source\":\"u%u\","
      "\"target\":\"i%u\",\"properties\":{%s}}}]}",
      type, version, i % 40, (i * 7) % 57, props);
  if (faulty)
    ab_store_fault_arm (env->fault, g_rand_boolean (rnd) ? AB_FAULT_DROP : AB_FAULT_FAIL, 1,
                        (guint) g_rand_int_range (rnd, 0, 7));
  vf_mutate_free (env, "db", "likes", FALSE, body);
  ab_store_fault_disarm (env->fault);
}

static AbStore *
store_of (VfEnv *env)
{
  return ab_engine_store (env->engine);
}

/* Rows no mutation writes: an undecodable State, an orphan Index row, a
 * Count of a node without edges, a Count row that is not 8 bytes, a Count
 * row deleted. */
static void
hand_damage (VfEnv *env, gboolean corrupt_state)
{
  g_autoptr (AbTableDesc) t = ab_catalog_get_table (ab_engine_catalog (env->engine), "db", "likes");
  AbValue a = AB_VALUE_INIT, b = AB_VALUE_INIT, v = AB_VALUE_INIT, u1 = AB_VALUE_INIT;
  AbValue u2 = AB_VALUE_INIT;
  AbOrder desc = AB_ORDER_DESC;
  static const guint8 junk[] = { 0x29, 0x81, 0xEE };
  ab_value_set_string (&a, AB_VALUE_STRING, "ghost", 5);
  ab_value_set_string (&b, AB_VALUE_STRING, "spook", 5);
  ab_value_set_string (&u1, AB_VALUE_STRING, "u1", 2);
  ab_value_set_string (&u2, AB_VALUE_STRING, "u2", 2);
  ab_value_set_int (&v, AB_VALUE_INT64, 77);
  g_autoptr (GByteArray) sk = ab_codec_state_key (&a, &b, t->code, NULL);
  g_autoptr (GByteArray) ik = ab_codec_index_key (&b, AB_DIR_OUT, t->code, ab_codec_code ("recent"),
                                                  &v, &desc, 1, &a, NULL);
  g_autoptr (GByteArray) ck = ab_codec_count_key (&a, AB_DIR_IN, t->code, NULL);
  g_autoptr (GByteArray) bad = ab_codec_count_key (&u1, AB_DIR_OUT, t->code, NULL);
  g_autoptr (GByteArray) gone = ab_codec_count_key (&u2, AB_DIR_OUT, t->code, NULL);
  if (corrupt_state)
    ck_assert (ab_store_put (store_of (env), sk->data, sk->len, junk, sizeof junk, NULL));
  ck_assert (ab_store_put (store_of (env), ik->data, ik->len, junk, 2, NULL));
  ck_assert (ab_store_increment (store_of (env), ck->data, ck->len, 3, NULL, NULL));
  ck_assert (ab_store_put (store_of (env), bad->data, bad->len, junk, 3, NULL));
  ck_assert (ab_store_delete (store_of (env), gone->data, gone->len, NULL));
  ab_value_clear (&a);
  ab_value_clear (&b);
  ab_value_clear (&u1);
  ab_value_clear (&u2);
}

static void
build_damaged (VfEnv *env, gboolean corrupt_state)
{
  g_autoptr (GRand) rnd = g_rand_new_with_seed (8);
  vf_create_table (env, "db", LIKES);
  for (guint i = 0; i < 300; i++)
    mutate_one (env, rnd, "INSERT", i, i + 1, i % 3 == 0);
  for (guint i = 0; i < 300; i += 4)
    mutate_one (env, rnd, i % 8 == 0 ? "DELETE" : "UPDATE", i, 1000 + i, i % 12 == 0);
  hand_damage (env, corrupt_state);
}

/* The findings of n shards: disjoint, and together the unsharded ones. */
static void
check_union (VfEnv *env, const VfResult *all, guint n)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint64 states = 0, index_rows = 0, count_rows = 0;
  for (guint k = 0; k < n; k++)
    {
      VfResult r;
      GHashTableIter it;
      gpointer key, times;
      vf_verify (env, k, n, FALSE, &r);
      states += r.stats.state_rows;
      index_rows += r.stats.index_rows;
      count_rows += r.stats.count_rows;
      g_hash_table_iter_init (&it, r.findings);
      while (g_hash_table_iter_next (&it, &key, &times))
        {
          ck_assert_msg (GPOINTER_TO_UINT (times) == 1, "%s reported twice", (gchar *) key);
          ck_assert_msg (g_hash_table_add (seen, g_strdup (key)), "%s in two shards",
                         (gchar *) key);
          ck_assert_msg (g_hash_table_contains (all->findings, key),
                         "shard %u/%u: %s not in the unsharded report", k, n, (gchar *) key);
        }
      vf_result_clear (&r);
    }
  ck_assert_uint_eq (g_hash_table_size (seen), g_hash_table_size (all->findings));
  ck_assert_uint_eq (states, all->stats.state_rows);
  ck_assert_uint_eq (index_rows, all->stats.index_rows);
  ck_assert_uint_eq (count_rows, all->stats.count_rows);
}

START_TEST (shards_union)
{
  VfEnv env;
  VfResult all;
  vf_open (&env, (guint) _i);
  build_damaged (&env, TRUE);
  vf_verify (&env, 0, 1, FALSE, &all);
  ck_assert_uint_gt (g_hash_table_size (all.findings), 20);
  ck_assert_uint_eq (g_hash_table_size (all.findings), ab_verify_stats_mismatches (&all.stats));
  ck_assert_uint_eq (all.stats.mismatches[AB_MISMATCH_STATE_CORRUPT], 1);
  for (guint c = 0; c < AB_MISMATCH_N_CLASSES; c++)
    ck_assert_msg (all.stats.mismatches[c] > 0, "no %s in the damage", ab_mismatch_class_name (c));
  check_union (&env, &all, 1);
  check_union (&env, &all, 3);
  check_union (&env, &all, 7);
  vf_result_clear (&all);
  vf_close (&env);
}
END_TEST

/* Each of 3 shards repairs its slice; then only the undecodable State row,
 * which repair leaves to a person, is still reported. */
START_TEST (shards_repair)
{
  VfEnv env;
  VfResult all, after;
  guint64 fixed = 0;
  static const guint64 corrupt_only[AB_MISMATCH_N_CLASSES] = { 0, 0, 0, 0, 0, 0, 1 };
  vf_open (&env, (guint) _i);
  build_damaged (&env, TRUE);
  vf_verify (&env, 0, 1, FALSE, &all);
  for (guint k = 0; k < 3; k++)
    {
      VfResult r;
      vf_verify (&env, k, 3, TRUE, &r);
      fixed += r.stats.repaired;
      ck_assert_uint_eq (r.stats.repair_failed, 0);
      ck_assert_uint_eq (r.stats.repair_deferred, 0);
      vf_result_clear (&r);
    }
  ck_assert_uint_eq (fixed, ab_verify_stats_mismatches (&all.stats) - 1);
  vf_verify (&env, 0, 1, FALSE, &after);
  vf_assert_classes (&after, corrupt_only, "after sharded repair");
  vf_result_clear (&all);
  vf_result_clear (&after);
  vf_close (&env);
}
END_TEST

/* Small sort runs and a low fan-in take the spill and merge paths. */
START_TEST (spilled_runs_same_findings)
{
  VfEnv env;
  VfResult all, small;
  AbVerifyOptions o;
  vf_open (&env, VF_MEMORY);
  build_damaged (&env, TRUE);
  vf_verify (&env, 0, 1, FALSE, &all);
  ab_verify_options_init (&o);
  o.run_bytes = 64 << 10;
  vf_verify_opts (&env, &o, &small);
  ck_assert_uint_gt (small.stats.spilled_runs, 0);
  ck_assert_uint_eq (g_hash_table_size (small.findings), g_hash_table_size (all.findings));
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, all.findings);
  while (g_hash_table_iter_next (&it, &key, NULL))
    ck_assert (g_hash_table_contains (small.findings, key));
  vf_result_clear (&all);
  vf_result_clear (&small);
  vf_close (&env);
}
END_TEST

/* One JSON object per line, with the fields the issue asks for. */
START_TEST (report_lines)
{
  VfEnv env;
  VfResult r;
  AbVerifyOptions o;
  g_autofree gchar *path = g_build_filename (g_get_tmp_dir (), "ab-verify-report.jsonl", NULL);
  g_autofree gchar *text = NULL;
  guint64 per_class[AB_MISMATCH_N_CLASSES] = { 0 };
  vf_open (&env, VF_MEMORY);
  build_damaged (&env, TRUE);
  ab_verify_options_init (&o);
  o.report_path = path;
  vf_verify_opts (&env, &o, &r);
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = g_strv_length (lines) - 1;
  ck_assert_uint_eq (n, ab_verify_stats_mismatches (&r.stats));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (JsonNode) node = vf_json (lines[i]);
      JsonObject *obj = json_node_get_object (node);
      ck_assert_str_eq (json_object_get_string_member (obj, "table"), "db.likes");
      ck_assert (json_object_has_member (obj, "expected") && json_object_has_member (obj, "found"));
      ck_assert (strlen (json_object_get_string_member (obj, "key")) > 8);
      const gchar *cls = json_object_get_string_member (obj, "class");
      for (guint c = 0; c < AB_MISMATCH_N_CLASSES; c++)
        per_class[c] += strcmp (cls, ab_mismatch_class_name (c)) == 0;
    }
  vf_assert_classes (&r, per_class, "report");
  g_remove (path);
  vf_result_clear (&r);
  vf_close (&env);
}
END_TEST

static gint
run_bin (const gchar *uri, const gchar *extra, const gchar *extra2)
{
  g_autofree gchar *store = g_strdup_printf ("--store=%s", uri);
  const gchar *argv[] = { verify_bin, store, extra, extra2, NULL };
  gint status = -1;
  g_autoptr (GError) error = NULL;
  /* Under the sanitizers, an error must not pass for exit 1 ("mismatches"). */
  g_auto (GStrv) env = g_get_environ ();
  const gchar *asan = g_environ_getenv (env, "ASAN_OPTIONS");
  g_autofree gchar *opts = g_strdup_printf ("%s%sexitcode=99", asan ? asan : "", asan ? ":" : "");
  env = g_environ_setenv (env, "ASAN_OPTIONS", opts, TRUE);
  env = g_environ_setenv (env, "UBSAN_OPTIONS", "exitcode=99", FALSE);
  ck_assert_msg (g_spawn_sync (NULL, (gchar **) argv, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, NULL, &status, &error),
                 "spawn: %s", error ? error->message : "");
  ck_assert (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* exit 1 with mismatches (also when repairing them), 0 once clean, 2 on errors. */
START_TEST (binary_exit_codes)
{
  VfEnv env;
  if (!g_file_test (verify_bin, G_FILE_TEST_IS_EXECUTABLE))
    return;
  vf_open (&env, VF_LMDB);
  build_damaged (&env, FALSE);
  g_clear_pointer (&env.engine, ab_engine_close); /* release the lmdb environment */
  ck_assert_int_eq (run_bin (env.uri, "--shard=1/2", NULL), 1);
  ck_assert_int_eq (run_bin (env.uri, "--repair", NULL), 1);
  ck_assert_int_eq (run_bin (env.uri, "--database=db", "--table=likes"), 0);
  ck_assert_int_eq (run_bin (env.uri, "--database=db", "--table=nope"), 2);
  ck_assert_int_eq (run_bin (env.uri, "--shard=2/2", NULL), 2);
  ck_assert_int_eq (run_bin ("bogus:", NULL, NULL), 2);
  vf_close (&env);
}
END_TEST

static void
quiet (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer user)
{
  if (strstr (message, "injected failure") == NULL)
    g_log_default_handler (domain, level, message, user);
}

int
main (int argc, char **argv)
{
  g_autofree gchar *dir = g_path_get_dirname (argv[0]);
  verify_bin = g_build_filename (dir, "..", "..", "..", "src", "actionbase-verify", NULL);
  g_log_set_handler (NULL, G_LOG_LEVEL_WARNING, quiet, NULL);
  Suite *s = suite_create ("verify-shards");
  TCase *tc = tcase_create ("shards");
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, shards_union, 0, (gint) vf_n_stores ());
  tcase_add_loop_test (tc, shards_repair, 0, (gint) vf_n_stores ());
  tcase_add_test (tc, spilled_runs_same_findings);
  tcase_add_test (tc, report_lines);
  tcase_add_test (tc, binary_exit_codes);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  g_free (verify_bin);
  return failed == 0 ? 0 : 1;
}
