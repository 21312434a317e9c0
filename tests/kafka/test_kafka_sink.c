/* The Kafka sink against a real broker: durable appends read back in order,
 * commits, resumed readers, readers closed with records unread, and a private
 * broker stopped and restarted under queued load. 77 without AB_KAFKA_ADDR. */
#include <check.h>
#include <librdkafka/rdkafka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kafka_broker.h"
#include "wal/sink.h"

static const gchar *kafka_addr; /* AB_KAFKA_ADDR: the shared broker */
/* The outage test stops and restarts a broker of its own (suites running in
 * parallel keep the shared one). */
static AbTestBroker private_broker;

static gchar *
topic_new (const gchar *what)
{
  return g_strdup_printf ("ab-test-%s-%d-%08x", what, (int) getpid (), g_random_int ());
}

static AbSink *
sink_open (const gchar *topic, const gchar *options)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *uri = g_strdup_printf ("kafka://%s/%s%s%s", kafka_addr, topic,
                                           options != NULL ? "?" : "", options ? options : "");
  AbSink *s = ab_sink_open (uri, &error);
  ck_assert_msg (s != NULL, "%s: %s", uri, error ? error->message : "?");
  return s;
}

static GPtrArray *
records_new (guint first, guint n)
{
  GPtrArray *a = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_sink_record_free);
  for (guint i = first; i < first + n; i++)
    {
      g_autofree gchar *key = g_strdup_printf ("src%u:tgt%u", i, i % 7);
      g_autofree gchar *value = g_strdup_printf ("{\"i\":%u,\"op\":\"INSERT\"}", i);
      g_ptr_array_add (a, ab_sink_record_new (key, value));
    }
  return a;
}

/* Reads until want entries came or timeout_s passed. */
static GPtrArray *
read_n (AbSinkReader *r, guint want, gint timeout_s)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_sink_entry_free);
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_s * G_USEC_PER_SEC;
  while (out->len < want && g_get_monotonic_time () < deadline)
    {
      g_autoptr (GError) error = NULL;
      ck_assert_msg (ab_sink_read (r, want - out->len, 500, out, &error), "read: %s",
                     error ? error->message : "?");
    }
  return out;
}

static void
assert_entry (const AbSinkEntry *e, guint i)
{
  g_autofree gchar *key = g_strdup_printf ("src%u:tgt%u", i, i % 7);
  g_autofree gchar *value = g_strdup_printf ("{\"i\":%u,\"op\":\"INSERT\"}", i);
  ck_assert_str_eq (e->record.key, key);
  ck_assert_str_eq (e->record.value, value);
  ck_assert_ptr_nonnull (e->position);
}

static void
append_ok (AbSink *s, guint first, guint n, gboolean durable)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) recs = records_new (first, n);
  ck_assert_msg (ab_sink_append (s, recs, durable, &error), "append: %s",
                 error ? error->message : "?");
}

START_TEST (test_durable_append_reads_back_in_order)
{
  g_autofree gchar *topic = topic_new ("order");
  AbSink *s = sink_open (topic, NULL);
  g_autofree gchar *reason = NULL;
  ck_assert_msg (ab_sink_healthy (s, &reason), "%s", reason ? reason : "");
  for (guint b = 0; b < 10; b++)
    append_ok (s, b * 20, 20, TRUE);
  AbSinkStats st;
  ab_sink_stats (s, &st);
  ck_assert_uint_eq (st.appended, 200);
  ck_assert_uint_eq (st.errors, 0);

  g_autoptr (GError) error = NULL;
  AbSinkReader *r = ab_sink_open_reader (s, NULL, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "?");
  g_autoptr (GPtrArray) got = read_n (r, 200, 30);
  ck_assert_uint_eq (got->len, 200);
  for (guint i = 0; i < got->len; i++)
    assert_entry (got->pdata[i], i);
  ab_sink_close_reader (r);

  g_auto (GStrv) keys = ab_test_kcat_keys (kafka_addr, topic);
  if (keys != NULL) /* kcat is a cross-check, not a requirement */
    {
      ck_assert_uint_eq (g_strv_length (keys), 200);
      ck_assert_str_eq (keys[0], "src0:tgt0");
      ck_assert_str_eq (keys[199], "src199:tgt3");
    }
  ab_sink_close (s);
  ck_assert_int_eq (rd_kafka_wait_destroyed (5000), 0);
}
END_TEST

START_TEST (test_commit_then_reopen_resumes_after_it)
{
  g_autofree gchar *topic = topic_new ("commit");
  AbSink *s = sink_open (topic, NULL);
  append_ok (s, 0, 10, TRUE);
  g_autoptr (GError) error = NULL;
  AbSinkReader *r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) first = read_n (r, 10, 30);
  ck_assert_uint_eq (first->len, 10);
  AbSinkEntry *fifth = first->pdata[4];
  ck_assert (ab_sink_commit (r, fifth->position, &error));
  ab_sink_close_reader (r);

  r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) rest = read_n (r, 5, 30);
  ck_assert_uint_eq (rest->len, 5);
  for (guint i = 0; i < rest->len; i++)
    assert_entry (rest->pdata[i], 5 + i);
  ck_assert (ab_sink_commit (r, ((AbSinkEntry *) rest->pdata[4])->position, &error));
  ab_sink_close_reader (r);

  /* Everything committed: a new reader sees only what comes next. */
  r = ab_sink_open_reader (s, NULL, &error);
  append_ok (s, 10, 1, TRUE);
  g_autoptr (GPtrArray) next = read_n (r, 2, 4);
  ck_assert_uint_eq (next->len, 1);
  assert_entry (next->pdata[0], 10);
  ab_sink_close_reader (r);
  ab_sink_close (s);
  ck_assert_int_eq (rd_kafka_wait_destroyed (5000), 0);
}
END_TEST

/* A reader that dies without closing (kill -9 of the server): its group
 * membership expires and a new reader resumes after the committed entry. */
START_TEST (test_crashed_reader_resumes_after_commit)
{
  g_autofree gchar *topic = topic_new ("crash");
  AbSink *s = sink_open (topic, NULL);
  append_ok (s, 0, 6, TRUE);
  ab_sink_close (s);
  ck_assert_int_eq (rd_kafka_wait_destroyed (5000), 0);
  pid_t pid = fork ();
  ck_assert_int_ge (pid, 0);
  if (pid == 0)
    {
      /* The child's handles are never destroyed: it just vanishes. */
      AbSink *cs = sink_open (topic, NULL);
      AbSinkReader *cr = ab_sink_open_reader (cs, NULL, NULL);
      g_autoptr (GPtrArray) got = read_n (cr, 6, 30);
      gboolean ok
          = got->len == 6 && ab_sink_commit (cr, ((AbSinkEntry *) got->pdata[2])->position, NULL);
      _exit (ok ? 0 : 1);
    }
  int status = 0;
  ck_assert_int_eq (waitpid (pid, &status, 0), pid);
  ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  s = sink_open (topic, NULL);
  g_autoptr (GError) error = NULL;
  AbSinkReader *r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) rest = read_n (r, 3, 60);
  ck_assert_uint_eq (rest->len, 3);
  for (guint i = 0; i < rest->len; i++)
    assert_entry (rest->pdata[i], 3 + i);
  ab_sink_close_reader (r);
  ab_sink_close (s);
  ck_assert_int_eq (rd_kafka_wait_destroyed (5000), 0);
}
END_TEST

START_TEST (test_reader_from_position_in_a_new_group)
{
  g_autofree gchar *topic = topic_new ("from");
  AbSink *s = sink_open (topic, NULL);
  append_ok (s, 0, 6, TRUE);
  g_autoptr (GError) error = NULL;
  AbSinkReader *r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) all = read_n (r, 6, 30);
  ck_assert_uint_eq (all->len, 6);
  GBytes *third = g_bytes_ref (((AbSinkEntry *) all->pdata[2])->position);
  ab_sink_close_reader (r);
  ab_sink_close (s);

  g_autofree gchar *options = g_strdup_printf ("group=other-%08x", g_random_int ());
  s = sink_open (topic, options);
  r = ab_sink_open_reader (s, third, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "?");
  g_autoptr (GPtrArray) after = read_n (r, 3, 30);
  ck_assert_uint_eq (after->len, 3);
  assert_entry (after->pdata[0], 3);
  ab_sink_close_reader (r);
  ab_sink_close (s);
  g_bytes_unref (third);

  GBytes *bad = g_bytes_new_static ("x", 1);
  s = sink_open (topic, NULL);
  ck_assert_ptr_null (ab_sink_open_reader (s, bad, &error));
  ck_assert (g_error_matches (error, AB_SINK_ERROR, AB_SINK_ERROR_IO));
  ab_sink_close (s);
  ck_assert_int_eq (rd_kafka_wait_destroyed (5000), 0);
  g_bytes_unref (bad);
}
END_TEST

/* A server stopping while its applier lags: records fetched but not read yet
 * are still in the consumer's queue when the reader closes. Closing drops
 * them (no abort in librdkafka) and commits nothing: the next reader gets them. */
START_TEST (test_close_reader_with_unread_records)
{
  g_autofree gchar *topic = topic_new ("unread");
  AbSink *s = sink_open (topic, NULL);
  append_ok (s, 0, 200, TRUE);
  g_autoptr (GError) error = NULL;
  AbSinkReader *r = ab_sink_open_reader (s, NULL, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "?");
  g_autoptr (GPtrArray) first = read_n (r, 1, 30);
  ck_assert_uint_eq (first->len, 1);
  assert_entry (first->pdata[0], 0);
  ab_sink_close_reader (r);

  r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) all = read_n (r, 200, 30);
  ck_assert_uint_eq (all->len, 200);
  for (guint i = 0; i < all->len; i++)
    assert_entry (all->pdata[i], i);
  ab_sink_close_reader (r);
  ab_sink_close (s);
  ck_assert_int_eq (rd_kafka_wait_destroyed (5000), 0);
}
END_TEST

START_TEST (test_bad_uri_options)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *uri = g_strdup_printf ("kafka://%s/t?bogus=1", kafka_addr);
  ck_assert_ptr_null (ab_sink_open (uri, &error));
  ck_assert (g_error_matches (error, AB_SINK_ERROR, AB_SINK_ERROR_URI));
  g_clear_error (&error);
  g_autofree gchar *uri2 = g_strdup_printf ("kafka://%s/t?queue_max=zero", kafka_addr);
  ck_assert_ptr_null (ab_sink_open (uri2, &error));
  ck_assert (g_error_matches (error, AB_SINK_ERROR, AB_SINK_ERROR_URI));
}
END_TEST

/* ---- outages ---- */

static gint64
elapsed_ms (gint64 since)
{
  return (g_get_monotonic_time () - since) / 1000;
}

/* Unchecked fixture (runs in the parent): the private broker lives across
 * the forked test and is always stopped and removed, even when it fails. */
static void
private_broker_start (void)
{
  ab_test_broker_start (&private_broker);
}

static void
private_broker_stop (void)
{
  ab_test_broker_destroy (&private_broker);
}

static gboolean
wait_health (AbSink *s, gboolean want, gint timeout_s, gchar **reason)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_s * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline)
    {
      g_autofree gchar *why = NULL;
      if (ab_sink_healthy (s, &why) == want)
        {
          if (reason != NULL)
            *reason = g_steal_pointer (&why);
          return TRUE;
        }
      g_usleep (100 * 1000);
    }
  return FALSE;
}

START_TEST (test_unreachable_broker)
{
  /* Nobody listens on port 1: open still succeeds, the sink is down, durable
   * appends fail at once, queued ones return at once. */
  g_autoptr (GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  AbSink *s = ab_sink_open ("kafka://127.0.0.1:1/nowhere?durable_timeout_ms=1000", &error);
  ck_assert_msg (s != NULL, "%s", error ? error->message : "?");
  ck_assert_int_lt (elapsed_ms (t0), 5000);
  g_autofree gchar *reason = NULL;
  ck_assert (!ab_sink_healthy (s, &reason));
  ck_assert_ptr_nonnull (strstr (reason, "127.0.0.1:1"));
  g_autoptr (GPtrArray) recs = records_new (0, 3);
  t0 = g_get_monotonic_time ();
  ck_assert (!ab_sink_append (s, recs, TRUE, &error));
  ck_assert (g_error_matches (error, AB_SINK_ERROR, AB_SINK_ERROR_UNAVAILABLE));
  ck_assert_int_lt (elapsed_ms (t0), 250); /* known down: no 1 s timeout */
  t0 = g_get_monotonic_time ();
  ck_assert (ab_sink_append (s, recs, FALSE, NULL));
  ck_assert_int_lt (elapsed_ms (t0), 250);
  AbSinkStats st;
  ab_sink_stats (s, &st);
  ck_assert_uint_eq (st.errors, 3);
  ck_assert_uint_eq (st.appended, 3);
  ab_sink_close (s);
  ck_assert_int_eq (rd_kafka_wait_destroyed (5000), 0);
}
END_TEST

/* Reads every record until value i=last shows up; counts the distinct ones. */
static GHashTable *
read_until (AbSink *s, guint last, gint timeout_s)
{
  g_autoptr (GError) error = NULL;
  AbSinkReader *r = ab_sink_open_reader (s, NULL, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "?");
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree gchar *want = g_strdup_printf ("{\"i\":%u,", last);
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_s * G_USEC_PER_SEC;
  gboolean done = FALSE;
  while (!done && g_get_monotonic_time () < deadline)
    {
      g_autoptr (GPtrArray) got = read_n (r, 1000, 1);
      for (guint i = 0; i < got->len; i++)
        {
          const gchar *v = ((AbSinkEntry *) got->pdata[i])->record.value;
          ck_assert_msg (!g_hash_table_contains (seen, v), "duplicate record %s", v);
          g_hash_table_add (seen, g_strdup (v));
          done = done || g_str_has_prefix (v, want);
        }
    }
  ab_sink_close_reader (r);
  ck_assert_msg (done, "record %u never arrived", last);
  return seen;
}

START_TEST (test_broker_stopped_and_restarted)
{
  const gchar *shared = kafka_addr;
  kafka_addr = private_broker.addr;
  g_autofree gchar *topic = topic_new ("outage");
  AbSink *s = sink_open (topic, "queue_max=500&durable_timeout_ms=2000");
  append_ok (s, 0, 10, TRUE);
  ck_assert (ab_test_broker_stop (&private_broker));

  /* Durable right after the stop (the sink may not know yet): bounded. */
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) lost = records_new (10, 1);
  gint64 t0 = g_get_monotonic_time ();
  ck_assert (!ab_sink_append (s, lost, TRUE, &error));
  ck_assert (g_error_matches (error, AB_SINK_ERROR, AB_SINK_ERROR_UNAVAILABLE));
  ck_assert_int_lt (elapsed_ms (t0), 6000);

  /* Queued appends never block; past the bound they are dropped, counted. */
  gint64 worst = 0;
  for (guint i = 0; i < 2000; i++)
    {
      t0 = g_get_monotonic_time ();
      append_ok (s, 100 + i, 1, FALSE);
      worst = MAX (worst, elapsed_ms (t0));
    }
  /* Each append is a few microseconds; the bound leaves room for a loaded
   * machine while still proving no append waits for the broker. */
  ck_assert_int_lt (worst, 250);
  AbSinkStats st;
  ab_sink_stats (s, &st);
  ck_assert_uint_gt (st.dropped, 1000);
  ck_assert_uint_eq (st.appended + st.dropped, 10 + 2000);
  g_autofree gchar *reason = NULL;
  ck_assert_msg (wait_health (s, FALSE, 15, &reason), "still healthy with the broker stopped");
  ck_assert_ptr_nonnull (strstr (reason, "unreachable"));

  /* Same broker back on the same address: publishing resumes, queued
   * records are delivered, the failed durable one never is. */
  ck_assert (ab_test_broker_restart (&private_broker));
  ck_assert_msg (wait_health (s, TRUE, 60, NULL), "not healthy again after the restart");
  append_ok (s, 5000, 1, TRUE);
  /* The backlog may still fill the queue for a moment: retry the marker
   * until the queue takes it. */
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  for (guint64 dropped = G_MAXUINT64; dropped != st.dropped; g_usleep (200 * 1000))
    {
      ck_assert_msg (g_get_monotonic_time () < deadline, "the queue never drained");
      ab_sink_stats (s, &st);
      dropped = st.dropped;
      append_ok (s, 5001, 1, FALSE);
      ab_sink_stats (s, &st);
    }
  g_autoptr (GHashTable) seen = read_until (s, 5001, 60);
  ab_sink_stats (s, &st);
  ck_assert_uint_eq (g_hash_table_size (seen), st.appended);
  ck_assert (!g_hash_table_contains (seen, "{\"i\":10,\"op\":\"INSERT\"}"));
  ab_sink_close (s);
  kafka_addr = shared;
  ck_assert_int_eq (rd_kafka_wait_destroyed (5000), 0);
}
END_TEST

static Suite *
kafka_suite (void)
{
  Suite *s = suite_create ("kafka_sink");
  TCase *tc = tcase_create ("broker");
  tcase_set_timeout (tc, 180);
  tcase_add_test (tc, test_durable_append_reads_back_in_order);
  tcase_add_test (tc, test_commit_then_reopen_resumes_after_it);
  tcase_add_test (tc, test_crashed_reader_resumes_after_commit);
  tcase_add_test (tc, test_reader_from_position_in_a_new_group);
  tcase_add_test (tc, test_close_reader_with_unread_records);
  tcase_add_test (tc, test_bad_uri_options);
  tcase_add_test (tc, test_unreachable_broker);
  suite_add_tcase (s, tc);
  TCase *outage = tcase_create ("outage");
  tcase_set_timeout (outage, 240);
  tcase_add_unchecked_fixture (outage, private_broker_start, private_broker_stop);
  tcase_add_test (outage, test_broker_stopped_and_restarted);
  suite_add_tcase (s, outage);
  return s;
}

int
main (void)
{
  kafka_addr = g_getenv ("AB_KAFKA_ADDR");
  if (kafka_addr == NULL || kafka_addr[0] == '\0')
    {
      g_printerr ("SKIP: AB_KAFKA_ADDR is not set (no Kafka broker: tests/kafka/start.sh DIR)\n");
      return 77;
    }
  SRunner *sr = srunner_create (kafka_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
