/* Console suite, interactive: the REPL on a pseudo-terminal (prompt with the
 * context, `use`, tab completion, history recall and file, `\` and open-quote
 * continuation, colours, the load progress bar) and the --proxy endpoint. */
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include "cli_harness.h"
#include "ab_check.h"

static AbServer srv;
static gchar *tmp;

static void
setup (void)
{
  ab_server_start (&srv, NULL, NULL);
  tmp = g_dir_make_tmp ("ab-repl-XXXXXX", NULL);
  AbRun r;
  ab_cli_run (&srv, NULL, "load preset likes", &r);
  ck_assert_int_eq (r.status, 0);
  ab_run_clear (&r);
}

static void
teardown (void)
{
  g_autoptr (GDir) d = g_dir_open (tmp, 0, NULL);
  const gchar *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree gchar *path = g_build_filename (tmp, name, NULL);
      g_remove (path);
    }
  g_rmdir (tmp);
  g_clear_pointer (&tmp, g_free);
  ab_server_destroy (&srv);
}

static void
spawn_console (AbPty *p, gboolean plain, const gchar *history)
{
  g_autofree gchar *hist = g_strdup_printf ("AB_HISTORY_FILE=%s", history);
  const gchar *env[] = { hist, "TERM=xterm", NULL };
  const gchar *argv[] = { ab_cli_bin (), "--host", srv.base, plain ? "--plain" : NULL, NULL };
  ab_pty_spawn (p, argv, env);
}

#define EXPECT(p, text) \
  ck_assert_msg (ab_pty_expect ((p), (text), 15000), "no '%s' in:\n%s", (text), (p)->seen->str)

START_TEST (prompt_use_completion_history)
{
  AbPty p;
  g_autofree gchar *history = g_build_filename (tmp, "history", NULL);
  spawn_console (&p, TRUE, history);
  EXPECT (&p, "Welcome to Actionbase!");
  EXPECT (&p, "actionbase> ");
  /* Completion of a database name: "li<TAB>" becomes "likes". */
  ab_pty_send (&p, "use database li\t");
  EXPECT (&p, "kes ");
  ab_pty_send (&p, "\r");
  EXPECT (&p, "The database is changed to 'likes'");
  EXPECT (&p, "actionbase(likes)> ");
  /* Completion of a command and of a table name. */
  ab_pty_send (&p, "us\t");
  EXPECT (&p, "e ");
  ab_pty_send (&p, "table l\t");
  EXPECT (&p, "ikes ");
  ab_pty_send (&p, "\r");
  EXPECT (&p, "The Table is changed to 'likes:likes'");
  EXPECT (&p, "actionbase(likes:likes)> ");
  ab_pty_send (&p, "count --start Alice --direction OUT\r");
  EXPECT (&p, "The count of 2 edges found");
  EXPECT (&p, "actionbase(likes:likes)> ");
  /* Up arrow recalls the previous line; Enter runs it again. */
  ab_pty_send (&p, "\033[A");
  EXPECT (&p, "count --start Alice --direction OUT");
  ab_pty_send (&p, "\r");
  EXPECT (&p, "The count of 2 edges found");
  EXPECT (&p, "actionbase(likes:likes)> ");
  /* A trailing backslash continues the line. */
  ab_pty_send (&p, "get --source Alice \\\r");
  EXPECT (&p, "-> ");
  ab_pty_send (&p, "--target Phone\r");
  EXPECT (&p, "The edge is found: [Alice -> Phone]");
  EXPECT (&p, "actionbase(likes:likes)> ");
  /* An open quote continues the line until it closes. */
  ab_pty_send (&p, "mutate --type INSERT --source Carol --target Phone --version 7 "
                   "--properties '{\"created_at\":\r");
  EXPECT (&p, "-> ");
  ab_pty_send (&p, " 7}'\r");
  EXPECT (&p, "INSERT is done (updated: 1, failed: 0)");
  EXPECT (&p, "actionbase(likes:likes)> ");
  ab_pty_send (&p, "get --source Carol --target Phone\r");
  EXPECT (&p, "| 7       | Carol  | Phone  | created_at: 7 |");
  EXPECT (&p, "actionbase(likes:likes)> ");
  /* A server error is shown with its message and the console goes on. */
  ab_pty_send (&p, "use table nope\r");
  EXPECT (&p, "Failed to get table 'nope': ");
  EXPECT (&p, "actionbase(likes:likes)> ");
  ab_pty_send (&p, "exit\r");
  EXPECT (&p, "Goodbye!");
  ab_assert_pty_exit_ok (&p);
  ab_pty_clear (&p);
  ck_assert (g_file_test (history, G_FILE_TEST_IS_REGULAR));

  /* The history file is read back by the next session: three lines up is
   * the get before `use table nope` and `exit`. */
  spawn_console (&p, TRUE, history);
  EXPECT (&p, "actionbase> ");
  ab_pty_send (&p, "\033[A\033[A\033[A");
  EXPECT (&p, "get --source Carol --target Phone");
  ab_pty_send (&p, "\003");
  ab_pty_clear (&p);
}
END_TEST

START_TEST (colours_and_end_of_input)
{
  AbPty p;
  g_autofree gchar *history = g_build_filename (tmp, "history", NULL);
  spawn_console (&p, FALSE, history);
  EXPECT (&p, "\033[34mactionbase>\033[0m ");
  ab_pty_send (&p, "show databases\r");
  EXPECT (&p, "  \342\224\202 Available databases (1)");
  EXPECT (&p, "\033[34mlikes");
  EXPECT (&p, "(Took ");
  EXPECT (&p, "\033[34mactionbase>\033[0m ");
  /* Ctrl-D at an empty prompt ends the session. Typed while the tty is
   * still in canonical mode it would be the line discipline's end-of-file,
   * not the editor's key: wait for raw mode first. */
  ck_assert_msg (ab_pty_wait_raw (&p, 15000), "the editor never entered raw mode");
  ab_pty_send (&p, "\004");
  gboolean bye = ab_pty_expect (&p, "Bye!", 15000);
  ck_assert_msg (bye, "no 'Bye!' after Ctrl-D");
  ab_assert_pty_exit_ok (&p);
  ab_pty_clear (&p);
}
END_TEST

START_TEST (load_progress_bar)
{
  g_autofree gchar *file = g_build_filename (tmp, "many.yaml", NULL);
  GString *y
      = g_string_new ("- name: many\n  description: 1200 likes\n  command: |\n"
                      "    create edges --database likes --table likes --data '{\"mutations\": [");
  for (guint i = 0; i < 1200; i++)
    g_string_append_printf (
        y,
        "%s{\"type\": \"INSERT\", \"edge\": {\"version\": 1, \"source\": \"u%u\", "
        "\"target\": \"item\", \"properties\": {\"created_at\": %u}}}",
        i > 0 ? ", " : "", i, i);
  g_string_append (y, "]}'\n");
  ck_assert (g_file_set_contents (file, y->str, -1, NULL));
  g_string_free (y, TRUE);
  AbPty p;
  g_autofree gchar *history = g_build_filename (tmp, "history", NULL);
  spawn_console (&p, TRUE, history);
  EXPECT (&p, "actionbase> ");
  g_autofree gchar *cmd = g_strdup_printf ("load file %s\r", file);
  ab_pty_send (&p, cmd);
  EXPECT (&p, "]  41% 500/1200 edges");
  EXPECT (&p, "\r[##############################] 100% 1200/1200 edges");
  EXPECT (&p, "/* 1200 likes */");
  EXPECT (&p, "1200 edges of 'likes' are mutated (total: 1200, failed: 0)");
  EXPECT (&p, "actionbase> ");
  ab_pty_send (&p, "exit\r");
  ab_assert_pty_exit_ok (&p);
  ab_pty_clear (&p);
  /* Without a terminal there is no bar, only the summary. */
  g_autofree gchar *again = g_strdup_printf ("load file %s", file);
  AbRun r;
  ab_cli_run (&srv, NULL, again, &r);
  ck_assert_int_eq (r.status, 0);
  ck_assert_str_eq (r.out, "/* 1200 likes */\n"
                           "1200 edges of 'likes' are mutated (total: 1200, failed: 0)\n");
  ab_run_clear (&r);
}
END_TEST

/* ---- the proxy ---- */

static guint16
proxy_port (const gchar *log_path, GSubprocess *p)
{
  for (guint i = 0; i < 300; i++)
    {
      g_autofree gchar *log = NULL;
      g_file_get_contents (log_path, &log, NULL, NULL);
      const gchar *at = log != NULL ? strstr (log, "proxy listening on 127.0.0.1:") : NULL;
      if (at != NULL)
        return (guint16) atoi (at + strlen ("proxy listening on 127.0.0.1:"));
      ck_assert_msg (g_subprocess_get_identifier (p) != NULL, "console exited: %s", log);
      g_usleep (50000);
    }
  ck_abort_msg ("the proxy did not start");
  return 0;
}

START_TEST (proxy_runs_commands_and_forwards)
{
  g_autofree gchar *log = g_build_filename (tmp, "proxy.log", NULL);
  g_autofree gchar *out = g_build_filename (tmp, "proxy.out", NULL);
  g_autoptr (GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE);
  g_subprocess_launcher_set_stderr_file_path (l, log);
  g_subprocess_launcher_set_stdout_file_path (l, out);
  g_autoptr (GSubprocess) p = g_subprocess_launcher_spawn (
      l, NULL, ab_cli_bin (), "--host", srv.base, "--plain", "--proxy", "0", NULL);
  ck_assert (p != NULL);
  /* End of input on a pipe: the console keeps serving the proxy. */
  g_output_stream_close (g_subprocess_get_stdin_pipe (p), NULL, NULL);
  AbServer px = { 0 };
  px.port = proxy_port (log, p);
  px.base = g_strdup_printf ("http://127.0.0.1:%u", px.port);
  px.log_path = g_strdup (log);

  AbReply r = { 0 };
  ab_http (&px, &r, "POST", "{\"command\": \"use database likes\"}", "/");
  ck_assert_uint_eq (r.status, 200);
  ck_assert (ab_json_bool (r.json, "success"));
  ck_assert_str_eq (ab_json_str (r.json, "result"), "The database is changed to 'likes'");
  ck_assert (ab_json_is_null (r.json, "error"));
  ck_assert (g_str_has_suffix (ab_json_str (r.json, "elapsed"), " seconds"));
  ab_reply_clear (&r);
  /* The context carries over to the next command. */
  ab_http (&px, &r, "POST", "{\"command\": \"count likes --start Alice --direction OUT\"}", "/");
  ck_assert_uint_eq (r.status, 200);
  ck_assert (g_str_has_prefix (ab_json_str (r.json, "result"), "The count of 2 edges found\n"));
  ab_reply_clear (&r);
  ab_http (&px, &r, "POST", "{\"command\": \"use table nope\"}", "/");
  ck_assert_uint_eq (r.status, 500);
  ck_assert (!ab_json_bool (r.json, "success"));
  AbReply direct = { 0 };
  ab_http (&srv, &direct, "GET", NULL, "/graph/v2/service/likes/label/nope");
  ab_assert_contains (ab_json_str (r.json, "error"), ab_json_str (direct.json, "message"));
  ab_reply_clear (&direct);
  ab_reply_clear (&r);
  ab_http (&px, &r, "POST", "{\"command\": \"\"}", "/");
  ck_assert_uint_eq (r.status, 400);
  ck_assert_str_eq (ab_json_str (r.json, "error"), "Command is required");
  ab_reply_clear (&r);
  /* Every other path goes to --host unchanged. */
  ab_http (&px, &r, "GET", NULL, "/graph/v3/databases/likes");
  ab_http (&srv, &direct, "GET", NULL, "/graph/v3/databases/likes");
  ck_assert_uint_eq (r.status, 200);
  ck_assert_str_eq (r.body, direct.body);
  ab_reply_clear (&direct);
  ab_reply_clear (&r);
  ab_http (&px, &r, "POST",
           "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":9,\"source\":\"Dan\","
           "\"target\":\"Phone\",\"properties\":{\"created_at\":9}}}]}",
           "/graph/v3/databases/likes/tables/likes/edges");
  ck_assert_uint_eq (r.status, 200);
  ck_assert_str_eq (ab_json_str (r.json, "results.0.status"), "CREATED");
  ab_reply_clear (&r);
  ab_http (&px, &r, "GET", NULL,
           "/graph/v3/databases/likes/tables/nope/edges/counts?start=a&direction=OUT");
  ab_assert_error_reply (&r, 400);
  ab_reply_clear (&r);

  g_subprocess_send_signal (p, SIGTERM);
  ck_assert (g_subprocess_wait (p, NULL, NULL));
  ck_assert (g_subprocess_get_if_exited (p));
  ck_assert_int_eq (g_subprocess_get_exit_status (p), 0);
  g_autofree gchar *text = NULL, *printed = NULL;
  g_file_get_contents (log, &text, NULL, NULL);
  g_file_get_contents (out, &printed, NULL, NULL);
  ck_assert_msg (strstr (text, "Sanitizer") == NULL, "%s", text);
  ab_assert_contains (printed, "actionbase> use database likes (via proxy)");
  ab_assert_contains (printed, "actionbase(likes)> count likes --start Alice --direction OUT");
  g_free (px.base);
  g_free (px.log_path);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("cli-repl");
  TCase *tc = tcase_create ("repl");
  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, prompt_use_completion_history);
  tcase_add_test (tc, colours_and_end_of_input);
  tcase_add_test (tc, load_progress_bar);
  tcase_add_test (tc, proxy_runs_commands_and_forwards);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
