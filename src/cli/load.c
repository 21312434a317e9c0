/* `load file` and `load preset`: YAML lists of {name, description, command}
 * or text statements ending with ';', each statement a `create|load
 * database|storage|table|alias|edges ... --data '<json>'`; edges go in
 * batches with a progress bar on a terminal and end with the upstream line. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>
#include "cli/console.h"

#define LOAD_USAGE "load <file <path>|preset <name>>"
#define EDGE_BATCH 500 /* the server takes up to 1000 mutations a request */

typedef struct {
  gchar *description;
  gchar *command;
} LoadStep;

static void
load_step_free (gpointer p)
{
  LoadStep *s = p;
  g_free (s->description);
  g_free (s->command);
  g_free (s);
}

/* ---- presets ---- */

static GPtrArray *
preset_dirs (void)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  const gchar *env = g_getenv ("AB_PRESET_DIR");
  if (env != NULL && env[0] != '\0')
    g_ptr_array_add (dirs, g_strdup (env));
  g_ptr_array_add (dirs, g_build_filename (AB_DATADIR, "presets", NULL));
#ifdef AB_SOURCE_PRESETS
  g_ptr_array_add (dirs, g_strdup (AB_SOURCE_PRESETS));
#endif
  return dirs;
}

gchar *
ab_load_find_preset (const gchar *name)
{
  if (strchr (name, '/') != NULL || strchr (name, '\\') != NULL || strstr (name, "..") != NULL)
    return NULL;
  g_autofree gchar *file = g_strconcat (name, ".preset.yaml", NULL);
  g_autoptr (GPtrArray) dirs = preset_dirs ();
  for (guint i = 0; i < dirs->len; i++)
    {
      gchar *path = g_build_filename (dirs->pdata[i], file, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return path;
      g_free (path);
    }
  return NULL;
}

GPtrArray *
ab_load_preset_names (void)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) dirs = preset_dirs ();
  for (guint i = 0; i < dirs->len; i++)
    {
      g_autoptr (GDir) d = g_dir_open (dirs->pdata[i], 0, NULL);
      const gchar *entry;
      while (d != NULL && (entry = g_dir_read_name (d)) != NULL)
        {
          if (!g_str_has_suffix (entry, ".preset.yaml"))
            continue;
          g_autofree gchar *name = g_strndup (entry, strlen (entry) - strlen (".preset.yaml"));
          gboolean seen = FALSE;
          for (guint k = 0; k < names->len && !seen; k++)
            seen = g_str_equal (names->pdata[k], name);
          if (!seen)
            g_ptr_array_add (names, g_steal_pointer (&name));
        }
    }
  return names;
}

/* ---- reading files ---- */

static const gchar *
yaml_scalar (yaml_document_t *doc, yaml_node_t *map, const gchar *key)
{
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++)
    {
      yaml_node_t *k = yaml_document_get_node (doc, p->key);
      yaml_node_t *v = yaml_document_get_node (doc, p->value);
      if (k != NULL && v != NULL && k->type == YAML_SCALAR_NODE && v->type == YAML_SCALAR_NODE
          && g_str_equal ((const gchar *) k->data.scalar.value, key))
        return (const gchar *) v->data.scalar.value;
    }
  return NULL;
}

/* A YAML list of {name, description, command} mappings. */
static gboolean
read_yaml (const gchar *text, gsize len, GPtrArray *steps, GError **error)
{
  yaml_parser_t parser;
  yaml_document_t doc;
  yaml_parser_initialize (&parser);
  yaml_parser_set_input_string (&parser, (const guchar *) text, len);
  if (!yaml_parser_load (&parser, &doc))
    {
      g_set_error (
          error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "Failed to parse YAML: %s (line %zu)",
          parser.problem != NULL ? parser.problem : "syntax error", parser.problem_mark.line + 1);
      yaml_parser_delete (&parser);
      return FALSE;
    }
  yaml_node_t *root = yaml_document_get_root_node (&doc);
  gboolean ok = root == NULL || root->type == YAML_SEQUENCE_NODE;
  if (!ok)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 "Failed to parse YAML: expected a list of {name, description, command}");
  for (yaml_node_item_t *it = ok && root != NULL ? root->data.sequence.items.start : NULL;
       it != NULL && it < root->data.sequence.items.top; it++)
    {
      yaml_node_t *item = yaml_document_get_node (&doc, *it);
      const gchar *command = item != NULL && item->type == YAML_MAPPING_NODE
                                 ? yaml_scalar (&doc, item, "command")
                                 : NULL;
      if (command == NULL || command[0] == '\0')
        continue;
      LoadStep *s = g_new0 (LoadStep, 1);
      s->description = g_strdup (yaml_scalar (&doc, item, "description"));
      s->command = g_strdup (command);
      g_ptr_array_add (steps, s);
    }
  yaml_document_delete (&doc);
  yaml_parser_delete (&parser);
  return ok;
}

static gboolean
read_steps (const gchar *path, GPtrArray *steps, GError **error)
{
  g_autofree gchar *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &text, &len, error))
    return FALSE;
  if (g_str_has_suffix (path, ".yaml") || g_str_has_suffix (path, ".yml"))
    return read_yaml (text, len, steps, error);
  g_autoptr (GPtrArray) stmts = ab_lex_statements (text);
  for (guint i = 0; i < stmts->len; i++)
    {
      LoadStep *s = g_new0 (LoadStep, 1);
      s->command = g_strdup (stmts->pdata[i]);
      g_ptr_array_add (steps, s);
    }
  return TRUE;
}

/* ---- statements ---- */

typedef struct {
  AbCall *call;
  GHashTable *opts;
  JsonNode *data;
  gchar *line;  /* the statement's result line */
  gchar *error; /* or why it failed */
} Stmt;

static gboolean stmt_fail (Stmt *st, const gchar *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
stmt_fail (Stmt *st, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_free (st->error);
  st->error = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  return FALSE;
}

static const gchar *
stmt_opt (Stmt *st, const gchar *key)
{
  const gchar *v = g_hash_table_lookup (st->opts, key);
  return v != NULL && v[0] != '\0' ? v : NULL;
}

/* POSTs body to path; on failure the error is "<what>: <server message>". */
static gboolean
stmt_post (Stmt *st, const gchar *path, JsonNode *body, AbResponse *r, const gchar *what)
{
  if (ab_client_call (st->call->console->client, "POST", path, body, r))
    return TRUE;
  return stmt_fail (st, "%s: %s", what, r->error);
}

static gboolean
load_database (Stmt *st, const gchar *name)
{
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (st->data) ? json_node_get_object (st->data) : NULL;
  const gchar *desc
      = o != NULL ? json_object_get_string_member_with_default (o, "desc", NULL) : NULL;
  if (desc == NULL && o != NULL)
    desc = json_object_get_string_member_with_default (o, "comment", "");
  g_autoptr (JsonNode) body = json_node_new (JSON_NODE_OBJECT);
  JsonObject *bo = json_object_new ();
  json_object_set_string_member (bo, "desc", desc != NULL ? desc : "");
  json_node_take_object (body, bo);
  g_autofree gchar *e = ab_client_escape (name);
  g_autofree gchar *path = g_strdup_printf ("/graph/v2/service/%s", e);
  g_autofree gchar *what = g_strdup_printf ("Failed to create database '%s'", name);
  AbResponse r;
  gboolean ok = stmt_post (st, path, body, &r, what);
  ab_response_clear (&r);
  if (ok)
    st->line = g_strdup_printf ("Database '%s' is created", name);
  return ok;
}

/* storage, table and alias: the data goes to the server as written. */
static gboolean
load_entity (Stmt *st, const gchar *kind, const gchar *name)
{
  const gchar *db = stmt_opt (st, "database");
  if (!g_str_equal (kind, "storage") && db == NULL)
    return stmt_fail (st, "Failed to read a command when try to create %s. no database found",
                      kind);
  g_autofree gchar *en = ab_client_escape (name);
  g_autofree gchar *ed = ab_client_escape (db != NULL ? db : "");
  g_autofree gchar *path
      = g_str_equal (kind, "storage")
            ? g_strdup_printf ("/graph/v2/storage/%s", en)
            : g_strdup_printf ("/graph/v2/service/%s/%s/%s", ed,
                               g_str_equal (kind, "table") ? "label" : "alias", en);
  g_autofree gchar *what = g_strdup_printf ("Failed to create %s '%s'", kind, name);
  AbResponse r;
  gboolean ok = stmt_post (st, path, st->data, &r, what);
  ab_response_clear (&r);
  if (ok)
    st->line = g_strdup_printf ("%c%s '%s' is created", g_ascii_toupper (kind[0]), kind + 1, name);
  return ok;
}

static void
draw_progress (guint done, guint total)
{
  const guint width = 30;
  guint filled = total > 0 ? (guint) ((guint64) done * width / total) : width;
  GString *bar = g_string_new ("\r[");
  for (guint i = 0; i < width; i++)
    g_string_append_c (bar, i < filled ? '#' : '.');
  g_string_append_printf (bar, "] %3u%% %u/%u edges", total > 0 ? done * 100 / total : 100, done,
                          total);
  fputs (bar->str, stdout);
  fflush (stdout);
  g_string_free (bar, TRUE);
}

/* One batch of mutations [from, to) posted; counts summed. */
static gboolean
post_batch (Stmt *st, const gchar *path, JsonArray *all, guint from, guint to, gint64 *done,
            gint64 *failed)
{
  JsonArray *slice = json_array_sized_new (to - from);
  for (guint i = from; i < to; i++)
    json_array_add_element (slice, json_node_copy (json_array_get_element (all, i)));
  JsonObject *o = json_object_new ();
  json_object_set_array_member (o, "mutations", slice);
  g_autoptr (JsonNode) body = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (body, o);
  AbResponse r;
  gboolean ok = stmt_post (st, path, body, &r, "Failed to mutate edges");
  JsonNode *results = ok ? ab_response_member (&r, "results") : NULL;
  JsonArray *a
      = results != NULL && JSON_NODE_HOLDS_ARRAY (results) ? json_node_get_array (results) : NULL;
  for (guint i = 0; a != NULL && i < json_array_get_length (a); i++)
    {
      JsonNode *n = json_array_get_element (a, i);
      JsonObject *ro = JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
      if (ro == NULL)
        continue;
      gint64 c = json_object_get_int_member_with_default (ro, "count", 0);
      if (g_str_equal (json_object_get_string_member_with_default (ro, "status", ""), "ERROR"))
        *failed += c;
      else
        *done += c;
    }
  ab_response_clear (&r);
  return ok;
}

static gboolean
load_edges (Stmt *st)
{
  const gchar *db = stmt_opt (st, "database"), *table = stmt_opt (st, "table");
  if (db == NULL)
    return stmt_fail (st, "Failed to read a command when try to mutate edges. no --database found");
  if (table == NULL)
    return stmt_fail (st, "Failed to read a command when try to mutate edges. no --table found");
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (st->data) ? json_node_get_object (st->data) : NULL;
  JsonNode *m = o != NULL ? json_object_get_member (o, "mutations") : NULL;
  if (m == NULL || !JSON_NODE_HOLDS_ARRAY (m))
    return stmt_fail (st, "Failed to parse data: 'mutations' must be a list");
  JsonArray *all = json_node_get_array (m);
  guint n = json_array_get_length (all);
  g_autofree gchar *ed = ab_client_escape (db), *et = ab_client_escape (table);
  g_autofree gchar *path = g_strdup_printf ("/graph/v3/databases/%s/tables/%s/edges", ed, et);
  gboolean bar = st->call->interactive && st->call->console->tty && n > EDGE_BATCH;
  gint64 done = 0, failed = 0;
  gboolean ok = TRUE;
  for (guint from = 0; ok && from < n; from += EDGE_BATCH)
    {
      ok = post_batch (st, path, all, from, MIN (n, from + EDGE_BATCH), &done, &failed);
      if (bar)
        draw_progress (MIN (n, from + EDGE_BATCH), n);
    }
  if (bar)
    fputs ("\n", stdout);
  if (ok)
    st->line = g_strdup_printf ("%u edges of '%s' are mutated (total: %" G_GINT64_FORMAT
                                ", failed: %" G_GINT64_FORMAT ")",
                                n, table, done, failed);
  return ok;
}

/* Runs one statement; the result line or the error lands in st. */
static gboolean
run_statement (Stmt *st, const gchar *text)
{
  g_autofree gchar *flat = g_strdup (text);
  g_strdelimit (flat, "\r\n", ' ');
  g_autoptr (GPtrArray) words = ab_lex_words (flat);
  g_autoptr (GPtrArray) positional = g_ptr_array_new_with_free_func (g_free);
  ab_lex_options (words, 1, positional, st->opts);
  const gchar *kind = positional->len > 0 ? positional->pdata[0] : "";
  const gchar *data = stmt_opt (st, "data");
  if (data == NULL)
    return stmt_fail (
        st, "Usage: <create|load> <database|storage|table|alias|edges> ... --data '<json>'");
  g_autofree gchar *json = ab_lex_placeholders (data);
  g_autoptr (GError) error = NULL;
  st->data = json_from_string (json, &error);
  if (st->data == NULL)
    return stmt_fail (st, "Failed to parse data: %s", error != NULL ? error->message : "empty");
  if (g_str_equal (kind, "edges"))
    return load_edges (st);
  const gchar *name = stmt_opt (st, "name");
  if (name == NULL
      && (g_str_equal (kind, "database") || g_str_equal (kind, "storage")
          || g_str_equal (kind, "table") || g_str_equal (kind, "alias")))
    return stmt_fail (st, "Failed to read a command when try to create %s. no name found", kind);
  if (g_str_equal (kind, "database"))
    return load_database (st, name);
  if (g_str_equal (kind, "storage") || g_str_equal (kind, "table") || g_str_equal (kind, "alias"))
    return load_entity (st, kind, name);
  return stmt_fail (st, "Unknown resource type: %s", kind);
}

static gboolean
load_path (AbCall *call, const gchar *path)
{
  g_autoptr (GPtrArray) steps = g_ptr_array_new_with_free_func (load_step_free);
  g_autoptr (GError) error = NULL;
  if (!read_steps (path, steps, &error))
    return ab_call_fail (call, "Failed to load '%s': %s", path, error->message);
  for (guint i = 0; i < steps->len; i++)
    {
      LoadStep *step = steps->pdata[i];
      if (step->description != NULL && step->description[0] != '\0')
        ab_call_print (call, "/* %s */", step->description);
      Stmt st = { call, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free) };
      gboolean ok = run_statement (&st, step->command);
      if (ok)
        ab_call_print (call, "%s", st.line);
      else
        ab_call_fail (
            call, "%s\nFailed to execute command. Please check your command syntax or system log",
            st.error);
      g_hash_table_unref (st.opts);
      g_clear_pointer (&st.data, json_node_unref);
      g_free (st.line);
      g_free (st.error);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

gboolean
ab_cmd_load (AbCall *call)
{
  const gchar *kind = ab_call_pos (call, 0), *arg = ab_call_pos (call, 1);
  if (arg == NULL)
    return ab_call_usage (call, LOAD_USAGE);
  if (g_str_equal (kind, "file"))
    return load_path (call, arg);
  if (!g_str_equal (kind, "preset"))
    return ab_call_usage (call, LOAD_USAGE);
  g_autofree gchar *path = ab_load_find_preset (arg);
  if (path == NULL)
    {
      g_autoptr (GPtrArray) names = ab_load_preset_names ();
      g_ptr_array_add (names, NULL);
      g_autofree gchar *list = g_strjoinv (", ", (gchar **) names->pdata);
      return ab_call_fail (call, "No preset '%s' (shipped presets: %s)", arg,
                           list[0] != '\0' ? list : "none found");
    }
  return load_path (call, path);
}
