/* REST harness implementation: process management through GSubprocess with
 * the server's stderr in a log file (read for "listening on" and printed
 * when a test fails), and a synchronous libsoup 3 client. */
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "rest_harness.h"

/* No leak check of this process at its exit. It holds no product code (the
 * REST suites link only GLib, libsoup, json-glib and Check); the server does,
 * and its own LeakSanitizer turns a leak into a non-zero exit, which
 * ab_server_stop fails on. LeakSanitizer's check at exit stops every thread
 * through a tracer that can crash on a thread exiting at that moment (GLib's
 * and libsoup's worker threads here): a sanitizer runtime bug that failed
 * test_tls once in CI ("Tracer caught signal 11" after all its checks had
 * passed). LeakSanitizer reads this hook; without it the symbol is unused. */
int __lsan_is_turned_off (void);

int
__lsan_is_turned_off (void)
{
  return 1;
}

static const gchar *
server_binary (void)
{
  const gchar *env = g_getenv ("AB_SERVER_BIN");
  return env != NULL ? env : "src/actionbased";
}

/* The end of a server log, short enough for a Check failure message (Check
 * refuses messages over its size limit, and a long log would hide the cause). */
static const gchar *
log_tail (const gchar *log)
{
  gsize n = log != NULL ? strlen (log) : 0;
  return log != NULL ? log + (n > 1500 ? n - 1500 : 0) : "";
}

/* Polled every 5 ms for 30 s: ab_server_spawn returns as close to the
 * announcement as a log file allows. */
static guint16
wait_for_port (AbServer *srv)
{
  for (gint64 end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC; g_get_monotonic_time () < end;)
    {
      g_autofree gchar *log = NULL;
      if (g_file_get_contents (srv->log_path, &log, NULL, NULL))
        {
          const gchar *p = strstr (log, "listening on ");
          const gchar *colon = p != NULL ? strchr (p, '\n') : NULL;
          if (colon != NULL)
            {
              while (colon > p && *colon != ':')
                colon--;
              return (guint16) atoi (colon + 1);
            }
        }
      ck_assert_msg (g_subprocess_get_identifier (srv->proc) != NULL,
                     "server exited early; log tail:\n%s", log_tail (log));
      g_usleep (5000);
    }
  ck_abort_msg ("server did not report its port");
  return 0;
}

gchar *
ab_server_hbase_store (const gchar *dir)
{
  g_autofree gchar *base = g_path_get_basename (dir);
  g_strdelimit (base, "-.", '_');
  return g_strdup_printf ("hbase://%s/ab_rest?table=%s", g_getenv ("AB_HBASE_ADDR"), base);
}

static void
server_spawn (AbServer *srv, const gchar *dir, const gchar *const *extra, const gchar *cert,
              const gchar *key, const gchar *ca_file)
{
  memset (srv, 0, sizeof *srv);
  srv->ca_file = g_strdup (ca_file);
  srv->dir = dir != NULL ? g_strdup (dir) : g_dir_make_tmp ("ab-rest-XXXXXX", NULL);
  static guint starts;
  g_autofree gchar *log_name = g_strdup_printf ("server-%u.log", starts++);
  srv->log_path = g_build_filename (srv->dir, log_name, NULL);
  /* AB_REST_STORE=hbase runs the suite on the HBase gateway of tests/run.sh
   * (a fresh table per server directory), =memory on the memory store,
   * =rocksdb on rocksdb in the server directory; lmdb there otherwise. */
  const gchar *hbase = g_getenv ("AB_HBASE_ADDR");
  const gchar *kind = g_getenv ("AB_REST_STORE");
  gboolean on_hbase = g_strcmp0 (kind, "hbase") == 0 && hbase != NULL;
  gboolean on_memory = g_strcmp0 (kind, "memory") == 0;
  const gchar *local = g_strcmp0 (kind, "rocksdb") == 0 ? "rocksdb" : "lmdb";
  g_autofree gchar *store = on_hbase    ? ab_server_hbase_store (srv->dir)
                            : on_memory ? g_strdup ("memory:")
                                        : g_strdup_printf ("%s:%s/data", local, srv->dir);
  g_autofree gchar *wal = g_strdup_printf ("file:%s/wal", srv->dir);
  GPtrArray *argv = g_ptr_array_new ();
  /* AB_SERVER_WRAPPER runs the server under a tool (tests/valgrind.sh: memcheck). */
  g_auto (GStrv) wrapper = NULL;
  const gchar *wrap = g_getenv ("AB_SERVER_WRAPPER");
  if (wrap != NULL && *wrap != '\0')
    ck_assert_msg (g_shell_parse_argv (wrap, NULL, &wrapper, NULL), "AB_SERVER_WRAPPER: %s", wrap);
  for (guint i = 0; wrapper != NULL && wrapper[i] != NULL; i++)
    g_ptr_array_add (argv, wrapper[i]);
  g_ptr_array_add (argv, (gpointer) server_binary ());
  g_ptr_array_add (argv, "--listen");
  g_ptr_array_add (argv, "127.0.0.1:0");
  g_ptr_array_add (argv, "--store");
  g_ptr_array_add (argv, store);
  g_ptr_array_add (argv, "--http-threads");
  g_ptr_array_add (argv, "2");
  g_ptr_array_add (argv, "--wal");
  g_ptr_array_add (argv, wal);
  if (wrapper != NULL)
    {
      /* Under memcheck each worker thread's start costs: the default 64
       * took 1.3 s of every server's 3 s start, most of a REST suite's
       * valgrind time. A suite's own --workers (in extra) comes later and wins. */
      g_ptr_array_add (argv, "--workers");
      g_ptr_array_add (argv, "8");
    }
  if (cert != NULL)
    {
      g_ptr_array_add (argv, "--tls-cert");
      g_ptr_array_add (argv, (gpointer) cert);
      g_ptr_array_add (argv, "--tls-key");
      g_ptr_array_add (argv, (gpointer) key);
    }
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra[i]);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_set_stderr_file_path (l, srv->log_path);
  g_autoptr (GError) error = NULL;
  srv->proc = g_subprocess_launcher_spawnv (l, (const gchar *const *) argv->pdata, &error);
  g_ptr_array_unref (argv);
  ck_assert_msg (srv->proc != NULL, "spawn %s: %s", server_binary (), error ? error->message : "");
  srv->port = wait_for_port (srv);
  srv->base = g_strdup_printf ("%s://127.0.0.1:%u", cert != NULL ? "https" : "http", srv->port);
}

static void
server_start (AbServer *srv, const gchar *dir, const gchar *const *extra, const gchar *cert,
              const gchar *key, const gchar *ca_file)
{
  server_spawn (srv, dir, extra, cert, key, ca_file);
  for (guint i = 0; i < 200; i++)
    {
      AbReply r = { 0 };
      ab_http (srv, &r, "GET", NULL, "/health");
      guint status = r.status;
      ab_reply_clear (&r);
      if (status == 200)
        return;
      g_usleep (50000);
    }
  ck_abort_msg ("server never became healthy");
}

void
ab_server_start (AbServer *srv, const gchar *dir, const gchar *const *extra)
{
  server_start (srv, dir, extra, NULL, NULL, NULL);
}

void
ab_server_spawn (AbServer *srv, const gchar *dir, const gchar *const *extra)
{
  server_spawn (srv, dir, extra, NULL, NULL, NULL);
}

void
ab_server_start_tls (AbServer *srv, const gchar *dir, const gchar *const *extra, const gchar *cert,
                     const gchar *key, const gchar *ca_file)
{
  server_start (srv, dir, extra, cert, key, ca_file);
}

void
ab_server_stop (AbServer *srv)
{
  if (srv->proc == NULL)
    return;
  g_subprocess_send_signal (srv->proc, SIGTERM);
  g_autoptr (GError) error = NULL;
  ck_assert (g_subprocess_wait (srv->proc, NULL, &error));
  g_autofree gchar *log = NULL;
  g_file_get_contents (srv->log_path, &log, NULL, NULL);
  gboolean exited = g_subprocess_get_if_exited (srv->proc);
  ck_assert_msg (exited && g_subprocess_get_exit_status (srv->proc) == 0,
                 "server did not exit cleanly (%s %d); log tail:\n%s", exited ? "status" : "signal",
                 exited ? g_subprocess_get_exit_status (srv->proc)
                        : g_subprocess_get_term_sig (srv->proc),
                 log_tail (log));
  g_clear_object (&srv->proc);
}

void
ab_server_restart (AbServer *srv, const gchar *const *extra)
{
  g_autofree gchar *dir = g_steal_pointer (&srv->dir);
  g_free (srv->log_path);
  g_free (srv->base);
  g_free (srv->ca_file);
  ab_server_start (srv, dir, extra);
}

void
ab_server_kill (AbServer *srv)
{
  if (srv->proc == NULL)
    return;
  g_subprocess_force_exit (srv->proc);
  g_subprocess_wait (srv->proc, NULL, NULL);
  g_clear_object (&srv->proc);
}

static void
rm_rf (const gchar *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      GDir *d = g_dir_open (path, 0, NULL);
      const gchar *name;
      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree gchar *child = g_build_filename (path, name, NULL);
          rm_rf (child);
        }
      if (d != NULL)
        g_dir_close (d);
      g_rmdir (path);
    }
  else
    g_remove (path);
}

void
ab_server_destroy (AbServer *srv)
{
  ab_server_stop (srv);
  rm_rf (srv->dir);
  g_free (srv->dir);
  g_free (srv->log_path);
  g_free (srv->base);
  g_free (srv->ca_file);
  memset (srv, 0, sizeof *srv);
}

void
ab_reply_clear (AbReply *r)
{
  if (r->json != NULL)
    json_node_unref (r->json);
  g_free (r->body);
  g_free (r->content_type);
  g_free (r->request_id);
  memset (r, 0, sizeof *r);
}

SoupSession *
ab_server_session (AbServer *srv)
{
  static SoupSession *plain;
  static GHashTable *by_ca; /* CA path -> session trusting it */
  if (srv->ca_file == NULL)
    {
      if (plain == NULL)
        plain = soup_session_new_with_options ("timeout", 60, NULL);
      return plain;
    }
  if (by_ca == NULL)
    by_ca = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  SoupSession *s = g_hash_table_lookup (by_ca, srv->ca_file);
  if (s == NULL)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GTlsDatabase) db = g_tls_file_database_new (srv->ca_file, &error);
      ck_assert_msg (db != NULL, "CA file %s: %s", srv->ca_file, error ? error->message : "");
      s = soup_session_new_with_options ("timeout", 60, "tls-database", db, NULL);
      g_hash_table_insert (by_ca, g_strdup (srv->ca_file), s);
    }
  return s;
}

/* The request; FALSE when no answer came (the server is gone), which
 * fails the test unless `may_fail`. */
static gboolean
send_request (AbServer *srv, AbReply *out, const gchar *method, GBytes *body, const gchar *path,
              const gchar *const *headers, gboolean may_fail)
{
  SoupSession *session = ab_server_session (srv);
  g_autofree gchar *url = g_strconcat (srv->base, path, NULL);
  g_autoptr (SoupMessage) msg = soup_message_new (method, url);
  ck_assert_msg (msg != NULL, "bad URL %s", url);
  SoupMessageHeaders *h = soup_message_get_request_headers (msg);
  for (guint i = 0; headers != NULL && headers[i] != NULL; i += 2)
    soup_message_headers_replace (h, headers[i], headers[i + 1]);
  if (body != NULL)
    soup_message_set_request_body_from_bytes (msg, "application/json", body);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) reply = soup_session_send_and_read (session, msg, NULL, &error);
  memset (out, 0, sizeof *out);
  if (reply == NULL && may_fail)
    return FALSE;
  if (reply == NULL)
    {
      g_autofree gchar *log = NULL;
      g_file_get_contents (srv->log_path, &log, NULL, NULL);
      ck_abort_msg ("%s %s: %s; server log tail:\n%s", method, path, error ? error->message : "",
                    log_tail (log));
    }
  out->status = soup_message_get_status (msg);
  out->http_version = soup_message_get_http_version (msg);
  SoupMessageHeaders *rh = soup_message_get_response_headers (msg);
  out->content_type = g_strdup (soup_message_headers_get_content_type (rh, NULL));
  out->request_id = g_strdup (soup_message_headers_get_one (rh, "X-Request-ID"));
  gsize len;
  const gchar *data = g_bytes_get_data (reply, &len);
  out->body = g_strndup (data != NULL ? data : "", len);
  if (len > 0)
    out->json = json_from_string (out->body, NULL);
  return TRUE;
}

void
ab_http_raw (AbServer *srv, AbReply *out, const gchar *method, GBytes *body, const gchar *path,
             const gchar *const *headers)
{
  send_request (srv, out, method, body, path, headers, FALSE);
}

gdouble
ab_server_metric (AbServer *srv, const gchar *name)
{
  AbReply r = { 0 };
  ab_http (srv, &r, "GET", NULL, "/metrics");
  ck_assert_uint_eq (r.status, 200);
  g_autofree gchar *head = g_strdup_printf ("\n%s ", name);
  const gchar *at = strstr (r.body, head);
  ck_assert_msg (at != NULL, "/metrics has no %s", name);
  gdouble v = g_ascii_strtod (at + strlen (head), NULL);
  ab_reply_clear (&r);
  return v;
}

gboolean
ab_http_try (AbServer *srv, AbReply *out, const gchar *method, const gchar *body, const gchar *path)
{
  g_autoptr (GBytes) b = body != NULL ? g_bytes_new (body, strlen (body)) : NULL;
  return send_request (srv, out, method, b, path, NULL, TRUE);
}

void
ab_http (AbServer *srv, AbReply *out, const gchar *method, const gchar *body, const gchar *path_fmt,
         ...)
{
  va_list ap;
  va_start (ap, path_fmt);
  g_autofree gchar *path = g_strdup_vprintf (path_fmt, ap);
  va_end (ap);
  g_autoptr (GBytes) b = body != NULL ? g_bytes_new (body, strlen (body)) : NULL;
  ab_http_raw (srv, out, method, b, path, NULL);
}

JsonNode *
ab_json_at (JsonNode *root, const gchar *path)
{
  JsonNode *n = root;
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  for (guint i = 0; n != NULL && parts[i] != NULL; i++)
    {
      if (JSON_NODE_HOLDS_OBJECT (n))
        n = json_object_get_member (json_node_get_object (n), parts[i]);
      else if (JSON_NODE_HOLDS_ARRAY (n))
        {
          guint idx = (guint) atoi (parts[i]);
          JsonArray *a = json_node_get_array (n);
          n = idx < json_array_get_length (a) ? json_array_get_element (a, idx) : NULL;
        }
      else
        n = NULL;
    }
  return n;
}

const gchar *
ab_json_str (JsonNode *root, const gchar *path)
{
  JsonNode *n = ab_json_at (root, path);
  ck_assert_msg (n != NULL && JSON_NODE_HOLDS_VALUE (n)
                     && json_node_get_value_type (n) == G_TYPE_STRING,
                 "%s is not a string", path);
  return json_node_get_string (n);
}

gint64
ab_json_int (JsonNode *root, const gchar *path)
{
  JsonNode *n = ab_json_at (root, path);
  ck_assert_msg (n != NULL && JSON_NODE_HOLDS_VALUE (n)
                     && json_node_get_value_type (n) == G_TYPE_INT64,
                 "%s is not an integer", path);
  return json_node_get_int (n);
}

gboolean
ab_json_bool (JsonNode *root, const gchar *path)
{
  JsonNode *n = ab_json_at (root, path);
  ck_assert_msg (n != NULL && JSON_NODE_HOLDS_VALUE (n)
                     && json_node_get_value_type (n) == G_TYPE_BOOLEAN,
                 "%s is not a boolean", path);
  return json_node_get_boolean (n);
}

gboolean
ab_json_is_null (JsonNode *root, const gchar *path)
{
  JsonNode *n = ab_json_at (root, path);
  ck_assert_msg (n != NULL, "%s is missing", path);
  return JSON_NODE_HOLDS_NULL (n);
}

guint
ab_json_len (JsonNode *root, const gchar *path)
{
  JsonNode *n = path[0] ? ab_json_at (root, path) : root;
  ck_assert_msg (n != NULL && JSON_NODE_HOLDS_ARRAY (n), "%s is not an array", path);
  return json_array_get_length (json_node_get_array (n));
}

void
ab_assert_error_reply (const AbReply *r, guint status)
{
  ck_assert_msg (r->status == status, "expected %u, got %u: %s", status, r->status,
                 r->body != NULL ? r->body : "");
  ck_assert_msg (r->json != NULL && JSON_NODE_HOLDS_OBJECT (r->json), "not a JSON error: %s",
                 r->body);
  ck_assert_int_eq (ab_json_int (r->json, "status"), status);
  ck_assert (ab_json_int (r->json, "timestamp") > 1600000000000);
  ck_assert_str_ne (ab_json_str (r->json, "error"), "");
  ck_assert_str_ne (ab_json_str (r->json, "message"), "");
}

JsonNode *
ab_http_ok (AbServer *srv, const gchar *method, const gchar *path, const gchar *body)
{
  AbReply r = { 0 };
  ab_http (srv, &r, method, body, "%s", path);
  ck_assert_msg (r.status == 200, "%s %s -> %u %s", method, path, r.status, r.body);
  JsonNode *n = g_steal_pointer (&r.json);
  ab_reply_clear (&r);
  return n;
}

void
ab_expect_error (AbServer *srv, const gchar *method, const gchar *path, const gchar *body,
                 guint status, const gchar *needle)
{
  AbReply r = { 0 };
  ab_http (srv, &r, method, body, "%s", path);
  ab_assert_error_reply (&r, status);
  const gchar *msg = ab_json_str (r.json, "message");
  ck_assert_msg (strstr (msg, needle) != NULL, "%s: '%s' lacks '%s'", path, msg, needle);
  ab_reply_clear (&r);
}

static gint
run_on_store (const gchar *store, const gchar *name, void (*add) (TCase *tc), void (*setup) (void),
              void (*teardown) (void), guint timeout)
{
  g_setenv ("AB_REST_STORE", store, TRUE);
  Suite *s = suite_create (store);
  TCase *tc = tcase_create (name);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, timeout);
  add (tc);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  gint failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed;
}

int
ab_rest_main_stores (const gchar *name, void (*add) (TCase *tc), void (*setup) (void),
                     void (*teardown) (void), guint timeout)
{
  gint failed;
  const gchar *only = g_getenv ("AB_REST_STORE");
  if (only != NULL && *only != '\0') /* hbase-suites.sh, valgrind.sh: that store alone */
    failed = run_on_store (only, name, add, setup, teardown, timeout);
  else
    failed = run_on_store ("lmdb", name, add, setup, teardown, timeout)
             + run_on_store ("rocksdb", name, add, setup, teardown, timeout)
             + run_on_store ("memory", name, add, setup, teardown, timeout);
  return failed == 0 ? 0 : 1;
}

gint
ab_verify_store (const gchar *store, gboolean repair)
{
  const gchar *argv[]
      = { "src/actionbase-verify", "--store", store, repair ? "--repair" : NULL, NULL };
  g_autofree gchar *out = NULL, *err = NULL;
  gint status = 0;
  g_autoptr (GError) error = NULL;
  ck_assert (
      g_spawn_sync (NULL, (gchar **) argv, NULL, 0, NULL, NULL, &out, &err, &status, &error));
  ck_assert_msg (g_spawn_check_wait_status (status, NULL) || WEXITSTATUS (status) == 1,
                 "actionbase-verify failed (%d): %s%s", status, out, err);
  return WEXITSTATUS (status);
}
