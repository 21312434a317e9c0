/* Console test harness implementation: GSubprocess for `-c` runs, forkpty()
 * plus poll() for the terminal sessions, and a sanitizer-report check on
 * everything the console wrote. */
#include <errno.h>
#include <stdio.h>
#include <poll.h>
#include <pty.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "cli_harness.h"

const gchar *
ab_cli_bin (void)
{
  static gchar *bin;
  if (bin == NULL)
    {
      const gchar *cli = g_getenv ("AB_CLI_BIN");
      if (cli != NULL && cli[0] != '\0')
        return bin = g_strdup (cli);
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
  g_autoptr (GSubprocess) p
      = g_subprocess_newv ((const gchar *const *) argv->pdata,
                           G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE
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

static void
become_terminal_session (gpointer data)
{
  /* New session whose controlling terminal is the pty on stdin. */
  setsid ();
  ioctl (STDIN_FILENO, TIOCSCTTY, 0);
}

void
ab_pty_spawn (AbPty *p, const gchar *const *argv, const gchar *const *env)
{
  struct winsize ws = { .ws_row = 24, .ws_col = 200 };
  gint slave = -1;
  memset (p, 0, sizeof *p);
  p->seen = g_string_new (NULL);
  ck_assert_msg (openpty (&p->fd, &slave, NULL, NULL, &ws) == 0, "openpty: %s", g_strerror (errno));
  g_autoptr (GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_auto (GStrv) kv = g_strsplit (env[i], "=", 2);
      g_subprocess_launcher_setenv (l, kv[0], kv[1] != NULL ? kv[1] : "", TRUE);
    }
  g_subprocess_launcher_take_stdin_fd (l, dup (slave));
  g_subprocess_launcher_take_stdout_fd (l, dup (slave));
  g_subprocess_launcher_take_stderr_fd (l, slave);
  g_subprocess_launcher_set_child_setup (l, become_terminal_session, NULL, NULL);
  g_autoptr (GError) error = NULL;
  p->proc = g_subprocess_launcher_spawnv (l, argv, &error);
  ck_assert_msg (p->proc != NULL, "spawn %s: %s", argv[0], error ? error->message : "");
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

gboolean
ab_pty_wait_raw (AbPty *p, guint timeout_ms)
{
  /* On Linux the master side reports the slave's line settings. */
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  struct termios t;
  while (tcgetattr (p->fd, &t) == 0 && (t.c_lflag & ICANON) != 0)
    {
      if (g_get_monotonic_time () >= end)
        return FALSE;
      g_usleep (5000);
    }
  return TRUE;
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
  /* The console is done when every holder of the terminal closed it: the
   * master then reads end-of-file (EIO). */
  gboolean open = TRUE;
  for (guint i = 0; i < 400 && open; i++)
    open = pty_read (p, 25);
  ck_assert_msg (!open, "console did not exit; output:\n%s", p->seen->str);
  assert_clean (p->seen->str);
  /* In this sandbox the exit notice of a child on a pseudo-terminal can lag
   * for a long time behind the exit itself (the process is gone or a zombie
   * while wait() still reports it running), so the status is best effort. */
  for (guint i = 0; i < 100 && g_subprocess_get_identifier (p->proc) != NULL; i++)
    g_usleep (20000);
  if (g_subprocess_get_identifier (p->proc) != NULL)
    return AB_PTY_STATUS_UNKNOWN;
  if (g_subprocess_get_if_exited (p->proc))
    return g_subprocess_get_exit_status (p->proc);
  return 128 + g_subprocess_get_term_sig (p->proc);
}

void
ab_pty_clear (AbPty *p)
{
  if (p->proc != NULL)
    {
      if (g_subprocess_get_identifier (p->proc) != NULL)
        g_subprocess_force_exit (p->proc);
      g_clear_object (&p->proc);
    }
  if (p->fd > 0)
    close (p->fd);
  if (p->seen != NULL)
    g_string_free (p->seen, TRUE);
  memset (p, 0, sizeof *p);
}
