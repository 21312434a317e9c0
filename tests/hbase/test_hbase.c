/* HBase-only checks against the real gateway named by AB_HBASE_ADDR (skipped,
 * exit 77, without it): the engine's raw rows equal docs/storage-format.md §9, a 5,000
 * item request, same-millisecond delete/put, call counts, shared calls
 * (§3.9), lazy connecting, Group and Cache cells as real qualifiers of their
 * wide rows. */
#include <string.h>

#include "../unit/engine/engine_fixture.h"
#include "../unit/store/store_test_util.h"
#include "codec/element.h"
#include "codec/keys.h"
#include "hbase_raw.h"
#include "hbase_test_uri.h"
#include "store/backend.h"             /* a suite of the hbase backend: its handle's uri */
#include "store/hbase/hbase-private.h" /* ab_hb_batch_run: a shared write run, driven directly */

static const gchar *LIKES_DESC
    = "{\"table\":\"likes\",\"storage\":\"datastore://likes/likes\",\"comment\":\"likes\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"indexes\":[{\"index\":\"created_at_desc\",\"fields\":[{\"field\":\"created_at\",\"order\":"
      "\"DESC\"}]}]}}";

static const gchar *ALICE_PHONE
    = "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1700000000000,\"source\":"
      "\"Alice\","
      "\"target\":\"Phone\",\"properties\":{\"created_at\":1700000000000}}}]}";

static GByteArray *
hex (const gchar *text)
{
  GByteArray *a = g_byte_array_new ();
  for (const gchar *p = text; *p != '\0';)
    {
      guint8 b;
      if (*p == ' ')
        {
          p++;
          continue;
        }
      b = (guint8) (g_ascii_xdigit_value (p[0]) << 4 | g_ascii_xdigit_value (p[1]));
      g_byte_array_append (a, &b, 1);
      p += 2;
    }
  return a;
}

/* "abtest:NAME" of a store opened by ab_hbase_test_uri. */
static gchar *
table_of (AbStore *s)
{
  const gchar *t = strstr (s->uri, "table=");
  g_autofree gchar *name = g_strndup (t + 6, strcspn (t + 6, "&"));
  return g_strdup_printf ("abtest:%s", name);
}

static AbHbRaw *
raw_connect (void)
{
  GError *error = NULL;
  AbHbRaw *r = ab_hb_raw_connect (g_getenv ("AB_HBASE_ADDR"), FALSE, FALSE, &error);
  ck_assert_msg (r != NULL, "raw connect: %s", error ? error->message : "");
  return r;
}

static void
assert_raw (AbHbRaw *r, const gchar *table, const gchar *key_hex, const gchar *value_hex)
{
  g_autoptr (GByteArray) k = hex (key_hex);
  g_autoptr (GByteArray) want = value_hex ? hex (value_hex) : NULL;
  g_autoptr (GByteArray) got = NULL;
  GError *error = NULL;
  ck_assert_msg (ab_hb_raw_get (r, table, k->data, k->len, &got, &error), "raw get: %s",
                 error ? error->message : "");
  if (want == NULL)
    {
      ck_assert_msg (got == NULL, "row %s should be absent", key_hex);
      return;
    }
  ck_assert_msg (got != NULL, "row %s is missing", key_hex);
  ck_assert_uint_eq (got->len, want->len);
  ck_assert_mem_eq (got->data, want->data, want->len);
}

START_TEST (test_rows_match_encoding_vectors)
{
  AbTestEnv env;
  g_autofree gchar *table = NULL;
  AbHbRaw *r;
  ab_test_env_open (&env, AB_TEST_HBASE);
  ab_test_create_table (&env, "likes", LIKES_DESC);
  g_autoptr (GArray) res = ab_test_mutate (&env, "likes", "likes", ALICE_PHONE);
  ck_assert_uint_eq (res->len, 1);
  table = table_of (ab_engine_store (env.engine));
  r = raw_connect ();
  /* docs/storage-format.md §9, rows of likes.likes for Alice -> Phone */
  assert_raw (r, table, "be167e23 34416c69636500 2b8c5a4378 297d 3450686f6e6500",
              "2981 2c8000018bcfe56800 2bd5673825 2c8000018bcfe56800 2c8000018bcfe56800 "
              "2b9241de31 2c8000018bcfe56800 2c8000018bcfe56800");
  assert_raw (r, table, "b173f9e0 34416c69636500 2b8c5a4378 297e 2982", "0000000000000001");
  assert_raw (r, table, "d6beb071 3450686f6e6500 2b8c5a4378 297e 2983", "0000000000000001");
  assert_raw (r, table,
              "ae88fb19 34416c69636500 2b8c5a4378 297c 2982 2b69b733c7 d37ffffe74301a97ff "
              "3450686f6e6500",
              "2c8000018bcfe56800 2bd5673825 2c8000018bcfe56800");
  assert_raw (r, table,
              "d4368e6a 3450686f6e6500 2b8c5a4378 297c 2983 2b69b733c7 d37ffffe74301a97ff "
              "34416c69636500",
              "2c8000018bcfe56800 2bd5673825 2c8000018bcfe56800");
  /* the lock row was released */
  assert_raw (r, table, "74ccbcc5 34416c69636500 2b8c5a4378 297f 3450686f6e6500", NULL);
  ab_hb_raw_close (r);
  ab_test_env_close (&env);
}
END_TEST

static const gchar *KINDS_DESC
    = "{\"table\":\"kinds\",\"storage\":\"datastore://likes/kinds\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"},"
      "{\"name\":\"kind\",\"type\":\"string\",\"nullable\":false,\"comment\":\"\"}],"
      "\"indexes\":[],"
      "\"groups\":[{\"group\":\"by_kind\",\"type\":\"COUNT\",\"directionType\":\"OUT\","
      "\"fields\":[{\"name\":\"kind\"}]}],"
      "\"caches\":[{\"cache\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}]"
      ","
      "\"limit\":10}]}}";

static GByteArray *
alice_row (const gchar *table, AbRowType type, const gchar *name)
{
  AbValue alice = { .kind = AB_VALUE_STRING, .u.s = { (gchar *) "Alice", 5 } };
  GError *error = NULL;
  GByteArray *row = ab_codec_wide_key (&alice, AB_DIR_OUT, ab_codec_table_code ("likes", table),
                                       type, ab_codec_code (name), &error);
  ck_assert_ptr_nonnull (row);
  return row;
}

/* Asserts f:qual of row holds want (8-byte BE count) or, want < 0, a value
 * starting with prefix; returns how many cells the row has. */
static guint
assert_cell (AbHbRaw *r, const gchar *table, const GByteArray *row, const GByteArray *qual,
             gint64 want, const GByteArray *prefix)
{
  g_autoptr (GByteArray) got = NULL;
  GError *error = NULL;
  guint n = 0;
  ck_assert_msg (
      ab_hb_raw_get_cell (r, table, row->data, row->len, qual->data, qual->len, &got, &n, &error),
      "raw get: %s", error ? error->message : "");
  ck_assert_msg (got != NULL, "no cell under the qualifier");
  if (want >= 0)
    {
      guint64 be = GUINT64_TO_BE ((guint64) want);
      ck_assert_uint_eq (got->len, 8);
      ck_assert_mem_eq (got->data, &be, 8);
    }
  else
    {
      ck_assert_uint_ge (got->len, prefix->len);
      ck_assert_mem_eq (got->data, prefix->data, prefix->len);
    }
  return n;
}

/* Group and Cache rows are wide rows: one HBase row per (source, direction,
 * group/cache) and one cell per qualifier in family f (docs/storage-format.md §4-§6),
 * so an upstream table carries the same cells; nothing is stored under the
 * composite row || qualifier as a row of its own. */
START_TEST (test_wide_rows_are_qualified_cells)
{
  AbTestEnv env;
  GError *error = NULL;
  ab_test_env_open (&env, AB_TEST_HBASE);
  ab_test_create_table (&env, "likes", KINDS_DESC);
  const gchar *targets[] = { "Phone", "Laptop", "Book" }, *kinds[] = { "x", "x", "y" };
  for (guint i = 0; i < 3; i++)
    {
      g_autofree gchar *body = g_strdup_printf (
          "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"source\":\"Alice\","
          "\"target\":\"%s\",\"properties\":{\"created_at\":%u,\"kind\":\"%s\"}}}]}",
          100 + i, targets[i], 10 + i, kinds[i]);
      g_autoptr (GArray) res = ab_test_mutate (&env, "likes", "kinds", body);
      ck_assert_uint_eq (res->len, 1);
    }
  g_autofree gchar *table = table_of (ab_engine_store (env.engine));
  AbHbRaw *r = raw_connect ();

  /* Group: qualifier encD(kind) -> count. */
  g_autoptr (GByteArray) group = alice_row ("kinds", AB_ROW_GROUP, "by_kind");
  g_autoptr (GByteArray) qx = g_byte_array_new (), qy = g_byte_array_new ();
  ck_assert (ab_codec_put_string (qx, "x", 1, AB_ORDER_DESC, &error));
  ck_assert (ab_codec_put_string (qy, "y", 1, AB_ORDER_DESC, &error));
  ck_assert_uint_eq (assert_cell (r, table, group, qx, 2, NULL), 2);
  assert_cell (r, table, group, qy, 1, NULL);

  /* Cache: qualifier encD(created_at) || enc(target) -> version || props. */
  g_autoptr (GByteArray) cache = alice_row ("kinds", AB_ROW_CACHE, "recent");
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr (GByteArray) q = g_byte_array_new (), v = g_byte_array_new ();
      ab_codec_put_int64 (q, 10 + i, AB_ORDER_DESC);
      ck_assert (ab_codec_put_string (q, targets[i], strlen (targets[i]), AB_ORDER_ASC, &error));
      ab_codec_put_int64 (v, 100 + i, AB_ORDER_ASC);
      ck_assert_uint_eq (assert_cell (r, table, cache, q, -1, v), 3);
    }

  /* The composite key is not a row. */
  g_autoptr (GByteArray) composite = g_byte_array_new ();
  g_byte_array_append (composite, group->data, group->len);
  g_byte_array_append (composite, qx->data, qx->len);
  g_autoptr (GByteArray) none = NULL;
  guint n = 1;
  ck_assert (ab_hb_raw_get_cell (r, table, composite->data, composite->len, qx->data, 0, &none, &n,
                                 &error));
  ck_assert_uint_eq (n, 0);
  ab_hb_raw_close (r);
  ab_test_env_close (&env);
}
END_TEST

static GBytes *
cell_key (const GByteArray *row, const gchar *qual)
{
  GByteArray *k = g_byte_array_new ();
  g_byte_array_append (k, row->data, row->len);
  g_byte_array_append (k, (const guint8 *) qual, strlen (qual));
  return g_byte_array_free_to_bytes (k);
}

/* Scans bounded inside one wide row (read on the server with a qualifier
 * filter) answer exactly the cells in range, quotes in qualifiers too. */
START_TEST (test_wide_row_ranges)
{
  g_autofree gchar *uri = ab_hbase_test_uri ("widescan", 1);
  g_autoptr (AbStore) s = st_open (uri);
  g_autoptr (GByteArray) row = alice_row ("kinds", AB_ROW_CACHE, "recent");
  g_autoptr (GByteArray) other = alice_row ("kinds", AB_ROW_CACHE, "other");
  static const gchar *quals[] = { "a", "b'", "b''c", "c", "d" };
  GError *error = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (quals); i++)
    {
      g_autoptr (GBytes) k = cell_key (row, quals[i]), o = cell_key (other, quals[i]);
      st_put (s, g_bytes_get_data (k, NULL), g_bytes_get_size (k), ST_S ("v"));
      st_put (s, g_bytes_get_data (o, NULL), g_bytes_get_size (o), ST_S ("w"));
    }
  struct {
    const gchar *from;
    gboolean fi;
    const gchar *to;
    gboolean ti;
    guint limit;
    const gchar *want;
  } cases[] = {
    { "b'", TRUE, "c", TRUE, 0, "b' b''c c" }, { "b'", FALSE, "c", FALSE, 0, "b''c" },
    { "", TRUE, "b''c", FALSE, 0, "a b'" },    { "a", TRUE, "d", TRUE, 2, "a b'" },
    { "c", FALSE, "z", TRUE, 0, "d" },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (GBytes) from = cell_key (row, cases[c].from), to = cell_key (row, cases[c].to);
      AbScanRange r = { g_bytes_get_data (from, NULL),
                        g_bytes_get_size (from),
                        cases[c].fi,
                        g_bytes_get_data (to, NULL),
                        g_bytes_get_size (to),
                        cases[c].ti,
                        cases[c].limit };
      g_autoptr (GArray) out = ab_kv_array_new ();
      ck_assert_msg (ab_store_scan (s, &r, out, &error), "case %u: %s", c,
                     error ? error->message : "");
      GString *got = g_string_new (NULL);
      for (guint i = 0; i < out->len; i++)
        {
          gsize klen;
          const guint8 *k = g_bytes_get_data (g_array_index (out, AbKv, i).key, &klen);
          ck_assert_uint_gt (klen, row->len);
          ck_assert_mem_eq (k, row->data, row->len);
          g_string_append_printf (got, "%s%.*s", i > 0 ? " " : "", (int) (klen - row->len),
                                  k + row->len);
        }
      ck_assert_msg (strcmp (got->str, cases[c].want) == 0, "case %u: got '%s', want '%s'", c,
                     got->str, cases[c].want);
      g_string_free (got, TRUE);
    }
}
END_TEST

/* Snapshot scans (copy, backup, the verifier) decode getScannerResults by
 * hand (src/store/hbase/hbase_decode.c); they must see what ab_store_scan, through
 * the generated reader, sees: narrow rows over more than one page, wide rows
 * cell by cell, bounds inside a wide row, limits. */
static void
assert_same_kvs (GArray *a, GArray *b, const gchar *what)
{
  ck_assert_msg (a->len == b->len, "%s: %u rows by snapshot, %u by scan", what, a->len, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      AbKv *x = &g_array_index (a, AbKv, i), *y = &g_array_index (b, AbKv, i);
      ck_assert_msg (g_bytes_equal (x->key, y->key) && g_bytes_equal (x->value, y->value),
                     "%s: row %u differs", what, i);
    }
}

START_TEST (test_snapshot_scan_matches_scan)
{
  g_autofree gchar *uri = ab_hbase_test_uri ("snapscan", 4);
  g_autoptr (AbStore) s = st_open (uri);
  g_autoptr (GByteArray) row = alice_row ("kinds", AB_ROW_CACHE, "recent");
  g_autoptr (AbBatch) b = ab_batch_new ();
  GError *error = NULL;
  GRand *rnd = g_rand_new_with_seed (19);
  for (guint i = 0; i < 6500; i++)
    {
      guint8 k[12], v[40];
      for (guint j = 0; j < sizeof k; j++)
        k[j] = (guint8) g_rand_int (rnd);
      k[0] = (guint8) (i * 256 / 6500); /* every first byte, like salts */
      k[4] = 0x7f;                      /* not a wide row's key */
      gsize vl = g_rand_int_range (rnd, 0, sizeof v);
      for (guint j = 0; j < vl; j++)
        v[j] = (guint8) g_rand_int (rnd);
      ab_batch_put (b, k, sizeof k, v, vl);
    }
  static const gchar *quals[] = { "a", "b'", "b''c", "c", "d" };
  for (guint i = 0; i < G_N_ELEMENTS (quals); i++)
    {
      g_autoptr (GBytes) k = cell_key (row, quals[i]);
      ab_batch_put (b, g_bytes_get_data (k, NULL), g_bytes_get_size (k), ST_S (quals[i]));
    }
  ck_assert_msg (ab_store_batch (s, b, &error), "batch: %s", error ? error->message : "");
  g_rand_free (rnd);
  g_autoptr (GBytes) from = cell_key (row, "b'"), to = cell_key (row, "c");
  guint8 lo = 0x40, hi = 0xc0;
  AbScanRange cases[] = {
    { 0 },
    { .limit = 7 },
    { .start = &lo, .start_len = 1, .start_inclusive = TRUE, .stop = &hi, .stop_len = 1 },
    { g_bytes_get_data (from, NULL), g_bytes_get_size (from), FALSE, g_bytes_get_data (to, NULL),
      g_bytes_get_size (to), TRUE, 0 },
    { .start = g_bytes_get_data (from, NULL),
      .start_len = g_bytes_get_size (from),
      .start_inclusive = TRUE,
      .limit = 5100 },
  };
  g_autoptr (AbSnapshot) snap = ab_store_snapshot_open (s, &error);
  ck_assert_msg (snap != NULL, "snapshot: %s", error ? error->message : "");
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (GArray) want = ab_kv_array_new (), got = ab_kv_array_new ();
      g_autofree gchar *what = g_strdup_printf ("case %u", c);
      ck_assert_msg (ab_store_scan (s, &cases[c], want, &error), "%s: %s", what,
                     error ? error->message : "");
      ck_assert_msg (ab_snapshot_scan (snap, &cases[c], ab_kv_array_append_visit, got, &error),
                     "%s: %s", what, error ? error->message : "");
      ck_assert_uint_gt (want->len, 0);
      assert_same_kvs (got, want, what);
    }
}
END_TEST

/* 5,000 edges in one request: the batch is split under the frame budget. */
START_TEST (test_five_thousand_items)
{
  AbTestEnv env;
  AbStoreRpcCount before[AB_STORE_RPC_MAX], after[AB_STORE_RPC_MAX];
  g_autoptr (GString) body = g_string_new ("{\"mutations\":[");
  guint n, puts = 0;
  AbEngineConfig cfg;
  g_autofree gchar *uri = ab_test_store_uri (AB_TEST_HBASE, &env.tmpdir);
  GError *error = NULL;
  ab_engine_config_init (&cfg);
  cfg.max_mutations = 5000; /* the default caps a request at 1,000 items */
  /* 5,000 keys under ASan on a loaded 2-core machine can outlast the default
   * 4 s write budget (their keys then answer ERROR): this suite counts calls. */
  cfg.write_budget_ms = 0;
  env.engine = ab_engine_open (uri, &cfg, &error);
  ck_assert_msg (env.engine != NULL, "open: %s", error ? error->message : "");
  ab_test_create_table (&env, "likes", LIKES_DESC);
  for (guint i = 0; i < 5000; i++)
    g_string_append_printf (body,
                            "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"source\":\"u\","
                            "\"target\":\"item-%05u\",\"properties\":{\"created_at\":%u}}}",
                            i ? "," : "", 1000 + i, i, 1000 + i);
  g_string_append (body, "]}");
  n = ab_store_rpc_counts (env.engine->store, before, AB_STORE_RPC_MAX);
  g_autoptr (GArray) res = ab_test_mutate (&env, "likes", "likes", body->str);
  ab_store_rpc_counts (env.engine->store, after, AB_STORE_RPC_MAX);
  ck_assert_uint_eq (res->len, 5000);
  for (guint i = 0; i < res->len; i++)
    ck_assert_msg (g_array_index (res, AbKeyResult, i).status == AB_STATUS_CREATED, "item %u: %s",
                   i, g_array_index (res, AbKeyResult, i).message);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "u", AB_QDIR_OUT), 5000);
  for (guint i = 0; i < n; i++)
    if (strcmp (after[i].name, "putMultiple") == 0)
      puts = (guint) (after[i].calls - before[i].calls);
  ck_assert_msg (puts >= 2, "%u putMultiple calls for 15,000 rows", puts);
  ab_test_env_close (&env);
}
END_TEST

/* A delete must not hide a put made later in the same millisecond (the
 * table's NEW_VERSION_BEHAVIOR), or a released lock could not be retaken. */
START_TEST (test_delete_then_put_same_millisecond)
{
  g_autofree gchar *uri = ab_hbase_test_uri ("nvb", 1);
  g_autoptr (AbStore) s = st_open (uri);
  GError *error = NULL;
  for (guint i = 0; i < 200; i++)
    {
      gchar v[16];
      gboolean applied = FALSE;
      g_snprintf (v, sizeof v, "v%u", i);
      st_put (s, ST_S ("k"), ST_S ("old"));
      ck_assert (ab_store_delete (s, ST_S ("k"), &error));
      st_put (s, ST_S ("k"), ST_S (v));
      st_assert_value (s, ST_S ("k"), ST_S (v));
      ck_assert (ab_store_check_and_put (s, ST_S ("lock"), NULL, 0, ST_S (v), &applied, &error));
      ck_assert_msg (applied, "lock not taken in round %u", i);
      ck_assert (ab_store_check_and_delete (s, ST_S ("lock"), ST_S (v), &applied, &error));
      ck_assert (applied);
    }
  ck_assert_ptr_null (error);
}
END_TEST

static AbStoreRpcCount
rpc_of (AbStore *s, const gchar *name)
{
  AbStoreRpcCount c[AB_STORE_RPC_MAX];
  guint n = ab_store_rpc_counts (s, c, AB_STORE_RPC_MAX);
  for (guint i = 0; i < n; i++)
    if (strcmp (c[i].name, name) == 0)
      return c[i];
  return (AbStoreRpcCount){ name, 0, 0, 0 };
}

static guint64
calls_of (AbStore *s, const gchar *name)
{
  return rpc_of (s, name).calls;
}

/* One call per verb when under the limits; puts and deletes of one batch
 * share a call each, increments go one per key. */
START_TEST (test_call_counts)
{
  g_autofree gchar *uri = ab_hbase_test_uri ("calls", 1);
  g_autoptr (AbStore) s = st_open (uri);
  g_autoptr (AbBatch) b = ab_batch_new ();
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GArray) rows = ab_kv_array_new ();
  AbScanRange all = { .limit = 5 };
  GError *error = NULL;
  for (guint i = 0; i < 100; i++)
    {
      gchar k[8];
      g_snprintf (k, sizeof k, "k%03u", i);
      ab_batch_put (b, ST_S (k), ST_S ("v"));
      ab_batch_delete (b, ST_S (k)); /* folded: one delete per key */
      ab_batch_put (b, ST_S (k), ST_S ("w"));
      g_ptr_array_add (keys, g_bytes_new (k, strlen (k)));
    }
  ab_batch_increment (b, ST_S ("c1"), 1);
  ab_batch_increment (b, ST_S ("c2"), 1);
  ab_batch_increment (b, ST_S ("c2"), -1); /* nets to zero: no call */
  ck_assert (ab_store_ping (s, &error));
  ck_assert (ab_store_batch (s, b, &error));
  ck_assert_uint_eq (calls_of (s, "putMultiple"), 1);
  ck_assert_uint_eq (calls_of (s, "deleteMultiple"), 0);
  ck_assert_uint_eq (calls_of (s, "increment"), 1);
  ck_assert (ab_store_multi_get (s, keys, rows, &error));
  ck_assert_uint_eq (calls_of (s, "getMultiple"), 1);
  ck_assert_uint_eq (rows->len, 100);
  /* the time spent is counted per method too */
  ck_assert_uint_gt (rpc_of (s, "putMultiple").micros, 0);
  ck_assert_uint_gt (rpc_of (s, "getMultiple").micros, 0);
  /* one key (among empty ones) is a plain get */
  g_autoptr (GPtrArray) one = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_ptr_array_add (one, g_bytes_new ("", 0));
  g_ptr_array_add (one, g_bytes_new ("k007", 4));
  g_array_set_size (rows, 0);
  guint64 gets = calls_of (s, "get");
  ck_assert (ab_store_multi_get (s, one, rows, &error));
  ck_assert_uint_eq (calls_of (s, "getMultiple"), 1);
  ck_assert_uint_eq (calls_of (s, "get"), gets + 1);
  ck_assert_uint_eq (rows->len, 2);
  ck_assert_ptr_null (g_array_index (rows, AbKv, 0).value);
  ck_assert_uint_eq (g_bytes_get_size (g_array_index (rows, AbKv, 1).value), 1);
  g_array_set_size (rows, 0);
  ck_assert (ab_store_scan (s, &all, rows, &error));
  ck_assert_uint_eq (rows->len, 5);
  ck_assert_uint_eq (calls_of (s, "getScannerResults"), 1);
  st_assert_value (s, ST_S ("k042"), ST_S ("w"));
  ck_assert_ptr_null (error);
}
END_TEST

static gint64
counter_of (AbStore *s, const gchar *key)
{
  g_autoptr (GBytes) v = NULL;
  GError *error = NULL;
  ck_assert (ab_store_get (s, ST_S (key), &v, &error));
  ck_assert_msg (v != NULL && g_bytes_get_size (v) == 8, "%s is not a counter", key);
  return (gint64) GUINT64_FROM_BE (*(const guint64 *) g_bytes_get_data (v, NULL));
}

/* One shared write run of four batches (§3.9): increments of one row from
 * two batches are summed into one call; a batch whose increment meets
 * another batch's non-counter put fails alone with WIDTH, and none of its
 * rows is written; the others are written. */
START_TEST (test_shared_run_sums_and_blames)
{
  g_autofree gchar *uri = ab_hbase_test_uri ("share", 1);
  g_autoptr (AbStore) s = st_open (uri);
  g_autoptr (AbBatch) a = ab_batch_new (), b = ab_batch_new ();
  g_autoptr (AbBatch) c = ab_batch_new (), d = ab_batch_new ();
  GError *error = NULL, *errors[4] = { NULL };
  ck_assert (ab_store_ping (s, &error));
  ab_batch_put (a, ST_S ("text"), ST_S ("not a counter"));
  ab_batch_increment (a, ST_S ("count"), 2);
  ab_batch_increment (b, ST_S ("text"), 1); /* after a's put: WIDTH */
  ab_batch_put (b, ST_S ("b-row"), ST_S ("b"));
  ab_batch_increment (c, ST_S ("count"), 3);
  ab_batch_put (c, ST_S ("c-row"), ST_S ("c"));
  ab_batch_delete (d, ST_S ("c-row")); /* after c's put: the row ends deleted */
  ab_batch_increment (d, ST_S ("count"), -1);
  gpointer ops[] = { a, b, c, d };
  guint64 incs = calls_of (s, "increment"), puts = calls_of (s, "putMultiple");
  ab_hb_batch_run ((AbHbStore *) s, ops, 4, errors);
  ck_assert_ptr_null (errors[0]);
  ck_assert_msg (errors[1] != NULL && errors[1]->code == AB_STORE_ERROR_WIDTH, "b: %s",
                 errors[1] ? errors[1]->message : "no error");
  ck_assert_ptr_null (errors[2]);
  ck_assert_ptr_null (errors[3]);
  g_clear_error (&errors[1]);
  ck_assert_uint_eq (calls_of (s, "increment"), incs + 1); /* 2 + 3 - 1 in one call */
  ck_assert_uint_eq (calls_of (s, "putMultiple"), puts);   /* one put: a's text */
  ck_assert_int_eq (counter_of (s, "count"), 4);
  st_assert_value (s, ST_S ("text"), ST_S ("not a counter"));
  st_assert_value (s, ST_S ("b-row"), NULL, 0);
  st_assert_value (s, ST_S ("c-row"), NULL, 0);
}
END_TEST

typedef struct {
  AbStore *s;
  guint id;
} Writer;

#define SHARE_THREADS 16
#define SHARE_ROUNDS 30

/* Each round: a batch of its own row and a counter every thread adds to,
 * then a multi_get of its rows so far; every answer must be its own. */
static gpointer
share_writer (gpointer data)
{
  Writer *w = data;
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  for (guint r = 0; r < SHARE_ROUNDS; r++)
    {
      g_autoptr (AbBatch) b = ab_batch_new ();
      g_autoptr (GArray) rows = ab_kv_array_new ();
      g_autofree gchar *k = g_strdup_printf ("w%02u-%02u", w->id, r);
      GError *error = NULL;
      ab_batch_put (b, ST_S (k), ST_S (k));
      ab_batch_increment (b, ST_S ("all"), 1);
      ck_assert_msg (ab_store_batch (w->s, b, &error), "batch: %s", error ? error->message : "");
      g_ptr_array_add (keys, g_bytes_new (k, strlen (k)));
      ck_assert (ab_store_multi_get_shared (w->s, keys, rows, &error));
      ck_assert_uint_eq (rows->len, keys->len);
      for (guint i = 0; i < rows->len; i++)
        {
          AbKv *kv = &g_array_index (rows, AbKv, i);
          ck_assert (g_bytes_equal (kv->key, keys->pdata[i]));
          ck_assert_msg (kv->value != NULL && g_bytes_equal (kv->value, kv->key),
                         "thread %u read a wrong row %u", w->id, i);
        }
    }
  return NULL;
}

static guint64
gauge_of (AbStore *s, const gchar *name)
{
  AbStoreGauge g[AB_STORE_GAUGE_MAX];
  guint n = ab_store_gauges (s, g, AB_STORE_GAUGE_MAX);
  for (guint i = 0; i < n; i++)
    if (strcmp (g[i].name, name) == 0)
      return (guint64) g[i].value;
  ck_abort_msg ("no gauge %s", name);
  return 0;
}

/* Sixteen threads writing and reading (as mutations read) at once: every
 * caller gets its own rows back, the shared counter is exact, and calls were
 * shared (more callers than runs: with one run in flight, the others queue
 * behind it); a plain multi_get (a query's) does not go through the share. */
START_TEST (test_shared_calls_under_load)
{
  g_autofree gchar *uri = ab_hbase_test_uri ("shareload", 1);
  g_autoptr (AbStore) s = st_open (uri);
  Writer w[SHARE_THREADS];
  GThread *t[SHARE_THREADS];
  GError *error = NULL;
  ck_assert (ab_store_ping (s, &error));
  for (guint i = 0; i < SHARE_THREADS; i++)
    {
      w[i] = (Writer){ s, i };
      t[i] = g_thread_new ("writer", share_writer, &w[i]);
    }
  for (guint i = 0; i < SHARE_THREADS; i++)
    g_thread_join (t[i]);
  ck_assert_int_eq (counter_of (s, "all"), SHARE_THREADS * SHARE_ROUNDS);
  guint64 writes = gauge_of (s, "actionbase_store_hbase_shared_writes_total");
  guint64 writers = gauge_of (s, "actionbase_store_hbase_shared_write_callers_total");
  guint64 reads = gauge_of (s, "actionbase_store_hbase_shared_reads_total");
  guint64 readers = gauge_of (s, "actionbase_store_hbase_shared_read_callers_total");
  ck_assert_uint_eq (writers, SHARE_THREADS * SHARE_ROUNDS);
  ck_assert_uint_eq (readers, SHARE_THREADS * SHARE_ROUNDS);
  ck_assert_msg (writes < writers && reads < readers,
                 "no call was shared: %" G_GUINT64_FORMAT " write runs, %" G_GUINT64_FORMAT
                 " read runs for %u callers each",
                 writes, reads, SHARE_THREADS * SHARE_ROUNDS);
  /* the increments of one run are summed: fewer increment calls than adds */
  ck_assert_uint_lt (calls_of (s, "increment"), SHARE_THREADS * SHARE_ROUNDS);
  /* a query's read is never queued behind others: not through the share */
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GArray) rows = ab_kv_array_new ();
  g_ptr_array_add (keys, g_bytes_new ("all", 3));
  g_ptr_array_add (keys, g_bytes_new ("w00-00", 6));
  ck_assert (ab_store_multi_get (s, keys, rows, &error));
  ck_assert_uint_eq (rows->len, 2);
  ck_assert_uint_eq (gauge_of (s, "actionbase_store_hbase_shared_read_callers_total"), readers);
}
END_TEST

/* share=0: every caller makes its own calls. */
START_TEST (test_share_off)
{
  g_autofree gchar *base = ab_hbase_test_uri ("shareoff", 1);
  g_autofree gchar *uri = g_strconcat (base, "&share=0", NULL);
  g_autoptr (AbStore) s = st_open (uri);
  g_autoptr (AbBatch) b = ab_batch_new ();
  GError *error = NULL;
  ab_batch_increment (b, ST_S ("n"), 1);
  ck_assert (ab_store_batch (s, b, &error));
  ck_assert (ab_store_batch (s, b, &error));
  ck_assert_int_eq (counter_of (s, "n"), 2);
  ck_assert_uint_eq (gauge_of (s, "actionbase_store_hbase_shared_writes_total"), 2);
  ck_assert_uint_eq (calls_of (s, "increment"), 2);
}
END_TEST

/* Opening never connects; a down gateway shows as UNAVAILABLE with a reason. */
START_TEST (test_gateway_down)
{
  g_autoptr (AbStore) s = st_open ("hbase://127.0.0.1:1/abtest?table=down&retries=1");
  g_autoptr (GBytes) v = NULL;
  GError *error = NULL;
  AbTestEnv env = { 0 };
  AbEngineConfig cfg;
  ck_assert (!ab_store_ping (s, &error));
  ck_assert_int_eq (error->code, AB_STORE_ERROR_UNAVAILABLE);
  ck_assert_msg (strstr (error->message, "unreachable") != NULL, "%s", error->message);
  g_clear_error (&error);
  ck_assert (!ab_store_get (s, ST_S ("k"), &v, &error));
  ck_assert_int_eq (error->code, AB_STORE_ERROR_UNAVAILABLE);
  g_clear_error (&error);
  /* the engine either opens (and reports the store down later) or says why */
  ab_engine_config_init (&cfg);
  env.engine = ab_engine_open ("hbase://127.0.0.1:1/abtest?table=down&retries=0", &cfg, &error);
  if (env.engine == NULL)
    ck_assert_msg (strstr (error->message, "unreachable") != NULL, "%s", error->message);
  else
    ab_engine_close (env.engine);
  g_clear_error (&error);
}
END_TEST

START_TEST (test_bad_uris)
{
  static const gchar *bad[] = {
    "hbase://",
    "hbase://h:0",
    "hbase://h:70000",
    "hbase://h/bad-ns",
    "hbase://h/ns?table=",
    "hbase://h/ns?transport=udp",
    "hbase://h/ns?pool=0",
    "hbase://h/ns?regions=300",
    "hbase://h/ns?what=1",
    "hbase://h/ns?compression=brotli",
    "hbase://h/ns?share=65",
    "hbase://h/ns?share_wait_us=100001",
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError *error = NULL;
      AbStore *s = ab_store_open (bad[i], &error);
      ck_assert_msg (s == NULL, "%s opened", bad[i]);
      ck_assert_int_eq (error->code, AB_STORE_ERROR_URI);
      g_clear_error (&error);
    }
}
END_TEST

int
main (void)
{
  Suite *suite;
  TCase *tc;
  SRunner *sr;
  int failed;
  if (g_getenv ("AB_HBASE_ADDR") == NULL)
    {
      g_printerr ("SKIP: AB_HBASE_ADDR is not set (no HBase gateway in this run)\n");
      return 77;
    }
  signal (SIGPIPE, SIG_IGN); /* raw clients too: a gateway hanging up fails a call */
  suite = suite_create ("hbase");
  tc = tcase_create ("hbase");
  tcase_add_test (tc, test_rows_match_encoding_vectors);
  tcase_add_test (tc, test_wide_rows_are_qualified_cells);
  tcase_add_test (tc, test_wide_row_ranges);
  tcase_add_test (tc, test_snapshot_scan_matches_scan);
  tcase_add_test (tc, test_five_thousand_items);
  tcase_add_test (tc, test_delete_then_put_same_millisecond);
  tcase_add_test (tc, test_call_counts);
  tcase_add_test (tc, test_shared_run_sums_and_blames);
  tcase_add_test (tc, test_shared_calls_under_load);
  tcase_add_test (tc, test_share_off);
  tcase_add_test (tc, test_gateway_down);
  tcase_add_test (tc, test_bad_uris);
  tcase_set_timeout (tc, 180);
  suite_add_tcase (suite, tc);
  sr = srunner_create (suite);
  st_root_init ();
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  st_root_cleanup ();
  return failed == 0 ? 0 : 1;
}
