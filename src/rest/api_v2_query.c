/* GET /graph/v2/service/{s}/label/{l}/edge (docs/rest-api.md §2): upstream's
 * v2 label edge read, run as one query-document item (SELF, GET, COUNT, SCAN)
 * and answered as upstream's DataFrame, JSON or jsoncompact. */
#include "rest/api-private.h"

#define ENGINE(ud) ((AbEngine *) (ud))

/* upstream's StatKey */
static const gchar *const STAT_KEYS[] = { "WITH_ALL", "SRC_DEGREE",   "TGT_DEGREE",       "EDGE_ID",
                                          "OFFSET",   "IGNORE_PHASE", "INVALIDATE_CACHE", NULL };

/* The request, as upstream's ScanFilter. */
typedef struct {
  const gchar *db, *table;
  gboolean self;     /* `self` given: the starts are self edges */
  GPtrArray *starts; /* self or src */
  GPtrArray *tgt;    /* empty: none given */
  GPtrArray *select; /* empty: "*" */
  GPtrArray *stats;
  AbQueryDirection dir;
  const gchar *index, *offset, *filter;
  gint64 limit; /* < 0: the default (10) */
} Read;

static void
read_clear (Read *rd)
{
  g_clear_pointer (&rd->starts, g_ptr_array_unref);
  g_clear_pointer (&rd->tgt, g_ptr_array_unref);
  g_clear_pointer (&rd->select, g_ptr_array_unref);
  g_clear_pointer (&rd->stats, g_ptr_array_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Read, read_clear)

static gboolean fail (AbHttpResponse *resp, const gchar *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (AbHttpResponse *resp, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  ab_http_response_error (resp, 400, msg);
  return FALSE;
}

static gboolean
parse_read (const AbHttpRequest *req, Read *rd, AbHttpResponse *resp)
{
  rd->db = ab_http_param (req, "s");
  rd->table = ab_http_param (req, "l");
  rd->self = ab_http_query_get (req, "self") != NULL;
  rd->starts = ab_api_list_param (req, rd->self ? "self" : "src");
  rd->tgt = ab_api_list_param (req, "tgt");
  rd->select = ab_api_list_param (req, "select");
  rd->stats = ab_api_list_param (req, "stats");
  rd->index = ab_http_query_get (req, "index");
  rd->offset = ab_http_query_get (req, "offset");
  rd->filter = ab_http_query_get (req, "filter");
  rd->limit = -1;
  if (rd->starts->len == 0)
    return fail (resp, "src is required");
  const gchar *dir = ab_http_query_get (req, "dir");
  g_autofree gchar *upper = dir != NULL ? g_ascii_strup (dir, -1) : g_strdup ("OUT");
  if (!ab_query_direction_parse (upper, &rd->dir))
    return fail (resp, "Invalid direction '%s': expected OUT or IN.", dir);
  const gchar *limit = ab_http_query_get (req, "limit");
  if (limit != NULL && !g_ascii_string_to_signed (limit, 10, 1, G_MAXINT32, &rd->limit, NULL))
    return fail (resp, "'limit' must be a positive integer; got \"%s\".", limit);
  for (guint i = 0; i < rd->stats->len; i++)
    if (!g_strv_contains (STAT_KEYS, rd->stats->pdata[i]))
      {
        g_autofree gchar *keys = g_strjoinv (", ", (gchar **) STAT_KEYS);
        return fail (resp, "'stats' takes one of %s; got \"%s\".", keys,
                     (const gchar *) rd->stats->pdata[i]);
      }
  return TRUE;
}

static gboolean
has (GPtrArray *list, const gchar *value)
{
  return g_ptr_array_find_with_equal_func (list, value, g_str_equal, NULL);
}

/* Upstream's dispatch: self edges; one src and tgt: a point read; select
 * COUNT(1) alone: counts; else a scan of `index` (no tgt). */
static const gchar *
item_kind (const Read *rd, AbHttpResponse *resp)
{
  if (rd->self)
    return "SELF";
  if (rd->starts->len == 1 && rd->tgt->len > 0)
    return "GET";
  if (rd->tgt->len > 0)
    return fail (resp, "tgt should be null"), NULL;
  if (rd->select->len == 1 && g_str_equal (rd->select->pdata[0], "COUNT(1)"))
    return "COUNT";
  if (rd->index == NULL)
    return fail (resp, "'index' is required to scan (or give tgt, self or select=COUNT(1))."), NULL;
  return "SCAN";
}

static void
add_vertices (JsonBuilder *b, const gchar *member, GPtrArray *values)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "VALUE");
  json_builder_set_member_name (b, "value");
  json_builder_begin_array (b);
  for (guint i = 0; i < values->len; i++)
    json_builder_add_string_value (b, values->pdata[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* The query-document item of a read of rd's table (GET: target given). */
static JsonNode *
item_json (const Read *rd, const gchar *kind, GPtrArray *source, GPtrArray *target,
           AbQueryDirection dir)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  const gchar *const members[][2]
      = { { "type", kind }, { "name", rd->table }, { "database", rd->db }, { "table", rd->table } };
  json_builder_begin_object (b);
  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    {
      json_builder_set_member_name (b, members[i][0]);
      json_builder_add_string_value (b, members[i][1]);
    }
  add_vertices (b, "source", source);
  if (target != NULL)
    add_vertices (b, "target", target);
  gboolean scan = g_str_equal (kind, "SCAN");
  if (scan || g_str_equal (kind, "COUNT"))
    {
      json_builder_set_member_name (b, "direction");
      json_builder_add_string_value (b, dir == AB_QDIR_IN ? "IN" : "OUT");
    }
  if (scan)
    {
      json_builder_set_member_name (b, "index");
      json_builder_add_string_value (b, rd->index);
      if (rd->limit >= 0)
        {
          json_builder_set_member_name (b, "limit");
          json_builder_add_int_value (b, rd->limit);
        }
      if (rd->offset != NULL)
        {
          json_builder_set_member_name (b, "offset");
          json_builder_add_string_value (b, rd->offset);
        }
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static gint
column_of (const AbRows *r, const gchar *name)
{
  for (guint c = 0; c < r->columns->len; c++)
    if (g_str_equal (r->columns->pdata[c], name))
      return (gint) c;
  return -1;
}

/* The columns `select` names, in its order: all for none, "*" or COUNT(1)
 * (a count's frame is answered whole, as upstream); NULL + 400 for a name
 * that is not a column. */
static GArray *
projection (const AbRows *r, GPtrArray *select, AbHttpResponse *resp)
{
  gboolean all = select->len == 0 || has (select, "*") || has (select, "COUNT(1)");
  guint n = all ? r->columns->len : select->len;
  g_autoptr (GArray) cols = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < n; i++)
    {
      gint c = all ? (gint) i : column_of (r, select->pdata[i]);
      if (c < 0)
        {
          g_autoptr (GString) names = g_string_new (NULL);
          for (guint k = 0; k < r->columns->len; k++)
            g_string_append_printf (names, "%s%s", k > 0 ? ", " : "",
                                    (const gchar *) r->columns->pdata[k]);
          return fail (resp, "select: `%s` is not a column (columns: %s).",
                       (const gchar *) select->pdata[i], names->str),
                 NULL;
        }
      gboolean seen = FALSE;
      for (guint k = 0; k < cols->len && !seen; k++)
        seen = g_array_index (cols, guint, k) == (guint) c;
      if (!seen)
        g_array_append_val (cols, c);
    }
  return g_steal_pointer (&cols);
}

/* The COUNT(1) of one start (upstream's SRC_DEGREE and TGT_DEGREE stats). */
static gboolean
degree (AbEngine *engine, const Read *rd, const gchar *start, AbQueryDirection dir, gint64 *out,
        GError **error)
{
  g_autoptr (GPtrArray) one = g_ptr_array_new ();
  g_ptr_array_add (one, (gpointer) start);
  g_autoptr (JsonNode) item = item_json (rd, "COUNT", one, NULL, dir);
  g_autoptr (AbRows) r = ab_engine_query_item (engine, item, NULL, NULL, error);
  if (r == NULL)
    return FALSE;
  gint c = column_of (r, "COUNT(1)");
  *out = r->rows->len == 1 && c >= 0 ? g_array_index ((GArray *) r->rows->pdata[0], AbValue, c).u.i
                                     : 0;
  return TRUE;
}

typedef struct {
  const gchar *name;
  gint64 value;
} Stat;

/* The stats asked that apply: SRC_DEGREE with one start, TGT_DEGREE with
 * one tgt; NULL + error when a count fails. */
static GArray *
stats_of (AbEngine *engine, const Read *rd, GError **error)
{
  static const gchar *const keys[] = { "SRC_DEGREE", "TGT_DEGREE" };
  const gchar *start[] = { rd->starts->len == 1 ? rd->starts->pdata[0] : NULL,
                           rd->tgt->len == 1 ? rd->tgt->pdata[0] : NULL };
  const AbQueryDirection dir[] = { rd->dir, AB_QDIR_IN };
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (Stat));
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      Stat st = { keys[i], 0 };
      if (start[i] == NULL || !has (rd->stats, keys[i]))
        continue;
      if (!degree (engine, rd, start[i], dir[i], &st.value, error))
        return NULL;
      g_array_append_val (out, st);
    }
  return g_steal_pointer (&out);
}

/* Upstream's JsonFormat {data: [{column: value}], rows, stats, offset,
 * hasNext}, or JsonCompactFormat with meta [{name, type}] and data as
 * arrays in column order. */
static GBytes *
frame_json (const AbRows *r, GArray *cols, GArray *types, gboolean compact, GArray *stats)
{
  AbJsonw w;
  ab_jsonw_init (&w, 256 + 64 * (gsize) r->rows->len * cols->len);
  ab_jsonw_begin_object (&w);
  if (compact)
    {
      ab_jsonw_key (&w, "meta");
      ab_jsonw_begin_array (&w);
      for (guint k = 0; k < cols->len; k++)
        {
          guint c = g_array_index (cols, guint, k);
          ab_jsonw_begin_object (&w);
          ab_jsonw_member_string (&w, "name", r->columns->pdata[c]);
          ab_jsonw_member_string (&w, "type", ab_type_v2_name (g_array_index (types, AbType, c)));
          ab_jsonw_end_object (&w);
        }
      ab_jsonw_end_array (&w);
    }
  ab_jsonw_key (&w, "data");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < r->rows->len; i++)
    {
      GArray *row = r->rows->pdata[i];
      if (compact)
        ab_jsonw_begin_array (&w);
      else
        ab_jsonw_begin_object (&w);
      for (guint k = 0; k < cols->len; k++)
        {
          guint c = g_array_index (cols, guint, k);
          if (!compact)
            ab_jsonw_key (&w, r->columns->pdata[c]);
          ab_jsonw_value (&w, &g_array_index (row, AbValue, c));
        }
      if (compact)
        ab_jsonw_end_array (&w);
      else
        ab_jsonw_end_object (&w);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_member_int (&w, "rows", r->rows->len);
  ab_jsonw_key (&w, "stats");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < stats->len; i++)
    {
      const Stat *st = &g_array_index (stats, Stat, i);
      ab_jsonw_begin_object (&w);
      ab_jsonw_member_string (&w, "name", st->name);
      ab_jsonw_member_int (&w, "value", st->value);
      ab_jsonw_end_object (&w);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_member_string (&w, "offset", r->offset);
  ab_jsonw_member_bool (&w, "hasNext", r->has_next);
  ab_jsonw_end_object (&w);
  return ab_jsonw_finish (&w);
}

static void
get_edges (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_auto (Read) rd = { 0 };
  const gchar *kind = parse_read (req, &rd, resp) ? item_kind (&rd, resp) : NULL;
  if (kind == NULL)
    return;
  /* a GET IN reads the edges from the tgt vertices into the one src */
  gboolean in_get = g_str_equal (kind, "GET") && rd.dir == AB_QDIR_IN;
  g_autoptr (JsonNode) item
      = item_json (&rd, kind, in_get ? rd.tgt : rd.starts,
                   g_str_equal (kind, "GET") ? (in_get ? rd.starts : rd.tgt) : NULL, rd.dir);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) types = NULL;
  g_autoptr (AbRows) rows = ab_engine_query_item (
      ENGINE (ud), item, g_str_equal (kind, "SCAN") ? rd.filter : NULL, &types, &error);
  if (rows == NULL)
    return ab_api_error (resp, error);
  g_autoptr (GArray) cols = projection (rows, rd.select, resp);
  if (cols == NULL)
    return;
  g_autoptr (GArray) stats = stats_of (ENGINE (ud), &rd, &error);
  if (stats == NULL)
    return ab_api_error (resp, error);
  gboolean compact = g_strcmp0 (ab_http_query_get (req, "format"), "jsoncompact") == 0;
  ab_http_response_bytes (resp, 200, NULL, frame_json (rows, cols, types, compact, stats));
}

void
ab_api_register_v2_query (AbRouter *r, AbEngine *e)
{
  ab_router_add (r, "GET", "/graph/v2/service/{s}/label/{l}/edge", AB_ROUTE_BLOCKING, get_edges, e);
}
