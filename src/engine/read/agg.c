/* Group reads (docs/data-model.md §7.6 `agg`): ranges over the group fields as a
 * window of the DESC-qualified group row, its live cells in qualifier order
 * (expired TTL cells skipped), and `__count__` from the Count row. */
#include <string.h>
#include "engine/read/read.h"
#include "engine/plan/plan.h"
#include "codec/bytes.h"
#include "codec/record.h"

#define AGG_DEFAULT_LIMIT 1000

void
ab_agg_result_free (AbAggResult *r)
{
  if (r == NULL)
    return;
  ab_value_clear (&r->start);
  g_strfreev (r->fields);
  if (r->keys != NULL)
    g_array_unref (r->keys);
  if (r->values != NULL)
    g_array_unref (r->values);
  g_free (r);
}

static AbAggResult *
result_new (guint n_fields)
{
  AbAggResult *r = g_new0 (AbAggResult, 1);
  r->n_fields = n_fields;
  r->fields = g_new0 (gchar *, n_fields + 1);
  r->keys = g_array_new (FALSE, TRUE, sizeof (AbValue));
  g_array_set_clear_func (r->keys, (GDestroyNotify) ab_value_clear);
  r->values = g_array_new (FALSE, TRUE, sizeof (gint64));
  return r;
}

static gboolean
group_field_type (gconstpointer data, const gchar *field, AbType *out)
{
  const AbTableDesc *t = ((gconstpointer *) data)[0];
  const AbGroup *g = ((gconstpointer *) data)[1];
  gint i = ab_group_field_named (g, field);
  if (i >= 0)
    *out = ab_group_field_type (t->schema, &g->fields[i]);
  return i >= 0;
}

/* Ranges may call a bucketed field by its bucket's name (upstream's `day`):
 * from here on each names the field itself. A bound of a bucketed field
 * relative to now (`now`, `now-365d`) becomes the text of its bucket. */
static void
canonical_fields (const AbGroup *g, GPtrArray *ranges, gint64 now)
{
  for (guint i = 0; i < ranges->len; i++)
    {
      AbPredicate *p = ranges->pdata[i];
      gint at = ab_group_field_named (g, p->field);
      if (at >= 0 && !g_str_equal (p->field, g->fields[at].name))
        {
          g_free (p->field);
          p->field = g_strdup (g->fields[at].name);
        }
      const AbBucket *b = at >= 0 ? g->fields[at].bucket : NULL;
      for (guint v = 0; b != NULL && v < p->values->len; v++)
        {
          AbValue *value = &g_array_index (p->values, AbValue, v);
          gint64 offset;
          gchar *text
              = value->kind == AB_VALUE_STRING && ab_topk_now_offset (value->u.s.data, &offset)
                    ? ab_bucket_format_ms (b, now + offset)
                    : NULL;
          if (text != NULL)
            ab_value_take_string (value, AB_VALUE_STRING, text, strlen (text));
        }
    }
}

/* Range fields: a prefix of the group's fields, eq on all but the last. */
static gboolean
check_ranges (const AbGroup *g, GPtrArray *ranges, GError **error)
{
  for (guint i = 0; i < ranges->len; i++)
    {
      const AbPredicate *p = ranges->pdata[i];
      guint pos = 0;
      while (pos < g->n_fields && !g_str_equal (g->fields[pos].name, p->field))
        pos++;
      if (pos >= ranges->len)
        return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                               "valid `ranges` for group `%s` cover a prefix of its fields in "
                               "order; `%s` is out of place",
                               g->name, p->field);
      if (pos + 1 < ranges->len && p->op != AB_PRED_EQ)
        return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                               "`%s` of group `%s` needs eq: only the last range field may be "
                               "a range",
                               p->field, g->name);
    }
  return TRUE;
}

/* What a stored key of the row is: a cell (its qualifier decodes to exactly
 * the group's fields), a TTL sibling (the same plus the mark), or neither. */
typedef enum { ROW_OTHER, ROW_CELL, ROW_SIBLING } RowKind;

static RowKind
classify (const guint8 *k, gsize len, gsize row_len, guint n_fields)
{
  gsize pos = row_len;
  for (guint i = 0; i < n_fields; i++)
    if (!ab_codec_skip (k, len, &pos, NULL))
      return ROW_OTHER;
  if (pos == len)
    return ROW_CELL;
  return pos + 1 == len && k[pos] == AB_WIDE_MARK ? ROW_SIBLING : ROW_OTHER;
}

typedef struct {
  AbEngine *engine;
  const AbGroup *group;
  gsize row_len;
  gint64 now;
  GArray *out;  /* AbKv: live cells */
  AbKv pending; /* TTL: a cell waiting for its sibling */
} CellReader;

/* A cell worth returning: an 8-byte count or sum other than zero (a cell
 * whose contributions cancelled out stays stored at 0). */
static gboolean
nonzero (GBytes *value)
{
  return g_bytes_get_size (value) == 8 && ab_codec_get_be64 (g_bytes_get_data (value, NULL)) != 0;
}

static void
take_row (CellReader *cr, AbKv *kv)
{
  gsize len;
  const guint8 *k = g_bytes_get_data (kv->key, &len);
  RowKind kind = classify (k, len, cr->row_len, cr->group->n_fields);
  if (cr->group->ttl <= 0)
    {
      if (kind == ROW_CELL && nonzero (kv->value))
        {
          AbKv copy = { g_bytes_ref (kv->key), g_bytes_ref (kv->value) };
          g_array_append_val (cr->out, copy);
        }
      return;
    }
  if (kind == ROW_CELL)
    {
      ab_kv_clear (&cr->pending); /* a cell without sibling counts as expired */
      cr->pending = (AbKv){ g_bytes_ref (kv->key), g_bytes_ref (kv->value) };
    }
  else if (kind == ROW_SIBLING && cr->pending.key != NULL
           && g_bytes_get_size (cr->pending.key) + 1 == len
           && memcmp (g_bytes_get_data (cr->pending.key, NULL), k, len - 1) == 0)
    {
      if (ab_engine_ttl_live (kv->value, cr->now) && nonzero (cr->pending.value))
        g_array_append_val (cr->out, cr->pending);
      else
        ab_kv_clear (&cr->pending);
      memset (&cr->pending, 0, sizeof cr->pending);
    }
}

/* Live cells of [start, stop) until `want` are found or the window ends. */
static gboolean
read_cells (CellReader *cr, GByteArray *start, const GByteArray *stop, guint want, GError **error)
{
  gboolean inclusive = TRUE;
  while (cr->out->len < want)
    {
      guint need = want - cr->out->len;
      guint page = cr->group->ttl > 0 ? 2 * need + 1 : need;
      AbScanRange range = { .start = start->data,
                            .start_len = start->len,
                            .start_inclusive = inclusive,
                            .stop = stop != NULL ? stop->data : NULL,
                            .stop_len = stop != NULL ? stop->len : 0,
                            .limit = page };
      g_autoptr (GArray) rows = ab_kv_array_new ();
      GError *local = NULL;
      if (!ab_store_scan (cr->engine->store, &range, rows, &local))
        return ab_engine_propagate (error, local), FALSE;
      for (guint i = 0; i < rows->len; i++)
        take_row (cr, &g_array_index (rows, AbKv, i));
      if (rows->len < page)
        break;
      gsize len;
      const guint8 *last = g_bytes_get_data (g_array_index (rows, AbKv, rows->len - 1).key, &len);
      g_byte_array_set_size (start, 0);
      g_byte_array_append (start, last, len);
      inclusive = FALSE;
    }
  ab_kv_clear (&cr->pending);
  return TRUE;
}

static gboolean
decode_cells (const AbGroup *g, gsize row_len, GArray *cells, guint limit, AbAggResult *r,
              GError **error)
{
  r->has_next = cells->len > limit;
  for (guint c = 0; c < MIN (cells->len, limit); c++)
    {
      AbKv *kv = &g_array_index (cells, AbKv, c);
      gsize len, pos = row_len;
      const guint8 *k = g_bytes_get_data (kv->key, &len);
      for (guint i = 0; i < g->n_fields; i++)
        {
          AbValue v = AB_VALUE_INIT;
          GError *local = NULL;
          if (!ab_codec_get_value (k, len, &pos, &v, NULL, &local))
            return ab_engine_propagate (error, local), FALSE;
          g_array_append_val (r->keys, v);
        }
      gint64 value = ab_codec_get_be64 (g_bytes_get_data (kv->value, NULL));
      g_array_append_val (r->values, value);
    }
  return TRUE;
}

/* `__count__`: the Count row as one cell without a key. */
static AbAggResult *
agg_count (AbEngine *engine, const gchar *db, const gchar *table, const AbAggParams *p,
           GError **error)
{
  if (p->ranges != NULL && p->ranges[0] != '\0')
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "`ranges` is not supported for group %s (it has no fields)",
                           AB_GROUP_COUNT_NAME),
           NULL;
  g_autoptr (AbAggResult) r = result_new (0);
  gint64 n;
  if (!ab_engine_count (engine, db, table, p->start, p->direction, &r->start, &n, error))
    return NULL;
  g_array_append_val (r->values, n);
  return g_steal_pointer (&r);
}

static const AbGroup *
find_group (const AbTableDesc *t, const AbAggParams *p, GError **error)
{
  const AbGroup *g = p->group != NULL ? ab_schema_group (t->schema, p->group) : NULL;
  if (g == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "group `%s` is not found in label `%s.%s`.",
                           p->group != NULL ? p->group : "", t->database, t->table),
           NULL;
  gboolean out = p->direction == AB_QDIR_OUT;
  if ((g->direction == AB_DIRTYPE_OUT && !out) || (g->direction == AB_DIRTYPE_IN && out))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "group `%s` is kept for direction %s only", g->name,
                           ab_dirtype_name (g->direction)),
           NULL;
  return g;
}

static gboolean
run_agg (AbEngine *engine, const AbTableDesc *t, const AbGroup *g, const AbAggParams *p,
         GPtrArray *ranges, AbAggResult *r, GError **error)
{
  GError *local = NULL;
  g_autoptr (GByteArray) row
      = ab_engine_group_row (t, g, &r->start, (AbDirection) p->direction, &local);
  if (row == NULL)
    return ab_engine_propagate (error, local), FALSE;
  AbIndexField *fields = g_new0 (AbIndexField, MAX (g->n_fields, 1));
  for (guint i = 0; i < g->n_fields; i++)
    fields[i] = (AbIndexField){ g->fields[i].name, AB_ORDER_DESC };
  g_autoptr (GByteArray) start = g_byte_array_new ();
  g_byte_array_append (start, row->data, row->len);
  g_autoptr (GByteArray) stop = NULL;
  gboolean ok = ab_engine_range_keys (fields, g->n_fields, ranges, row, start, &stop, error);
  g_free (fields);
  if (!ok)
    return FALSE;
  if (stop == NULL)
    stop = ab_codec_prefix_upper_bound (row->data, row->len);
  guint limit = p->limit < 0 ? AGG_DEFAULT_LIMIT : (guint) p->limit;
  g_autoptr (GArray) cells = ab_kv_array_new ();
  CellReader cr = { .engine = engine,
                    .group = g,
                    .row_len = row->len,
                    .now = ab_engine_now_ms (engine),
                    .out = cells };
  return read_cells (&cr, start, stop, limit + 1, error)
         && decode_cells (g, row->len, cells, limit, r, error);
}

AbAggResult *
ab_engine_agg (AbEngine *engine, const gchar *db, const gchar *table, const AbAggParams *p,
               GError **error)
{
  if (p->limit == 0 || (p->limit > 0 && (guint) p->limit > engine->cfg.max_scan_limit))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "limit must be between 1 and %u",
                           engine->cfg.max_scan_limit),
           NULL;
  if (g_strcmp0 (p->group, AB_GROUP_COUNT_NAME) == 0)
    return agg_count (engine, db, table, p, error);
  g_autoptr (AbTableDesc) t = ab_engine_resolve (engine, db, table, NULL, error);
  if (t == NULL)
    return NULL;
  const AbGroup *g = find_group (t, p, error);
  if (g == NULL)
    return NULL;
  if (p->require_ranges && g->n_fields > 0 && (p->ranges == NULL || p->ranges[0] == '\0'))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "`ranges` is required for group `%s`.", g->name),
           NULL;
  g_autoptr (AbAggResult) r = result_new (g->n_fields);
  for (guint i = 0; i < g->n_fields; i++)
    r->fields[i] = g_strdup (g->fields[i].name);
  if (!ab_query_cast_start (t, p->start, p->direction, &r->start, error))
    return NULL;
  gconstpointer typing[2] = { t, g };
  g_autoptr (GPtrArray) ranges
      = ab_predicates_parse_typed (p->ranges, FALSE, "ranges", group_field_type, typing, error);
  if (ranges != NULL)
    canonical_fields (g, ranges, ab_engine_now_ms (engine));
  if (ranges == NULL || !check_ranges (g, ranges, error)
      || !run_agg (engine, t, g, p, ranges, r, error))
    return NULL;
  return g_steal_pointer (&r);
}
