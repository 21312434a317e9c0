/* actionbase: the console's entry point. Parses the flags, checks that the
 * server answers, starts the proxy when asked, then runs `-c` commands or
 * the REPL; with the proxy on and no terminal it serves until SIGINT/SIGTERM. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib-unix.h>
#include "cli/console.h"
#include "cli/proxy.h"
#include "cli/repl.h"

#define DEFAULT_HOST "http://localhost:8080"
#define DEFAULT_PROXY_PORT 9300

typedef struct {
  gchar *host;
  gchar *auth_key;
  gchar *commands;
  gchar *proxy_bind;
  gboolean debug;
  gboolean plain;
  gboolean version;
  gboolean proxy;
  guint64 proxy_port; /* 0 to 65535; G_MAXUINT64: the default */
} Flags;

static Flags flags = { .proxy_port = G_MAXUINT64 };

static gboolean
on_proxy (const gchar *name, const gchar *value, gpointer data, GError **error)
{
  flags.proxy = TRUE;
  if (value != NULL && !g_ascii_string_to_unsigned (value, 10, 0, 65535, &flags.proxy_port, NULL))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--proxy: invalid port '%s'",
                   value);
      return FALSE;
    }
  return TRUE;
}

static const gchar *description
    = "Commands (type 'help' in the console for the full list):\n"
      "  create database|storage|table|alias ...   desc table|alias [NAME]\n"
      "  show databases|storages|tables|aliases|indices|groups\n"
      "  use database|table|alias NAME             context, debug on|off, help, exit\n"
      "  get [TABLE] --source S --target T\n"
      "  scan [TABLE] --index I --start S --direction OUT|IN [--ranges R] [--limit 25]\n"
      "  count [TABLE] --start S --direction OUT|IN|BOTH\n"
      "  mutate [TABLE] --type INSERT|UPDATE|DELETE --source S --target T --version $NOW\n"
      "         --properties '{\"k\": 1}'\n"
      "  load file PATH.yaml|PATH.txt              load preset likes|social\n"
      "\n"
      "$NOW and __CURRENT_TIMESTAMP__ stand for the current Unix time in milliseconds.\n"
      "A line ending in '\\' or with an open quote continues on the next line.\n"
      "\n"
      "Examples:\n"
      "  actionbase --host http://localhost:8080\n"
      "  actionbase -c \"load preset likes; use database likes; \\\n"
      "               scan likes --index created_at_desc --start Alice --direction OUT\"\n"
      "  actionbase --proxy            # POST / {\"command\": \"show databases\"} on port 9300\n"
      "\n"
      "Exit status: 0 on success; 1 when the server cannot be reached, a flag is\n"
      "wrong, or (with -c or piped input) a command failed.\n";

static gboolean
parse_flags (int *argc, char ***argv, GError **error)
{
  GOptionEntry entries[]
      = { { "host", 0, 0, G_OPTION_ARG_STRING, &flags.host, "Server URL (default " DEFAULT_HOST ")",
            "URL" },
          { "authKey", 0, 0, G_OPTION_ARG_STRING, &flags.auth_key,
            "Value of the Authorization header", "KEY" },
          { "debug", 0, 0, G_OPTION_ARG_NONE, &flags.debug,
            "Log every HTTP request and answer on stderr", NULL },
          { "plain", 0, 0, G_OPTION_ARG_NONE, &flags.plain,
            "No colours (also when stdout is not a terminal or NO_COLOR is set)", NULL },
          { "version", 0, 0, G_OPTION_ARG_NONE, &flags.version, "Print the version and exit",
            NULL },
          { "command", 'c', 0, G_OPTION_ARG_STRING, &flags.commands,
            "Run 'CMD; CMD; ...' and exit; stops with status 1 at the first failure", "CMDS" },
          { "proxy", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, on_proxy,
            "Serve POST / {\"command\": ...} and forward other paths to --host (default port 9300)",
            "[PORT]" },
          { "proxy-bind", 0, 0, G_OPTION_ARG_STRING, &flags.proxy_bind,
            "Address the proxy binds (default 127.0.0.1)", "ADDR" },
          { NULL } };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- the Actionbase console");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, description);
  if (!g_option_context_parse (ctx, argc, argv, error))
    return FALSE;
  /* `--proxy 9400` (upstream form) leaves the port as a word of its own. */
  if (*argc == 2 && flags.proxy && flags.proxy_port == G_MAXUINT64
      && g_ascii_string_to_unsigned ((*argv)[1], 10, 0, 65535, &flags.proxy_port, NULL))
    *argc = 1;
  if (*argc > 1)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "unexpected argument '%s'",
                   (*argv)[1]);
      return FALSE;
    }
  return TRUE;
}

static gboolean
use_colour (void)
{
  const gchar *term = g_getenv ("TERM");
  return !flags.plain && isatty (STDOUT_FILENO) && g_getenv ("NO_COLOR") == NULL
         && g_strcmp0 (term, "dumb") != 0;
}

static gboolean
server_answers (AbConsole *c)
{
  AbResponse r;
  gboolean ok = ab_client_call (c->client, "GET", "/graph/v3", NULL, &r);
  if (!ok)
    fprintf (stderr, "Failed to connect to %s. Check if the server is available (%s)\n",
             c->client->base, r.error);
  ab_response_clear (&r);
  return ok;
}

static gboolean
on_signal (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_CONTINUE;
}

static void
serve_until_signalled (void)
{
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  guint term = g_unix_signal_add (SIGTERM, on_signal, loop);
  guint intr = g_unix_signal_add (SIGINT, on_signal, loop);
  g_main_loop_run (loop);
  g_source_remove (term);
  g_source_remove (intr);
}

static void
flags_clear (void)
{
  g_free (flags.host);
  g_free (flags.auth_key);
  g_free (flags.commands);
  g_free (flags.proxy_bind);
}

static int
run (AbConsole *c)
{
  g_autoptr (GError) error = NULL;
  AbProxy *proxy = NULL;
  if (flags.proxy)
    {
      guint port = flags.proxy_port != G_MAXUINT64 ? (guint) flags.proxy_port : DEFAULT_PROXY_PORT;
      proxy = ab_proxy_start (c, flags.proxy_bind, port, &error);
      if (proxy == NULL)
        {
          fprintf (stderr, "actionbase: %s\n", error->message);
          return 1;
        }
      fprintf (stderr,
               "proxy listening on %s:%u (POST / runs a console command; other paths go to %s)\n",
               flags.proxy_bind != NULL ? flags.proxy_bind : "127.0.0.1", c->proxy_port,
               c->client->base);
    }
  int status = flags.commands != NULL ? ab_repl_run_commands (c, flags.commands)
                                      : ab_repl_run (c, PACKAGE_VERSION);
  gboolean terminal = flags.commands == NULL && isatty (STDIN_FILENO);
  if (proxy != NULL && status == 0 && !terminal)
    serve_until_signalled ();
  ab_proxy_stop (proxy);
  return status;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  signal (SIGPIPE, SIG_IGN);
  if (!parse_flags (&argc, &argv, &error))
    {
      fprintf (stderr, "actionbase: %s (see --help)\n", error->message);
      flags_clear ();
      return 1;
    }
  if (flags.version)
    {
      printf ("actionbase (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
      flags_clear ();
      return 0;
    }
  g_autoptr (AbConsole) c = ab_console_new (flags.host != NULL ? flags.host : DEFAULT_HOST,
                                            flags.auth_key, flags.debug);
  c->colour = use_colour ();
  c->tty = isatty (STDOUT_FILENO);
  int status = server_answers (c) ? run (c) : 1;
  flags_clear ();
  return status;
}
