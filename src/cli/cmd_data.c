/* Data commands over the v3 API: get, scan (limit 25 by default), count
 * (BOTH asks OUT and IN) and mutate of one edge, or with --id of one vertex
 * of a vertex table, printing the upstream sentences and tables; mutation
 * results are summed the way load sums them. */
#include <string.h>
#include "cli/console.h"

#define GET_USAGE                                                                            \
  "get [<table>] [--table <table>] [--alias <alias>] --source <source> --target <target> | " \
  "--id <id>"
#define SCAN_USAGE                                                       \
  "scan [<table>] --index <index> --start <start> --direction <OUT|IN> " \
  "[--ranges <ranges>] [--limit <limit>] [--offset <offset>]"
#define COUNT_USAGE "count [<table>] --start <start> --direction <OUT|IN|BOTH>"
#define MUTATE_USAGE                                                  \
  "mutate [<table>] --type <INSERT|UPDATE|DELETE> --source <source> " \
  "--target <target> | --id <id> --version <version|$NOW> --properties <json>"

/* "/graph/v3/databases/D/tables/T/<what>" with both names escaped. */
static gchar *
table_path (const gchar *db, const gchar *table, const gchar *what)
{
  g_autofree gchar *ed = ab_client_escape (db), *et = ab_client_escape (table);
  return g_strdup_printf ("/graph/v3/databases/%s/tables/%s/%s", ed, et, what);
}

static void
add_query (GString *q, const gchar *key, const gchar *value)
{
  if (value == NULL)
    return;
  g_autofree gchar *e = ab_client_escape (value);
  g_string_append_printf (q, "%c%s=%s", strchr (q->str, '?') == NULL ? '?' : '&', key, e);
}

/* The current database and the command's table (ab_call_target); NULL
 * after failing when either is missing. */
static const gchar *
call_table (AbCall *call, const gchar **db)
{
  *db = ab_call_database (call);
  return *db != NULL ? ab_call_target (call) : NULL;
}

/* "/graph/v3/databases/D/tables/T/<what>", to append a query to. */
static GString *
query_path (const gchar *db, const gchar *table, const gchar *what)
{
  g_autofree gchar *base = table_path (db, table, what);
  return g_string_new (base);
}

/* GETs path (freed here) into r; FALSE after failing with the sentence of
 * fmt (r cleared then). */
static gboolean get_into (AbCall *call, GString *path, AbResponse *r, const gchar *fmt, ...)
    G_GNUC_PRINTF (4, 5);

static gboolean
get_into (AbCall *call, GString *path, AbResponse *r, const gchar *fmt, ...)
{
  gboolean ok = ab_client_call (call->console->client, "GET", path->str, NULL, r);
  g_string_free (path, TRUE);
  if (ok)
    return TRUE;
  va_list ap;
  va_start (ap, fmt);
  g_autofree gchar *sentence = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  ab_call_fail_resp (call, r, "%s", sentence);
  ab_response_clear (r);
  return FALSE;
}

/* The sentence "<found>: [<key>]" (or "No results found: [<key>]" when t is
 * empty) and t. */
static void
print_found (AbCall *call, const AbTable *t, const gchar *found, const gchar *key)
{
  if (ab_table_rows (t) > 0)
    ab_call_print (call, "%s: [%s]", found, key);
  else
    ab_call_print (call, "No results found: [%s]", key);
  ab_call_table (call, t);
}

static JsonArray *
edges_of (const AbResponse *r)
{
  JsonNode *n = ab_response_member (r, "edges");
  return n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

/* Fills the edge table; with_index adds the "#" column. */
static AbTable *
edge_table (JsonArray *edges, gboolean with_index)
{
  AbTable *t = with_index ? ab_table_new (
                   (const gchar *const[]){ "#", "version", "source", "target", "properties", NULL })
                          : ab_table_new ((const gchar *const[]){ "version", "source", "target",
                                                                  "properties", NULL });
  for (guint i = 0; edges != NULL && i < json_array_get_length (edges); i++)
    {
      JsonNode *en = json_array_get_element (edges, i);
      JsonObject *e = JSON_NODE_HOLDS_OBJECT (en) ? json_node_get_object (en) : NULL;
      if (e == NULL)
        continue;
      g_autofree gchar *idx = g_strdup_printf ("%u", i + 1);
      g_autofree gchar *v = ab_cell_text (json_object_get_member (e, "version"));
      g_autofree gchar *s = ab_cell_text (json_object_get_member (e, "source"));
      g_autofree gchar *tg = ab_cell_text (json_object_get_member (e, "target"));
      g_autofree gchar *p = ab_cell_properties (json_object_get_member (e, "properties"));
      if (with_index)
        ab_table_add (t, idx, v, s, tg, p, NULL);
      else
        ab_table_add (t, v, s, tg, p, NULL);
    }
  return t;
}

/* get --id: GET …/vertices/get of a vertex table. */
static gboolean
get_vertex (AbCall *call, const gchar *id)
{
  const gchar *db, *table = call_table (call, &db);
  if (table == NULL)
    return FALSE;
  GString *path = query_path (db, table, "vertices/get");
  add_query (path, "id", id);
  AbResponse r;
  if (!get_into (call, path, &r, "Failed to get vertex: [%s]", id))
    return FALSE;
  JsonNode *n = ab_response_member (&r, "vertices");
  JsonArray *vs = n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
  g_autoptr (AbTable) t
      = ab_table_new ((const gchar *const[]){ "version", "id", "properties", NULL });
  for (guint i = 0; vs != NULL && i < json_array_get_length (vs); i++)
    {
      JsonNode *vn = json_array_get_element (vs, i);
      JsonObject *v = JSON_NODE_HOLDS_OBJECT (vn) ? json_node_get_object (vn) : NULL;
      if (v == NULL)
        continue;
      g_autofree gchar *ver = ab_cell_text (json_object_get_member (v, "version"));
      g_autofree gchar *vid = ab_cell_text (json_object_get_member (v, "id"));
      g_autofree gchar *p = ab_cell_properties (json_object_get_member (v, "properties"));
      ab_table_add (t, ver, vid, p, NULL);
    }
  print_found (call, t, "The vertex is found", id);
  ab_response_clear (&r);
  return TRUE;
}

gboolean
ab_cmd_get (AbCall *call)
{
  const gchar *source = ab_call_opt (call, "source"), *target = ab_call_opt (call, "target");
  const gchar *id = ab_call_opt (call, "id");
  if (id != NULL && source == NULL && target == NULL)
    return get_vertex (call, id);
  if (source == NULL || target == NULL || id != NULL)
    return ab_call_usage (call, GET_USAGE);
  const gchar *db, *table = call_table (call, &db);
  if (table == NULL)
    return FALSE;
  GString *path = query_path (db, table, "edges/get");
  add_query (path, "source", source);
  add_query (path, "target", target);
  g_autofree gchar *key = g_strdup_printf ("%s -> %s", source, target);
  AbResponse r;
  if (!get_into (call, path, &r, "Failed to get edge: [%s]", key))
    return FALSE;
  g_autoptr (AbTable) t = edge_table (edges_of (&r), FALSE);
  print_found (call, t, "The edge is found", key);
  ab_response_clear (&r);
  return TRUE;
}

gboolean
ab_cmd_scan (AbCall *call)
{
  const gchar *index = ab_call_opt (call, "index"), *start = ab_call_opt (call, "start");
  const gchar *dir = ab_call_opt (call, "direction"), *limit = ab_call_opt (call, "limit");
  if (index == NULL || start == NULL || dir == NULL)
    return ab_call_usage (call, SCAN_USAGE);
  const gchar *db, *table = call_table (call, &db);
  if (table == NULL)
    return FALSE;
  g_autofree gchar *ei = ab_client_escape (index);
  g_autofree gchar *scan = g_strconcat ("edges/scan/", ei, NULL);
  GString *path = query_path (db, table, scan);
  add_query (path, "start", start);
  add_query (path, "direction", dir);
  add_query (path, "limit", limit != NULL ? limit : "25");
  add_query (path, "ranges", ab_call_opt (call, "ranges"));
  add_query (path, "filters", ab_call_opt (call, "filters"));
  add_query (path, "offset", ab_call_opt (call, "offset"));
  AbResponse r;
  if (!get_into (call, path, &r, "Failed to scan table '%s' in %s", table, db))
    return FALSE;
  JsonArray *edges = edges_of (&r);
  JsonNode *count = ab_response_member (&r, "count"), *off = ab_response_member (&r, "offset");
  JsonNode *more = ab_response_member (&r, "hasNext");
  gint64 n = count != NULL && JSON_NODE_HOLDS_VALUE (count) ? json_node_get_int (count)
             : edges != NULL                                ? json_array_get_length (edges)
                                                            : 0;
  g_autofree gchar *offset
      = off != NULL && !JSON_NODE_HOLDS_NULL (off) ? ab_cell_text (off) : g_strdup ("");
  gboolean has_next = more != NULL && JSON_NODE_HOLDS_VALUE (more) && json_node_get_boolean (more);
  ab_call_print (call, "The %" G_GINT64_FORMAT " edges found (offset: %s, hasNext: %s)", n,
                 offset[0] != '\0' ? offset : "-", has_next ? "true" : "false");
  g_autoptr (AbTable) t = edge_table (edges, TRUE);
  ab_call_table (call, t);
  ab_response_clear (&r);
  return TRUE;
}

/* GET .../edges/counts for one direction; rows appended to t, sum to *total. */
static gboolean
count_direction (AbCall *call, const gchar *db, const gchar *table, const gchar *start,
                 const gchar *dir, AbTable *t, gint64 *total)
{
  GString *path = query_path (db, table, "edges/counts");
  add_query (path, "start", start);
  add_query (path, "direction", dir);
  AbResponse r;
  if (!get_into (call, path, &r, "Failed to get counts of table '%s' in %s", table, db))
    return FALSE;
  JsonNode *counts = ab_response_member (&r, "counts");
  JsonArray *a
      = counts != NULL && JSON_NODE_HOLDS_ARRAY (counts) ? json_node_get_array (counts) : NULL;
  for (guint i = 0; a != NULL && i < json_array_get_length (a); i++)
    {
      JsonNode *rn = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_OBJECT (rn))
        continue;
      JsonObject *o = json_node_get_object (rn);
      g_autofree gchar *idx = g_strdup_printf ("%u", ab_table_rows (t) + 1);
      g_autofree gchar *s = ab_cell_text (json_object_get_member (o, "start"));
      g_autofree gchar *d = ab_cell_text (json_object_get_member (o, "direction"));
      g_autofree gchar *c = ab_cell_text (json_object_get_member (o, "count"));
      *total += g_ascii_strtoll (c, NULL, 10);
      ab_table_add (t, idx, s, d, c, NULL);
    }
  ab_response_clear (&r);
  return TRUE;
}

gboolean
ab_cmd_count (AbCall *call)
{
  const gchar *start = ab_call_opt (call, "start"), *dir = ab_call_opt (call, "direction");
  if (start == NULL || dir == NULL)
    return ab_call_usage (call, COUNT_USAGE);
  const gchar *db, *table = call_table (call, &db);
  if (table == NULL)
    return FALSE;
  g_autoptr (AbTable) t
      = ab_table_new ((const gchar *const[]){ "#", "start", "direction", "count", NULL });
  gint64 total = 0;
  gboolean both = g_ascii_strcasecmp (dir, "BOTH") == 0;
  if (!count_direction (call, db, table, start, both ? "OUT" : dir, t, &total))
    return FALSE;
  if (both && !count_direction (call, db, table, start, "IN", t, &total))
    return FALSE;
  g_autofree gchar *grouped = ab_format_grouped (total);
  ab_call_print (call, "The count of %s edges found", grouped);
  ab_call_table (call, t);
  return TRUE;
}

/* One mutation item: {type, edge:{version, source, target, properties}},
 * or {type, vertex:{version, id, properties}} when target is NULL (source
 * is then the id). */
static JsonNode *
mutation_body (const gchar *type, gint64 version, const gchar *source, const gchar *target,
               JsonNode *properties)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "mutations");
  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, type);
  json_builder_set_member_name (b, target != NULL ? "edge" : "vertex");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, version);
  json_builder_set_member_name (b, target != NULL ? "source" : "id");
  json_builder_add_string_value (b, source);
  if (target != NULL)
    {
      json_builder_set_member_name (b, "target");
      json_builder_add_string_value (b, target);
    }
  json_builder_set_member_name (b, "properties");
  json_builder_add_value (b, properties);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* Sums result counts: non-ERROR into *done, ERROR into *failed. */
static void
sum_results (const AbResponse *r, gint64 *done, gint64 *failed)
{
  JsonNode *results = ab_response_member (r, "results");
  JsonArray *a
      = results != NULL && JSON_NODE_HOLDS_ARRAY (results) ? json_node_get_array (results) : NULL;
  for (guint i = 0; a != NULL && i < json_array_get_length (a); i++)
    {
      JsonNode *n = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      JsonObject *o = json_node_get_object (n);
      gint64 c = json_object_get_int_member_with_default (o, "count", 0);
      const gchar *status = json_object_get_string_member_with_default (o, "status", "");
      if (g_str_equal (status, "ERROR"))
        *failed += c;
      else
        *done += c;
    }
}

gboolean
ab_cmd_mutate (AbCall *call)
{
  const gchar *type = ab_call_opt (call, "type"), *source = ab_call_opt (call, "source");
  const gchar *target = ab_call_opt (call, "target"), *version = ab_call_opt (call, "version");
  const gchar *props = ab_call_opt (call, "properties"), *id = ab_call_opt (call, "id");
  gint64 v = 0;
  gboolean vertex = id != NULL && source == NULL && target == NULL;
  if (vertex)
    source = id;
  if (type == NULL || source == NULL || (target == NULL && !vertex) || (id != NULL && !vertex)
      || version == NULL || props == NULL
      || !g_ascii_string_to_signed (version, 10, G_MININT64, G_MAXINT64, &v, NULL))
    return ab_call_usage (call, MUTATE_USAGE);
  g_autoptr (GError) error = NULL;
  JsonNode *pn = json_from_string (props, &error);
  if (pn == NULL || !JSON_NODE_HOLDS_OBJECT (pn))
    {
      g_clear_pointer (&pn, json_node_unref);
      return ab_call_fail (call, "Error parsing properties: %s",
                           error != NULL ? error->message : "not a JSON object");
    }
  const gchar *db, *table = call_table (call, &db);
  if (table == NULL)
    return (json_node_unref (pn), FALSE);
  g_autoptr (JsonNode) body = mutation_body (type, v, source, target, pn);
  g_autofree gchar *path = table_path (db, table, vertex ? "vertices" : "edges");
  const gchar *what = vertex ? "vertices" : "edges";
  AbResponse r;
  gboolean ok = ab_client_call (call->console->client, "POST", path, body, &r);
  if (!ok)
    ab_call_fail_resp (call, &r, "Failed to mutate %s", what);
  else
    {
      gint64 done = 0, failed = 0;
      sum_results (&r, &done, &failed);
      ab_call_print (call,
                     "%s is done (updated: %" G_GINT64_FORMAT ", failed: %" G_GINT64_FORMAT ")",
                     type, done, failed);
      if (failed > 0)
        ok = ab_call_fail (call, "Failed to mutate %s: %" G_GINT64_FORMAT " ended in ERROR", what,
                           failed);
    }
  ab_response_clear (&r);
  return ok;
}
