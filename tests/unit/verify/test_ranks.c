/* Top-K rank (-7) and score (-8) rows under the verifier: after random writes
 * a table with three rankings verifies clean, in shards too; a deleted, moved,
 * orphan or stale row and a damaged group cell are found and repaired. */
#include <string.h>
#include "verify_fixture.h"
#include "codec/bytes.h"
#include "codec/keys.h"
#include "engine/topk.h"
#include "ab_check.h"

static const gchar *VIEWS
    = "{\"table\":\"views\",\"storage\":\"datastore://db/views\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"item\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"},"
      "{\"name\":\"seg\",\"type\":\"string\",\"nullable\":false,\"comment\":\"\"},"
      "{\"name\":\"at\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"},"
      "{\"name\":\"w\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"}],\"indexes\":[],"
      "\"groups\":["
      "{\"group\":\"by_item\",\"type\":\"COUNT\",\"directionType\":\"OUT\","
      "\"fields\":[{\"name\":\"item\"}],\"aggregations\":{\"topk\":[{\"topk\":\"top\","
      "\"ranges\":\"item:eq:{item}\"}]}},"
      "{\"group\":\"by_seg_item_day\",\"type\":\"COUNT\",\"directionType\":\"OUT\","
      "\"fields\":[{\"name\":\"seg\"},{\"name\":\"item\"},{\"name\":\"at\",\"bucket\":{"
      "\"type\":\"date\",\"unit\":\"day\",\"timezone\":\"UTC\",\"format\":\"yyyyMMdd\"}}],"
      "\"aggregations\":{\"topk\":[{\"topk\":\"top_seg_window\","
      "\"ranges\":\"seg:eq:{seg};at:gte:20250103\"}]}},"
      "{\"group\":\"sum_w\",\"type\":\"SUM\",\"valueField\":\"w\",\"directionType\":\"OUT\","
      "\"fields\":[{\"name\":\"item\"}],\"aggregations\":{\"topk\":[{\"topk\":\"top_w\"}]}}"
      "]}}";

#define DAY0 G_GINT64_CONSTANT (1735689600000) /* 2025-01-01T00:00:00Z */
#define DAY_MS G_GINT64_CONSTANT (86400000)

static VfEnv env;

static void
random_writes (guint seed)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (seed);
  static const gchar *types[] = { "INSERT", "INSERT", "INSERT", "UPDATE", "DELETE" };
  for (guint req = 0; req < 30; req++)
    {
      g_autoptr (GString) b = g_string_new ("{\"mutations\":[");
      for (guint i = 0; i < 10; i++)
        g_string_append_printf (
            b,
            "%s{\"type\":\"%s\",\"edge\":{\"version\":%d,\"source\":\"u%d\",\"target\":\"p%d\","
            "\"properties\":{\"item\":%d,\"seg\":\"%c\",\"at\":%" G_GINT64_FORMAT ",\"w\":%d}}}",
            i ? "," : "", types[g_rand_int_range (r, 0, 5)], g_rand_int_range (r, 1, 100000),
            g_rand_int_range (r, 0, 4), g_rand_int_range (r, 0, 20), g_rand_int_range (r, 0, 6),
            'a' + g_rand_int_range (r, 0, 2), DAY0 + g_rand_int_range (r, 0, 5) * DAY_MS,
            g_rand_int_range (r, -3, 9));
      g_string_append (b, "]}");
      vf_mutate_free (&env, "db", "views", FALSE, b->str);
    }
}

static AbTableDesc *
views (void)
{
  AbTableDesc *t = ab_catalog_get_table (ab_engine_catalog (env.engine), "db", "views");
  ck_assert (t != NULL);
  return t;
}

/* The record type of a stored key (0 when it has no prefix). */
static gint8
row_type (const guint8 *k, gsize len)
{
  gsize pos = 4;
  gint32 table;
  gint8 type = 0;
  if (len > 4 && ab_codec_skip (k, len, &pos, NULL)
      && ab_codec_get_int32 (k, len, &pos, &table, NULL))
    ab_codec_get_int8 (k, len, &pos, &type, NULL);
  return type;
}

/* Stored rows of one record type, restricted to top-K `topk` when given. */
static GArray *
rows_of (gint8 type, const gchar *topk)
{
  AbScanRange all = { 0 };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  g_autoptr (AbTableDesc) t = views ();
  GArray *out = ab_kv_array_new ();
  ck_assert (ab_store_scan (ab_engine_store (env.engine), &all, rows, NULL));
  for (guint i = 0; i < rows->len; i++)
    {
      AbKv *kv = &g_array_index (rows, AbKv, i);
      gsize len;
      const guint8 *k = g_bytes_get_data (kv->key, &len);
      AbTopkEntry e;
      if (row_type (k, len) != type)
        continue;
      if (topk != NULL)
        {
          ck_assert (ab_topk_entry_of_row (t, k, len, &e, NULL));
          gboolean same = g_str_equal (e.topk->name, topk);
          ab_topk_entry_clear (&e);
          if (!same)
            continue;
        }
      AbKv copy = { g_bytes_ref (kv->key), g_bytes_ref (kv->value) };
      g_array_append_val (out, copy);
    }
  return out;
}

static void
put_row (GByteArray *key, gint64 score)
{
  guint8 v[16];
  ab_topk_value (v, score, g_get_real_time () / 1000);
  ck_assert (ab_store_put (ab_engine_store (env.engine), key->data, key->len, v, sizeof v, NULL));
}

static void
expect (guint64 missing, guint64 stale, guint64 orphan, guint64 count_wrong, const gchar *what)
{
  guint64 want[AB_MISMATCH_N_CLASSES] = { 0 };
  guint64 sum[AB_MISMATCH_N_CLASSES] = { 0 };
  want[AB_MISMATCH_INDEX_MISSING] = missing;
  want[AB_MISMATCH_INDEX_STALE] = stale;
  want[AB_MISMATCH_INDEX_ORPHAN] = orphan;
  want[AB_MISMATCH_COUNT_WRONG] = count_wrong;
  VfResult r;
  vf_verify (&env, 0, 1, FALSE, &r);
  vf_assert_classes (&r, want, what);
  vf_result_clear (&r);
  /* three shards find the same, each finding once */
  for (guint k = 0; k < 3; k++)
    {
      vf_verify (&env, k, 3, FALSE, &r);
      for (guint c = 0; c < AB_MISMATCH_N_CLASSES; c++)
        sum[c] += r.stats.mismatches[c];
      vf_result_clear (&r);
    }
  for (guint c = 0; c < AB_MISMATCH_N_CLASSES; c++)
    ck_assert_msg (sum[c] == want[c], "%s, 3 shards: %s %" G_GUINT64_FORMAT, what,
                   ab_mismatch_class_name (c), sum[c]);
}

static void
repair (guint64 fixed, const gchar *what)
{
  VfResult r;
  vf_verify (&env, 0, 1, TRUE, &r);
  ck_assert_msg (r.stats.repaired == fixed && r.stats.repair_failed == 0,
                 "%s: %" G_GUINT64_FORMAT " repaired, %" G_GUINT64_FORMAT " failed", what,
                 r.stats.repaired, r.stats.repair_failed);
  vf_result_clear (&r);
  vf_assert_clean (&env, what);
}

static void
setup_table (guint store)
{
  vf_open (&env, store);
  vf_create_table (&env, "db", VIEWS);
  random_writes (11 + store);
  vf_assert_clean (&env, "after writes");
  g_autoptr (GArray) ranks = rows_of (AB_ROW_TOPK_RANK, NULL);
  g_autoptr (GArray) scores = rows_of (AB_ROW_TOPK_SCORE, NULL);
  ck_assert_uint_gt (ranks->len, 10);
  ck_assert_uint_eq (ranks->len, scores->len);
  expect (0, 0, 0, 0, "clean");
}

START_TEST (damaged_rows)
{
  setup_table ((guint) _i);
  AbStore *store = ab_engine_store (env.engine);
  g_autoptr (AbTableDesc) t = views ();
  g_autoptr (GArray) ranks = rows_of (AB_ROW_TOPK_RANK, "top");
  ck_assert_uint_ge (ranks->len, 4);
  AbTopkEntry e[3];
  gint64 score[3];
  for (guint i = 0; i < 3; i++)
    {
      gsize len;
      const guint8 *k = g_bytes_get_data (g_array_index (ranks, AbKv, i).key, &len);
      ck_assert (ab_topk_entry_of_row (t, k, len, &e[i], &score[i]));
      ck_assert_int_ne (score[i], 0);
    }
  /* a deleted rank row */
  gsize len;
  const guint8 *k0 = g_bytes_get_data (g_array_index (ranks, AbKv, 0).key, &len);
  ck_assert (ab_store_delete (store, k0, len, NULL));
  /* a rank row moved to a wrong score (the score row still right) */
  const guint8 *k1 = g_bytes_get_data (g_array_index (ranks, AbKv, 1).key, &len);
  ck_assert (ab_store_delete (store, k1, len, NULL));
  g_autoptr (GByteArray) moved = ab_topk_rank_key (t, &e[1], score[1] + 7, NULL);
  put_row (moved, score[1] + 7);
  /* a rank row of an entry without cells (an item no event has) */
  ab_value_clear (&e[2].values[e[2].topk->ranked]);
  ab_value_set_int (&e[2].values[e[2].topk->ranked], AB_VALUE_INT64, 777);
  g_autoptr (GByteArray) orphan = ab_topk_rank_key (t, &e[2], 4, NULL);
  put_row (orphan, 4);
  /* a stale score row (entry 3) */
  AbTopkEntry e3;
  gint64 s3;
  const guint8 *k3 = g_bytes_get_data (g_array_index (ranks, AbKv, 3).key, &len);
  ck_assert (ab_topk_entry_of_row (t, k3, len, &e3, &s3));
  g_autoptr (GByteArray) sk = ab_topk_score_key (t, &e3, NULL);
  put_row (sk, s3 + 3);
  expect (2, 1, 2, 0, "damaged rank and score rows");
  repair (5, "after repair");
  /* the repaired entries are back at their scores */
  g_autoptr (GByteArray) back = ab_topk_rank_key (t, &e[1], score[1], NULL);
  g_autoptr (GBytes) v = NULL;
  ck_assert (ab_store_get (store, back->data, back->len, &v, NULL));
  ck_assert (v != NULL && g_bytes_get_size (v) == 16);
  ck_assert_int_eq (ab_codec_get_be64 (g_bytes_get_data (v, NULL)), score[1]);
  for (guint i = 0; i < 3; i++)
    ab_topk_entry_clear (&e[i]);
  ab_topk_entry_clear (&e3);
  vf_close (&env);
}
END_TEST

/* A group cell off by 5 moves its entry: the cell (count_wrong) and the
 * entry's score row (stale), rank row at the cells' score (missing) and at
 * the stored score (orphan); repair fixes the cell and re-scores the entry. */
START_TEST (damaged_cell)
{
  setup_table ((guint) _i);
  AbStore *store = ab_engine_store (env.engine);
  g_autoptr (AbTableDesc) t = views ();
  g_autoptr (GArray) cells = rows_of (AB_ROW_GROUP, NULL);
  const AbGroup *g = ab_schema_group (t->schema, "by_item");
  gboolean done = FALSE;
  for (guint i = 0; i < cells->len && !done; i++)
    {
      gsize len;
      const guint8 *k = g_bytes_get_data (g_array_index (cells, AbKv, i).key, &len);
      AbRowType type;
      gint32 code;
      gsize row_len;
      const AbKv *kv = &g_array_index (cells, AbKv, i);
      if (!ab_codec_wide_parts (k, len, &type, &code, &row_len) || code != g->code
          || g_bytes_get_size (kv->value) != 8
          || ab_codec_get_be64 (g_bytes_get_data (kv->value, NULL)) <= 0)
        continue;
      ck_assert (ab_store_increment (store, k, len, 5, NULL, NULL));
      done = TRUE;
    }
  ck_assert (done);
  expect (1, 1, 1, 1, "damaged group cell");
  repair (4, "after repair of the cell");
  vf_close (&env);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("verify-ranks");
  TCase *tc = tcase_create ("ranks");
  tcase_set_timeout (tc, 180);
  tcase_add_loop_test (tc, damaged_rows, 0, (gint) vf_n_stores ());
  tcase_add_loop_test (tc, damaged_cell, 0, (gint) vf_n_stores ());
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
