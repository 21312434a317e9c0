/* Console state and dispatch: the command table, running one line under the
 * console lock, the helpers commands use to read options and report, and the
 * small commands (use, context, debug, help, exit). */
#include <string.h>
#include "cli/console.h"

static gboolean cmd_context (AbCall *call);
static gboolean cmd_debug (AbCall *call);
static gboolean cmd_help (AbCall *call);
static gboolean cmd_exit (AbCall *call);

static const AbCommand commands[] = {
  { "context", "context", "Show the current host, database, table, proxy and debug state",
    cmd_context },
  { "count",
    "count [<table>] [--table <table>] [--alias <alias>] --start <start> --direction <OUT|IN|BOTH>",
    "Count the edges of a start node", ab_cmd_count },
  { "create", "create <database|storage|table|alias> <args>",
    "Create a database, storage, table or alias", ab_cmd_create },
  { "debug", "debug <on|off>", "Log every HTTP request and answer", cmd_debug },
  { "desc", "desc <table|alias> [<name>]", "Describe a table or an alias", ab_cmd_desc },
  { "exit", "exit", "Exit the console", cmd_exit },
  { "get",
    "get [<table>] [--table <table>] [--alias <alias>] --source <source> --target <target> | --id "
    "<id>",
    "Get edges by source and target, or a vertex by id", ab_cmd_get },
  { "help", "help", "Show the available commands", cmd_help },
  { "load", "load <file <path>|preset <name>>",
    "Run the statements of a YAML or text file, or a shipped preset", ab_cmd_load },
  { "mutate",
    "mutate [<table>] --type <INSERT|UPDATE|DELETE> --source <source> --target <target> | --id "
    "<id> --version <version|$NOW> --properties <json>",
    "Insert, update or delete one edge or vertex", ab_cmd_mutate },
  { "scan",
    "scan [<table>] --index <index> --start <start> --direction <OUT|IN> [--ranges <ranges>] "
    "[--limit <limit>] [--offset <offset>]",
    "Scan an index from a start node", ab_cmd_scan },
  { "show", "show <databases|storages|tables|aliases|indices|groups> [--table <table>]",
    "List databases, storages, tables, aliases, or a table's indices or groups", ab_cmd_show },
  { "use", "use <database|table|alias> <name>", "Select the database, table or alias to use",
    ab_cmd_use },
};

const AbCommand *
ab_console_commands (guint *n)
{
  *n = G_N_ELEMENTS (commands);
  return commands;
}

void
ab_result_init (AbResult *r)
{
  memset (r, 0, sizeof *r);
  r->ok = TRUE;
  r->out = g_string_new (NULL);
}

void
ab_result_clear (AbResult *r)
{
  if (r->out != NULL)
    g_string_free (r->out, TRUE);
  g_free (r->error);
  memset (r, 0, sizeof *r);
}

AbConsole *
ab_console_new (const gchar *host, const gchar *auth_key, gboolean debug)
{
  AbConsole *c = g_new0 (AbConsole, 1);
  g_mutex_init (&c->lock);
  c->client = ab_client_new (host, auth_key, 30);
  c->client->debug = debug;
  return c;
}

void
ab_console_free (AbConsole *c)
{
  if (c == NULL)
    return;
  ab_client_free (c->client);
  g_free (c->database);
  g_free (c->table);
  g_free (c->alias);
  g_mutex_clear (&c->lock);
  g_free (c);
}

/* ---- helpers for commands ---- */

const gchar *
ab_call_opt (AbCall *call, const gchar *key)
{
  const gchar *v = g_hash_table_lookup (call->opts, key);
  return v != NULL && v[0] != '\0' ? v : NULL;
}

gboolean
ab_call_has (AbCall *call, const gchar *key)
{
  return g_hash_table_contains (call->opts, key);
}

const gchar *
ab_call_pos (AbCall *call, guint i)
{
  return i < call->positional->len ? call->positional->pdata[i] : NULL;
}

void
ab_call_print (AbCall *call, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  if (call->res->out->len > 0)
    g_string_append_c (call->res->out, '\n');
  g_string_append_vprintf (call->res->out, fmt, ap);
  va_end (ap);
}

void
ab_call_table (AbCall *call, const AbTable *t)
{
  if (call->res->out->len > 0)
    g_string_append_c (call->res->out, '\n');
  ab_table_render (t, call->colour, call->res->out);
}

gboolean
ab_call_fail (AbCall *call, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_free (call->res->error);
  call->res->error = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  call->res->ok = FALSE;
  return FALSE;
}

gboolean
ab_call_fail_resp (AbCall *call, const AbResponse *r, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree gchar *sentence = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  return ab_call_fail (call, "%s: %s", sentence, r->error != NULL ? r->error : "unknown error");
}

gboolean
ab_call_usage (AbCall *call, const gchar *usage)
{
  return ab_call_fail (call, "Usage: %s", usage);
}

const gchar *
ab_call_database (AbCall *call)
{
  if (call->console->database == NULL)
    {
      ab_call_fail (call, "No database selected. Use 'use database <name>'");
      return NULL;
    }
  return call->console->database;
}

const gchar *
ab_call_target (AbCall *call)
{
  const gchar *t = ab_call_pos (call, 0);
  if (t == NULL)
    t = ab_call_opt (call, "table");
  if (t == NULL)
    t = ab_call_opt (call, "alias");
  if (t == NULL)
    t = call->console->alias != NULL ? call->console->alias : call->console->table;
  if (t == NULL)
    ab_call_fail (call, "No table selected. Use 'use <table|alias> <name>'");
  return t;
}

/* ---- dispatch ---- */

static const AbCommand *
find_command (const gchar *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_ascii_strcasecmp (commands[i].name, name) == 0)
      return &commands[i];
  if (g_ascii_strcasecmp (name, "quit") == 0)
    return find_command ("exit");
  return NULL;
}

gboolean
ab_console_exec (AbConsole *c, const gchar *line, gboolean colour, gboolean interactive,
                 AbResult *res)
{
  g_autofree gchar *text = ab_lex_placeholders (line);
  g_autoptr (GPtrArray) words = ab_lex_words (text);
  if (words->len == 0)
    return TRUE;
  const AbCommand *cmd = find_command (words->pdata[0]);
  if (cmd == NULL)
    {
      res->ok = FALSE;
      res->error = g_strdup_printf ("Unknown command: %s\nType 'help' for available commands.",
                                    (const gchar *) words->pdata[0]);
      return FALSE;
    }
  g_autoptr (GPtrArray) positional = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) opts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ab_lex_options (words, 1, positional, opts);
  AbCall call = { c, positional, opts, colour, interactive, res };
  g_mutex_lock (&c->lock);
  gboolean ok = cmd->run (&call);
  g_mutex_unlock (&c->lock);
  res->ok = ok && res->ok;
  return res->ok;
}

gchar *
ab_console_prompt (AbConsole *c, gboolean colour)
{
  g_mutex_lock (&c->lock);
  const gchar *second = c->alias != NULL ? c->alias : c->table;
  g_autofree gchar *ctx = c->database == NULL ? g_strdup ("")
                          : second == NULL    ? g_strdup_printf ("(%s)", c->database)
                                              : g_strdup_printf ("(%s:%s)", c->database, second);
  g_mutex_unlock (&c->lock);
  if (!colour)
    return g_strdup_printf ("actionbase%s> ", ctx);
  /* \001 and \002 tell the line editor which bytes take no room. */
  return g_strdup_printf ("\001\033[34m\002actionbase%s>\001\033[0m\002 ", ctx);
}

/* Entity names of a v2 DdlPage, "db.x" reduced to "x". */
static void
collect_names (JsonNode *content, GPtrArray *out)
{
  if (content == NULL || !JSON_NODE_HOLDS_ARRAY (content))
    return;
  JsonArray *a = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_OBJECT (e))
        continue;
      const gchar *name
          = json_object_get_string_member_with_default (json_node_get_object (e), "name", NULL);
      const gchar *dot = name != NULL ? strrchr (name, '.') : NULL;
      if (name != NULL)
        g_ptr_array_add (out, g_strdup (dot != NULL ? dot + 1 : name));
    }
}

GPtrArray *
ab_console_names (AbConsole *c, const gchar *kind)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_mutex_lock (&c->lock);
  g_autofree gchar *db = c->database != NULL ? ab_client_escape (c->database) : NULL;
  g_autofree gchar *path = NULL;
  if (g_str_equal (kind, "databases"))
    path = g_strdup ("/graph/v2/service");
  else if (db != NULL)
    path = g_strdup_printf ("/graph/v2/service/%s/%s", db,
                            g_str_equal (kind, "aliases") ? "alias" : "label");
  AbResponse r;
  if (path != NULL)
    {
      gboolean was = c->client->debug;
      c->client->debug = FALSE;
      if (ab_client_call (c->client, "GET", path, NULL, &r))
        collect_names (ab_response_member (&r, "content"), out);
      c->client->debug = was;
      ab_response_clear (&r);
    }
  g_mutex_unlock (&c->lock);
  return out;
}

/* ---- small commands ---- */

static gboolean
cmd_context (AbCall *call)
{
  AbConsole *c = call->console;
  g_autofree gchar *port
      = c->proxy_port != 0 ? g_strdup_printf ("%u", c->proxy_port) : g_strdup ("-");
  const gchar *rows[][2] = {
    { "host", c->client->base },
    { "database", c->database != NULL ? c->database : "-" },
    { "table", c->table != NULL ? c->table : "-" },
    { "alias", c->alias != NULL ? c->alias : "-" },
    { "proxy", c->proxy_port != 0 ? "on" : "off" },
    { "proxyPort", port },
    { "debug", c->client->debug ? "on" : "off" },
  };
  g_autoptr (AbTable) t = ab_table_new ((const gchar *const[]){ "key", "value", NULL });
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    ab_table_add (t, rows[i][0], rows[i][1], NULL);
  ab_call_table (call, t);
  return TRUE;
}

static gboolean
cmd_debug (AbCall *call)
{
  const gchar *v = ab_call_pos (call, 0);
  if (v == NULL || (!g_str_equal (v, "on") && !g_str_equal (v, "off")))
    return ab_call_usage (call, "debug <on|off>");
  call->console->client->debug = g_str_equal (v, "on");
  ab_call_print (call, "Debug mode is %s", v);
  return TRUE;
}

static gboolean
cmd_help (AbCall *call)
{
  g_autoptr (AbTable) t
      = ab_table_new ((const gchar *const[]){ "name", "description", "usage", NULL });
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree gchar *usage = g_strdup_printf ("`%s`", commands[i].usage);
      ab_table_add (t, commands[i].name, commands[i].description, usage, NULL);
    }
  ab_call_print (call, "Available commands:");
  ab_call_table (call, t);
  return TRUE;
}

static gboolean
cmd_exit (AbCall *call)
{
  call->res->quit = TRUE;
  ab_call_print (call, "Goodbye!");
  return TRUE;
}
