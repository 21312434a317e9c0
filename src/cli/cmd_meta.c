/* Metadata commands over the v2 API (docs/rest-api.md §8): create database, storage,
 * table and alias; show databases, storages, tables, aliases, indices and
 * groups; desc table|alias; use database|table|alias. */
#include <string.h>
#include "cli/console.h"

#define DATABASE_USAGE "create database --name <name> --comment <comment>"
#define STORAGE_USAGE                                                             \
  "create storage --name <name> --comment <comment> --storageType <storageType> " \
  "--hbaseNamespace <hbaseNamespace> --hbaseTable <hbaseTable>"
#define TABLE_USAGE                                                                \
  "create table [--database <database>] --name <name> --comment <comment> "        \
  "--type <INDEXED|MULTI_EDGE|...> --direction <OUT|IN|BOTH> --storage <storage> " \
  "--schema <json> [--indices <json>] [--groups <json>]"
#define ALIAS_USAGE \
  "create alias [--database <database>] --table <table> --name <name> --comment <comment>"

static const gchar *
str_of (JsonObject *o, const gchar *name)
{
  if (o == NULL || !json_object_has_member (o, name))
    return "";
  JsonNode *n = json_object_get_member (o, name);
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return "";
  return json_node_get_string (n);
}

static gchar *
cell_of (JsonObject *o, const gchar *name)
{
  return ab_cell_text (o != NULL ? json_object_get_member (o, name) : NULL);
}

static JsonObject *
object_of (JsonNode *n)
{
  return n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static JsonArray *
array_of (JsonObject *o, const gchar *name)
{
  JsonNode *n = o != NULL ? json_object_get_member (o, name) : NULL;
  return n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

/* A sub-command: the word after the command, and what runs it. */
typedef struct {
  const gchar *word;
  gboolean (*run) (AbCall *call);
} Sub;

/* Runs the sub-command the first word names, else fails with usage. */
static gboolean
run_sub (AbCall *call, const Sub *subs, guint n, const gchar *usage)
{
  const gchar *word = ab_call_pos (call, 0);
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (word, subs[i].word) == 0)
      return subs[i].run (call);
  return ab_call_usage (call, usage);
}

/* ---- create ---- */

/* POSTs a create body and prints the upstream sentence for `what` (database,
 * storage, table, alias): "The <what> 'x' is created" or the failure. */
static gboolean
post_create (AbCall *call, JsonBuilder *b, const gchar *path, const gchar *what, const gchar *name)
{
  g_autoptr (JsonNode) body = json_builder_get_root (b);
  AbResponse r;
  gboolean ok = ab_client_call (call->console->client, "POST", path, body, &r);
  if (ok)
    ab_call_print (call, "The %s '%s' is created", what, name);
  else
    ab_call_fail_resp (call, &r, "Failed to create %s '%s'", what, name);
  ab_response_clear (&r);
  return ok;
}

/* Adds the member name: value to the object b is building. */
static void
add_string (JsonBuilder *b, const gchar *name, const gchar *value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, value);
}

/* A create body opened with {"desc": comment (or "")}, for the caller to
 * complete and close. */
static JsonBuilder *
create_body (const gchar *comment)
{
  JsonBuilder *b = json_builder_new ();
  json_builder_begin_object (b);
  add_string (b, "desc", comment != NULL ? comment : "");
  return b;
}

static gboolean
create_database (AbCall *call)
{
  const gchar *name = ab_call_opt (call, "name"), *comment = ab_call_opt (call, "comment");
  if (name == NULL)
    return ab_call_usage (call, DATABASE_USAGE);
  g_autoptr (JsonBuilder) b = create_body (comment);
  json_builder_end_object (b);
  g_autofree gchar *e = ab_client_escape (name);
  g_autofree gchar *path = g_strdup_printf ("/graph/v2/service/%s", e);
  return post_create (call, b, path, "database", name);
}

static gboolean
create_storage (AbCall *call)
{
  const gchar *name = ab_call_opt (call, "name"), *type = ab_call_opt (call, "storageType");
  const gchar *ns = ab_call_opt (call, "hbaseNamespace"), *tb = ab_call_opt (call, "hbaseTable");
  const gchar *comment = ab_call_opt (call, "comment");
  if (name == NULL || type == NULL || ns == NULL || tb == NULL)
    return ab_call_usage (call, STORAGE_USAGE);
  g_autoptr (JsonBuilder) b = create_body (comment);
  add_string (b, "type", type);
  json_builder_set_member_name (b, "conf");
  json_builder_begin_object (b);
  add_string (b, "hbaseNamespace", ns);
  add_string (b, "hbaseTable", tb);
  json_builder_end_object (b);
  json_builder_end_object (b);
  g_autofree gchar *e = ab_client_escape (name);
  g_autofree gchar *path = g_strdup_printf ("/graph/v2/storage/%s", e);
  return post_create (call, b, path, "storage", name);
}

/* A JSON option parsed into the builder under name (default when absent). */
static gboolean
add_json_option (AbCall *call, JsonBuilder *b, const gchar *opt, const gchar *name,
                 const gchar *fallback)
{
  const gchar *text = ab_call_opt (call, opt);
  g_autoptr (GError) error = NULL;
  JsonNode *n = json_from_string (text != NULL ? text : fallback, &error);
  if (n == NULL)
    return ab_call_fail (call, "Invalid JSON in --%s: %s", opt,
                         error != NULL ? error->message : "empty");
  json_builder_set_member_name (b, name);
  json_builder_add_value (b, n);
  return TRUE;
}

static gboolean
create_table (AbCall *call)
{
  const gchar *db = ab_call_opt (call, "database"), *name = ab_call_opt (call, "name");
  const gchar *type = ab_call_opt (call, "type"), *dir = ab_call_opt (call, "direction");
  const gchar *storage = ab_call_opt (call, "storage"), *comment = ab_call_opt (call, "comment");
  if (db == NULL)
    db = call->console->database;
  if (db == NULL || name == NULL || type == NULL || dir == NULL || storage == NULL
      || ab_call_opt (call, "schema") == NULL)
    return ab_call_usage (call, TABLE_USAGE);
  g_autoptr (JsonBuilder) b = create_body (comment);
  add_string (b, "type", type);
  if (!add_json_option (call, b, "schema", "schema", "{}")
      || !add_json_option (call, b, "indices", "indices", "[]")
      || !add_json_option (call, b, "groups", "groups", "[]"))
    {
      json_builder_reset (b);
      return FALSE;
    }
  add_string (b, "dirType", dir);
  add_string (b, "storage", storage);
  json_builder_set_member_name (b, "event");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "readOnly");
  json_builder_add_boolean_value (b, g_ascii_strcasecmp (type, "MULTI_EDGE") == 0);
  add_string (b, "mode", "SYNC");
  json_builder_end_object (b);
  g_autofree gchar *ed = ab_client_escape (db), *et = ab_client_escape (name);
  g_autofree gchar *path = g_strdup_printf ("/graph/v2/service/%s/label/%s", ed, et);
  return post_create (call, b, path, "table", name);
}

static gboolean
create_alias (AbCall *call)
{
  const gchar *db = ab_call_opt (call, "database"), *table = ab_call_opt (call, "table");
  const gchar *name = ab_call_opt (call, "name"), *comment = ab_call_opt (call, "comment");
  if (db == NULL)
    db = call->console->database;
  if (db == NULL || table == NULL || name == NULL)
    return ab_call_usage (call, ALIAS_USAGE);
  g_autofree gchar *target = g_strdup_printf ("%s.%s", db, table);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  add_string (b, "target", target);
  add_string (b, "desc", comment != NULL ? comment : "");
  json_builder_end_object (b);
  g_autofree gchar *ed = ab_client_escape (db), *ea = ab_client_escape (name);
  g_autofree gchar *path = g_strdup_printf ("/graph/v2/service/%s/alias/%s", ed, ea);
  return post_create (call, b, path, "alias", name);
}

gboolean
ab_cmd_create (AbCall *call)
{
  static const Sub subs[] = {
    { "database", create_database },
    { "storage", create_storage },
    { "table", create_table },
    { "alias", create_alias },
  };
  return run_sub (call, subs, G_N_ELEMENTS (subs), "create <database|storage|table|alias> <args>");
}

/* ---- show ---- */

/* GETs a v2 list; its content array, or NULL after failing with what. */
static JsonArray *
get_page (AbCall *call, AbResponse *r, const gchar *path, const gchar *what)
{
  if (!ab_client_call (call->console->client, "GET", path, NULL, r))
    {
      ab_call_fail_resp (call, r, "Failed to get %s", what);
      return NULL;
    }
  JsonArray *a = array_of (object_of (r->json), "content");
  if (a == NULL)
    ab_call_fail (call, "Failed to get %s: the answer has no 'content' list", what);
  return a;
}

/* Adds the row of item i (o) of a v2 list to t. */
typedef void (*AddRow) (AbTable *t, JsonObject *o, guint i);

/* GETs the v2 list at path into t, a row per item (add_row); *n: how many
 * items. FALSE after failing with what. */
static gboolean
list_into (AbCall *call, const gchar *path, const gchar *what, AbTable *t, AddRow add_row, guint *n)
{
  AbResponse r;
  JsonArray *a = get_page (call, &r, path, what);
  *n = a != NULL ? json_array_get_length (a) : 0;
  for (guint i = 0; i < *n; i++)
    add_row (t, object_of (json_array_get_element (a, i)), i);
  ab_response_clear (&r);
  return a != NULL;
}

static void
database_row (AbTable *t, JsonObject *o, guint i)
{
  if (g_str_equal (str_of (o, "name"), "sys"))
    return;
  g_autofree gchar *idx = g_strdup_printf ("%u", ab_table_rows (t) + 1);
  g_autofree gchar *active = cell_of (o, "active");
  ab_table_add (t, idx, str_of (o, "name"), str_of (o, "desc"), active, NULL);
}

static gboolean
show_databases (AbCall *call)
{
  g_autoptr (AbTable) t
      = ab_table_new ((const gchar *const[]){ "#", "name", "desc", "active", NULL });
  guint n;
  if (!list_into (call, "/graph/v2/service", "databases", t, database_row, &n))
    return FALSE;
  ab_call_print (call, "Available databases (%u)", ab_table_rows (t));
  ab_call_table (call, t);
  return TRUE;
}

static void
storage_row (AbTable *t, JsonObject *o, guint i)
{
  JsonNode *conf = o != NULL ? json_object_get_member (o, "conf") : NULL;
  g_autofree gchar *idx = g_strdup_printf ("%u", i + 1);
  g_autofree gchar *active = cell_of (o, "active");
  g_autofree gchar *conf_text = conf != NULL ? json_to_string (conf, FALSE) : g_strdup ("null");
  ab_table_add (t, idx, active, str_of (o, "name"), str_of (o, "desc"), str_of (o, "type"),
                conf_text, NULL);
}

static gboolean
show_storages (AbCall *call)
{
  g_autoptr (AbTable) t = ab_table_new (
      (const gchar *const[]){ "#", "active", "name", "desc", "type", "conf", NULL });
  guint n;
  if (!list_into (call, "/graph/v2/storage", "storages", t, storage_row, &n))
    return FALSE;
  ab_call_print (call, "Available storages (%u)", n);
  ab_call_table (call, t);
  return TRUE;
}

static void
table_row (AbTable *t, JsonObject *o, guint i)
{
  g_autofree gchar *idx = g_strdup_printf ("%u", i + 1);
  g_autofree gchar *active = cell_of (o, "active");
  ab_table_add (t, idx, active, str_of (o, "name"), str_of (o, "desc"), str_of (o, "type"), NULL);
}

static void
alias_row (AbTable *t, JsonObject *o, guint i)
{
  g_autofree gchar *idx = g_strdup_printf ("%u", i + 1);
  g_autofree gchar *active = cell_of (o, "active");
  ab_table_add (t, idx, str_of (o, "name"), str_of (o, "desc"), str_of (o, "target"), active, NULL);
}

/* show tables | show aliases */
static gboolean
show_in_database (AbCall *call)
{
  gboolean aliases = g_str_equal (ab_call_pos (call, 0), "aliases");
  const gchar *db = ab_call_database (call);
  if (db == NULL)
    return FALSE;
  g_autofree gchar *e = ab_client_escape (db);
  g_autofree gchar *path
      = g_strdup_printf ("/graph/v2/service/%s/%s", e, aliases ? "alias" : "label");
  g_autofree gchar *what = g_strdup_printf ("%s in %s", aliases ? "aliases" : "tables", db);
  g_autoptr (AbTable) t
      = aliases
            ? ab_table_new ((const gchar *const[]){ "#", "name", "desc", "target", "active", NULL })
            : ab_table_new ((const gchar *const[]){ "#", "active", "name", "desc", "type", NULL });
  guint n;
  if (!list_into (call, path, what, t, aliases ? alias_row : table_row, &n))
    return FALSE;
  if (aliases)
    ab_call_print (call, "%u Aliases in '%s'", n, db);
  else
    ab_call_print (call, "%u Tables in database", n);
  ab_call_table (call, t);
  return TRUE;
}

/* GETs the v2 label entity of db.table into r; NULL after failing. */
static JsonObject *
get_label (AbCall *call, const gchar *db, const gchar *table, AbResponse *r)
{
  g_autofree gchar *ed = ab_client_escape (db), *et = ab_client_escape (table);
  if (!ab_client_callf (call->console->client, "GET", NULL, r, "/graph/v2/service/%s/label/%s", ed,
                        et))
    {
      ab_call_fail_resp (call, r, "Failed to get table '%s'", table);
      return NULL;
    }
  return object_of (r->json);
}

/* Joins member `field` of every object in a with newlines. */
static gchar *
join_member (JsonArray *a, const gchar *field)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; a != NULL && i < json_array_get_length (a); i++)
    {
      if (i > 0)
        g_string_append_c (s, '\n');
      g_autofree gchar *v = cell_of (object_of (json_array_get_element (a, i)), field);
      g_string_append (s, v);
    }
  return g_string_free (s, FALSE);
}

/* show indices | show indexes | show groups */
static gboolean
show_parts (AbCall *call)
{
  gboolean groups = g_str_equal (ab_call_pos (call, 0), "groups");
  const gchar *db = ab_call_database (call);
  const gchar *table = ab_call_opt (call, "table");
  if (db == NULL)
    return FALSE;
  if (table == NULL)
    table = ab_call_pos (call, 1) != NULL ? ab_call_pos (call, 1) : call->console->table;
  if (table == NULL)
    return ab_call_fail (call, "No table selected. Use 'use <table|alias> <name>'");
  AbResponse r;
  JsonObject *label = get_label (call, db, table, &r);
  if (label == NULL)
    return (ab_response_clear (&r), FALSE);
  JsonArray *items = array_of (label, groups ? "groups" : "indices");
  guint n = items != NULL ? json_array_get_length (items) : 0;
  g_autoptr (AbTable) t
      = groups
            ? ab_table_new ((const gchar *const[]){ "#", "group", "type", "valueField", "comment",
                                                    "directionType", "ttl", "fields[].name", NULL })
            : ab_table_new ((const gchar *const[]){ "#", "name", "desc", "fields[].name",
                                                    "fields[].order", NULL });
  for (guint i = 0; i < n; i++)
    {
      JsonObject *o = object_of (json_array_get_element (items, i));
      JsonArray *fields = array_of (o, "fields");
      g_autofree gchar *idx = g_strdup_printf ("%u", i + 1);
      g_autofree gchar *names = join_member (fields, "name");
      g_autofree gchar *orders = join_member (fields, "order");
      g_autofree gchar *ttl = cell_of (o, "ttl");
      if (groups)
        ab_table_add (t, idx, str_of (o, "group"), str_of (o, "type"), str_of (o, "valueField"),
                      str_of (o, "comment"), str_of (o, "directionType"), ttl, names, NULL);
      else
        ab_table_add (t, idx, str_of (o, "name"), str_of (o, "desc"), names, orders, NULL);
    }
  ab_call_print (call, "%u %s in %s", n, groups ? "Groups" : "Indices", table);
  ab_call_table (call, t);
  ab_response_clear (&r);
  return TRUE;
}

gboolean
ab_cmd_show (AbCall *call)
{
  static const Sub subs[] = {
    { "databases", show_databases }, { "storages", show_storages }, { "tables", show_in_database },
    { "aliases", show_in_database }, { "indices", show_parts },     { "indexes", show_parts },
    { "groups", show_parts },
  };
  return run_sub (call, subs, G_N_ELEMENTS (subs),
                  "show <databases|storages|tables|aliases|indices|groups> [--table <table>]");
}

/* ---- desc ---- */

static void
desc_label (AbCall *call, JsonObject *label)
{
  g_autoptr (AbTable) head = ab_table_new ((const gchar *const[]){
      "name", "desc", "type", "dirType", "event", "readOnly", "mode", NULL });
  g_autofree gchar *event = cell_of (label, "event"), *ro = cell_of (label, "readOnly");
  ab_table_add (head, str_of (label, "name"), str_of (label, "desc"), str_of (label, "type"),
                str_of (label, "dirType"), event, ro, str_of (label, "mode"), NULL);
  ab_call_table (call, head);
  JsonObject *schema = object_of (json_object_get_member (label, "schema"));
  const gchar *ends[][2] = { { "[Source]", "src" }, { "[Target]", "tgt" } };
  for (guint i = 0; i < G_N_ELEMENTS (ends); i++)
    {
      JsonObject *f
          = schema != NULL ? object_of (json_object_get_member (schema, ends[i][1])) : NULL;
      g_autoptr (AbTable) t = ab_table_new ((const gchar *const[]){ "type", "desc", NULL });
      ab_table_add (t, str_of (f, "type"), str_of (f, "desc"), NULL);
      ab_call_print (call, "%s", ends[i][0]);
      ab_call_table (call, t);
    }
  JsonArray *fields = array_of (schema, "fields");
  guint n = fields != NULL ? json_array_get_length (fields) : 0;
  g_autoptr (AbTable) t
      = ab_table_new ((const gchar *const[]){ "#", "name", "type", "nullable", "desc", NULL });
  for (guint i = 0; i < n; i++)
    {
      JsonObject *f = object_of (json_array_get_element (fields, i));
      g_autofree gchar *idx = g_strdup_printf ("%u", i + 1);
      g_autofree gchar *nullable = cell_of (f, "nullable");
      ab_table_add (t, idx, str_of (f, "name"), str_of (f, "type"), nullable, str_of (f, "desc"),
                    NULL);
    }
  ab_call_print (call, "[Fields (%u)]", n);
  ab_call_table (call, t);
}

/* Resolves alias -> "db.table" target; the table part or NULL after failing. */
static gchar *
alias_target (AbCall *call, const gchar *db, const gchar *alias)
{
  g_autofree gchar *ed = ab_client_escape (db), *ea = ab_client_escape (alias);
  AbResponse r;
  gchar *table = NULL;
  if (!ab_client_callf (call->console->client, "GET", NULL, &r, "/graph/v2/service/%s/alias/%s", ed,
                        ea))
    ab_call_fail_resp (call, &r, "No Alias '%s' found in %s", alias, db);
  else
    {
      const gchar *target = str_of (object_of (r.json), "target");
      const gchar *dot = strchr (target, '.');
      if (dot == NULL || dot[1] == '\0')
        ab_call_fail (call, "Alias '%s' has no valid target ('%s')", alias, target);
      else
        table = g_strdup (dot + 1);
    }
  ab_response_clear (&r);
  return table;
}

gboolean
ab_cmd_desc (AbCall *call)
{
  const gchar *kind = ab_call_pos (call, 0), *name = ab_call_pos (call, 1);
  const gchar *using = ab_call_opt (call, "using");
  if (kind != NULL && name == NULL && using != NULL)
    name = kind, kind = using;
  gboolean alias = g_strcmp0 (kind, "alias") == 0;
  if (!alias && g_strcmp0 (kind, "table") != 0)
    return ab_call_usage (call, "desc <table|alias> [<name>]");
  const gchar *db = ab_call_database (call);
  if (db == NULL)
    return FALSE;
  if (name == NULL)
    name = alias ? call->console->alias : call->console->table;
  if (name == NULL)
    return ab_call_fail (call, "No %s selected. Use 'use %s <name>'", kind, kind);
  g_autofree gchar *table = alias ? alias_target (call, db, name) : g_strdup (name);
  if (table == NULL)
    return FALSE;
  if (alias)
    ab_call_print (call, "Alias '%s' -> '%s.%s'", name, db, table);
  AbResponse r;
  JsonObject *label = get_label (call, db, table, &r);
  if (label != NULL)
    desc_label (call, label);
  ab_response_clear (&r);
  return label != NULL;
}

/* ---- use ---- */

static gboolean
use_database (AbCall *call, const gchar *name)
{
  AbConsole *c = call->console;
  g_autofree gchar *e = ab_client_escape (name);
  AbResponse r;
  gboolean ok = ab_client_callf (c->client, "GET", NULL, &r, "/graph/v2/service/%s", e);
  if (ok)
    {
      g_free (c->database);
      c->database = g_strdup (name);
      g_clear_pointer (&c->table, g_free);
      g_clear_pointer (&c->alias, g_free);
      ab_call_print (call, "The database is changed to '%s'", name);
    }
  else
    ab_call_fail_resp (call, &r, "No database '%s' found", name);
  ab_response_clear (&r);
  return ok;
}

static gboolean
use_table (AbCall *call, const gchar *name, gboolean alias)
{
  AbConsole *c = call->console;
  const gchar *db = ab_call_database (call);
  if (db == NULL)
    return FALSE;
  g_autofree gchar *table = alias ? alias_target (call, db, name) : NULL;
  if (alias && table == NULL)
    return FALSE;
  if (!alias)
    {
      AbResponse r;
      JsonObject *label = get_label (call, db, name, &r);
      ab_response_clear (&r);
      if (label == NULL)
        return FALSE;
      table = g_strdup (name);
    }
  g_free (c->table);
  g_free (c->alias);
  c->table = g_strdup (table);
  c->alias = alias ? g_strdup (name) : NULL;
  if (alias)
    ab_call_print (call, "The Alias is changed to '%s:%s' (table '%s')", db, name, table);
  else
    ab_call_print (call, "The Table is changed to '%s:%s'", db, name);
  return TRUE;
}

gboolean
ab_cmd_use (AbCall *call)
{
  const gchar *kind = ab_call_pos (call, 0), *name = ab_call_pos (call, 1);
  if (name == NULL)
    return ab_call_usage (call, "use <database|table|alias> <name>");
  if (g_str_equal (kind, "database"))
    return use_database (call, name);
  if (g_str_equal (kind, "table") || g_str_equal (kind, "alias"))
    return use_table (call, name, g_str_equal (kind, "alias"));
  return ab_call_usage (call, "use <database|table|alias> <name>");
}
