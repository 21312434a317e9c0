/* Caches on every store: over 1,000 edges per source with updates and
 * deletes, a limit-10 cache equals the top 10 of the equivalent index scan
 * after every request (trimming rounds in between), a cache without an
 * equivalent index stays in order and bounded, the trimming boundary, and
 * trimming to limit + tolerance in the background and on request (prune). */
#include <string.h>
#include "engine_fixture.h"
#include "engine/plan/plan.h"
#include "codec/bytes.h"
#include "ab_check.h"

static const gchar *LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://likes/likes\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"long\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"},"
      "{\"name\":\"weight\",\"type\":\"int\",\"nullable\":false,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]},"
      "{\"index\":\"by_weight\",\"fields\":[{\"field\":\"weight\",\"order\":\"ASC\"}]}],"
      "\"caches\":[{\"cache\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}]"
      ","
      "\"limit\":10},"
      "{\"cache\":\"heavy\",\"fields\":[{\"field\":\"weight\",\"order\":\"DESC\"}],\"limit\":10}]}"
      "}";

#define N_SRC 3
#define N_TGT 1000

static AbTestEnv env;

static AbEdgeFrame *
seek (const gchar *cache, const gchar *start, AbQueryDirection dir, gint limit, const gchar *ranges)
{
  AbSeekParams p
      = { .cache = cache, .start = start, .direction = dir, .limit = limit, .ranges = ranges };
  g_autoptr (GError) error = NULL;
  AbEdgeFrame *f = ab_engine_seek (env.engine, "likes", "likes", &p, &error);
  ck_assert_msg (f != NULL, "seek: %s", error ? error->message : "");
  return f;
}

static AbEdgeFrame *
scan (const gchar *index, const gchar *start, AbQueryDirection dir, gint limit, const gchar *ranges)
{
  AbScanParams p
      = { .index = index, .start = start, .direction = dir, .limit = limit, .ranges = ranges };
  g_autoptr (GError) error = NULL;
  AbEdgeFrame *f = ab_engine_scan (env.engine, "likes", "likes", &p, &error);
  ck_assert_msg (f != NULL, "scan: %s", error ? error->message : "");
  return f;
}

static gchar *
edge_text (const AbEdgeOut *e)
{
  g_autofree gchar *s = ab_value_to_string (&e->source);
  g_autofree gchar *t = ab_value_to_string (&e->target);
  return g_strdup_printf ("%s->%s@%" G_GINT64_FORMAT, s, t, e->version);
}

static void
assert_same (const AbEdgeFrame *a, const AbEdgeFrame *b, const gchar *what)
{
  ck_assert_msg (a->edges->len == b->edges->len, "%s: %u edges vs %u", what, a->edges->len,
                 b->edges->len);
  for (guint i = 0; i < a->edges->len; i++)
    {
      g_autofree gchar *x = edge_text (a->edges->pdata[i]);
      g_autofree gchar *y = edge_text (b->edges->pdata[i]);
      ck_assert_msg (g_str_equal (x, y), "%s #%u: %s vs %s", what, i, x, y);
      const AbEdgeOut *ea = a->edges->pdata[i], *eb = b->edges->pdata[i];
      ck_assert_uint_eq (ea->n_props, eb->n_props);
    }
}

/* One request of 20 events: inserts of new targets, updates, deletes. */
static void
random_request (GRand *r, guint *next_target)
{
  g_autoptr (GString) b = g_string_new ("{\"mutations\":[");
  for (guint i = 0; i < 20; i++)
    {
      guint s = g_rand_int_range (r, 0, N_SRC);
      guint kind = g_rand_int_range (r, 0, 10);
      const gchar *type = kind < 6 ? "INSERT" : kind < 8 ? "UPDATE" : "DELETE";
      guint t = kind < 6 && next_target[s] < N_TGT
                    ? next_target[s]++
                    : (guint) g_rand_int_range (r, 0, MAX (next_target[s], 1));
      g_string_append_printf (b,
                              "%s{\"type\":\"%s\",\"edge\":{\"version\":%u,\"source\":\"s%u\","
                              "\"target\":%u,\"properties\":{\"created_at\":%d,\"weight\":%d}}}",
                              i ? "," : "", type, 1000 + g_rand_int_range (r, 0, 100000), s, t,
                              g_rand_int_range (r, 0, 1000000), g_rand_int_range (r, 0, 50));
    }
  g_string_append (b, "]}");
  g_autoptr (GArray) res = ab_test_mutate (&env, "likes", "likes", b->str);
}

/* Position of every edge of `all` (target text -> index) for the subsequence check. */
static void
assert_subsequence (const AbEdgeFrame *part, const AbEdgeFrame *all)
{
  guint j = 0;
  for (guint i = 0; i < part->edges->len; i++)
    {
      g_autofree gchar *x = edge_text (part->edges->pdata[i]);
      gboolean found = FALSE;
      for (; j < all->edges->len && !found; j++)
        {
          g_autofree gchar *y = edge_text (all->edges->pdata[j]);
          found = g_str_equal (x, y);
        }
      ck_assert_msg (found, "%s missing or out of order", x);
    }
}

/* Cells of a cache row (marker excluded). */
static guint
row_cells (const gchar *cache, const gchar *start)
{
  AbValue v = AB_VALUE_INIT;
  ab_value_set_string (&v, AB_VALUE_STRING, start, strlen (start));
  g_autoptr (GByteArray) row
      = ab_codec_wide_key (&v, AB_DIR_OUT, ab_codec_table_code ("likes", "likes"), AB_ROW_CACHE,
                           ab_codec_code (cache), NULL);
  ab_value_clear (&v);
  g_autoptr (GByteArray) stop = ab_codec_prefix_upper_bound (row->data, row->len);
  g_byte_array_append (row, (const guint8 *) "", 1); /* past the marker */
  AbScanRange range
      = { .start = row->data, .start_len = row->len, .stop = stop->data, .stop_len = stop->len };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  ck_assert (ab_store_scan (env.engine->store, &range, rows, NULL));
  return rows->len;
}

static gint64
weight_of (const AbEdgeOut *e)
{
  for (guint i = 0; i < e->n_props; i++)
    if (g_str_equal (e->names[i], "weight"))
      return e->values[i].u.i;
  return -1;
}

/* Cache "heavy" order: weight DESC, then target ASC. */
static gint
by_heavy (gconstpointer a, gconstpointer b)
{
  const AbEdgeOut *x = *(AbEdgeOut *const *) a, *y = *(AbEdgeOut *const *) b;
  gint64 wx = weight_of (x), wy = weight_of (y);
  if (wx != wy)
    return wx > wy ? -1 : 1;
  return ab_value_compare (&x->target, &y->target);
}

static void
check_source (const gchar *src, gboolean deep)
{
  g_autoptr (AbEdgeFrame) c = seek ("recent", src, AB_QDIR_OUT, -1, NULL);
  g_autoptr (AbEdgeFrame) i = scan ("recent", src, AB_QDIR_OUT, 10, NULL);
  assert_same (c, i, "recent");
  if (!deep)
    return;
  g_autoptr (AbEdgeFrame) cr = seek ("recent", src, AB_QDIR_OUT, 5, "created_at:lt:500000");
  g_autoptr (AbEdgeFrame) ir = scan ("recent", src, AB_QDIR_OUT, 5, "created_at:lt:500000");
  assert_same (cr, ir, "recent ranged");
  g_autoptr (AbEdgeFrame) all = scan ("recent", src, AB_QDIR_OUT, 1000, NULL);
  ck_assert (!all->has_next);
  g_ptr_array_sort (all->edges, by_heavy);
  g_autoptr (AbEdgeFrame) h = seek ("heavy", src, AB_QDIR_OUT, -1, NULL);
  assert_subsequence (h, all);
  ck_assert_uint_le (h->edges->len, 10);
}

START_TEST (random_against_index)
{
  ab_test_env_open (&env, _i);
  ab_test_create_table (&env, "likes", LIKES);
  g_autoptr (GRand) r = g_rand_new_with_seed (42 + _i);
  guint next_target[N_SRC] = { 0 };
  for (guint step = 0; step < 260; step++)
    {
      random_request (r, next_target);
      gboolean deep = step % 20 == 19;
      if (step % 10 == 9)
        {
          ck_assert (ab_engine_maintain (env.engine, NULL, NULL, NULL));
          for (guint s = 0; s < N_SRC; s++)
            {
              g_autofree gchar *src = g_strdup_printf ("s%u", s);
              ck_assert_uint_le (row_cells ("recent", src), 10);
              ck_assert_uint_le (row_cells ("heavy", src), 10);
            }
        }
      for (guint s = 0; s < N_SRC; s++)
        {
          g_autofree gchar *src = g_strdup_printf ("s%u", s);
          check_source (src, deep);
        }
      for (guint t = 0; deep && t < 50; t++)
        {
          g_autofree gchar *tgt = g_strdup_printf ("%u", t);
          g_autoptr (AbEdgeFrame) c = seek ("recent", tgt, AB_QDIR_IN, 3, NULL);
          g_autoptr (AbEdgeFrame) i = scan ("recent", tgt, AB_QDIR_IN, 3, NULL);
          assert_same (c, i, "recent IN");
        }
    }
  ck_assert_uint_ge (next_target[0], 800);
  ab_test_env_close (&env);
}
END_TEST

static const gchar *SMALL
    = "{\"table\":\"likes\",\"storage\":\"datastore://likes/likes\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"long\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"},"
      "{\"name\":\"weight\",\"type\":\"int\",\"nullable\":false,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]}],"
      "\"caches\":[{\"cache\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}]"
      ","
      "\"limit\":3},"
      "{\"cache\":\"heavy\",\"fields\":[{\"field\":\"weight\",\"order\":\"DESC\"}],\"limit\":3}]}}";

static void
put_edge (const gchar *type, guint target, guint value)
{
  g_autofree gchar *b = g_strdup_printf (
      "{\"mutations\":[{\"type\":\"%s\",\"edge\":{\"version\":%u,\"source\":\"a\","
      "\"target\":%u,\"properties\":{\"created_at\":%u,\"weight\":%u}}}]}",
      type, 100 + value, target, value, value);
  g_autoptr (GArray) r = ab_test_mutate (&env, "likes", "likes", b);
}

static void
assert_targets (AbEdgeFrame *f, const gchar *want)
{
  g_autoptr (GString) got = g_string_new (NULL);
  for (guint i = 0; i < f->edges->len; i++)
    g_string_append_printf (got, "%s%" G_GINT64_FORMAT, i ? "," : "",
                            ((AbEdgeOut *) f->edges->pdata[i])->target.u.i);
  ck_assert_str_eq (got->str, want);
  ab_edge_frame_free (f);
}

/* Pages through a cache of source "a" with `limit` edges a page: the
 * targets of every page joined by "|", following `offset` until hasNext is
 * false (offset null then). */
static gchar *
seek_pages (const gchar *cache, gint limit)
{
  GString *out = g_string_new (NULL);
  g_autofree gchar *offset = NULL;
  for (guint page = 0; page < 10; page++)
    {
      AbSeekParams p = {
        .cache = cache, .start = "a", .direction = AB_QDIR_OUT, .limit = limit, .offset = offset
      };
      g_autoptr (GError) error = NULL;
      g_autoptr (AbEdgeFrame) f = ab_engine_seek (env.engine, "likes", "likes", &p, &error);
      ck_assert_msg (f != NULL, "seek page %u: %s", page, error ? error->message : "");
      g_string_append (out, page ? "|" : "");
      for (guint i = 0; i < f->edges->len; i++)
        g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i ? "," : "",
                                ((AbEdgeOut *) f->edges->pdata[i])->target.u.i);
      ck_assert ((f->offset != NULL) == f->has_next);
      if (!f->has_next)
        break;
      g_free (offset);
      offset = g_strdup (f->offset);
    }
  return g_string_free (out, FALSE);
}

static void
assert_pages (const gchar *cache, gint limit, const gchar *want)
{
  g_autofree gchar *got = seek_pages (cache, limit);
  ck_assert_str_eq (got, want);
}

/* Trimming to the limit, the boundary, and what a trimmed row answers. */
START_TEST (trim_boundary)
{
  ab_test_env_open (&env, _i);
  ab_test_create_table (&env, "likes", SMALL);
  for (guint v = 1; v <= 5; v++)
    put_edge ("INSERT", v, v);
  assert_targets (seek ("heavy", "a", AB_QDIR_OUT, -1, NULL), "5,4,3");
  ck_assert_uint_eq (row_cells ("heavy", "a"), 5);
  guint trimmed = 0;
  ck_assert (ab_engine_maintain (env.engine, &trimmed, NULL, NULL));
  ck_assert_uint_eq (trimmed, 4); /* two cells of each cache */
  ck_assert_uint_eq (row_cells ("heavy", "a"), 3);
  ck_assert_uint_eq (row_cells ("recent", "a"), 3);
  assert_targets (seek ("heavy", "a", AB_QDIR_OUT, 2, NULL), "5,4");
  /* pages of a trimmed row end where the row does */
  assert_pages ("heavy", 2, "5,4|3");
  assert_pages ("heavy", 1, "5|4|3");
  put_edge ("DELETE", 5, 9);
  /* no equivalent index: the trimmed row is short until new cells come */
  assert_targets (seek ("heavy", "a", AB_QDIR_OUT, -1, NULL), "4,3");
  /* an equivalent index answers for the short row */
  assert_targets (seek ("recent", "a", AB_QDIR_OUT, -1, NULL), "4,3,2");
  assert_targets (seek ("recent", "a", AB_QDIR_OUT, -1, "created_at:lte:3"), "3,2,1");
  /* past the short row the equivalent index continues the pages, same offsets */
  assert_pages ("recent", 2, "4,3|2,1");
  /* an offset that is not a position in the cache is refused */
  AbSeekParams forged
      = { .cache = "recent", .start = "a", .direction = AB_QDIR_OUT, .limit = 2, .offset = "AAAA" };
  g_autoptr (GError) ferr = NULL;
  g_autoptr (AbEdgeFrame) ff = ab_engine_seek (env.engine, "likes", "likes", &forged, &ferr);
  ck_assert_ptr_null (ff);
  ab_assert_error (ferr, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST);
  put_edge ("INSERT", 6, 6);
  assert_targets (seek ("heavy", "a", AB_QDIR_OUT, -1, NULL), "6,4,3");
  assert_targets (seek ("recent", "a", AB_QDIR_OUT, -1, NULL), "6,4,3");
  /* a limit over the cache's reads what the trimmed row keeps */
  assert_targets (seek ("heavy", "a", AB_QDIR_OUT, 4, NULL), "6,4,3");
  /* errors: unknown cache, limit 0, ranges out of order */
  AbSeekParams bad[] = {
    { .cache = "nope", .start = "a", .direction = AB_QDIR_OUT, .limit = -1 },
    { .cache = "heavy", .start = "a", .direction = AB_QDIR_OUT, .limit = 0 },
    { .cache = "heavy",
      .start = "a",
      .direction = AB_QDIR_OUT,
      .limit = -1,
      .ranges = "created_at:eq:1" },
    { .cache = "heavy",
      .start = "a",
      .direction = AB_QDIR_OUT,
      .limit = -1,
      .ranges = "weight:in:1,2" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AbEdgeFrame) f = ab_engine_seek (env.engine, "likes", "likes", &bad[i], &error);
      ck_assert_msg (f == NULL, "case %u accepted", i);
      ab_assert_error (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST);
    }
  ab_test_env_close (&env);
}
END_TEST

/* "recent": limit 2 with 1 spare cell; "heavy": limit 3, no spare. */
static const gchar *TOLERANT
    = "{\"table\":\"likes\",\"storage\":\"datastore://likes/likes\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"long\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,"
      "\"comment\":\"\"},{\"name\":\"weight\",\"type\":\"int\",\"nullable\":false,"
      "\"comment\":\"\"}],\"indexes\":[],"
      "\"caches\":[{\"cache\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":"
      "\"DESC\"}],\"limit\":2,\"tolerance\":1},"
      "{\"cache\":\"heavy\",\"fields\":[{\"field\":\"weight\",\"order\":\"DESC\"}],"
      "\"limit\":3}]}}";

/* ab_engine_prune on body; the results as "name:status" joined by ",", or
 * NULL with *error. */
static gchar *
prune (const gchar *body, GError **error)
{
  g_autoptr (JsonNode) n = ab_test_json (body);
  g_autoptr (JsonNode) out
      = ab_engine_prune (env.engine, "likes", "likes", json_node_get_object (n), error);
  if (out == NULL)
    return NULL;
  JsonArray *results = json_object_get_array_member (json_node_get_object (out), "results");
  g_autoptr (GString) got = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (results); i++)
    {
      JsonObject *r = json_array_get_object_element (results, i);
      ck_assert_str_eq (json_object_get_string_member (r, "type"), "CACHE");
      ck_assert_str_eq (json_object_get_string_member (r, "start"), "a");
      g_string_append_printf (got, "%s%s:%s", i ? "," : "",
                              json_object_get_string_member (r, "name"),
                              json_object_get_string_member (r, "status"));
    }
  return g_strdup (got->str);
}

static void
assert_prune (const gchar *body, const gchar *want)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *got = prune (body, &error);
  ck_assert_msg (got != NULL, "prune %s: %s", body, error ? error->message : "");
  ck_assert_str_eq (got, want);
}

#define PRUNE_A_OUT "{\"type\":\"CACHE\",\"targets\":[{\"start\":\"a\",\"direction\":\"OUT\"}]}"

/* limit + tolerance cells kept, by the background round and by a prune of
 * given starts; what seek shows of them; the prune body's errors. */
START_TEST (tolerance_and_prune)
{
  AbEngineConfig cfg;
  ab_engine_config_init (&cfg);
  cfg.cache_prune_ms = 0; /* no background round but the test's own */
  cfg.ttl_sweep_ms = 0;
  ab_test_env_open_with (&env, _i, &cfg);
  ab_test_create_table (&env, "likes", TOLERANT);
  for (guint v = 1; v <= 5; v++)
    put_edge ("INSERT", v, v);
  /* on request: each cache of the start, cut to its bound */
  assert_prune (PRUNE_A_OUT, "recent:PRUNED,heavy:PRUNED");
  ck_assert_uint_eq (row_cells ("recent", "a"), 3);
  ck_assert_uint_eq (row_cells ("heavy", "a"), 3);
  assert_prune (PRUNE_A_OUT, "recent:SKIPPED,heavy:SKIPPED");
  /* an OUT table keeps no IN rows: no cache matches an IN target */
  assert_prune ("{\"type\":\"CACHE\",\"targets\":[{\"start\":5,\"direction\":\"IN\"}]}", "");
  assert_prune ("{\"type\":\"CACHE\",\"targets\":[]}", "");
  /* seek: the limit by default, up to limit + tolerance on request */
  assert_targets (seek ("recent", "a", AB_QDIR_OUT, -1, NULL), "5,4");
  assert_targets (seek ("recent", "a", AB_QDIR_OUT, 10, NULL), "5,4,3");
  assert_pages ("recent", 2, "5,4|3");
  /* the rows the background remembered are within their bound already */
  guint trimmed = 1;
  ck_assert (ab_engine_maintain (env.engine, &trimmed, NULL, NULL));
  ck_assert_uint_eq (trimmed, 0);
  /* the background round keeps limit + tolerance too */
  put_edge ("INSERT", 6, 6);
  put_edge ("INSERT", 7, 7);
  ck_assert (ab_engine_maintain (env.engine, &trimmed, NULL, NULL));
  ck_assert_uint_eq (trimmed, 4); /* two cells of each cache */
  ck_assert_uint_eq (row_cells ("recent", "a"), 3);
  assert_targets (seek ("recent", "a", AB_QDIR_OUT, 10, NULL), "7,6,5");
  /* a delete in the window: the spare cell keeps a full page */
  put_edge ("DELETE", 7, 9);
  assert_targets (seek ("recent", "a", AB_QDIR_OUT, -1, NULL), "6,5");
  assert_prune (PRUNE_A_OUT, "recent:SKIPPED,heavy:SKIPPED");
  /* bad bodies: 400 before anything is trimmed */
  static const gchar *const bad[] = {
    "{\"targets\":[]}",
    "{\"type\":\"INDEX\",\"targets\":[]}",
    "{\"type\":\"CACHE\"}",
    "{\"type\":\"CACHE\",\"targets\":{}}",
    "{\"type\":\"CACHE\",\"targets\":[\"a\"]}",
    "{\"type\":\"CACHE\",\"targets\":[{\"start\":\"a\"}]}",
    "{\"type\":\"CACHE\",\"targets\":[{\"start\":\"a\",\"direction\":\"BOTH\"}]}",
    "{\"type\":\"CACHE\",\"targets\":[{\"direction\":\"OUT\"}]}",
    "{\"type\":\"CACHE\",\"targets\":[{\"start\":null,\"direction\":\"OUT\"}]}",
    "{\"type\":\"CACHE\",\"targets\":[{\"start\":\"a\",\"direction\":\"OUT\"},{\"start\":{},"
    "\"direction\":\"OUT\"}]}",
  };
  put_edge ("INSERT", 8, 8);
  put_edge ("INSERT", 9, 9);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree gchar *got = prune (bad[i], &error);
      ck_assert_msg (got == NULL, "accepted %s", bad[i]);
      ab_assert_error (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST);
    }
  /* 9,8,6,5 in each: nothing trimmed */
  ck_assert_uint_eq (row_cells ("recent", "a"), 4);
  ck_assert_uint_eq (row_cells ("heavy", "a"), 4);
  ab_test_env_close (&env);
}
END_TEST

/* tolerance: an integer 0..10000, 0 by default. */
START_TEST (tolerance_rule)
{
  static const struct {
    const gchar *cache;
    const gchar *needle; /* NULL: accepted */
  } cases[] = {
    { "{\"cache\":\"c\",\"tolerance\":-1}", "tolerance: -1 is not between 0 and 10000" },
    { "{\"cache\":\"c\",\"tolerance\":10001}", "tolerance" },
    { "{\"cache\":\"c\",\"tolerance\":\"one\"}", "tolerance" },
    { "{\"cache\":\"c\",\"tolerance\":1.5}", "tolerance" },
    { "{\"cache\":\"c\",\"limit\":5,\"tolerance\":0}", NULL },
    { "{\"cache\":\"c\",\"limit\":5,\"tolerance\":10000}", NULL },
    { "{\"cache\":\"c\",\"limit\":5}", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *json = g_strdup_printf (
          "{\"type\":\"EDGE\",\"direction\":\"OUT\",\"source\":{\"type\":\"string\"},"
          "\"target\":{\"type\":\"string\"},\"caches\":[%s]}",
          cases[i].cache);
      g_autoptr (JsonNode) n = ab_test_json (json);
      g_autoptr (GError) error = NULL;
      g_autoptr (AbSchema) s = ab_schema_from_json (n, &error);
      if (cases[i].needle == NULL)
        {
          ck_assert_msg (s != NULL, "%s: %s", cases[i].cache, error ? error->message : "");
          const AbCache *c = ab_schema_cache (s, "c");
          ck_assert_uint_eq (ab_cache_bound (c), 5 + c->tolerance);
          continue;
        }
      ck_assert_msg (s == NULL, "accepted %s", cases[i].cache);
      ck_assert_msg (strstr (error->message, cases[i].needle) != NULL, "'%s' lacks '%s'",
                     error->message, cases[i].needle);
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("caches");
  TCase *tc = tcase_create ("caches");
  tcase_set_timeout (tc, 600);
  tcase_add_loop_test (tc, random_against_index, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, trim_boundary, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, tolerance_and_prune, 0, AB_TEST_N_STORES);
  tcase_add_test (tc, tolerance_rule);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
