/* The Kafka sink against a real broker (tests/kafka/start.sh): durable appends
 * read back in order, commits and resumed readers, and a broker stopped and
 * restarted under queued load. Skips (77) without AB_KAFKA_ADDR. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "wal/sink.h"

static const gchar *kafka_addr;
static const gchar *kafka_dir;   /* AB_KAFKA_DIR: lets the suite stop/start the broker */

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

/* kcat's view of the topic: one key per line. */
static gchar **
kcat_keys (const gchar *topic)
{
  g_autofree gchar *out = NULL;
  gint status = 0;
  const gchar *argv[] = { "kcat", "-C", "-b", kafka_addr, "-t", topic, "-e", "-q",
                          "-f", "%k\n", NULL };
  if (!g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, &out, NULL, &status, NULL) || status != 0)
    return NULL;
  g_strchomp (out);
  return g_strsplit (out, "\n", -1);
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

  g_auto (GStrv) keys = kcat_keys (topic);
  if (keys != NULL) /* kcat is a cross-check, not a requirement */
    {
      ck_assert_uint_eq (g_strv_length (keys), 200);
      ck_assert_str_eq (keys[0], "src0:tgt0");
      ck_assert_str_eq (keys[199], "src199:tgt3");
    }
  ab_sink_close (s);
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
  g_autoptr (GPtrArray) next = read_n (r, 2, 8);
  ck_assert_uint_eq (next->len, 1);
  assert_entry (next->pdata[0], 10);
  ab_sink_close_reader (r);
  ab_sink_close (s);
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
  g_bytes_unref (bad);
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

#include "test_kafka_outage.inc"

static Suite *
kafka_suite (void)
{
  Suite *s = suite_create ("kafka_sink");
  TCase *tc = tcase_create ("broker");
  tcase_set_timeout (tc, 180);
  tcase_add_test (tc, test_durable_append_reads_back_in_order);
  tcase_add_test (tc, test_commit_then_reopen_resumes_after_it);
  tcase_add_test (tc, test_reader_from_position_in_a_new_group);
  tcase_add_test (tc, test_bad_uri_options);
  tcase_add_test (tc, test_unreachable_broker);
  tcase_add_test (tc, test_broker_stopped_and_restarted);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  kafka_addr = g_getenv ("AB_KAFKA_ADDR");
  kafka_dir = g_getenv ("AB_KAFKA_DIR");
  if (kafka_addr == NULL || kafka_addr[0] == '\0')
    {
      g_print ("AB_KAFKA_ADDR is not set (tests/kafka/start.sh DIR): skipped\n");
      return 77;
    }
  SRunner *sr = srunner_create (kafka_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
