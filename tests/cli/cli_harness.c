/* Console test harness implementation: GSubprocess for `-c` runs, forkpty()
 * plus poll() for the terminal sessions, and a sanitizer-report check on
 * everything the console wrote. */
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli_harness.h"

const gchar *
ab_cli_bin (void)
{
  static gchar *bin;
  if (bin == NULL)
    {
      const gchar *server = g_getenv ("AB_SERVER_BIN");
      g_autofree gchar *dir = server != NULL ? g_path_get_dirname (server) : g_strdup ("src");
      bin = g_build_filename (dir, "actionbase", NULL);
    }
  return bin;
}

static void
assert_clean (const gchar *text)
{
  ck_assert_msg (strstr (text, "AddressSanitizer") == NULL && strstr (text, "LeakSanitizer") == NULL
                     && strstr (text, "runtime error:") == NULL,
                 "sanitizer report:\n%s", text);
}

void
ab_cli_run (AbServer *srv, const gchar *const *extra, const gchar *commands, AbRun *out)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) ab_cli_bin ());
  g_ptr_array_add (argv, "--host");
  g_ptr_array_add (argv, srv->base);
  g_ptr_array_add (argv, "--plain");
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra[i]);
  if (commands != NULL)
    {
      g_ptr_array_add (argv, "-c");
      g_ptr_array_add (argv, (gpointer) commands);
    }
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) p = g_subprocess_newv ((const gchar *const *) argv->pdata,
                                                 G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                     | G_SUBPROCESS_FLAGS_STDERR_PIPE
                                                     | G_SUBPROCESS_FLAGS_STDIN_PIPE,
                                                 &error);
  ck_assert_msg (p != NULL, "spawn %s: %s", ab_cli_bin (), error ? error->message : "");
  memset (out, 0, sizeof *out);
  ck_assert (g_subprocess_communicate_utf8 (p, "", NULL, &out->out, &out->err, &error));
  ck_assert (g_subprocess_get_if_exited (p));
  out->status = g_subprocess_get_exit_status (p);
  assert_clean (out->err);
}

void
ab_run_clear (AbRun *r)
{
  g_free (r->out);
  g_free (r->err);
  memset (r, 0, sizeof *r);
}

void
ab_pty_spawn (AbPty *p, const gchar *const *argv, const gchar *const *env)
{
  struct winsize ws = { .ws_row = 24, .ws_col = 200 };
  memset (p, 0, sizeof *p);
  p->seen = g_string_new (NULL);
  p->pid = forkpty (&p->fd, NULL, NULL, &ws);
  ck_assert_msg (p->pid >= 0, "forkpty: %s", g_strerror (errno));
  if (p->pid == 0)
    {
      for (guint i = 0; env != NULL && env[i] != NULL; i++)
        putenv (g_strdup (env[i]));
      execv (argv[0], (char *const *) argv);
      _exit (127);
    }
}

void
ab_pty_send (AbPty *p, const gchar *keys)
{
  gsize n = strlen (keys);
  while (n > 0)
    {
      ssize_t w = write (p->fd, keys, n);
      ck_assert_msg (w > 0, "write to pty: %s", g_strerror (errno));
      keys += w;
      n -= (gsize) w;
    }
}

/* Reads what is available within timeout_ms; FALSE at end of file. */
static gboolean
pty_read (AbPty *p, gint timeout_ms)
{
  struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
  if (poll (&pfd, 1, timeout_ms) <= 0)
    return TRUE;
  gchar buf[4096];
  ssize_t n = read (p->fd, buf, sizeof buf);
  if (n <= 0)
    return FALSE;
  g_string_append_len (p->seen, buf, n);
  return TRUE;
}

gboolean
ab_pty_expect (AbPty *p, const gchar *needle, guint timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  for (;;)
    {
      const gchar *hit = strstr (p->seen->str + p->mark, needle);
      if (hit != NULL)
        {
          p->mark = (gsize) (hit - p->seen->str) + strlen (needle);
          return TRUE;
        }
      gint64 left = (end - g_get_monotonic_time ()) / 1000;
      if (left <= 0 || !pty_read (p, (gint) MIN (left, 100)))
        return FALSE;
    }
}

gchar *
ab_pty_since (AbPty *p, gsize from)
{
  return g_strndup (p->seen->str + from, p->mark - from);
}

gint
ab_pty_wait (AbPty *p)
{
  gint status = 0;
  for (guint i = 0; i < 200; i++)
    {
      pty_read (p, 50);
      if (waitpid (p->pid, &status, WNOHANG) == p->pid)
        {
          while (pty_read (p, 50) && poll (&(struct pollfd){ .fd = p->fd, .events = POLLIN }, 1, 0) > 0)
            ;
          p->pid = 0;
          assert_clean (p->seen->str);
          return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
        }
    }
  ck_abort_msg ("console did not exit; output:\n%s", p->seen->str);
  return -1;
}

void
ab_pty_clear (AbPty *p)
{
  if (p->pid > 0)
    {
      kill (p->pid, SIGKILL);
      waitpid (p->pid, NULL, 0);
    }
  if (p->fd > 0)
    close (p->fd);
  if (p->seen != NULL)
    g_string_free (p->seen, TRUE);
  memset (p, 0, sizeof *p);
}
