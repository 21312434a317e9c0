/* actionbased with its WAL and CDC on a private Kafka broker that is stopped
 * under SYNC load and restarted: requests keep answering 200, drops are counted
 * on /metrics, /health says why, and publishing resumes without a restart.
 * And under ASYNC load: refusals are JSON 503s naming the broker, nothing
 * acknowledged is lost, and writes are taken and applied again once it is back. */
#include <string.h>
#include <unistd.h>
#include "kafka_broker.h"
#include "rest_harness.h"
#include "ab_check.h"

#define T "/graph/v3/databases/d/tables/t"
/* Bound of each sink's queue (records): small, so that an outage drops soon.
 * The default queue_timeout_ms (120 s) outlasts the outage: what the queue
 * holds when the broker comes back is delivered, not failed. */
#define QUEUE_MAX 200
#define BATCH 10
/* A SYNC request never waits for Kafka: this bound is far above a request's
 * cost (milliseconds, even under ASan) and far below any Kafka timeout. */
#define REQUEST_MAX_MS 2000

typedef struct {
  const gchar *name; /* sink label on /metrics and --NAME option */
  gchar *topic;
} Sink;

typedef struct {
  guint64 appended, dropped, failed;
} SinkCounts;

static AbTestBroker broker;
static AbServer srv;
static Sink sinks[] = { { "wal", NULL }, { "cdc", NULL } };
/* Edges u -> t0 .. t<posted-1> inserted so far, one event and one new key
 * each: every sink was offered exactly `posted` records. */
static guint posted;

static void
broker_start (void)
{
  ab_test_broker_start (&broker);
}

static void
broker_destroy (void)
{
  ab_test_broker_destroy (&broker);
}

static gint64
deadline_after (gint seconds)
{
  return g_get_monotonic_time () + (gint64) seconds * G_USEC_PER_SEC;
}

static gdouble
seconds_since (gint64 t0)
{
  return (gdouble) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;
}

/* --wal and --cdc on topics of their own with a small queue (any --wal the
 * harness passes before is overridden: the last one wins). */
static void
server_start (void)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < G_N_ELEMENTS (sinks); i++)
    {
      sinks[i].topic = g_strdup_printf ("ab-server-%s-%d-%08x", sinks[i].name, (int) getpid (),
                                        g_random_int ());
      g_ptr_array_add (args, g_strdup_printf ("--%s", sinks[i].name));
      g_ptr_array_add (args, g_strdup_printf ("kafka://%s/%s?queue_max=%d", broker.addr,
                                              sinks[i].topic, QUEUE_MAX));
    }
  g_ptr_array_add (args, NULL);
  ab_server_start (&srv, NULL, (const gchar *const *) args->pdata);
  g_autoptr (JsonNode) d
      = ab_http_ok (&srv, "POST", "/graph/v3/databases", "{\"database\":\"d\",\"comment\":\"c\"}");
  g_autoptr (JsonNode) t = ab_http_ok (
      &srv, "POST", "/graph/v3/databases/d/tables",
      "{\"table\":\"t\",\"storage\":\"datastore://d/t\",\"comment\":\"c\",\"mode\":\"SYNC\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\",\"properties\":[],"
      "\"indexes\":[]}}");
}

static gchar *
key_of (guint i)
{
  return g_strdup_printf ("u:t%u", i);
}

/* Inserts the next n edges in one SYNC request: 200, every key CREATED.
 * Returns how long the request took (ms). */
static gint64
post_batch (guint n)
{
  g_autoptr (GString) body = g_string_new ("{\"mutations\":[");
  for (guint i = posted; i < posted + n; i++)
    g_string_append_printf (body,
                            "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%u,"
                            "\"source\":\"u\",\"target\":\"t%u\",\"properties\":{}}}",
                            i > posted ? "," : "", i + 1, i);
  g_string_append (body, "]}");
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (JsonNode) r = ab_http_ok (&srv, "POST", T "/edges", body->str);
  gint64 ms = (g_get_monotonic_time () - t0) / 1000;
  ck_assert_uint_eq (ab_json_len (r, "results"), n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree gchar *status = g_strdup_printf ("results.%u.status", i);
      g_autofree gchar *count = g_strdup_printf ("results.%u.count", i);
      ck_assert_str_eq (ab_json_str (r, status), "CREATED");
      ck_assert_int_eq (ab_json_int (r, count), 1);
    }
  posted += n;
  return ms;
}

static guint64
metric_value (const gchar *page, const gchar *sink, const gchar *outcome)
{
  g_autofree gchar *line = g_strdup_printf (
      "\nactionbase_sink_records_total{sink=\"%s\",outcome=\"%s\"} ", sink, outcome);
  const gchar *at = strstr (page, line);
  ck_assert_msg (at != NULL, "/metrics has no %s %s counter", sink, outcome);
  return g_ascii_strtoull (at + strlen (line), NULL, 10);
}

static SinkCounts
sink_counts (const Sink *s)
{
  AbReply r = { 0 };
  ab_http (&srv, &r, "GET", NULL, "/metrics");
  ck_assert_uint_eq (r.status, 200);
  SinkCounts c
      = { metric_value (r.body, s->name, "appended"), metric_value (r.body, s->name, "dropped"),
          metric_value (r.body, s->name, "failed") };
  ab_reply_clear (&r);
  return c;
}

/* Every record offered to the sink was either taken by its queue or dropped
 * and counted; none was refused for another reason or failed in delivery. */
static SinkCounts
assert_accounted (const Sink *s)
{
  SinkCounts c = sink_counts (s);
  ck_assert_msg (c.appended + c.dropped == posted,
                 "%s: %" G_GUINT64_FORMAT " appended + %" G_GUINT64_FORMAT " dropped != %u posted",
                 s->name, c.appended, c.dropped, posted);
  ck_assert_uint_eq (c.failed, 0);
  return c;
}

/* Polls /health until it answers want; returns its JSON body. writing: each
 * round first inserts one more edge (load goes on while waiting). */
static JsonNode *
wait_health (guint want, gboolean writing, gint timeout_s)
{
  gint64 deadline = deadline_after (timeout_s);
  for (;;)
    {
      if (writing)
        ck_assert_int_lt (post_batch (1), REQUEST_MAX_MS);
      AbReply r = { 0 };
      ab_http (&srv, &r, "GET", NULL, "/health");
      if (r.status == want)
        {
          JsonNode *body = g_steal_pointer (&r.json);
          ab_reply_clear (&r);
          ck_assert_ptr_nonnull (body);
          return body;
        }
      ck_assert_msg (g_get_monotonic_time () < deadline, "/health still %u %s after %d s", r.status,
                     r.body, timeout_s);
      ab_reply_clear (&r);
      g_usleep (200 * 1000);
    }
}

/* Waits until edge `last` is in the sink's topic, then asserts that the topic
 * holds every record the sink accepted (c, read just before) exactly once. */
static void
assert_topic_through (const Sink *s, guint last, const SinkCounts *c, gint timeout_s)
{
  g_autofree gchar *key = key_of (last);
  gint64 deadline = deadline_after (timeout_s);
  g_auto (GStrv) keys = NULL;
  while ((keys = ab_test_kcat_keys (broker.addr, s->topic)) == NULL
         || !g_strv_contains ((const gchar *const *) keys, key))
    {
      ck_assert_msg (g_get_monotonic_time () < deadline, "%s record %s never reached topic %s",
                     s->name, key, s->topic);
      g_clear_pointer (&keys, g_strfreev);
      g_usleep (250 * 1000);
    }
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; keys[i] != NULL; i++)
    ck_assert_msg (g_hash_table_add (seen, keys[i]), "%s: duplicate record %s", s->name, keys[i]);
  ck_assert_uint_eq (g_hash_table_size (seen), c->appended);
}

/* How the outage went, printed to the suite's log. */
static struct {
  gdouble stop_s, down_after_s, start_s, up_after_s, published_after_s;
  gint64 worst_ms;
} figures;

/* Broker up: every record reaches both topics, nothing is dropped. */
static void
publish_while_up (void)
{
  for (guint i = 0; i < 5; i++)
    post_batch (BATCH);
  for (guint i = 0; i < G_N_ELEMENTS (sinks); i++)
    {
      SinkCounts c = assert_accounted (&sinks[i]);
      ck_assert_uint_eq (c.dropped, 0);
      assert_topic_through (&sinks[i], posted - 1, &c, 30);
    }
}

/* Broker stopped: SYNC requests neither fail nor wait for Kafka; past the
 * bounded queue records are dropped and counted, and /health says why. */
static void
write_through_outage (void)
{
  gint64 t0 = g_get_monotonic_time ();
  ck_assert (ab_test_broker_stop (&broker));
  figures.stop_s = seconds_since (t0);
  t0 = g_get_monotonic_time ();
  guint before = posted;
  for (guint i = 0; i < 40; i++)
    {
      gint64 ms = post_batch (BATCH); /* not inside MAX (): it evaluates twice */
      figures.worst_ms = MAX (figures.worst_ms, ms);
    }
  ck_assert_int_lt (figures.worst_ms, REQUEST_MAX_MS);
  for (guint i = 0; i < G_N_ELEMENTS (sinks); i++)
    {
      SinkCounts c = assert_accounted (&sinks[i]);
      ck_assert_uint_ge (c.dropped, posted - before - QUEUE_MAX);
    }
  g_autoptr (JsonNode) down = wait_health (503, FALSE, 20);
  figures.down_after_s = seconds_since (t0);
  ck_assert_str_eq (ab_json_str (down, "status"), "DOWN");
  const gchar *reason = ab_json_str (down, "reason");
  ck_assert_ptr_nonnull (strstr (reason, broker.addr));
  ck_assert_ptr_nonnull (strstr (reason, "unreachable"));
}

/* Right after the restart the backlog may still fill a queue: posts single
 * edges until one is taken by every sink (no drop counted for it). */
static void
post_until_taken (gint timeout_s)
{
  gint64 deadline = deadline_after (timeout_s);
  for (;;)
    {
      SinkCounts before[G_N_ELEMENTS (sinks)];
      for (guint i = 0; i < G_N_ELEMENTS (sinks); i++)
        before[i] = sink_counts (&sinks[i]);
      post_batch (1);
      gboolean taken = TRUE;
      for (guint i = 0; i < G_N_ELEMENTS (sinks); i++)
        taken = taken && sink_counts (&sinks[i]).dropped == before[i].dropped;
      if (taken)
        return;
      ck_assert_msg (g_get_monotonic_time () < deadline, "the queues never drained");
      g_usleep (100 * 1000);
    }
}

/* The same broker back on the same address, writes going on: the server,
 * never restarted, turns healthy; a record written after the recovery
 * arrives, and so does every record the queues took before or during the
 * outage, each exactly once. */
static void
recover_and_publish (void)
{
  gint64 t0 = g_get_monotonic_time ();
  ck_assert (ab_test_broker_restart (&broker));
  figures.start_s = seconds_since (t0);
  t0 = g_get_monotonic_time ();
  g_autoptr (JsonNode) up = wait_health (200, TRUE, 60);
  figures.up_after_s = seconds_since (t0);
  ck_assert_str_eq (ab_json_str (up, "status"), "UP");
  post_until_taken (30);
  for (guint i = 0; i < G_N_ELEMENTS (sinks); i++)
    {
      SinkCounts c = assert_accounted (&sinks[i]);
      assert_topic_through (&sinks[i], posted - 1, &c, 30);
      g_print ("%s: %u records offered, %" G_GUINT64_FORMAT " published, %" G_GUINT64_FORMAT
               " dropped\n",
               sinks[i].name, posted, c.appended, c.dropped);
    }
  figures.published_after_s = seconds_since (t0);
}

START_TEST (sync_writes_survive_a_broker_outage)
{
  server_start ();
  publish_while_up ();
  write_through_outage ();
  recover_and_publish ();
  g_print ("outage: stop.sh %.1f s; worst SYNC request %" G_GINT64_FORMAT " ms; /health 503 "
           "%.1f s after the stop; start.sh %.1f s; /health 200 %.1f s after it; all "
           "published %.1f s after it\n",
           figures.stop_s, figures.worst_ms, figures.down_after_s, figures.start_s,
           figures.up_after_s, figures.published_after_s);
  /* Nothing was lost in the store, and the server stops cleanly (exit 0: it
   * never crashed, and the sanitizers found nothing). */
  g_autoptr (JsonNode) count
      = ab_http_ok (&srv, "GET", T "/edges/count?start=u&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (count, "count"), posted);
  ab_server_destroy (&srv);
  for (guint i = 0; i < G_N_ELEMENTS (sinks); i++)
    g_clear_pointer (&sinks[i].topic, g_free);
}
END_TEST

/* ---- ASYNC writes through an outage (issue 41) ---- */

#define ASYNC_T "/graph/v3/databases/a/tables/t"
/* A request's own bound: --request-timeout-ms's default. */
#define ASYNC_REQUEST_MAX_MS 10000

typedef struct {
  GPtrArray *acked; /* targets answered QUEUED */
  guint refused;
  gint64 worst_ms;
} AsyncLoad;

/* One ASYNC insert of u -> target: QUEUED, or a JSON 503 naming the WAL
 * and the broker. Returns TRUE when it was acknowledged. */
static gboolean
post_async (AsyncLoad *load, guint i)
{
  g_autofree gchar *target = g_strdup_printf ("a%u", i);
  g_autofree gchar *body = g_strdup_printf (
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"u\","
      "\"target\":\"%s\",\"properties\":{}}}]}",
      target);
  gint64 t0 = g_get_monotonic_time ();
  AbReply r = { 0 };
  ab_http (&srv, &r, "POST", body, ASYNC_T "/edges");
  gint64 ms = (g_get_monotonic_time () - t0) / 1000;
  load->worst_ms = MAX (load->worst_ms, ms);
  ck_assert_int_lt (ms, ASYNC_REQUEST_MAX_MS);
  gboolean acked = r.status == 200;
  if (acked)
    {
      ck_assert_str_eq (ab_json_str (r.json, "results.0.status"), "QUEUED");
      g_ptr_array_add (load->acked, g_steal_pointer (&target));
    }
  else
    {
      ab_assert_error_reply (&r, 503);
      const gchar *msg = ab_json_str (r.json, "message");
      ck_assert_msg (strstr (msg, "WAL") != NULL && strstr (msg, broker.addr) != NULL, "%s", msg);
      load->refused++;
    }
  ab_reply_clear (&r);
  return acked;
}

static gint broker_call_done; /* set by the thread running stop.sh or start.sh */

static gpointer
stop_broker (gpointer unused)
{
  gboolean ok = ab_test_broker_stop (&broker);
  g_atomic_int_set (&broker_call_done, 1);
  return GINT_TO_POINTER (ok);
}

static gpointer
restart_broker (gpointer unused)
{
  gboolean ok = ab_test_broker_restart (&broker);
  g_atomic_int_set (&broker_call_done, 1);
  return GINT_TO_POINTER (ok);
}

static gint64
out_count (void)
{
  g_autoptr (JsonNode) n
      = ab_http_ok (&srv, "GET", ASYNC_T "/edges/count?start=u&direction=OUT", NULL);
  return ab_json_int (n, "count");
}

START_TEST (async_writes_survive_a_broker_outage)
{
  g_autofree gchar *topic
      = g_strdup_printf ("ab-async-wal-%d-%08x", (int) getpid (), g_random_int ());
  g_autofree gchar *wal = g_strdup_printf ("kafka://%s/%s", broker.addr, topic);
  const gchar *args[] = { "--wal", wal, NULL };
  ab_server_start (&srv, NULL, args);
  json_node_unref (
      ab_http_ok (&srv, "POST", "/graph/v3/databases", "{\"database\":\"a\",\"comment\":\"c\"}"));
  json_node_unref (ab_http_ok (
      &srv, "POST", "/graph/v3/databases/a/tables",
      "{\"table\":\"t\",\"storage\":\"datastore://a/t\",\"comment\":\"c\",\"mode\":\"ASYNC\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[],\"indexes\":[]}}"));
  AsyncLoad load = { g_ptr_array_new_with_free_func (g_free), 0, 0 };
  guint i = 0;
  for (; i < 20; i++)
    ck_assert (post_async (&load, i));

  /* writes go on while stop.sh runs, and until one is refused */
  g_atomic_int_set (&broker_call_done, 0);
  GThread *stopper = g_thread_new ("stop", stop_broker, NULL);
  gint64 deadline = deadline_after (60);
  while (load.refused == 0 || !g_atomic_int_get (&broker_call_done))
    {
      post_async (&load, i++);
      ck_assert_msg (g_get_monotonic_time () < deadline,
                     "no write was refused with the broker down");
      g_usleep (20 * 1000);
    }
  ck_assert (GPOINTER_TO_INT (g_thread_join (stopper)));
  g_autoptr (JsonNode) down = wait_health (503, FALSE, 20);
  ck_assert_ptr_nonnull (strstr (ab_json_str (down, "reason"), broker.addr));

  /* and while start.sh runs, until a write is taken after it returned */
  g_atomic_int_set (&broker_call_done, 0);
  GThread *starter = g_thread_new ("start", restart_broker, NULL);
  gint64 back_at = 0;
  deadline = deadline_after (90);
  for (;;)
    {
      gboolean acked = post_async (&load, i++);
      if (back_at != 0 && acked)
        break;
      if (back_at == 0 && g_atomic_int_get (&broker_call_done))
        {
          ck_assert (GPOINTER_TO_INT (g_thread_join (starter)));
          back_at = g_get_monotonic_time ();
        }
      ck_assert_msg (g_get_monotonic_time () < deadline, "writes were never taken again");
      g_usleep (100 * 1000);
    }
  gdouble serving_s = seconds_since (back_at);

  /* every acknowledged write is applied (the applier reads the topic again) */
  deadline = deadline_after (60);
  while (out_count () < (gint64) load.acked->len)
    {
      ck_assert_msg (g_get_monotonic_time () < deadline, "only %" G_GINT64_FORMAT " of %u applied",
                     out_count (), load.acked->len);
      g_usleep (200 * 1000);
    }
  gdouble applied_s = seconds_since (back_at);
  for (guint k = 0; k < load.acked->len; k++)
    {
      g_autofree gchar *path = g_strdup_printf (ASYNC_T "/edges/get?source=u&target=%s",
                                                (const gchar *) load.acked->pdata[k]);
      g_autoptr (JsonNode) e = ab_http_ok (&srv, "GET", path, NULL);
      ck_assert_uint_eq (ab_json_len (e, "edges"), 1);
    }
  g_print ("ASYNC outage: %u acknowledged, %u refused with 503, worst request %" G_GINT64_FORMAT
           " ms; writes taken again %.1f s after start.sh returned, all applied %.1f s after it\n",
           load.acked->len, load.refused, load.worst_ms, serving_s, applied_s);
  g_ptr_array_unref (load.acked);
  ab_server_destroy (&srv);
}
END_TEST

int
main (void)
{
  const gchar *shared = g_getenv ("AB_KAFKA_ADDR");
  if (shared == NULL || shared[0] == '\0')
    {
      g_printerr ("SKIP: AB_KAFKA_ADDR is not set (no Kafka broker: tests/kafka/start.sh DIR)\n");
      return 77;
    }
  Suite *s = suite_create ("kafka_server");
  TCase *tc = tcase_create ("outage");
  tcase_set_timeout (tc, 240);
  tcase_add_unchecked_fixture (tc, broker_start, broker_destroy);
  tcase_add_test (tc, sync_writes_survive_a_broker_outage);
  tcase_add_test (tc, async_writes_survive_a_broker_outage);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
