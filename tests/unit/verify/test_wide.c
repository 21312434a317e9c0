/* Group and Cache cells under the verifier: a table with a bucketed COUNT, a
 * SUM, a TTL group and a trimmed cache verifies clean after random writes
 * (unsharded and in shards) and after purges; damaged cells are found in the
 * count/index classes, and repair leaves the store clean. */
#include <string.h>
#include "verify_fixture.h"
#include "codec/bytes.h"
#include "ab_check.h"

static const gchar *LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://db/likes\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"at\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"},"
      "{\"name\":\"n\",\"type\":\"int\",\"nullable\":true,\"comment\":\"\"}],\"indexes\":[],"
      "\"groups\":[{\"group\":\"by_day\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"at\","
      "\"bucket\":{\"unit\":\"day\"}}]},"
      "{\"group\":\"total\",\"type\":\"SUM\",\"valueField\":\"n\",\"directionType\":\"OUT\"},"
      "{\"group\":\"recent\",\"type\":\"COUNT\",\"ttl\":600000,\"fields\":[]}],"
      "\"caches\":[{\"cache\":\"top\",\"fields\":[{\"field\":\"at\",\"order\":\"DESC\"}],\"limit\":"
      "3}]}}";

static VfEnv env;

static void
random_writes (guint seed)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (seed);
  static const gchar *types[] = { "INSERT", "INSERT", "UPDATE", "DELETE" };
  for (guint req = 0; req < 30; req++)
    {
      g_autoptr (GString) b = g_string_new ("{\"mutations\":[");
      for (guint i = 0; i < 10; i++)
        g_string_append_printf (b,
                                "%s{\"type\":\"%s\",\"edge\":{\"version\":%d,\"source\":\"u%d\","
                                "\"target\":\"p%d\",\"properties\":{\"at\":%d,\"n\":%d}}}",
                                i ? "," : "", types[g_rand_int_range (r, 0, 4)],
                                g_rand_int_range (r, 1, 100000), g_rand_int_range (r, 0, 8),
                                g_rand_int_range (r, 0, 20), g_rand_int_range (r, 0, 400000000),
                                g_rand_int_range (r, -3, 9));
      g_string_append (b, "]}");
      vf_mutate_free (&env, "db", "likes", FALSE, b->str);
    }
}

/* The first stored key of a record type that `want` accepts (not a zero
 * group cell). */
typedef gboolean (*KeyTest) (const guint8 *k, gsize len, gsize row_len, gint32 code);

static GBytes *
find_key (AbRowType type, KeyTest want, GBytes **value)
{
  AbScanRange all = { 0 };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  ck_assert (ab_store_scan (ab_engine_store (env.engine), &all, rows, NULL));
  for (guint i = 0; i < rows->len; i++)
    {
      AbKv *kv = &g_array_index (rows, AbKv, i);
      gsize len, row_len;
      const guint8 *k = g_bytes_get_data (kv->key, &len);
      AbRowType t;
      gint32 code;
      gboolean zero = g_bytes_get_size (kv->value) == 8
                      && ab_codec_get_be64 (g_bytes_get_data (kv->value, NULL)) == 0;
      if (ab_codec_wide_parts (k, len, &t, &code, &row_len) && t == type && !zero
          && want (k, len, row_len, code))
        {
          if (value != NULL)
            *value = g_bytes_ref (kv->value);
          return g_bytes_ref (kv->key);
        }
    }
  ck_abort_msg ("no such key");
  return NULL;
}

static gboolean
day_cell (const guint8 *k, gsize len, gsize row_len, gint32 code)
{
  (void) k;
  return code == ab_codec_code ("by_day") && len > row_len + 1;
}

static gboolean
first_cache_cell (const guint8 *k, gsize len, gsize row_len, gint32 code)
{
  (void) k;
  (void) code;
  return len > row_len + 1; /* not the marker; the first cell sorts first */
}

static void
expect (guint64 index_missing, guint64 index_stale, guint64 index_orphan, guint64 count_missing,
        guint64 count_wrong, guint64 count_orphan, const gchar *what)
{
  guint64 want[AB_MISMATCH_N_CLASSES] = { 0 };
  want[AB_MISMATCH_INDEX_MISSING] = index_missing;
  want[AB_MISMATCH_INDEX_STALE] = index_stale;
  want[AB_MISMATCH_INDEX_ORPHAN] = index_orphan;
  want[AB_MISMATCH_COUNT_MISSING] = count_missing;
  want[AB_MISMATCH_COUNT_WRONG] = count_wrong;
  want[AB_MISMATCH_COUNT_ORPHAN] = count_orphan;
  VfResult r;
  vf_verify (&env, 0, 1, FALSE, &r);
  vf_assert_classes (&r, want, what);
  vf_result_clear (&r);
}

START_TEST (clean_then_damaged)
{
  vf_open (&env, (guint) _i);
  vf_create_table (&env, "db", LIKES);
  random_writes (3 + _i);
  vf_assert_clean (&env, "after writes");
  ck_assert (ab_engine_maintain (env.engine, NULL, NULL, NULL));
  vf_assert_clean (&env, "after trimming");
  for (guint k = 0; k < 3; k++)
    {
      VfResult r;
      vf_verify (&env, k, 3, FALSE, &r);
      ck_assert_uint_eq (ab_verify_stats_mismatches (&r.stats), 0);
      vf_result_clear (&r);
    }
  AbStore *store = ab_engine_store (env.engine);
  /* a group cell off by 5, another deleted, a stray one */
  g_autoptr (GBytes) v1 = NULL;
  g_autoptr (GBytes) g1 = find_key (AB_ROW_GROUP, day_cell, &v1);
  gsize len;
  const guint8 *k = g_bytes_get_data (g1, &len);
  ck_assert (ab_store_increment (store, k, len, 5, NULL, NULL));
  g_autoptr (GByteArray) stray = g_byte_array_append (g_byte_array_new (), k, len);
  stray->data[len - 2] = (guint8) ~'Z'; /* a day no bucket produces */
  guint8 three[8];
  ab_codec_put_be64 (three, 3);
  ck_assert (ab_store_put (store, stray->data, stray->len, three, 8, NULL));
  /* a cache cell deleted (below the boundary), another with a wrong value */
  g_autoptr (GBytes) c1 = find_key (AB_ROW_CACHE, first_cache_cell, NULL);
  const guint8 *ck = g_bytes_get_data (c1, &len);
  ck_assert (ab_store_delete (store, ck, len, NULL));
  expect (1, 0, 0, 0, 1, 1, "damaged");
  VfResult r;
  vf_verify (&env, 0, 1, TRUE, &r);
  ck_assert_uint_eq (r.stats.repaired, 3);
  vf_result_clear (&r);
  vf_assert_clean (&env, "after repair");
  vf_close (&env);
}
END_TEST

/* A request of PURGE items (the v2 purge route's), or of other items
 * mixed in; every key must be applied. */
static void
purge_keys (const gchar *items)
{
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = "db";
  o.table = "likes";
  o.purge = TRUE;
  g_autofree gchar *body = g_strdup_printf ("{\"mutations\":[%s]}", items);
  g_autoptr (JsonNode) n = vf_json (body);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) r = ab_engine_mutate (env.engine, &o, n, &error);
  ck_assert_msg (r != NULL, "purge: %s", error != NULL ? error->message : "");
  for (guint i = 0; i < r->len; i++)
    {
      AbKeyStatus st = g_array_index (r, AbKeyResult, i).status;
      ck_assert_msg (st != AB_STATUS_ERROR && st != AB_STATUS_INVALID, "key %u: %s", i,
                     ab_key_status_name (st));
    }
}

/* After purges of active, deleted and missing edges (their State rows gone,
 * their Index, Count, Group and Cache rows gone or moved as for a delete)
 * the store verifies clean, and again once older INSERTs created some again. */
START_TEST (purged_clean)
{
  vf_open (&env, (guint) _i);
  vf_create_table (&env, "db", LIKES);
  random_writes (11 + _i);
  AbValue start = AB_VALUE_INIT;
  gint64 n = -1;
  ck_assert (ab_engine_count (env.engine, "db", "likes", "u0", AB_QDIR_OUT, &start, &n, NULL));
  ab_value_clear (&start);
  ck_assert_int_gt (n, 0);
  g_autoptr (GString) items = g_string_new (NULL);
  for (guint u = 0; u < 8; u += 2)
    for (guint p = 0; p < 20; p += (u == 0 ? 1 : 3))
      g_string_append_printf (items,
                              "%s{\"type\":\"PURGE\",\"edge\":{\"version\":0,\"source\":\"u%u\","
                              "\"target\":\"p%u\",\"properties\":{}}}",
                              items->len > 0 ? "," : "", u, p);
  purge_keys (items->str);
  vf_assert_clean (&env, "after purges");
  ck_assert (ab_engine_count (env.engine, "db", "likes", "u0", AB_QDIR_OUT, &start, &n, NULL));
  ab_value_clear (&start);
  ck_assert_int_eq (n, 0); /* every edge of u0 purged */
  g_string_truncate (items, 0);
  for (guint p = 0; p < 5; p++)
    g_string_append_printf (items,
                            "%s{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"u0\","
                            "\"target\":\"p%u\",\"properties\":{\"at\":%u,\"n\":%u}}}",
                            p > 0 ? "," : "", p, 86400000 * p, p);
  purge_keys (items->str);
  ck_assert (ab_engine_count (env.engine, "db", "likes", "u0", AB_QDIR_OUT, &start, &n, NULL));
  ab_value_clear (&start);
  ck_assert_int_eq (n, 5);
  vf_assert_clean (&env, "after inserts older than the purged edges");
  vf_close (&env);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("verify-wide");
  TCase *tc = tcase_create ("wide");
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, clean_then_damaged, 0, (gint) vf_n_stores ());
  tcase_add_loop_test (tc, purged_clean, 0, (gint) vf_n_stores ());
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
