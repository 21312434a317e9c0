/* The none and file record sinks of src/wal: URI parsing, appends and their
 * counters, JSON lines read back in order across segments and reopenings,
 * torn tails, positions, retention on commit, health. (Kafka: tests/kafka.) */
#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include "wal/sink.h"
#include "ab_check.h"
#include "small_disk.h"
#include "unit/store/store_test_util.h"

static gchar *dir;

static void
setup (void)
{
  dir = g_dir_make_tmp ("ab-wal-XXXXXX", NULL);
  ck_assert_ptr_nonnull (dir);
}

static void
teardown (void)
{
  st_rmtree (dir);
  g_clear_pointer (&dir, g_free);
}

static AbSink *
open_ok (const gchar *uri)
{
  g_autoptr (GError) error = NULL;
  AbSink *s = ab_sink_open (uri, &error);
  ck_assert_msg (s != NULL, "open %s: %s", uri, error ? error->message : "");
  return s;
}

static AbSink *
open_file (const gchar *query)
{
  g_autofree gchar *uri
      = g_strdup_printf ("file:%s%s%s", dir, query ? "?" : "", query ? query : "");
  return open_ok (uri);
}

/* Record i: a compact JSON object naming i, padded to `pad` characters. */
static gchar *
record_json (guint i, guint pad)
{
  g_autofree gchar *fill = g_strnfill (pad, 'x');
  return g_strdup_printf (
      "{\"seq\":%u,\"key\":\"s%u:t\",\"note\":\"quote \\\" and \\\\n\",\"pad\":\"%s\"}", i, i,
      fill);
}

/* Appends records first..first+n-1, one append call per `per_call`. */
static void
append_range (AbSink *s, guint first, guint n, guint per_call, guint pad, gboolean durable)
{
  for (guint i = first; i < first + n;)
    {
      g_autoptr (GPtrArray) batch
          = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_sink_record_free);
      for (guint j = 0; j < per_call && i < first + n; j++, i++)
        {
          g_autofree gchar *key = g_strdup_printf ("s%u:t", i);
          g_autofree gchar *value = record_json (i, pad);
          g_ptr_array_add (batch, ab_sink_record_new (key, value));
        }
      g_autoptr (GError) error = NULL;
      ck_assert_msg (ab_sink_append (s, batch, durable, &error), "append: %s",
                     error ? error->message : "");
    }
}

static GPtrArray *
entries_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) ab_sink_entry_free);
}

/* Reads until a read returns nothing (timeout 0: nothing waits). */
static GPtrArray *
read_all (AbSinkReader *r, guint max_per_read)
{
  GPtrArray *all = entries_new ();
  for (;;)
    {
      guint before = all->len;
      g_autoptr (GError) error = NULL;
      ck_assert_msg (ab_sink_read (r, max_per_read, 0, all, &error), "read: %s",
                     error ? error->message : "");
      ck_assert_uint_le (all->len - before, max_per_read);
      if (all->len == before)
        return all;
    }
}

/* Entries are records first..first+n-1, in order, each value the exact JSON
 * appended (it parses, and its "seq" is its place). */
static void
assert_records (GPtrArray *entries, guint first, guint n, guint pad)
{
  ck_assert_uint_eq (entries->len, n);
  for (guint i = 0; i < n; i++)
    {
      const AbSinkEntry *e = entries->pdata[i];
      g_autofree gchar *want = record_json (first + i, pad);
      ck_assert_str_eq (e->record.value, want);
      g_autoptr (GError) error = NULL;
      g_autoptr (JsonNode) node = json_from_string (e->record.value, &error);
      ck_assert_msg (node != NULL, "not JSON: %s", e->record.value);
      ck_assert_int_eq (json_object_get_int_member (json_node_get_object (node), "seq"), first + i);
      ck_assert_ptr_nonnull (e->position);
    }
}

static guint
count_segments (void)
{
  guint n = 0;
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    n += g_str_has_prefix (name, "wal-") && g_str_has_suffix (name, ".jsonl");
  if (d != NULL)
    g_dir_close (d);
  return n;
}

START_TEST (uris)
{
  static const gchar *nones[] = { "none", "" };
  for (guint i = 0; i < G_N_ELEMENTS (nones); i++)
    {
      AbSink *s = open_ok (nones[i]);
      ck_assert (ab_sink_is_none (s));
      ab_sink_close (s);
    }
  AbSink *null_uri = ab_sink_open (NULL, NULL);
  ck_assert (ab_sink_is_none (null_uri));
  ab_sink_close (null_uri);
  AbSink *f = open_file (NULL);
  ck_assert (!ab_sink_is_none (f));
  ab_sink_close (f);

  static const gchar *bad[]
      = { "mqtt://x/y", "kafka://", "kafka://host:9092", "kafka:///topic", "kafka://host:9092/" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      AbSink *s = ab_sink_open (bad[i], &error);
      ck_assert_msg (s == NULL, "%s accepted", bad[i]);
      ck_assert_msg (g_error_matches (error, AB_SINK_ERROR, AB_SINK_ERROR_URI), "%s: %s", bad[i],
                     error ? error->message : "no error");
    }
  static const gchar *bad_opts[]
      = { "segment_bytes=abc", "retention_ms", "colour=red", "segment_bytes=-1" };
  for (guint i = 0; i < G_N_ELEMENTS (bad_opts); i++)
    {
      g_autofree gchar *uri = g_strdup_printf ("file:%s?%s", dir, bad_opts[i]);
      g_autoptr (GError) error = NULL;
      AbSink *s = ab_sink_open (uri, &error);
      ck_assert_msg (s == NULL, "%s accepted", uri);
      ck_assert (g_error_matches (error, AB_SINK_ERROR, AB_SINK_ERROR_URI));
      ck_assert_msg (strstr (error->message, bad_opts[i]) != NULL
                         || strstr (error->message, "colour") != NULL,
                     "%s", error->message);
    }
}
END_TEST

/* none accepts everything, keeps nothing and cannot be read back. */
START_TEST (none_sink)
{
  AbSink *s = open_ok ("none");
  append_range (s, 0, 10, 3, 0, TRUE);
  append_range (s, 10, 5, 5, 0, FALSE);
  ck_assert (ab_sink_healthy (s, NULL));
  AbSinkStats st;
  ab_sink_stats (s, &st);
  ck_assert_uint_eq (st.errors, 0);
  ck_assert_uint_eq (st.dropped, 0);
  g_autoptr (GError) error = NULL;
  ck_assert_ptr_null (ab_sink_open_reader (s, NULL, &error));
  ck_assert (g_error_matches (error, AB_SINK_ERROR, AB_SINK_ERROR_URI));
  ck_assert_msg (strstr (error->message, "cannot be read back") != NULL, "%s", error->message);
  ab_sink_close (s);
  ck_assert_uint_eq (count_segments (), 0);
}
END_TEST

/* One JSON line per record, in append order, counted; an empty append
 * writes nothing. */
START_TEST (file_append_and_read)
{
  AbSink *s = open_file (NULL);
  append_range (s, 0, 7, 3, 0, TRUE);
  append_range (s, 7, 5, 1, 0, FALSE);
  g_autoptr (GPtrArray) empty = g_ptr_array_new ();
  ck_assert (ab_sink_append (s, empty, TRUE, NULL));
  AbSinkStats st;
  ab_sink_stats (s, &st);
  ck_assert_uint_eq (st.appended, 12);
  ck_assert_uint_eq (st.errors, 0);
  ck_assert (ab_sink_healthy (s, NULL));

  /* the segment file is JSON lines, nothing else */
  g_autofree gchar *seg = g_build_filename (dir, "wal-00000000000000000000.jsonl", NULL);
  g_autofree gchar *text = NULL;
  ck_assert (g_file_get_contents (seg, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  ck_assert_uint_eq (g_strv_length (lines), 13); /* 12 lines and the empty tail */
  ck_assert_str_eq (lines[12], "");
  g_autofree gchar *fifth = record_json (4, 0);
  ck_assert_str_eq (lines[4], fifth);

  g_autoptr (GError) error = NULL;
  AbSinkReader *r = ab_sink_open_reader (s, NULL, &error);
  ck_assert_ptr_nonnull (r);
  g_autoptr (GPtrArray) got = read_all (r, 5);
  assert_records (got, 0, 12, 0);
  ab_sink_close_reader (r);
  ab_sink_close (s);
}
END_TEST

/* A reader resumes after the position of the last entry it returned, also
 * from a sink reopened on the same directory, which appends after the old
 * records instead of over them. */
START_TEST (file_positions_and_reopen)
{
  AbSink *s = open_file (NULL);
  append_range (s, 0, 6, 2, 0, TRUE);
  g_autoptr (GError) error = NULL;
  AbSinkReader *r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) first = entries_new ();
  ck_assert (ab_sink_read (r, 4, 0, first, &error));
  assert_records (first, 0, 4, 0);
  GBytes *resume = g_bytes_ref (((AbSinkEntry *) first->pdata[3])->position);
  ab_sink_close_reader (r);
  ab_sink_close (s);

  s = open_file (NULL);
  append_range (s, 6, 3, 3, 0, TRUE);
  r = ab_sink_open_reader (s, resume, &error);
  ck_assert_ptr_nonnull (r);
  g_autoptr (GPtrArray) rest = read_all (r, 100);
  assert_records (rest, 4, 5, 0);
  ab_sink_close_reader (r);
  r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) everything = read_all (r, 100);
  assert_records (everything, 0, 9, 0);
  ab_sink_close_reader (r);

  g_autoptr (GBytes) garbage = g_bytes_new ("xyz", 3);
  ck_assert_ptr_null (ab_sink_open_reader (s, garbage, &error));
  ck_assert (g_error_matches (error, AB_SINK_ERROR, AB_SINK_ERROR_IO));
  g_bytes_unref (resume);
  ab_sink_close (s);
}
END_TEST

/* A crash mid-append leaves a line without its newline: it was never
 * acknowledged, so reopening drops it and the next record starts clean. */
START_TEST (file_torn_tail)
{
  AbSink *s = open_file (NULL);
  append_range (s, 0, 3, 3, 0, TRUE);
  ab_sink_close (s);
  g_autofree gchar *seg = g_build_filename (dir, "wal-00000000000000000000.jsonl", NULL);
  FILE *f = fopen (seg, "a");
  ck_assert_ptr_nonnull (f);
  fputs ("{\"seq\":99,\"torn", f);
  fclose (f);

  s = open_file (NULL);
  append_range (s, 3, 1, 1, 0, TRUE);
  g_autoptr (GError) error = NULL;
  AbSinkReader *r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) got = read_all (r, 10);
  assert_records (got, 0, 4, 0);
  ab_sink_close_reader (r);
  ab_sink_close (s);
}
END_TEST

/* A full disk refuses an append partway: nothing of it stays (no torn line
 * for the next append to continue, no whole line of it for a reader), and
 * appends resume once there is room. Needs root (a tmpfs of its own). */
START_TEST (file_full_disk_keeps_whole_appends)
{
  gchar *mnt = ab_small_disk_new ("1m", "file_full_disk_keeps_whole_appends");
  if (mnt == NULL)
    return;
  g_autofree gchar *uri = g_strdup_printf ("file:%s/wal", mnt);
  AbSink *s = open_ok (uri);
  append_range (s, 0, 3, 3, 0, TRUE);
  ab_small_disk_fill (mnt, "filler", 0); /* what is left is the segment's last page */
  g_autoptr (GPtrArray) big = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_sink_record_free);
  for (guint i = 3; i < 13; i++)
    {
      g_autofree gchar *value = record_json (i, 2000);
      g_ptr_array_add (big, ab_sink_record_new ("k", value));
    }
  g_autoptr (GError) error = NULL;
  ck_assert (!ab_sink_append (s, big, TRUE, &error));
  ck_assert_msg (strstr (error->message, "No space left") != NULL, "%s", error->message);
  AbSinkReader *r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) before = read_all (r, 100);
  assert_records (before, 0, 3, 0);
  ab_sink_close_reader (r);

  g_autofree gchar *filler = g_build_filename (mnt, "filler", NULL);
  ck_assert_int_eq (g_unlink (filler), 0);
  append_range (s, 3, 2, 1, 0, TRUE);
  r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) after = read_all (r, 100);
  assert_records (after, 0, 5, 0);
  ab_sink_close_reader (r);
  ab_sink_close (s);
  ab_small_disk_free (mnt);
}
END_TEST

/* Small segments: appends rotate to new files, a reader crosses them in
 * order, and a commit removes the segments before the committed one only
 * once they are older than the retention. */
START_TEST (file_segments_and_retention)
{
  const guint pad = 1000; /* about 1 KiB a record: 4 records fill a 4 KiB segment */
  AbSink *s = open_file ("segment_bytes=4096");
  append_range (s, 0, 20, 2, pad, FALSE);
  guint segments = count_segments ();
  ck_assert_uint_ge (segments, 4);
  g_autoptr (GError) error = NULL;
  AbSinkReader *r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) got = read_all (r, 3);
  assert_records (got, 0, 20, pad);
  GBytes *last = ((AbSinkEntry *) got->pdata[got->len - 1])->position;
  ck_assert (ab_sink_commit (r, last, &error));
  ck_assert_uint_eq (count_segments (), segments); /* the default retention is an hour */
  ab_sink_close_reader (r);
  ab_sink_close (s);

  s = open_file ("segment_bytes=4096&retention_ms=0");
  r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) again = read_all (r, 100);
  assert_records (again, 0, 20, pad);
  /* committing the first record's position frees nothing before it */
  ck_assert (ab_sink_commit (r, ((AbSinkEntry *) again->pdata[0])->position, &error));
  ck_assert_uint_eq (count_segments (), segments);
  ck_assert (ab_sink_commit (r, ((AbSinkEntry *) again->pdata[again->len - 1])->position, &error));
  ck_assert_uint_eq (count_segments (), 1);
  ab_sink_close_reader (r);
  /* what was not committed is still there for a new reader */
  r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) tail = read_all (r, 100);
  ck_assert_uint_ge (tail->len, 1);
  ck_assert_uint_lt (tail->len, 20);
  assert_records (tail, 20 - tail->len, tail->len, pad);
  ab_sink_close_reader (r);
  ab_sink_close (s);
}
END_TEST

typedef struct {
  AbSinkReader *reader;
  GPtrArray *out;
  gint64 took_us;
} Waiter;

static gpointer
wait_for_record (gpointer data)
{
  Waiter *w = data;
  gint64 t0 = g_get_monotonic_time ();
  ck_assert (ab_sink_read (w->reader, 10, 60000, w->out, NULL));
  w->took_us = g_get_monotonic_time () - t0;
  return NULL;
}

/* A read with a timeout returns as soon as a record is appended, not when
 * the timeout runs out (the applier waits like this). */
START_TEST (file_read_wakes_on_append)
{
  AbSink *s = open_file (NULL);
  g_autoptr (GError) error = NULL;
  AbSinkReader *r = ab_sink_open_reader (s, NULL, &error);
  g_autoptr (GPtrArray) none = entries_new ();
  ck_assert (ab_sink_read (r, 10, 0, none, &error));
  ck_assert_uint_eq (none->len, 0);
  Waiter w = { r, entries_new (), 0 };
  GThread *t = g_thread_new ("wal-reader", wait_for_record, &w);
  append_range (s, 0, 1, 1, 0, FALSE);
  g_thread_join (t);
  assert_records (w.out, 0, 1, 0);
  ck_assert_msg (w.took_us < 30 * G_USEC_PER_SEC, "the read waited %" G_GINT64_FORMAT " us",
                 w.took_us);
  g_ptr_array_unref (w.out);
  ab_sink_close_reader (r);
  ab_sink_close (s);
}
END_TEST

START_TEST (file_health)
{
  g_autofree gchar *sub = g_build_filename (dir, "wal", NULL);
  g_autofree gchar *uri = g_strdup_printf ("file:%s", sub);
  AbSink *s = open_ok (uri); /* the directory is created */
  ck_assert (g_file_test (sub, G_FILE_TEST_IS_DIR));
  ck_assert (ab_sink_healthy (s, NULL));
  st_rmtree (sub);
  g_autofree gchar *reason = NULL;
  ck_assert (!ab_sink_healthy (s, &reason));
  ck_assert_msg (reason != NULL && strstr (reason, sub) != NULL, "%s", reason);
  ab_sink_close (s);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("wal-sinks");
  TCase *tc = tcase_create ("none-and-file");
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 90);
  tcase_add_test (tc, uris);
  tcase_add_test (tc, none_sink);
  tcase_add_test (tc, file_append_and_read);
  tcase_add_test (tc, file_positions_and_reopen);
  tcase_add_test (tc, file_torn_tail);
  tcase_add_test (tc, file_full_disk_keeps_whole_appends);
  tcase_add_test (tc, file_segments_and_retention);
  tcase_add_test (tc, file_read_wakes_on_append);
  tcase_add_test (tc, file_health);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
