/* The console REPL: libedit's readline interface for editing, history
 * (~/.actionbase_history) and tab completion of commands, subcommands,
 * options and database/table/alias/preset names; plain line reading when
 * stdin is not a terminal; and the printing shared by every front end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <editline/readline.h>
#include "cli/repl.h"

#define PREFIX "  \342\224\202 " /* "  │ " before output lines in colour mode */

static GMutex print_lock;

static void
print_lines (FILE *f, const gchar *text, const gchar *prefix, const gchar *pre, const gchar *post)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    fprintf (f, "%s%s%s%s\n", prefix, pre, lines[i], post);
}

void
ab_repl_print (AbConsole *c, const AbResult *r, gboolean colour)
{
  g_mutex_lock (&print_lock);
  if (r->out != NULL && r->out->len > 0)
    print_lines (stdout, r->out->str, colour ? PREFIX : "", "", "");
  fflush (stdout);
  if (!r->ok && r->error != NULL)
    print_lines (stderr, r->error, colour ? PREFIX : "", colour ? "\033[31m" : "",
                 colour ? "\033[0m" : "");
  fflush (stderr);
  g_mutex_unlock (&print_lock);
}

static gboolean
run_line (AbConsole *c, const gchar *line, gboolean *quit)
{
  AbResult r;
  ab_result_init (&r);
  gint64 start = g_get_monotonic_time ();
  gboolean ok = ab_console_exec (c, line, c->colour, TRUE, &r);
  ab_repl_print (c, &r, c->colour);
  if (c->colour && !r.quit)
    printf ("\033[90m(Took %.4f seconds)\033[0m\n\n",
            (gdouble) (g_get_monotonic_time () - start) / G_USEC_PER_SEC);
  fflush (stdout);
  *quit = r.quit;
  ab_result_clear (&r);
  return ok;
}

int
ab_repl_run_commands (AbConsole *c, const gchar *commands)
{
  g_autoptr (GPtrArray) stmts = ab_lex_statements (commands);
  for (guint i = 0; i < stmts->len; i++)
    {
      gboolean quit = FALSE;
      if (!run_line (c, stmts->pdata[i], &quit))
        return 1;
      if (quit)
        break;
    }
  return 0;
}

gboolean
ab_repl_needs_more (GString *buffer, const gchar *line)
{
  g_autofree gchar *trimmed = g_strstrip (g_strdup (line));
  gsize n = strlen (trimmed);
  if (buffer->len > 0)
    g_string_append_c (buffer, '\n');
  if (n > 0 && trimmed[n - 1] == '\\')
    {
      trimmed[n - 1] = '\0';
      g_string_append (buffer, trimmed);
      return TRUE;
    }
  g_string_append (buffer, line);
  return ab_lex_quote_open (buffer->str);
}

/* ---- completion ---- */

static AbConsole *completing;
static GPtrArray *candidates; /* words offered for the current completion */

static char *
next_candidate (const char *text, int state)
{
  static guint i;
  if (state == 0)
    i = 0;
  for (; candidates != NULL && i < candidates->len; i++)
    if (g_str_has_prefix (candidates->pdata[i], text))
      return strdup (candidates->pdata[i++]);
  return NULL;
}

static void
offer (const gchar *const *words)
{
  for (guint i = 0; words[i] != NULL; i++)
    g_ptr_array_add (candidates, g_strdup (words[i]));
}

static void
offer_array (GPtrArray *words)
{
  for (guint i = 0; i < words->len; i++)
    g_ptr_array_add (candidates, g_strdup (words->pdata[i]));
  g_ptr_array_unref (words);
}

static const gchar *const *
options_of (const gchar *cmd)
{
  static const gchar *const get[] = { "--source", "--target", "--table", "--alias", NULL };
  static const gchar *const scan[] = { "--index",  "--start", "--direction", "--ranges", "--limit",
                                       "--offset", "--table", "--alias",     NULL };
  static const gchar *const count[] = { "--start", "--direction", "--table", "--alias", NULL };
  static const gchar *const mutate[] = { "--type",       "--source", "--target", "--version",
                                         "--properties", "--table",  "--alias",  NULL };
  static const gchar *const create[]
      = { "--name",        "--comment",        "--database",   "--table",   "--storage",
          "--type",        "--direction",      "--schema",     "--indices", "--groups",
          "--storageType", "--hbaseNamespace", "--hbaseTable", NULL };
  static const gchar *const none[] = { NULL };
  if (g_str_equal (cmd, "get"))
    return get;
  if (g_str_equal (cmd, "scan"))
    return scan;
  if (g_str_equal (cmd, "count"))
    return count;
  if (g_str_equal (cmd, "mutate"))
    return mutate;
  if (g_str_equal (cmd, "create"))
    return create;
  return none;
}

/* Fills candidates for the word after `words`; FALSE for file names. */
static gboolean
offer_for (GPtrArray *words, const char *text)
{
  guint n = words->len;
  const gchar *cmd = n > 0 ? words->pdata[0] : NULL;
  const gchar *sub = n > 1 ? words->pdata[1] : "";
  if (n == 0)
    {
      guint count;
      const AbCommand *cmds = ab_console_commands (&count);
      for (guint i = 0; i < count; i++)
        g_ptr_array_add (candidates, g_strdup (cmds[i].name));
      return TRUE;
    }
  if (g_str_has_prefix (text, "--"))
    return (offer (options_of (cmd)), TRUE);
  if (n == 1)
    {
      static const gchar *const create[] = { "database", "storage", "table", "alias", NULL };
      static const gchar *const show[]
          = { "databases", "storages", "tables", "aliases", "indices", "groups", NULL };
      static const gchar *const use[] = { "database", "table", "alias", NULL };
      static const gchar *const load[] = { "file", "preset", NULL };
      static const gchar *const debug[] = { "on", "off", NULL };
      if (g_str_equal (cmd, "create"))
        offer (create);
      else if (g_str_equal (cmd, "show"))
        offer (show);
      else if (g_str_equal (cmd, "use"))
        offer (use);
      else if (g_str_equal (cmd, "desc"))
        offer (use + 1);
      else if (g_str_equal (cmd, "load"))
        offer (load);
      else if (g_str_equal (cmd, "debug"))
        offer (debug);
      else if (g_str_equal (cmd, "get") || g_str_equal (cmd, "scan") || g_str_equal (cmd, "count")
               || g_str_equal (cmd, "mutate"))
        offer_array (ab_console_names (completing, "tables"));
      return TRUE;
    }
  if (n == 2 && g_str_equal (cmd, "load") && g_str_equal (sub, "file"))
    return FALSE;
  if (n == 2 && g_str_equal (cmd, "load") && g_str_equal (sub, "preset"))
    offer_array (ab_load_preset_names ());
  else if (n == 2 && (g_str_equal (cmd, "use") || g_str_equal (cmd, "desc")))
    offer_array (ab_console_names (completing, g_str_equal (sub, "database") ? "databases"
                                               : g_str_equal (sub, "alias")  ? "aliases"
                                                                             : "tables"));
  return TRUE;
}

static char **
complete (const char *text, int start, int end)
{
  g_autofree gchar *before = g_strndup (rl_line_buffer, (gsize) start);
  g_autoptr (GPtrArray) words = ab_lex_words (before);
  if (candidates != NULL)
    g_ptr_array_unref (candidates);
  candidates = g_ptr_array_new_with_free_func (g_free);
  if (!offer_for (words, text))
    {
      rl_attempted_completion_over = 0;
      return NULL;
    }
  rl_attempted_completion_over = 1;
  return rl_completion_matches (text, next_candidate);
}

/* ---- the loop ---- */

static gchar *
history_path (void)
{
  const gchar *env = g_getenv ("AB_HISTORY_FILE");
  if (env != NULL && env[0] != '\0')
    return g_strdup (env);
  return g_build_filename (g_get_home_dir (), ".actionbase_history", NULL);
}

/* One line from the terminal or from a pipe; NULL at end of input. */
static gchar *
read_one (gboolean tty, const gchar *prompt)
{
  if (tty)
    {
      char *line = readline (prompt);
      gchar *copy = line != NULL ? g_strdup (line) : NULL;
      free (line);
      return copy;
    }
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline (&line, &cap, stdin);
  gchar *copy = n >= 0 ? g_strndup (line, (gsize) n) : NULL;
  free (line);
  if (copy != NULL)
    g_strchomp (copy);
  return copy;
}

/* A whole input (with continuations); NULL at end of input. */
static gchar *
read_input (AbConsole *c, gboolean tty)
{
  GString *buffer = g_string_new (NULL);
  g_autofree gchar *prompt = ab_console_prompt (c, c->colour);
  const gchar *more = c->colour ? "\001\033[34m\002->\001\033[0m\002 " : "-> ";
  for (;;)
    {
      g_autofree gchar *line = read_one (tty, buffer->len == 0 ? prompt : more);
      if (line == NULL)
        {
          gboolean empty = buffer->len == 0;
          gchar *text = g_string_free (buffer, empty);
          return empty ? NULL : text;
        }
      if (!ab_repl_needs_more (buffer, line))
        return g_string_free (buffer, FALSE);
    }
}

static void
banner (AbConsole *c, const gchar *version)
{
  g_autofree gchar *proxy = c->proxy_port != 0 ? g_strdup_printf ("on (port %u)", c->proxy_port)
                                               : g_strdup ("off (port -)");
  const gchar *on = c->colour ? "\033[33m" : "", *off = c->colour ? "\033[0m" : "";
  printf ("\n%sWelcome to Actionbase!%s (v%s)\n", on, off, version);
  printf ("%shost%s  %s\n%sproxy%s %s\n%sdebug%s %s\n", on, off, c->client->base, on, off, proxy,
          on, off, c->client->debug ? "on" : "off");
  printf ("Type 'help' for the commands, 'exit' to leave.\n\n");
  fflush (stdout);
}

int
ab_repl_run (AbConsole *c, const gchar *version)
{
  gboolean tty = isatty (STDIN_FILENO) && isatty (STDOUT_FILENO);
  g_autofree gchar *hist = history_path ();
  gboolean ok = TRUE, quit = FALSE;
  if (tty)
    {
      completing = c;
      rl_readline_name = "actionbase";
      rl_attempted_completion_function = complete;
      stifle_history (1000);
      read_history (hist);
      banner (c, version);
    }
  while (!quit)
    {
      g_autofree gchar *input = read_input (c, tty);
      if (input == NULL)
        {
          if (tty)
            printf ("\nBye!\n");
          break;
        }
      g_autofree gchar *trimmed = g_strstrip (g_strdup (input));
      if (trimmed[0] == '\0')
        continue;
      if (tty)
        {
          g_autofree gchar *one_line = g_strdelimit (g_strdup (trimmed), "\n", ' ');
          add_history (one_line);
        }
      ok = run_line (c, trimmed, &quit);
    }
  if (tty)
    {
      write_history (hist);
      clear_history ();
      g_clear_pointer (&candidates, g_ptr_array_unref);
    }
  return tty || ok ? 0 : 1;
}
