/* The log writer: the line format, the level filter, INFO lines buffered per
 * thread yet written by the timer, before a later warning, and all of them at
 * shutdown (also those of threads that have exited). */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include "server/log.h"
#include "ab_check.h"

#define G_LOG_DOMAIN_TEST "ab-test"

static gchar *path;
static int fd = -1;

static void
setup (void)
{
  path = g_build_filename (g_get_tmp_dir (), "ab-test-log-XXXXXX", NULL);
  fd = g_mkstemp (path);
  ck_assert_int_ge (fd, 0);
  ab_log_install (G_LOG_LEVEL_INFO, fd);
}

static void
teardown (void)
{
  ab_log_shutdown ();
  close (fd);
  g_unlink (path);
  g_free (path);
}

static gchar *
contents (void)
{
  gchar *text = NULL;
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
info (const gchar *text)
{
  g_log (G_LOG_DOMAIN_TEST, G_LOG_LEVEL_INFO, "%s", text);
}

START_TEST (test_line_format_and_filter)
{
  info ("method=GET route=/x status=200");
  g_log (G_LOG_DOMAIN_TEST, G_LOG_LEVEL_DEBUG, "hidden");
  ab_log_flush ();
  g_autofree gchar *text = contents ();
  g_autoptr (GRegex) re = g_regex_new ("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z "
                                       "INFO ab-test: method=GET route=/x status=200\\n$",
                                       0, 0, NULL);
  ck_assert_msg (g_regex_match (re, text, 0, NULL), "line: '%s'", text);
}
END_TEST

/* The access log's direct path writes what g_info would, from len bytes,
 * and honours the threshold. */
START_TEST (test_info_line_same_as_g_info)
{
  static const gchar msg[] = "method=GET route=/y status=404 duration_ms=0.125 request_id=abc";
  ab_log_info_line (G_LOG_DOMAIN_TEST,
                    "method=GET route=/y status=404 duration_ms=0.125 "
                    "request_id=abcDEF-not-this",
                    sizeof msg - 1);
  info (msg);
  ab_log_set_threshold (G_LOG_LEVEL_WARNING);
  ab_log_info_line (G_LOG_DOMAIN_TEST, "hidden", 6);
  ab_log_flush ();
  g_autofree gchar *text = contents ();
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  ck_assert_uint_eq (g_strv_length (lines), 3);    /* two lines and the empty tail */
  ck_assert_str_eq (lines[0] + 24, lines[1] + 24); /* past the time stamp */
  ck_assert_str_eq (lines[0] + 25, "INFO ab-test: method=GET route=/y status=404 duration_ms=0.125 "
                                   "request_id=abc");
}
END_TEST

START_TEST (test_buffered_until_flushed)
{
  /* An INFO line is not in the file right after the call (unless the timer
   * happened to flush in between: try again), and the timer writes it. */
  g_autofree gchar *line = NULL;
  gboolean seen_buffered = FALSE;
  for (guint i = 0; i < 20 && !seen_buffered; i++)
    {
      g_free (line);
      line = g_strdup_printf ("buffered %u\n", i);
      g_log (G_LOG_DOMAIN_TEST, G_LOG_LEVEL_INFO, "buffered %u", i);
      g_autofree gchar *now = contents ();
      seen_buffered = strstr (now, line) == NULL;
    }
  ck_assert_msg (seen_buffered, "every INFO line was written at once");
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  for (;;)
    {
      g_autofree gchar *text = contents ();
      if (strstr (text, line) != NULL)
        break;
      ck_assert_msg (g_get_monotonic_time () < deadline, "the timer never flushed");
      g_usleep (10000);
    }
}
END_TEST

START_TEST (test_warning_comes_after_earlier_info)
{
  info ("first");
  g_log (G_LOG_DOMAIN_TEST, G_LOG_LEVEL_WARNING, "second");
  g_autofree gchar *text = contents ();
  const gchar *a = strstr (text, "INFO ab-test: first\n");
  const gchar *b = strstr (text, "WARN ab-test: second\n");
  ck_assert_msg (a != NULL && b != NULL && a < b, "'%s'", text);
}
END_TEST

static gpointer
writer_thread (gpointer data)
{
  guint id = GPOINTER_TO_UINT (data);
  for (guint i = 0; i < 2000; i++)
    {
      g_autofree gchar *line = g_strdup_printf ("thread %u line %u", id, i);
      info (line);
    }
  return NULL;
}

START_TEST (test_nothing_lost_in_order)
{
  GThread *t[4];
  for (guint i = 0; i < 4; i++)
    t[i] = g_thread_new ("w", writer_thread, GUINT_TO_POINTER (i));
  for (guint i = 0; i < 4; i++)
    g_thread_join (t[i]);
  /* Two threads are gone, two lines of this one are still buffered. */
  info ("main 1");
  info ("main 2");
  ab_log_shutdown ();
  g_autofree gchar *text = contents ();
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint next[4] = { 0 };
  guint n = 0;
  for (guint k = 0; lines[k] != NULL && lines[k][0] != '\0'; k++, n++)
    {
      const gchar *msg = strstr (lines[k], "INFO ab-test: ");
      ck_assert_msg (msg != NULL, "bad line '%s'", lines[k]);
      guint id, i;
      if (sscanf (msg, "INFO ab-test: thread %u line %u", &id, &i) == 2)
        {
          ck_assert_uint_lt (id, 4);
          ck_assert_uint_eq (i, next[id]);
          next[id]++;
        }
    }
  for (guint i = 0; i < 4; i++)
    ck_assert_uint_eq (next[i], 2000);
  ck_assert_uint_eq (n, 4 * 2000 + 2);
  ck_assert (g_str_has_suffix (text, "INFO ab-test: main 2\n"));
  ck_assert_ptr_nonnull (strstr (text, "INFO ab-test: main 1\n"));
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("log");
  TCase *tc = tcase_create ("writer");
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_line_format_and_filter);
  tcase_add_test (tc, test_info_line_same_as_g_info);
  tcase_add_test (tc, test_buffered_until_flushed);
  tcase_add_test (tc, test_warning_comes_after_earlier_info);
  tcase_add_test (tc, test_nothing_lost_in_order);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
