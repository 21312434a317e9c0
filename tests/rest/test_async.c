/* ASYNC over HTTP with the file WAL: queued mutations are applied by the
 * built-in applier, and a kill -9 of the server in the middle followed by
 * a restart loses no acknowledged mutation. */
#include <glib/gstdio.h>
#include <string.h>
#include "rest_harness.h"
#include "ab_check.h"

#define T "/graph/v3/databases/d/tables/t"

static AbServer srv;

/* A crash leaves the dead process's lock rows behind; they are swept once
 * older than lock-stale-ms (upstream: 300 s), short here to keep the test fast. */
static gchar *config_path;
static gchar *wal_uri;
static const gchar *extra[] = { "--config", NULL, "--wal", NULL, NULL };

/* Loop index 0: the file WAL next to the store; 1: a Kafka topic (needs
 * AB_KAFKA_ADDR from tests/run.sh, else not run: see main). */
static void
start (int which)
{
  const gchar *kafka = g_getenv ("AB_KAFKA_ADDR");
  config_path = g_build_filename (g_get_tmp_dir (), "ab-async-test.conf", NULL);
  ck_assert (g_file_set_contents (config_path, "[engine]\nlock-stale-ms=1000\n", -1, NULL));
  extra[1] = config_path;
  wal_uri = which == 1 ? g_strdup_printf ("kafka://%s/ab-wal-%u", kafka, g_random_int ()) : NULL;
  extra[2] = wal_uri != NULL ? "--wal" : NULL;
  extra[3] = wal_uri;
  ab_server_start (&srv, NULL, extra);
}
static void
stop (void)
{
  ab_server_destroy (&srv);
  g_remove (config_path);
  g_clear_pointer (&config_path, g_free);
  g_clear_pointer (&wal_uri, g_free);
}

static JsonNode *
ok (const gchar *method, const gchar *path, const gchar *body)
{
  return ab_http_ok (&srv, method, path, body);
}

static void
restart (void)
{
  ab_server_restart (&srv, extra);
}

/* Events: version v on edge (u[v%7], t[v%50]), DELETE when v%4 == 0. */
static gint64
expected_count (guint src, gint64 n)
{
  gint64 best[50];
  for (guint t = 0; t < 50; t++)
    best[t] = -1;
  for (gint64 v = 1; v <= n; v++)
    if (v % 7 == src && v > best[v % 50])
      best[v % 50] = v;
  gint64 active = 0;
  for (guint t = 0; t < 50; t++)
    active += best[t] > 0 && best[t] % 4 != 0;
  return active;
}

START_TEST (async_survives_kill)
{
  start (_i);
  g_autoptr (JsonNode) d
      = ok ("POST", "/graph/v3/databases", "{\"database\":\"d\",\"comment\":\"c\"}");
  g_autoptr (JsonNode) t
      = ok ("POST", "/graph/v3/databases/d/tables",
            "{\"table\":\"t\",\"storage\":\"datastore://d/t\",\"comment\":\"c\",\"mode\":\"ASYNC\","
            "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
            "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\","
            "\"properties\":[],\"indexes\":[]}}");
  gint64 n = 3000;
  GRand *rand = g_rand_new_with_seed (5);
  gint64 *order = g_new (gint64, n);
  for (gint64 i = 0; i < n; i++)
    order[i] = i + 1;
  for (gint64 i = n - 1; i > 0; i--)
    {
      gint64 j = g_rand_int_range (rand, 0, (gint32) i + 1), tmp = order[i];
      order[i] = order[j];
      order[j] = tmp;
    }
  g_rand_free (rand);
  for (gint64 off = 0; off < n; off += 100)
    {
      GString *b = g_string_new ("{\"mutations\":[");
      for (gint64 i = off; i < off + 100; i++)
        g_string_append_printf (b,
                                "%s{\"type\":\"%s\",\"edge\":{\"version\":%" G_GINT64_FORMAT
                                ",\"source\":\"u%d\",\"target\":\"t%d\"}}",
                                i > off ? "," : "", order[i] % 4 == 0 ? "DELETE" : "INSERT",
                                order[i], (int) (order[i] % 7), (int) (order[i] % 50));
      g_string_append (b, "]}");
      g_autoptr (JsonNode) r = ok ("POST", T "/edges", b->str);
      g_string_free (b, TRUE);
      ck_assert_str_eq (ab_json_str (r, "results.0.status"), "QUEUED");
    }
  g_free (order);
  ab_server_kill (&srv); /* every request above was acknowledged */
  restart ();
  for (guint src = 0; src < 7; src++)
    {
      gint64 want = expected_count (src, n), got = -1;
      for (guint attempt = 0; attempt < 300 && got != want; attempt++)
        {
          g_autofree gchar *path = g_strdup_printf (T "/edges/count?start=u%u&direction=OUT", src);
          g_autoptr (JsonNode) c = ok ("GET", path, NULL);
          got = ab_json_int (c, "count");
          if (got != want)
            g_usleep (100000);
        }
      ck_assert_int_eq (got, want);
    }
  stop ();
}
END_TEST

/* A node told its file WAL does not outlive it (--wal-ephemeral), and a node
 * without a WAL (--wal none: nothing would ever apply a queued write), refuse
 * ASYNC writes with a JSON 503 saying why, write nothing for them, and still
 * take SYNC requests. */
START_TEST (ephemeral_wal_refuses_async)
{
  const gchar *ephemeral[] = { "--wal-ephemeral", NULL }, *none[] = { "--wal", "none", NULL };
  const gchar *why = _i == 0 ? "ephemeral" : "without one";
  ab_server_start (&srv, NULL, _i == 0 ? ephemeral : none);
  g_autoptr (JsonNode) d
      = ok ("POST", "/graph/v3/databases", "{\"database\":\"d\",\"comment\":\"c\"}");
  g_autoptr (JsonNode) t
      = ok ("POST", "/graph/v3/databases/d/tables",
            "{\"table\":\"t\",\"storage\":\"datastore://d/t\",\"comment\":\"c\",\"mode\":\"ASYNC\","
            "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
            "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\","
            "\"properties\":[],\"indexes\":[]}}");
  const gchar *edge = "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,"
                      "\"source\":\"u\",\"target\":\"t\"}}]}";
  AbReply r = { 0 };
  ab_http (&srv, &r, "POST", edge, T "/edges");
  ab_assert_error_reply (&r, 503);
  ck_assert_msg (strstr (ab_json_str (r.json, "message"), why) != NULL, "%s", r.body);
  ab_reply_clear (&r);
  g_autoptr (JsonNode) c0 = ok ("GET", T "/edges/count?start=u&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (c0, "count"), 0);
  g_autoptr (JsonNode) s = ok ("POST", T "/edges/sync", edge);
  ck_assert_str_eq (ab_json_str (s, "results.0.status"), "CREATED");
  g_autoptr (JsonNode) c1 = ok ("GET", T "/edges/count?start=u&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (c1, "count"), 1);
  ab_server_destroy (&srv);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("rest-async");
  TCase *tc = tcase_create ("async");
  tcase_set_timeout (tc, 180);
  /* The Kafka case runs only with a broker, and says so when it does not. */
  gboolean kafka = g_getenv ("AB_KAFKA_ADDR") != NULL;
  if (!kafka)
    g_printerr ("AB_KAFKA_ADDR is not set: async_survives_kill runs on the file WAL only\n");
  tcase_add_loop_test (tc, async_survives_kill, 0, kafka ? 2 : 1);
  tcase_add_loop_test (tc, ephemeral_wal_refuses_async, 0, 2);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
