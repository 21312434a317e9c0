/* Groups on every store: a day-bucketed COUNT group and a SUM group over
 * 1,000 random events (out-of-order versions, updates, deletes) checked
 * against a reference folded from the final states, ranges, `__count__`,
 * schema rules, and TTL expiry with the write-path reset and the sweep. */
#include <string.h>
#include "engine_fixture.h"
#include "engine/plan/plan.h"
#include "codec/bytes.h"
#include "ab_check.h"

#define DAY_MS 86400000LL
#define T0 1735657200000LL /* 2025-01-01 00:00 +09:00 */

static const gchar *LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://likes/likes\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"},"
      "{\"name\":\"weight\",\"type\":\"int\",\"nullable\":true,\"comment\":\"\"},"
      "{\"name\":\"kind\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[],"
      "\"groups\":[{\"group\":\"by_day\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"created_at\","
      "\"bucket\":{\"type\":\"date\",\"unit\":\"day\",\"timezone\":\"+09:00\",\"format\":"
      "\"yyyyMMdd\"}}]},"
      "{\"group\":\"weight_by_kind\",\"type\":\"SUM\",\"valueField\":\"weight\",\"directionType\":"
      "\"OUT\","
      "\"fields\":[{\"name\":\"kind\"}]},"
      "{\"group\":\"recent\",\"type\":\"COUNT\",\"directionType\":\"OUT\",\"ttl\":1000,\"fields\":["
      "{\"name\":\"kind\"}]}]}}";

static AbTestEnv env;

#define N_SRC 12
#define N_TGT 20

static gchar *
src_name (guint i)
{
  return g_strdup_printf ("u%02u", i);
}

static gchar *
tgt_name (guint i)
{
  return g_strdup_printf ("i%02u", i);
}

static void
append_event (GString *b, GRand *r, gboolean first)
{
  static const gchar *types[] = { "INSERT", "INSERT", "UPDATE", "DELETE" };
  static const gchar *kinds[] = { "a", "b", "c" };
  g_autofree gchar *s = src_name (g_rand_int_range (r, 0, N_SRC));
  g_autofree gchar *t = tgt_name (g_rand_int_range (r, 0, N_TGT));
  gint64 version = 1000 + g_rand_int_range (r, 0, 5000); /* out of order */
  gint64 created = T0 + g_rand_int_range (r, 0, 10) * DAY_MS + g_rand_int_range (r, 0, DAY_MS);
  g_string_append_printf (b,
                          "%s{\"type\":\"%s\",\"edge\":{\"version\":%" G_GINT64_FORMAT
                          ",\"source\":\"%s\",\"target\":\"%s\",\"properties\":{"
                          "\"created_at\":%" G_GINT64_FORMAT,
                          first ? "" : ",", types[g_rand_int_range (r, 0, 4)], version, s, t,
                          created);
  if (g_rand_int_range (r, 0, 4) > 0)
    g_string_append_printf (b, ",\"weight\":%d", g_rand_int_range (r, -5, 20));
  if (g_rand_int_range (r, 0, 4) > 0)
    g_string_append_printf (b, ",\"kind\":\"%s\"", kinds[g_rand_int_range (r, 0, 3)]);
  g_string_append (b, "}}}");
}

/* 1,000 events in requests of 1..20 (several events of one key fold). */
static void
random_events (guint seed)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (seed);
  guint done = 0;
  while (done < 1000)
    {
      guint n = MIN ((guint) g_rand_int_range (r, 1, 21), 1000 - done);
      g_autoptr (GString) b = g_string_new ("{\"mutations\":[");
      for (guint i = 0; i < n; i++)
        append_event (b, r, i == 0);
      g_string_append (b, "]}");
      g_autoptr (GArray) res = ab_test_mutate (&env, "likes", "likes", b->str);
      done += n;
    }
}

static const AbValue *
prop (const AbEdgeOut *e, const gchar *name)
{
  for (guint i = 0; i < e->n_props; i++)
    if (g_str_equal (e->names[i], name))
      return &e->values[i];
  return NULL;
}

static gchar *
day_of (gint64 ms)
{
  g_autoptr (GTimeZone) tz = g_time_zone_new_identifier ("+09:00");
  g_autoptr (GDateTime) utc = g_date_time_new_from_unix_utc (ms / 1000);
  g_autoptr (GDateTime) local = g_date_time_to_timezone (utc, tz);
  return g_date_time_format (local, "%Y%m%d");
}

static void
add_ref (GHashTable *ref, const gchar *start, const gchar *dir, const gchar *key, gint64 v)
{
  gchar *k = g_strdup_printf ("%s|%s|%s", start, dir, key);
  gint64 *slot = g_hash_table_lookup (ref, k);
  if (slot == NULL)
    {
      slot = g_new0 (gint64, 1);
      g_hash_table_insert (ref, k, slot);
    }
  else
    g_free (k);
  *slot += v;
}

/* Reference cells from the final active states (read back with get). */
static GHashTable *
reference (void)
{
  GHashTable *ref = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint s = 0; s < N_SRC; s++)
    {
      g_autofree gchar *src = src_name (s);
      g_autoptr (GPtrArray) ss = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GPtrArray) ts = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (ss, g_strdup (src));
      for (guint t = 0; t < N_TGT; t++)
        g_ptr_array_add (ts, tgt_name (t));
      g_autoptr (GError) error = NULL;
      g_autoptr (AbEdgeFrame) f
          = ab_engine_get (env.engine, "likes", "likes", ss, ts, NULL, &error);
      ck_assert_msg (f != NULL, "get: %s", error ? error->message : "");
      for (guint i = 0; i < f->edges->len; i++)
        {
          const AbEdgeOut *e = f->edges->pdata[i];
          g_autofree gchar *day = day_of (prop (e, "created_at")->u.i);
          add_ref (ref, src, "OUT", day, 1);
          add_ref (ref, e->target.u.s.data, "IN", day, 1);
          const AbValue *w = prop (e, "weight"), *k = prop (e, "kind");
          if (w != NULL)
            add_ref (ref, src, "SUM", k != NULL ? k->u.s.data : "null", w->u.i);
        }
    }
  return ref;
}

static AbAggResult *
agg (const gchar *group, const gchar *start, AbQueryDirection dir, const gchar *ranges,
     GError **error)
{
  AbAggParams p
      = { .group = group, .start = start, .direction = dir, .ranges = ranges, .limit = -1 };
  return ab_engine_agg (env.engine, "likes", "likes", &p, error);
}

static gchar *
key_text (const AbAggResult *r, guint c)
{
  if (r->n_fields == 0)
    return g_strdup ("");
  return ab_value_to_string (&g_array_index (r->keys, AbValue, c * r->n_fields));
}

/* The agg of one (group, start, dir) equals the reference's nonzero cells,
 * in qualifier (descending) order. */
static void
check_agg (GHashTable *ref, const gchar *group, const gchar *start, AbQueryDirection dir,
           const gchar *tag)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AbAggResult) r = agg (group, start, dir, NULL, &error);
  ck_assert_msg (r != NULL, "agg: %s", error ? error->message : "");
  ck_assert (!r->has_next);
  guint expected = 0;
  g_autofree gchar *prefix = g_strdup_printf ("%s|%s|", start, tag);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, ref);
  while (g_hash_table_iter_next (&it, &k, &v))
    expected += g_str_has_prefix (k, prefix) && *(gint64 *) v != 0;
  ck_assert_uint_eq (r->values->len, expected);
  g_autofree gchar *prev = NULL;
  for (guint c = 0; c < r->values->len; c++)
    {
      g_autofree gchar *kt = key_text (r, c);
      g_autofree gchar *rk = g_strconcat (prefix, kt, NULL);
      gint64 *want = g_hash_table_lookup (ref, rk);
      ck_assert_msg (want != NULL, "unexpected cell %s", rk);
      ck_assert_int_eq (g_array_index (r->values, gint64, c), *want);
      if (prev != NULL && !g_str_equal (kt, "null") && !g_str_equal (prev, "null"))
        ck_assert_msg (strcmp (prev, kt) > 0, "order %s then %s", prev, kt);
      g_free (prev);
      prev = g_steal_pointer (&kt);
    }
}

START_TEST (random_count_and_sum)
{
  ab_test_env_open (&env, _i);
  ab_test_create_table (&env, "likes", LIKES);
  random_events (11 + _i);
  g_autoptr (GHashTable) ref = reference ();
  ck_assert_uint_gt (g_hash_table_size (ref), 50);
  for (guint s = 0; s < N_SRC; s++)
    {
      g_autofree gchar *src = src_name (s);
      check_agg (ref, "by_day", src, AB_QDIR_OUT, "OUT");
      check_agg (ref, "weight_by_kind", src, AB_QDIR_OUT, "SUM");
    }
  for (guint t = 0; t < N_TGT; t++)
    {
      g_autofree gchar *tgt = tgt_name (t);
      check_agg (ref, "by_day", tgt, AB_QDIR_IN, "IN");
    }
  ab_test_env_close (&env);
}
END_TEST

/* Ranges over the bucket text: eq and bt (inclusive), in qualifier order. */
START_TEST (ranges_and_count_group)
{
  ab_test_env_open (&env, _i);
  ab_test_create_table (&env, "likes", LIKES);
  random_events (5);
  g_autoptr (GHashTable) ref = reference ();
  g_autoptr (GError) error = NULL;
  for (guint s = 0; s < N_SRC; s++)
    {
      g_autofree gchar *src = src_name (s);
      g_autoptr (AbAggResult) r
          = agg ("by_day", src, AB_QDIR_OUT, "created_at:bt:20250103,20250106", &error);
      ck_assert_msg (r != NULL, "%s", error ? error->message : "");
      gint64 expect = 0, got = 0;
      for (guint d = 3; d <= 6; d++)
        {
          g_autofree gchar *k = g_strdup_printf ("%s|OUT|202501%02u", src, d);
          gint64 *v = g_hash_table_lookup (ref, k);
          expect += v != NULL ? *v : 0;
        }
      for (guint c = 0; c < r->values->len; c++)
        {
          g_autofree gchar *kt = key_text (r, c);
          ck_assert (strcmp (kt, "20250103") >= 0 && strcmp (kt, "20250106") <= 0);
          got += g_array_index (r->values, gint64, c);
        }
      ck_assert_int_eq (got, expect);
      g_autoptr (AbAggResult) eq
          = agg ("by_day", src, AB_QDIR_OUT, "created_at:eq:20250104", &error);
      ck_assert_uint_le (eq->values->len, 1);
      /* __count__ = count */
      g_autoptr (AbAggResult) c = agg (AB_GROUP_COUNT_NAME, src, AB_QDIR_OUT, NULL, &error);
      ck_assert_uint_eq (c->values->len, 1);
      ck_assert_int_eq (g_array_index (c->values, gint64, 0),
                        ab_test_count (&env, "likes", "likes", src, AB_QDIR_OUT));
    }
  static const gchar *bad[][2] = {
    { "nope", NULL },
    { "by_day", "kind:eq:a" },
    { "by_day", "created_at:in:1,2" },
    { "weight_by_kind", NULL /* IN only via OUT group */ },
    { AB_GROUP_COUNT_NAME, "x:eq:1" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (AbAggResult) r = agg (bad[i][0], "u01", AB_QDIR_IN, bad[i][1], &error);
      ck_assert_msg (r == NULL, "case %u accepted", i);
      ab_assert_error (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST);
      g_clear_error (&error);
    }
  ab_test_env_close (&env);
}
END_TEST

static gint64
recent (const gchar *start, const gchar *kind)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AbAggResult) r = agg ("recent", start, AB_QDIR_OUT, NULL, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  for (guint c = 0; c < r->values->len; c++)
    {
      g_autofree gchar *kt = key_text (r, c);
      if (g_str_equal (kt, kind))
        return g_array_index (r->values, gint64, c);
    }
  return 0;
}

static void
insert_kind (const gchar *src, const gchar *tgt, const gchar *kind)
{
  g_autofree gchar *b = g_strdup_printf (
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"%s\","
      "\"target\":\"%s\",\"properties\":{\"created_at\":1,\"kind\":\"%s\"}}}]}",
      src, tgt, kind);
  g_autoptr (GArray) r = ab_test_mutate (&env, "likes", "likes", b);
}

/* Raw keys of a group row, cells and siblings alike. */
static guint
raw_row_keys (const gchar *start, const gchar *group)
{
  AbValue v = AB_VALUE_INIT;
  ab_value_set_string (&v, AB_VALUE_STRING, start, strlen (start));
  g_autoptr (GByteArray) row
      = ab_codec_wide_key (&v, AB_DIR_OUT, ab_codec_table_code ("likes", "likes"), AB_ROW_GROUP,
                           ab_codec_code (group), NULL);
  ab_value_clear (&v);
  g_autoptr (GByteArray) stop = ab_codec_prefix_upper_bound (row->data, row->len);
  AbScanRange range = { .start = row->data,
                        .start_len = row->len,
                        .start_inclusive = TRUE,
                        .stop = stop->data,
                        .stop_len = stop->len };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  ck_assert (ab_store_scan (env.engine->store, &range, rows, NULL));
  return rows->len;
}

/* The "recent" group's ttl is 1000 ms: a cell lives while its expiry (write
 * time + ttl) is after now. The engine's clock is a fake one moved here. */
START_TEST (ttl_expiry)
{
  AbTestClock clock;
  ab_test_env_open_clocked (&env, _i, &clock);
  ab_test_create_table (&env, "likes", LIKES);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree gchar *t = tgt_name (i);
      insert_kind ("u1", t, "a");
    }
  insert_kind ("u1", "i9", "b");
  ck_assert_int_eq (recent ("u1", "a"), 3);
  ck_assert_int_eq (recent ("u1", "b"), 1);
  guint trimmed, expired;
  ck_assert (ab_engine_maintain (env.engine, &trimmed, &expired, NULL));
  ck_assert_uint_eq (expired, 0);                       /* nothing due yet */
  ck_assert_uint_eq (raw_row_keys ("u1", "recent"), 4); /* two cells, two siblings */
  ab_test_clock_advance (&clock, 999);
  ck_assert_int_eq (recent ("u1", "a"), 3); /* 1 ms before expiry */
  ab_test_clock_advance (&clock, 1);
  ck_assert_int_eq (recent ("u1", "a"), 0); /* expired on the millisecond */
  ck_assert_int_eq (recent ("u1", "b"), 0);
  ab_test_clock_advance (&clock, 1100);
  insert_kind ("u1", "i5", "a"); /* restarts from zero, not 3 + 1 */
  ck_assert_int_eq (recent ("u1", "a"), 1);
  ck_assert (ab_engine_maintain (env.engine, &trimmed, &expired, NULL));
  ck_assert_uint_eq (expired, 1); /* b's cell; a was written again */
  ck_assert_uint_eq (raw_row_keys ("u1", "recent"), 2);
  ck_assert_int_eq (recent ("u1", "a"), 1);
  /* the untimed groups keep their cells */
  g_autoptr (AbAggResult) d = agg ("by_day", "u1", AB_QDIR_OUT, NULL, NULL);
  ck_assert_int_eq (g_array_index (d->values, gint64, 0), 5);
  ab_test_clock_advance (&clock, 999);
  ck_assert_int_eq (recent ("u1", "a"), 1); /* written again at +2100: live until +3100 */
  ab_test_clock_advance (&clock, 1101);
  ck_assert (ab_engine_maintain (env.engine, &trimmed, &expired, NULL));
  ck_assert_uint_eq (expired, 1);
  ck_assert_uint_eq (raw_row_keys ("u1", "recent"), 0);
  ab_test_env_close (&env);
}
END_TEST

static void
expect_schema_error (const gchar *groups, const gchar *caches, const gchar *needle)
{
  g_autofree gchar *json
      = g_strdup_printf ("{\"type\":\"EDGE\",\"direction\":\"BOTH\",\"source\":{\"type\":"
                         "\"string\"},\"target\":{\"type\":\"string\"},"
                         "\"properties\":[{\"name\":\"at\",\"type\":\"long\",\"nullable\":false},"
                         "{\"name\":\"name\",\"type\":\"string\",\"nullable\":true}],"
                         "\"groups\":%s,\"caches\":%s}",
                         groups, caches);
  g_autoptr (JsonNode) n = ab_test_json (json);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbSchema) s = ab_schema_from_json (n, &error);
  ck_assert_msg (s == NULL, "accepted %s %s", groups, caches);
  ck_assert_msg (strstr (error->message, needle) != NULL, "'%s' lacks '%s'", error->message,
                 needle);
}

START_TEST (schema_rules)
{
  expect_schema_error ("[{\"group\":\"__count__\",\"type\":\"COUNT\"}]", "[]", "reserved");
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"MAX\"}]", "[]", "COUNT or SUM");
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"SUM\",\"valueField\":\"name\"}]", "[]",
                       "not numeric");
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"SUM\",\"valueField\":\"zz\"}]", "[]",
                       "needs a numeric field"); /* none at all is 1 per edge (test_agg) */
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"zz\"}]}]",
                       "[]", "unknown field");
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"name\","
                       "\"bucket\":{\"unit\":\"day\"}}]}]",
                       "[]", "integer field");
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"at\","
                       "\"bucket\":{\"unit\":\"fortnight\"}}]}]",
                       "[]", "unknown unit");
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"at\","
                       "\"bucket\":{\"unit\":\"day\",\"timezone\":\"Mars/Base\"}}]}]",
                       "[]", "time zone");
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"at\","
                       "\"bucket\":{\"unit\":\"day\",\"format\":\"yyyyQQ\"}}]}]",
                       "[]", "pattern letters");
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"at\","
                       "\"bucket\":{\"unit\":\"MILLISECOND\",\"format\":\"yyyyMMddHHmmss\"}}]}]",
                       "[]", "Second units are not supported");
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"at\","
                       "\"bucket\":{\"unit\":\"MILLISECOND\",\"format\":\"HH:mm:ss.SSS\"}}]}]",
                       "[]", "below milliseconds");
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"at\","
                       "\"bucket\":{\"unit\":\"SECOND\"}}]}]",
                       "[]", "format is required");
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"COUNT\",\"ttl\":0}]", "[]", "ttl");
  expect_schema_error ("[{\"group\":\"g\",\"type\":\"COUNT\"},{\"group\":\"g\",\"type\":\"SUM\","
                       "\"valueField\":\"at\"}]",
                       "[]", "duplicate name 'g' in schema groups");
  expect_schema_error ("[]", "[{\"cache\":\"c\",\"limit\":0}]", "between 1 and");
  expect_schema_error ("[]", "[{\"cache\":\"c\",\"fields\":[{\"field\":\"nope\"}]}]",
                       "unknown field");
  expect_schema_error ("[]", "[{\"cache\":\"c\",\"fields\":[{\"field\":\"at\",\"order\":\"UP\"}]}]",
                       "ASC or DESC");
}
END_TEST

/* Buckets: units, zones, formats (Java letters and strftime). */
START_TEST (buckets)
{
  static const struct {
    const gchar *bucket;
    gint64 ms;
    const gchar *want;
  } cases[] = {
    { "{\"unit\":\"day\"}", 1735689599999LL, "20241231" },
    { "{\"unit\":\"day\",\"timezone\":\"+09:00\"}", 1735689599999LL, "20250101" },
    { "{\"unit\":\"day\",\"timezone\":\"Asia/Seoul\",\"format\":\"yyyy-MM-dd\"}", 1735657200000LL,
      "2025-01-01" },
    { "{\"unit\":\"hour\",\"format\":\"yyyyMMddHHmm\"}", 1735689599999LL, "202412312300" },
    { "{\"unit\":\"minute\"}", 1735689599999LL, "202412312359" },
    { "{\"unit\":\"month\"}", 1735689599999LL, "202412" },
    { "{\"unit\":\"year\",\"format\":\"'y'yyyy\"}", 1735689599999LL, "y2024" },
    { "{\"unit\":\"week\"}", 1735689599999LL, "202501" }, /* Tue 2024-12-31: ISO week 1 of 2025 */
    { "{\"unit\":\"week\",\"format\":\"%Y-%m-%d\"}", 1735689599999LL, "2024-12-30" },
    { "{\"unit\":\"day\"}", -1LL, "19691231" },
    /* upstream's newer form: the unit is what the value counts, the format the bucket */
    { "{\"type\":\"date\",\"name\":\"day\",\"unit\":\"MILLISECOND\",\"timezone\":\"UTC\","
      "\"format\":\"yyyy-MM-dd\"}",
      1710000000000LL, "2024-03-09" },
    { "{\"name\":\"day\",\"unit\":\"SECOND\",\"format\":\"yyyy-MM-dd\"}", 1710000000LL,
      "2024-03-09" },
    { "{\"name\":\"h\",\"unit\":\"MICROSECOND\",\"format\":\"yyyyMMddHH\"}", 1710000000123456LL,
      "2024030916" },
    { "{\"name\":\"m\",\"unit\":\"NANOSECOND\",\"timezone\":\"+09:00\","
      "\"format\":\"yyyyMMddHHmm\"}",
      1710000000123456789LL, "202403100100" },
    { "{\"unit\":\"MILLISECOND\",\"format\":\"yyyy-MM-dd\"}", -1LL, "1969-12-31" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *json = g_strdup_printf (
          "{\"type\":\"EDGE\",\"direction\":\"BOTH\",\"source\":{\"type\":\"string\"},\"target\":{"
          "\"type\":\"string\"},"
          "\"properties\":[{\"name\":\"at\",\"type\":\"long\",\"nullable\":false}],"
          "\"groups\":[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"at\","
          "\"bucket\":%s}]}]}",
          cases[i].bucket);
      g_autoptr (AbSchema) s = ab_test_schema (json);
      const AbGroup *g = ab_schema_group (s, "g");
      AbValue in = AB_VALUE_INIT, out = AB_VALUE_INIT;
      ab_value_set_int (&in, AB_VALUE_INT64, cases[i].ms);
      ab_bucket_apply (g->fields[0].bucket, &in, &out);
      ck_assert_int_eq (out.kind, AB_VALUE_STRING);
      ck_assert_msg (g_str_equal (out.u.s.data, cases[i].want), "case %u: %s != %s", i,
                     out.u.s.data, cases[i].want);
      ab_value_clear (&out);
      ab_value_set_null (&in);
      ab_bucket_apply (g->fields[0].bucket, &in, &out);
      ck_assert_int_eq (out.kind, AB_VALUE_NULL);
      /* a copy keeps the parsed definitions */
      g_autoptr (AbSchema) c = ab_schema_copy (s);
      ck_assert_ptr_nonnull (ab_schema_group (c, "g"));
    }
}
END_TEST

/* Bucket bounds (when a top-K refresh is due): the start of the value's
 * bucket and of the next one, in the bucket's zone. */
START_TEST (bucket_bounds)
{
  static const struct {
    const gchar *bucket;
    gint64 value, start, next;
  } cases[] = {
    /* 2026-01-01T14:32Z: that UTC day, then 2026-01-02 */
    { "{\"unit\":\"MILLISECOND\",\"format\":\"yyyy-MM-dd\"}", 1767277920000LL, 1767225600000LL,
      1767312000000LL },
    /* the same instant in seconds, by the hour */
    { "{\"unit\":\"SECOND\",\"format\":\"yyyyMMddHH\"}", 1767277920LL, 1767276000000LL,
      1767279600000LL },
    /* +09:00: 2026-01-01T23:32+09:00 is that local day, from 2026-01-01T00:00+09:00 */
    { "{\"unit\":\"day\",\"timezone\":\"+09:00\"}", 1767277920000LL, 1767193200000LL,
      1767279600000LL },
    /* February 2024 has 29 days */
    { "{\"unit\":\"month\"}", 1707955200000LL, 1706745600000LL, 1709251200000LL },
    /* ISO weeks start on Monday: Thu 2026-01-01 is in the week from Mon 2025-12-29 */
    { "{\"unit\":\"week\"}", 1767277920000LL, 1766966400000LL, 1767571200000LL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *json = g_strdup_printf (
          "{\"type\":\"EDGE\",\"direction\":\"BOTH\",\"source\":{\"type\":\"string\"},\"target\":{"
          "\"type\":\"string\"},"
          "\"properties\":[{\"name\":\"at\",\"type\":\"long\",\"nullable\":false}],"
          "\"groups\":[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"at\","
          "\"bucket\":%s}]}]}",
          cases[i].bucket);
      g_autoptr (AbSchema) s = ab_test_schema (json);
      const AbBucket *b = ab_schema_group (s, "g")->fields[0].bucket;
      gint64 start = 0, next = 0;
      ck_assert (ab_bucket_bounds (b, cases[i].value, &start, &next));
      ck_assert_msg (start == cases[i].start && next == cases[i].next,
                     "case %u: %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT, i, start, next);
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("groups");
  TCase *tc = tcase_create ("groups");
  tcase_set_timeout (tc, 240);
  tcase_add_loop_test (tc, random_count_and_sum, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, ranges_and_count_group, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, ttl_expiry, 0, AB_TEST_N_STORES);
  tcase_add_test (tc, schema_rules);
  tcase_add_test (tc, buckets);
  tcase_add_test (tc, bucket_bounds);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
