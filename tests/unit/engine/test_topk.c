/* Top-K windows relative to now (docs/data-model.md §17.1), every store, fake
 * clock: random writes in day and hour buckets, the clock moved, maintenance
 * run, every page of every ranking compared with a model computed here. */
#include <string.h>
#include "engine_fixture.h"
#include "engine/topk/topk.h"
#include "codec/bytes.h"
#include "ab_check.h"

#define USERS 2
#define EDGES 24
#define ITEMS 6
#define HOUR_MS G_GINT64_CONSTANT (3600000)
#define DAY_MS G_GINT64_CONSTANT (86400000)
#define T0 G_GINT64_CONSTANT (1735905600000) /* 2025-01-03T12:00:00Z */

/* Relative windows of the upstream shapes: target and window (last3: today
 * and the two days before; prev: the three days before today; last12h:
 * strictly after the hour twelve hours ago; today: eq on a day bucket whose
 * text is not a number), and target, filter and window (seg3). `all`
 * (target alone) is the constant control. */
static const gchar *VIEWS
    = "{\"table\":\"views\",\"storage\":\"datastore://shop/views\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"long\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"long\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"item\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"},"
      "{\"name\":\"seg\",\"type\":\"string\",\"nullable\":false,\"comment\":\"\"},"
      "{\"name\":\"at\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"}],\"indexes\":[],"
      "\"groups\":["
      "{\"group\":\"by_item\",\"type\":\"COUNT\",\"directionType\":\"OUT\","
      "\"fields\":[{\"name\":\"item\"}],\"aggregations\":{\"topk\":[{\"topk\":\"all\"}]}},"
      "{\"group\":\"by_item_day\",\"type\":\"COUNT\",\"directionType\":\"OUT\","
      "\"fields\":[{\"name\":\"item\"},{\"name\":\"at\",\"bucket\":{\"type\":\"date\","
      "\"unit\":\"day\",\"timezone\":\"UTC\",\"format\":\"yyyyMMdd\"}}],"
      "\"aggregations\":{\"topk\":[{\"topk\":\"last3\",\"ranges\":\"at:bt:now-2d,now\","
      "\"refreshAfterMillis\":500},"
      "{\"topk\":\"prev\",\"ranges\":\"item:eq:{item};at:bt:now-3d,now-1d\"}]}},"
      "{\"group\":\"by_item_hour\",\"type\":\"COUNT\",\"directionType\":\"OUT\","
      "\"fields\":[{\"name\":\"item\"},{\"name\":\"at\",\"bucket\":{\"type\":\"date\","
      "\"unit\":\"hour\",\"timezone\":\"UTC\",\"format\":\"yyyyMMddHH\"}}],"
      "\"aggregations\":{\"topk\":[{\"topk\":\"last12h\",\"ranges\":\"at:gt:now-12h\"}]}},"
      "{\"group\":\"by_item_iso\",\"type\":\"COUNT\",\"directionType\":\"OUT\","
      "\"fields\":[{\"name\":\"item\"},{\"name\":\"at\",\"bucket\":{\"type\":\"date\","
      "\"unit\":\"day\",\"timezone\":\"UTC\",\"format\":\"yyyy-MM-dd\"}}],"
      "\"aggregations\":{\"topk\":[{\"topk\":\"today\",\"ranges\":\"at:eq:now\"}]}},"
      "{\"group\":\"by_seg_item_day\",\"type\":\"COUNT\",\"directionType\":\"OUT\","
      "\"fields\":[{\"name\":\"seg\"},{\"name\":\"item\"},{\"name\":\"at\",\"bucket\":{"
      "\"type\":\"date\",\"unit\":\"day\",\"timezone\":\"UTC\",\"format\":\"yyyyMMdd\"}}],"
      "\"aggregations\":{\"topk\":[{\"topk\":\"seg3\","
      "\"ranges\":\"seg:eq:{seg};at:gte:now-2d\"}]}}"
      "]}}";

static AbTestEnv env;
static AbTestClock clock_;

typedef struct {
  gboolean active;
  gint64 item, at;
  gchar seg[2];
} Edge;

static Edge model[USERS + 1][EDGES + 1];

static gint64
day (gint64 ms)
{
  return ms / DAY_MS;
}

static gint64
hour (gint64 ms)
{
  return ms / HOUR_MS;
}

/* Does edge e count in ranking `topk` (segment seg) at `now`? */
static gboolean
counts (const gchar *topk, const Edge *e, const gchar *seg, gint64 now)
{
  gint64 d = day (e->at), today = day (now);
  if (g_str_equal (topk, "all"))
    return TRUE;
  if (g_str_equal (topk, "last3"))
    return d >= today - 2 && d <= today;
  if (g_str_equal (topk, "prev"))
    return d >= today - 3 && d <= today - 1;
  if (g_str_equal (topk, "last12h"))
    return hour (e->at) > hour (now - 12 * HOUR_MS);
  if (g_str_equal (topk, "today"))
    return d == today;
  return strcmp (e->seg, seg) == 0 && d >= today - 2; /* seg3 */
}

/* (score, item) pairs, score DESC then item ASC, zero scores left out. */
static guint
expected (const gchar *topk, gint user, const gchar *seg, gint64 now, gint64 out[][2])
{
  gint64 score[ITEMS + 1] = { 0 };
  for (gint id = 1; id <= EDGES; id++)
    if (model[user][id].active && counts (topk, &model[user][id], seg, now))
      score[model[user][id].item]++;
  guint n = 0;
  for (gint it = 1; it <= ITEMS; it++)
    if (score[it] != 0)
      {
        guint at = n++;
        while (at > 0 && out[at - 1][0] < score[it])
          {
            out[at][0] = out[at - 1][0];
            out[at][1] = out[at - 1][1];
            at--;
          }
        out[at][0] = score[it];
        out[at][1] = it;
      }
  return n;
}

static gint64
edge_score (const AbEdgeOut *e)
{
  ck_assert_uint_eq (e->n_props, 1);
  ck_assert_str_eq (e->names[0], "score");
  return e->values[0].u.i;
}

/* Every page (limit 2) of one ranking against the model at `now`. */
static void
check_ranking (const gchar *topk, gint user, const gchar *seg, gint64 now, const gchar *when)
{
  gint64 want[ITEMS][2];
  guint n = expected (topk, user, seg, now, want), seen = 0;
  g_autofree gchar *entity = g_strdup_printf ("%d", user);
  g_autofree gchar *filters = seg != NULL ? g_strdup_printf ("seg:eq:%s", seg) : NULL;
  g_autofree gchar *offset = NULL;
  for (;;)
    {
      AbTopkParams p
          = { .topk = topk, .entity = entity, .filters = filters, .limit = 2, .offset = offset };
      g_autoptr (GError) error = NULL;
      g_autoptr (AbEdgeFrame) f = ab_engine_topk (env.engine, "shop", "views", &p, &error);
      ck_assert_msg (f != NULL, "%s: %s", topk, error ? error->message : "");
      for (guint i = 0; i < f->edges->len; i++, seen++)
        {
          const AbEdgeOut *e = f->edges->pdata[i];
          ck_assert_msg (seen < n, "%s %s user %d seg %s: more entries than the model's %u", when,
                         topk, user, seg ? seg : "-", n);
          ck_assert_msg (edge_score (e) == want[seen][0] && e->target.u.i == want[seen][1],
                         "%s %s user %d seg %s rank %u: got (%" G_GINT64_FORMAT
                         ", %" G_GINT64_FORMAT "), want (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                         ")",
                         when, topk, user, seg ? seg : "-", seen, edge_score (e), e->target.u.i,
                         want[seen][0], want[seen][1]);
        }
      g_free (offset);
      offset = g_strdup (f->offset);
      if (!f->has_next)
        break;
      ck_assert_uint_eq (f->edges->len, 2);
    }
  ck_assert_msg (seen == n, "%s %s user %d seg %s: %u entries, model %u", when, topk, user,
                 seg ? seg : "-", seen, n);
}

static void
check_all (gint64 now, const gchar *when)
{
  static const gchar *plain[] = { "all", "last3", "prev", "last12h", "today" };
  for (gint u = 1; u <= USERS; u++)
    {
      for (guint k = 0; k < G_N_ELEMENTS (plain); k++)
        check_ranking (plain[k], u, NULL, now, when);
      check_ranking ("seg3", u, "a", now, when);
      check_ranking ("seg3", u, "b", now, when);
    }
}

/* Inserts, updates and deletes at the clock's now, with `at` from five days
 * before it to a day after (future buckets enter the windows later). */
static void
write_round (GRand *r, gint64 version)
{
  gint64 now = ab_test_clock_now (&clock_);
  g_autoptr (GString) b = g_string_new ("{\"mutations\":[");
  guint n = 0;
  for (gint u = 1; u <= USERS; u++)
    for (gint id = 1; id <= EDGES; id++)
      {
        if (g_rand_int_range (r, 0, 3) != 0)
          continue;
        Edge *m = &model[u][id];
        if (m->active && g_rand_int_range (r, 0, 4) == 0)
          {
            g_string_append_printf (b,
                                    "%s{\"type\":\"DELETE\",\"edge\":{\"version\":%" G_GINT64_FORMAT
                                    ",\"source\":%d,\"target\":%d}}",
                                    n++ ? "," : "", version, u, id);
            m->active = FALSE;
            continue;
          }
        m->active = TRUE;
        m->item = g_rand_int_range (r, 1, ITEMS + 1);
        m->seg[0] = g_rand_boolean (r) ? 'a' : 'b';
        m->seg[1] = '\0';
        m->at = now + g_rand_int_range (r, -5 * 24, 24) * HOUR_MS
                - g_rand_int_range (r, 0, (gint32) HOUR_MS);
        g_string_append_printf (
            b,
            "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%" G_GINT64_FORMAT
            ",\"source\":%d,\"target\":%d,\"properties\":{\"item\":%" G_GINT64_FORMAT
            ",\"seg\":\"%s\",\"at\":%" G_GINT64_FORMAT "}}}",
            n++ ? "," : "", version, u, id, m->item, m->seg, m->at);
      }
  g_string_append (b, "]}");
  if (n > 0)
    {
      g_autoptr (GArray) res = ab_test_mutate (&env, "shop", "views", b->str);
    }
}

/* Due rows (storage-format.md §10) left in the store. */
static guint
due_rows (void)
{
  static const guint8 prefix[] = { 0, 0, 0, 0, 0, 'a', 'b', 't', 'o', 'p', 'k', 0 };
  g_autoptr (GByteArray) stop = ab_codec_prefix_upper_bound (prefix, sizeof prefix);
  AbScanRange range = { .start = prefix,
                        .start_len = sizeof prefix,
                        .start_inclusive = TRUE,
                        .stop = stop->data,
                        .stop_len = stop->len };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  ck_assert (ab_store_scan (env.engine->store, &range, rows, NULL));
  return rows->len;
}

static void
open_env (int store)
{
  AbEngineConfig cfg;
  ab_engine_config_init (&cfg);
  cfg.lock_retries = 5;
  cfg.lock_backoff_ms = 20;
  cfg.cache_prune_ms = 0; /* no background thread: only ab_engine_maintain refreshes */
  cfg.ttl_sweep_ms = 0;
  cfg.now_ms = ab_test_clock_now;
  cfg.now_data = &clock_;
  atomic_store (&clock_.ms, T0);
  ab_test_env_open_with (&env, store, &cfg);
  ab_test_create_table (&env, "shop", VIEWS);
  memset (model, 0, sizeof model);
}

/* Each step: writes at now (exact at once), the clock moved by 3 to 40
 * hours (the rankings still those of the previous instant: nothing ran),
 * then maintenance (exact at the new instant). */
START_TEST (windows_slide)
{
  open_env (_i);
  g_autoptr (GRand) r = g_rand_new_with_seed (7 + (guint) _i);
  gint64 version = 1;
  for (guint step = 0; step < 8; step++)
    {
      write_round (r, version++);
      gint64 now = ab_test_clock_now (&clock_);
      check_all (now, "after writes");
      ab_test_clock_advance (&clock_, g_rand_int_range (r, 3, 41) * HOUR_MS
                                          + g_rand_int_range (r, 0, 3600000));
      check_all (now, "before maintenance");
      ck_assert (ab_engine_maintain (env.engine, NULL, NULL, NULL));
      check_all (ab_test_clock_now (&clock_), "after maintenance");
    }
  /* a week later with no writes: every window has emptied but `all` */
  ab_test_clock_advance (&clock_, 7 * DAY_MS);
  ck_assert (ab_engine_maintain (env.engine, NULL, NULL, NULL));
  check_all (ab_test_clock_now (&clock_), "a week later");
  ck_assert_uint_eq (due_rows (), 0); /* no cell is left to enter or leave a window */
  ab_test_env_close (&env);
}
END_TEST

/* A cell exactly on the edge: counted until the millisecond its day leaves
 * `last3`, and a future cell counted from the millisecond its day enters. */
START_TEST (edges_of_the_window)
{
  open_env (_i);
  gint64 midnight = (day (T0) + 1) * DAY_MS; /* 2025-01-04T00:00Z */
  g_autofree gchar *body = g_strdup_printf (
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":1,\"target\":1,"
      "\"properties\":{\"item\":1,\"seg\":\"a\",\"at\":%" G_GINT64_FORMAT "}}},"
      "{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":1,\"target\":2,"
      "\"properties\":{\"item\":2,\"seg\":\"a\",\"at\":%" G_GINT64_FORMAT "}}}]}",
      T0 - 2 * DAY_MS, midnight + 5);
  g_autoptr (GArray) res = ab_test_mutate (&env, "shop", "views", body);
  model[1][1] = (Edge){ TRUE, 1, T0 - 2 * DAY_MS, "a" };
  model[1][2] = (Edge){ TRUE, 2, midnight + 5, "a" };
  check_all (T0, "written");
  atomic_store (&clock_.ms, midnight - 1);
  ck_assert (ab_engine_maintain (env.engine, NULL, NULL, NULL));
  check_all (midnight - 1, "1 ms before midnight");
  atomic_store (&clock_.ms, midnight);
  ck_assert (ab_engine_maintain (env.engine, NULL, NULL, NULL));
  check_all (midnight, "at midnight");
  /* what is left is due later: item 2 enters prev and leaves today at the
   * next midnight, leaves last3 and seg3 three days from now and last12h at
   * noon; item 1 leaves prev at the next midnight */
  guint refreshed = 99;
  ck_assert (ab_engine_topk_refresh (env.engine, 1000, &refreshed, NULL));
  ck_assert_uint_eq (refreshed, 0);
  ck_assert_uint_eq (due_rows (), 6);
  atomic_store (&clock_.ms, midnight + DAY_MS);
  ck_assert (ab_engine_maintain (env.engine, NULL, NULL, NULL));
  check_all (midnight + DAY_MS, "the next midnight");
  ab_test_env_close (&env);
}
END_TEST

static void
add_tests (TCase *tc)
{
  tcase_add_loop_test (tc, windows_slide, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, edges_of_the_window, 0, AB_TEST_N_STORES);
}

int
main (void)
{
  Suite *s = suite_create ("topk");
  TCase *tc = tcase_create ("windows");
  tcase_set_timeout (tc, 300);
  add_tests (tc);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
