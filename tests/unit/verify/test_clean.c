/* A clean store of 100k edges (25k under valgrind) across three tables (an
 * edge table with two indexes in both directions, an OUT-only table with
 * long ids, a multi-edge table) written by the engine on lmdb, with updates
 * and deletes, verifies clean: unsharded with sort runs spilled to disk, and
 * in two shards. The immutable table beside them is skipped and listed. */
#include <string.h>
#include "verify_fixture.h"
#include "verify/sorter.h"
#include "ab_check.h"

#define N_LIKES (40000 / scale_down)
#define N_FOLLOWS (30000 / scale_down)
#define N_ORDERS (30000 / scale_down)
#define PER_REQUEST 500

/* Under valgrind (tests/valgrind.sh) a quarter of the edges, and sort runs a
 * quarter the size, so that as many runs spill and merge: memcheck looks at
 * the same code in a quarter of the time (it took 130 s of a CI run). */
static guint scale_down = 1;

static const gchar *LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://db/likes\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"},"
      "{\"name\":\"weight\",\"type\":\"double\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]},"
      "{\"index\":\"heavy\",\"fields\":[{\"field\":\"weight\",\"order\":\"DESC\"},"
      "{\"field\":\"version\",\"order\":\"ASC\"}]}]}}";

static const gchar *FOLLOWS
    = "{\"table\":\"follows\",\"storage\":\"datastore://db/follows\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"long\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"long\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"since\",\"type\":\"long\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"since\",\"fields\":[{\"field\":\"since\",\"order\":\"DESC\"}]}]}}";

static const gchar *ORDERS
    = "{\"table\":\"orders\",\"storage\":\"datastore://db/orders\",\"comment\":\"\","
      "\"schema\":{\"type\":\"MULTI_EDGE\",\"id\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"source\":{\"type\":\"string\",\"comment\":\"\"},\"target\":{\"type\":\"string\","
      "\"comment\":\"\"},"
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"direction\":\"BOTH\",\"indexes\":[{\"index\":\"recent\",\"fields\":"
      "[{\"field\":\"created_at\",\"order\":\"DESC\"}]}]}}";

static const gchar *EVENTS
    = "{\"table\":\"events\",\"storage\":\"datastore://db/events\",\"comment\":\"\","
      "\"schema\":{\"type\":\"IMMUTABLE_EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"at\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"at\",\"fields\":[{\"field\":\"at\",\"order\":\"DESC\"}]}]}}";

typedef void (*ItemFunc) (GString *out, guint i);

static void
like_item (GString *out, guint i)
{
  g_string_append_printf (out,
                          "{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"source\":\"u%u\","
                          "\"target\":\"p%u\",\"properties\":{\"created_at\":%u%s}}}",
                          i + 1, i % 997, (i * 31) % 4001, i + 1, i % 3 ? ",\"weight\":0.5" : "");
}

static void
like_change (GString *out, guint i)
{
  const gchar *type = i % 2 ? "DELETE" : "UPDATE";
  g_string_append_printf (out,
                          "{\"type\":\"%s\",\"edge\":{\"version\":%u,\"source\":\"u%u\","
                          "\"target\":\"p%u\",\"properties\":{\"weight\":%u.25}}}",
                          type, 100000 + i, i % 997, (i * 31) % 4001, i % 7);
}

static void
follow_item (GString *out, guint i)
{
  g_string_append_printf (out,
                          "{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"source\":%u,"
                          "\"target\":%u,\"properties\":{\"since\":%u}}}",
                          i + 1, i % 1500, (i * 13) % 30011, i * 10);
}

static void
order_item (GString *out, guint i)
{
  g_string_append_printf (
      out,
      "{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"id\":\"o%u\","
      "\"source\":\"b%u\",\"target\":\"s%u\",\"properties\":{\"created_at\":%u}}}",
      i + 1, i, i % 2000, i % 50, i + 1);
}

static void
order_move (GString *out, guint i)
{
  g_string_append_printf (
      out,
      "{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"id\":\"o%u\","
      "\"source\":\"b%u\",\"target\":\"s%u\",\"properties\":{\"created_at\":%u}}}",
      200000 + i, i, (i + 1) % 2000, (i + 3) % 50, 200000 + i);
}

static void
load (VfEnv *env, const gchar *table, gboolean multi, ItemFunc item, guint first, guint n,
      guint step)
{
  for (guint start = first; start < first + n; start += PER_REQUEST * step)
    {
      g_autoptr (GString) body = g_string_new ("{\"mutations\":[");
      guint end = MIN (start + PER_REQUEST * step, first + n);
      for (guint i = start; i < end; i += step)
        {
          if (i > start)
            g_string_append_c (body, ',');
          item (body, i);
        }
      g_string_append (body, "]}");
      AbMutateOptions o;
      ab_mutate_options_init (&o);
      o.database = "db";
      o.table = table;
      o.multi_edge = multi;
      o.lock = FALSE; /* one loader, no contention: skip the lock rows */
      g_autoptr (JsonNode) n = vf_json (body->str);
      g_autoptr (GArray) r = ab_engine_mutate (env->engine, &o, n, NULL);
      ck_assert (r != NULL);
      for (guint k = 0; k < r->len; k++)
        ck_assert_int_ne (g_array_index (r, AbKeyResult, k).status, AB_STATUS_ERROR);
    }
}

START_TEST (hundred_thousand_clean)
{
  VfEnv env;
  VfResult r;
  AbVerifyOptions o;
  static const guint64 none[AB_MISMATCH_N_CLASSES] = { 0 };
  guint64 shard_states = 0;
  gint64 t_load = g_get_monotonic_time ();
  vf_open (&env, VF_LMDB);
  vf_create_table (&env, "db", LIKES);
  vf_create_table (&env, "db", FOLLOWS);
  vf_create_table (&env, "db", ORDERS);
  vf_create_table (&env, "db", EVENTS);
  load (&env, "likes", FALSE, like_item, 0, N_LIKES, 1);
  load (&env, "follows", FALSE, follow_item, 0, N_FOLLOWS, 1);
  load (&env, "orders", TRUE, order_item, 0, N_ORDERS, 1);
  load (&env, "likes", FALSE, like_change, 0, N_LIKES, 9);
  load (&env, "orders", TRUE, order_move, 0, N_ORDERS, 11);
  vf_mutate_free (&env, "db", "events", FALSE,
                  "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"a\","
                  "\"target\":\"b\",\"properties\":{\"at\":1}}}]}");
  gint64 t0 = g_get_monotonic_time ();
  ab_verify_options_init (&o);
  o.run_bytes = (256 << 10) / scale_down;
  vf_verify_opts (&env, &o, &r);
  g_printerr ("verify-clean: loaded in %.1f s, verified in %.1f s\n", (t0 - t_load) / 1e6,
              r.stats.seconds);
  vf_assert_classes (&r, none, "100k edges");
  ck_assert_uint_eq (r.stats.state_rows, N_LIKES + N_FOLLOWS + N_ORDERS);
  ck_assert_uint_eq (r.stats.tables_checked, 3);
  ck_assert_uint_eq (r.stats.skipped->len, 1);
  ck_assert (strstr (r.stats.skipped->pdata[0], "db.events") != NULL);
  ck_assert_uint_gt (r.stats.spilled_runs, AB_SORTER_FAN_IN);
  ck_assert_uint_gt (r.stats.index_rows, 2 * N_LIKES);
  vf_result_clear (&r);
  for (guint k = 0; k < 2; k++)
    {
      vf_verify (&env, k, 2, FALSE, &r);
      vf_assert_classes (&r, none, "100k edges, shard");
      shard_states += r.stats.state_rows;
      vf_result_clear (&r);
    }
  ck_assert_uint_eq (shard_states, N_LIKES + N_FOLLOWS + N_ORDERS);
  vf_close (&env);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("verify-clean");
  if (g_getenv ("AB_TEST_UNDER_VALGRIND") != NULL)
    scale_down = 4;
  TCase *tc = tcase_create ("clean");
  tcase_set_timeout (tc, 900);
  tcase_add_test (tc, hundred_thousand_clean);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
