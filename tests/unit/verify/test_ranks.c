/* Top-K rank (-7) and score (-8) rows under the verifier: after random writes
 * a table with three rankings verifies clean, in shards too; a deleted, moved,
 * orphan or stale row, a row of the first layout's salt and a damaged group
 * cell are found and repaired; a
 * window relative to now is checked at the verifier's (fake) clock. */
#include <stdatomic.h>
#include <string.h>
#include "verify_fixture.h"
#include "codec/bytes.h"
#include "codec/keys.h"
#include "engine/topk/topk.h"
#include "ab_check.h"
#include "../../hbase/hbase_test_uri.h"

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
          ck_assert (ab_topk_entry_of_row (t, k, len, 0, &e, NULL));
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
  /* cell entries (top, top_w: one cell each) keep a rank row and no score
   * row; top_seg_window's entries sum several cells and keep both */
  g_autoptr (AbTableDesc) t = views ();
  guint cell_ranks = 0;
  for (guint i = 0; i < ranks->len; i++)
    {
      gsize len;
      const guint8 *k = g_bytes_get_data (g_array_index (ranks, AbKv, i).key, &len);
      AbTopkEntry e;
      ck_assert (ab_topk_entry_of_row (t, k, len, 0, &e, NULL));
      cell_ranks += ab_topk_entry_is_cell (&e);
      ab_topk_entry_clear (&e);
    }
  ck_assert_uint_gt (cell_ranks, 5);
  ck_assert_uint_gt (scores->len, 5);
  ck_assert_uint_eq (ranks->len - cell_ranks, scores->len);
  for (guint i = 0; i < scores->len; i++)
    {
      gsize len;
      const guint8 *k = g_bytes_get_data (g_array_index (scores, AbKv, i).key, &len);
      AbTopkEntry e;
      ck_assert (ab_topk_entry_of_row (t, k, len, 0, &e, NULL));
      ck_assert (!ab_topk_entry_is_cell (&e));
      ab_topk_entry_clear (&e);
    }
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
      ck_assert (ab_topk_entry_of_row (t, k, len, 0, &e[i], &score[i]));
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
  /* a stale score row (an entry summing several cells: cell entries have none) */
  g_autoptr (GArray) seg_ranks = rows_of (AB_ROW_TOPK_RANK, "top_seg_window");
  ck_assert_uint_ge (seg_ranks->len, 1);
  AbTopkEntry e3;
  gint64 s3;
  const guint8 *k3 = g_bytes_get_data (g_array_index (seg_ranks, AbKv, 0).key, &len);
  ck_assert (ab_topk_entry_of_row (t, k3, len, 0, &e3, &s3));
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

/* key (a rank or score row of entity) under the first top-K builds' salt:
 * the hash of its own type's prefix body rather than the Group one. */
static GByteArray *
first_layout (const AbTableDesc *t, const AbTopkEntry *e, AbRowType type, const GByteArray *key)
{
  g_autoptr (GByteArray) prefix = g_byte_array_new ();
  ck_assert (ab_codec_put_prefix (prefix, &e->entity, t->code, type, NULL));
  GByteArray *old = g_byte_array_new ();
  g_byte_array_append (old, key->data, key->len);
  guint32 h = (guint32) ab_codec_hash (old->data + 4, prefix->len - 4);
  for (guint i = 0; i < 4; i++)
    old->data[i] = (guint8) (h >> (24 - 8 * i));
  ck_assert (memcmp (old->data, key->data, 4) != 0);
  return old;
}

/* Rows of the first layout (salted with their own type) are orphans; repair
 * deletes them and writes the entry's rows where they belong now. */
START_TEST (first_layout_rows)
{
  setup_table ((guint) _i);
  AbStore *store = ab_engine_store (env.engine);
  g_autoptr (AbTableDesc) t = views ();
  g_autoptr (GArray) ranks = rows_of (AB_ROW_TOPK_RANK, "top_seg_window");
  AbTopkEntry e;
  gint64 score;
  gsize len;
  const guint8 *k = g_bytes_get_data (g_array_index (ranks, AbKv, 0).key, &len);
  ck_assert (ab_topk_entry_of_row (t, k, len, 0, &e, &score));
  g_autoptr (GByteArray) rk = ab_topk_rank_key (t, &e, score, NULL);
  g_autoptr (GByteArray) sk = ab_topk_score_key (t, &e, NULL);
  g_autoptr (GByteArray) old_rk = first_layout (t, &e, AB_ROW_TOPK_RANK, rk);
  g_autoptr (GByteArray) old_sk = first_layout (t, &e, AB_ROW_TOPK_SCORE, sk);
  ck_assert (ab_store_delete (store, rk->data, rk->len, NULL));
  ck_assert (ab_store_delete (store, sk->data, sk->len, NULL));
  put_row (old_rk, score);
  put_row (old_sk, score);
  expect (2, 0, 2, 0, "rows of the first layout");
  repair (4, "after repair");
  GByteArray *gone[2] = { old_rk, old_sk }, *back[2] = { rk, sk };
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (GBytes) v = NULL, w = NULL;
      ck_assert (ab_store_get (store, gone[i]->data, gone[i]->len, &v, NULL));
      ck_assert (v == NULL);
      ck_assert (ab_store_get (store, back[i]->data, back[i]->len, &w, NULL));
      ck_assert (w != NULL && ab_codec_get_be64 (g_bytes_get_data (w, NULL)) == score);
    }
  ab_topk_entry_clear (&e);
  vf_close (&env);
}
END_TEST

/* A group cell off by 5 moves its entry (a cell entry of by_item's `top`,
 * which has no score row): the cell (count_wrong), the entry's rank row at
 * the cell's score (missing) and at the score it had (orphan); repair fixes
 * the cell and re-scores the entry. */
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
  expect (1, 0, 1, 1, "damaged group cell");
  repair (3, "after repair of the cell");
  vf_close (&env);
}
END_TEST

/* ---- a window relative to now ---- */

static const gchar *RECENT
    = "{\"table\":\"recent\",\"storage\":\"datastore://db/recent\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"item\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"},"
      "{\"name\":\"at\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"}],"
      "\"indexes\":[],\"groups\":["
      "{\"group\":\"by_item_day\",\"type\":\"COUNT\",\"directionType\":\"OUT\","
      "\"fields\":[{\"name\":\"item\"},{\"name\":\"at\",\"bucket\":{\"type\":\"date\","
      "\"unit\":\"day\",\"timezone\":\"UTC\",\"format\":\"yyyyMMdd\"}}],"
      "\"aggregations\":{\"topk\":[{\"topk\":\"recent\",\"ranges\":\"at:bt:now-1d,now\","
      "\"refreshAfterMillis\":60000}]}}]}}";

#define T_NOON G_GINT64_CONSTANT (1735905600000) /* 2025-01-03T12:00:00Z */

static _Atomic gint64 fake_ms;

static gint64
fake_now (gpointer data)
{
  (void) data;
  return atomic_load (&fake_ms);
}

/* vf_open with the engine on a fake clock and no background maintenance. */
static void
open_clocked (guint store)
{
  g_autoptr (GError) error = NULL;
  AbEngineConfig cfg;
  env.uri = vf_store_uri (store, "verify", &env.tmpdir);
  ck_assert_msg (env.uri != NULL, "store %u needs AB_HBASE_ADDR", store);
  AbStore *inner = ab_store_open (env.uri, &error);
  ck_assert_msg (inner != NULL, "open %s: %s", env.uri, error ? error->message : "");
  env.fault = ab_store_fault_new (inner);
  ab_engine_config_init (&cfg);
  cfg.lock_retries = 5;
  cfg.lock_backoff_ms = 10;
  cfg.cache_prune_ms = 0;
  cfg.ttl_sweep_ms = 0;
  cfg.heal = FALSE; /* the injected damage stays for the verifier */
  cfg.now_ms = fake_now;
  atomic_store (&fake_ms, T_NOON);
  env.engine = ab_engine_open_store (env.fault, &cfg, &error);
  ck_assert_msg (env.engine != NULL, "engine: %s", error ? error->message : "");
}

/* Stored rows of one record type, any table. */
static GArray *
rows_of_type (gint8 type)
{
  AbScanRange all = { 0 };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  GArray *out = ab_kv_array_new ();
  ck_assert (ab_store_scan (ab_engine_store (env.engine), &all, rows, NULL));
  for (guint i = 0; i < rows->len; i++)
    {
      AbKv *kv = &g_array_index (rows, AbKv, i);
      gsize len;
      const guint8 *k = g_bytes_get_data (kv->key, &len);
      if (row_type (k, len) != type)
        continue;
      AbKv copy = { g_bytes_ref (kv->key), g_bytes_ref (kv->value) };
      g_array_append_val (out, copy);
    }
  return out;
}

/* The stored score of each `recent` entry against the sum of its cells
 * under the window at the clock: how many differ. */
static guint
stale_entries (void)
{
  g_autoptr (AbTableDesc) t = ab_catalog_get_table (ab_engine_catalog (env.engine), "db", "recent");
  AbScanRange all = { 0 };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  guint stale = 0;
  ck_assert (ab_store_scan (ab_engine_store (env.engine), &all, rows, NULL));
  for (guint i = 0; i < rows->len; i++)
    {
      gsize len;
      const guint8 *k = g_bytes_get_data (g_array_index (rows, AbKv, i).key, &len);
      AbTopkEntry e;
      gint64 score;
      if (row_type (k, len) != AB_ROW_TOPK_SCORE)
        continue;
      ck_assert (ab_topk_entry_of_row (t, k, len, atomic_load (&fake_ms), &e, NULL));
      ck_assert (ab_topk_score (ab_engine_store (env.engine), &e, &score, NULL));
      stale += score
               != ab_codec_get_be64 (g_bytes_get_data (g_array_index (rows, AbKv, i).value, NULL));
      ab_topk_entry_clear (&e);
    }
  return stale;
}

static guint64
findings (void)
{
  VfResult r;
  guint64 n = 0;
  vf_verify (&env, 0, 1, FALSE, &r);
  for (guint c = 0; c < AB_MISMATCH_N_CLASSES; c++)
    n += r.stats.mismatches[c];
  vf_result_clear (&r);
  return n;
}

/* Cells of five days around now; at each midnight a day leaves the
 * window and one enters: unrefreshed entries are accepted for
 * refreshAfterMillis (60 s),
 * found after it and repaired; the refresher keeps them clean; a deleted
 * rank row of the relative ranking is found and repaired. */
START_TEST (relative_window)
{
  open_clocked ((guint) _i);
  vf_create_table (&env, "db", RECENT);
  g_autoptr (GRand) r = g_rand_new_with_seed (5 + (guint) _i);
  g_autoptr (GString) b = g_string_new ("{\"mutations\":[");
  for (guint i = 0; i < 60; i++)
    g_string_append_printf (
        b,
        "%s{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"u%d\","
        "\"target\":\"p%u\",\"properties\":{\"item\":%d,\"at\":%" G_GINT64_FORMAT "}}}",
        i ? "," : "", g_rand_int_range (r, 0, 3), i, g_rand_int_range (r, 0, 5),
        T_NOON + g_rand_int_range (r, -2, 3) * DAY_MS);
  g_string_append (b, "]}");
  vf_mutate_free (&env, "db", "recent", FALSE, b->str);
  ck_assert_uint_eq (findings (), 0);
  ck_assert_uint_eq (stale_entries (), 0);
  g_autoptr (GArray) before = rows_of_type (AB_ROW_TOPK_RANK);
  ck_assert_uint_gt (before->len, 5);
  /* 1 ms past midnight: the day before yesterday has left, nothing refreshed */
  gint64 midnight = (T_NOON / DAY_MS + 1) * DAY_MS;
  atomic_store (&fake_ms, midnight + 1);
  ck_assert_uint_gt (stale_entries (), 0);
  ck_assert_uint_eq (findings (), 0); /* stale by less than refreshAfterMillis */
  atomic_store (&fake_ms, midnight + 60001);
  ck_assert_uint_gt (findings (), 0); /* late */
  repair (findings (), "repaired at the verifier's clock");
  ck_assert_uint_eq (stale_entries (), 0);
  /* the next day leaves at the next midnight: the refresher follows */
  atomic_store (&fake_ms, midnight + DAY_MS + 120000);
  ck_assert_uint_gt (stale_entries (), 0);
  ck_assert (ab_engine_maintain (env.engine, NULL, NULL, NULL));
  ck_assert_uint_eq (stale_entries (), 0);
  ck_assert_uint_eq (findings (), 0);
  /* a deleted rank row */
  g_autoptr (GArray) ranks = rows_of_type (AB_ROW_TOPK_RANK);
  ck_assert_uint_gt (ranks->len, 0);
  gsize len;
  const guint8 *k0 = g_bytes_get_data (g_array_index (ranks, AbKv, 0).key, &len);
  ck_assert (ab_store_delete (ab_engine_store (env.engine), k0, len, NULL));
  ck_assert_uint_eq (findings (), 1);
  repair (1, "a deleted rank row");
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
  tcase_add_loop_test (tc, first_layout_rows, 0, (gint) vf_n_stores ());
  tcase_add_loop_test (tc, relative_window, 0, (gint) vf_n_stores ());
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
