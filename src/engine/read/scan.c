/* Index scans (docs/data-model.md §7.4): ranges to start/stop keys on ASC and DESC
 * fields, offset tokens, limit+1 fetch for hasNext, decoding of Index rows
 * into edges (flipped back for direction IN), filters and `total`. */
#include <string.h>
#include "engine/read/read.h"
#include "codec/bytes.h"
#include "codec/record.h"

typedef struct {
  const AbValue *value;
  gboolean inclusive;
} Bound;

/* Per index field, the start and stop items of its predicate (§7.4 table). */
static void
bounds_of (const AbPredicate *p, AbOrder order, Bound *start, Bound *stop)
{
  const AbValue *v = &g_array_index (p->values, AbValue, 0);
  const AbValue *w = p->values->len > 1 ? &g_array_index (p->values, AbValue, 1) : NULL;
  gboolean asc = order == AB_ORDER_ASC;
  *start = (Bound){ NULL, FALSE };
  *stop = (Bound){ NULL, FALSE };
  switch (p->op)
    {
      case AB_PRED_EQ:
        *start = (Bound){ v, TRUE };
        *stop = (Bound){ v, TRUE };
        break;
      case AB_PRED_GT: *(asc ? start : stop) = (Bound){ v, FALSE }; break;
      case AB_PRED_GTE: *(asc ? start : stop) = (Bound){ v, TRUE }; break;
      case AB_PRED_LT: *(asc ? stop : start) = (Bound){ v, FALSE }; break;
      case AB_PRED_LTE: *(asc ? stop : start) = (Bound){ v, TRUE }; break;
      case AB_PRED_BT:
        *start = (Bound){ asc ? v : w, TRUE };
        *stop = (Bound){ asc ? w : v, TRUE };
        break;
      case AB_PRED_IN: break;
    }
}

static const AbPredicate *
pred_for (GPtrArray *ranges, const gchar *field)
{
  for (guint i = 0; i < ranges->len; i++)
    if (g_str_equal (((AbPredicate *) ranges->pdata[i])->field, field))
      return ranges->pdata[i];
  return NULL;
}

/* Range fields must be a prefix of the index fields. */
static gboolean
check_prefix (const AbTableDesc *t, const AbIndex *idx, GPtrArray *ranges, GError **error)
{
  guint k = 0;
  while (k < idx->n_fields && pred_for (ranges, idx->fields[k].field) != NULL)
    k++;
  if (k == ranges->len)
    return TRUE;
  GString *order = g_string_new (NULL);
  for (guint i = 0; i < idx->n_fields; i++)
    g_string_append_printf (order, "%s%s", i ? ", " : "", idx->fields[i].field);
  ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                  "valid `ranges` order for the index `%s` of %s.%s is a prefix of [%s]", idx->name,
                  t->database, t->table, order->str);
  g_string_free (order, TRUE);
  return FALSE;
}

gboolean
ab_engine_range_keys (const AbIndexField *fields, guint n_fields, GPtrArray *ranges,
                      const GByteArray *prefix, GByteArray *start, GByteArray **stop,
                      GError **error)
{
  GByteArray *stop_key = NULL;
  gboolean last_inclusive = FALSE;
  for (guint i = 0; i < n_fields; i++)
    {
      const AbPredicate *p = pred_for (ranges, fields[i].field);
      if (p == NULL)
        break;
      Bound b_start, b_stop;
      bounds_of (p, fields[i].order, &b_start, &b_stop);
      if (b_start.value != NULL)
        {
          if (!ab_codec_put_value (start, b_start.value, fields[i].order, error))
            return FALSE;
          if (!b_start.inclusive)
            ab_codec_plus_one (start);
        }
      if (b_stop.value != NULL)
        {
          if (stop_key == NULL)
            {
              stop_key = g_byte_array_new ();
              g_byte_array_append (stop_key, prefix->data, prefix->len);
            }
          if (!ab_codec_put_value (stop_key, b_stop.value, fields[i].order, error))
            return g_byte_array_unref (stop_key), FALSE;
          last_inclusive = b_stop.inclusive;
        }
    }
  if (stop_key != NULL && last_inclusive)
    ab_codec_plus_one (stop_key);
  *stop = stop_key;
  return TRUE;
}

typedef struct {
  AbEngine *engine;
  const AbTableDesc *t;
  const AbIndex *idx;
  AbQueryDirection dir;
  AbValue start;
  gint limit;
  GPtrArray *ranges;
  GPtrArray *filters;
  gboolean total;
  gboolean edge_offsets;
  gboolean borrow_strings;
} ScanPlan;

static gboolean
parse_features (const gchar *features, gboolean *total, GError **error)
{
  *total = FALSE;
  if (features == NULL)
    return TRUE;
  g_auto (GStrv) items = g_strsplit (features, ",", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      g_strstrip (items[i]);
      if (items[i][0] == '\0')
        continue;
      if (g_ascii_strcasecmp (items[i], "total") != 0)
        return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                               "unknown feature '%s' (supported: total)", items[i]);
      *total = TRUE;
    }
  return TRUE;
}

static gboolean
plan_scan (AbEngine *engine, const AbTableDesc *t, const AbScanParams *p, ScanPlan *sp,
           GError **error)
{
  sp->engine = engine;
  sp->t = t;
  sp->dir = p->direction;
  sp->idx = p->index != NULL ? ab_schema_index (t->schema, p->index) : NULL;
  if (sp->idx == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "index `%s` is not found in label `%s.%s`.",
                           p->index != NULL ? p->index : "", t->database, t->table);
  sp->limit = p->limit < 0 ? 25 : p->limit;
  sp->edge_offsets = p->edge_offsets;
  sp->borrow_strings = p->borrow_strings;
  if (sp->limit < 1 || (guint) sp->limit > engine->cfg.max_scan_limit)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "limit must be between 1 and %u",
                           engine->cfg.max_scan_limit);
  if (!parse_features (p->features, &sp->total, error))
    return FALSE;
  if (p->start_value != NULL
          ? !ab_query_cast_start_value (t, p->start_value, p->direction, &sp->start, error)
          : !ab_query_cast_start (t, p->start, p->direction, &sp->start, error))
    return FALSE;
  sp->ranges
      = p->range_specs != NULL
            ? ab_predicates_from_specs (t, p->range_specs, p->n_range_specs, FALSE, "ranges", error)
            : ab_predicates_parse (t, p->ranges, FALSE, "ranges", error);
  if (sp->ranges == NULL || !check_prefix (t, sp->idx, sp->ranges, error))
    return FALSE;
  sp->filters = p->filter_specs != NULL
                    ? ab_predicates_from_specs (t, p->filter_specs, p->n_filter_specs, TRUE,
                                                "filters", error)
                    : ab_predicates_parse (t, p->filters, TRUE, "filters", error);
  if (sp->filters == NULL)
    return FALSE;
  if (sp->total && (sp->ranges->len > 0 || sp->filters->len > 0))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "features=total cannot be combined with ranges or filters");
  if (sp->total && t->schema->kind == AB_TABLE_IMMUTABLE_EDGE)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "features=total is not supported on immutable tables");
  return TRUE;
}

static void
scan_plan_clear (ScanPlan *sp)
{
  ab_value_clear (&sp->start);
  if (sp->ranges != NULL)
    g_ptr_array_unref (sp->ranges);
  if (sp->filters != NULL)
    g_ptr_array_unref (sp->filters);
}

/* A property cell into the edge, uncopied. */
static void
prop_to_edge (guint pos, const AbField *field, AbCodedProp *cp, gpointer edge)
{
  (void) pos;
  ab_edge_out_take (edge, field, &cp->value);
}

AbEdgeOut *
ab_engine_edge_from_index (const AbTableDesc *t, AbQueryDirection dir, const AbValue *start,
                           guint n_fields, gsize plen, const guint8 *k, gsize klen, const guint8 *v,
                           gsize vlen, GStringChunk *strings, GError **error)
{
  gsize pos = plen;
  for (guint i = 0; i < n_fields; i++)
    if (!ab_codec_skip (k, klen, &pos, error))
      return NULL;
  AbValue dtarget = AB_VALUE_INIT;
  if (!ab_codec_get_value_in (k, klen, &pos, &dtarget, NULL, strings, error))
    return NULL;
  AbEdgeOut *e = ab_edge_out_new ();
  AbSchemaCells cells = { t->schema, prop_to_edge, e };
  if (!ab_codec_decode_index_stream_in (v, vlen, &e->version, ab_schema_cells_sink, &cells, strings,
                                        error))
    {
      ab_value_clear (&dtarget);
      ab_edge_out_free (e);
      return NULL;
    }
  /* the decoded target moves into the edge, uncopied */
  gboolean flip = dir == AB_QDIR_IN && t->schema->kind != AB_TABLE_MULTI_EDGE;
  AbValue *from = flip ? &e->target : &e->source;
  if (strings != NULL && start->borrowed)
    *from = *start; /* its string already in strings (run_scan) */
  else
    ab_value_copy (from, start);
  *(flip ? &e->source : &e->target) = dtarget;
  return e;
}

AbEdgeOut *
ab_engine_edge_from_row (const AbTableDesc *t, AbQueryDirection dir, const AbValue *start,
                         guint n_fields, gsize plen, const AbKv *kv, GError **error)
{
  gsize klen, vlen;
  const guint8 *k = g_bytes_get_data (kv->key, &klen);
  const guint8 *v = g_bytes_get_data (kv->value, &vlen);
  return ab_engine_edge_from_index (t, dir, start, n_fields, plen, k, klen, v, vlen, NULL, error);
}

/* An offset this server produced is the key suffix of an index row or cache
 * cell: exactly the n_fields encoded values and the encoded target. */
GBytes *
ab_engine_offset_suffix (const gchar *offset, guint n_fields, const gchar *name, GError **error)
{
  GError *local = NULL;
  g_autoptr (GBytes) suffix = ab_codec_offset_decode (offset, &local);
  if (suffix == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "invalid offset: %s",
                           local->message),
           g_clear_error (&local), NULL;
  gsize len, pos = 0;
  const guint8 *s = g_bytes_get_data (suffix, &len);
  for (guint i = 0; i <= n_fields && pos <= len; i++)
    if (!ab_codec_skip (s, len, &pos, NULL))
      pos = len + 1;
  if (pos != len)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "invalid offset: not a position in `%s` (pass the `offset` of the "
                           "previous page unchanged)",
                           name),
           NULL;
  return g_steal_pointer (&suffix);
}

/* The key window of a scan: from start (exclusive) to stop (exclusive). */
typedef struct {
  GByteArray *start, *stop;
  gsize plen; /* the index prefix's length */
} ScanWindow;

static void
window_clear (ScanWindow *w)
{
  g_clear_pointer (&w->start, g_byte_array_unref);
  g_clear_pointer (&w->stop, g_byte_array_unref);
}

static gboolean
window_of (const ScanPlan *sp, const gchar *offset, ScanWindow *w, GError **error)
{
  GError *local = NULL;
  g_autoptr (GByteArray) prefix = ab_codec_index_prefix (&sp->start, (AbDirection) sp->dir,
                                                         sp->t->code, sp->idx->code, &local);
  if (prefix == NULL)
    return ab_engine_propagate (error, local), FALSE;
  w->plen = prefix->len;
  w->start = g_byte_array_sized_new (prefix->len + 32);
  g_byte_array_append (w->start, prefix->data, prefix->len);
  if (!ab_engine_range_keys (sp->idx->fields, sp->idx->n_fields, sp->ranges, prefix, w->start,
                             &w->stop, error))
    return FALSE;
  if (w->stop == NULL)
    w->stop = ab_codec_prefix_upper_bound (prefix->data, prefix->len);
  if (offset != NULL)
    {
      g_autoptr (GBytes) suffix
          = ab_engine_offset_suffix (offset, sp->idx->n_fields, sp->idx->name, error);
      if (suffix == NULL)
        return FALSE;
      g_byte_array_set_size (w->start, prefix->len);
      gsize slen;
      const guint8 *s = g_bytes_get_data (suffix, &slen);
      g_byte_array_append (w->start, s, slen);
    }
  return TRUE;
}

static AbScanRange
window_range (const ScanWindow *w, guint fetch)
{
  return (AbScanRange){ .start = w->start->data,
                        .start_len = w->start->len,
                        .start_inclusive = FALSE,
                        .stop = w->stop != NULL ? w->stop->data : NULL,
                        .stop_len = w->stop != NULL ? w->stop->len : 0,
                        .stop_inclusive = FALSE,
                        .limit = fetch };
}

/* One page's rows as they stream out of the store: up to limit edges
 * decoded in place, the row after them only telling that there is more. */
typedef struct {
  const AbPageRead *pr;
  AbEdgeFrame *frame;
  gchar *last_offset; /* of the limit-th row: the page's offset if more follow */
  GError *error;
} PageSink;

static gboolean
page_row (const guint8 *k, gsize klen, const guint8 *v, gsize vlen, gpointer data)
{
  PageSink *ps = data;
  const AbPageRead *pr = ps->pr;
  if (ps->frame->edges->len == pr->limit)
    {
      ps->frame->has_next = TRUE;
      return FALSE;
    }
  AbEdgeOut *e = pr->to_edge (k, klen, v, vlen, pr->user, &ps->error);
  if (e == NULL)
    return FALSE;
  if (pr->edge_offsets)
    e->offset = ab_codec_offset_encode (k + pr->plen, klen - pr->plen);
  g_ptr_array_add (ps->frame->edges, e);
  if (ps->frame->edges->len == pr->limit)
    ps->last_offset = ab_codec_offset_encode (k + pr->plen, klen - pr->plen);
  return TRUE;
}

gboolean
ab_engine_read_page (AbStore *store, const AbScanRange *window, const AbPageRead *pr,
                     AbEdgeFrame *frame, GError **error)
{
  AbScanRange range = *window;
  range.limit = pr->limit + 1;
  PageSink ps = { pr, frame, NULL, NULL };
  GError *local = NULL;
  gboolean ok = ab_store_scan_with (store, &range, page_row, &ps, &local);
  if (!ok)
    ab_engine_propagate (error, local);
  else if (ps.error != NULL)
    g_propagate_error (error, g_steal_pointer (&ps.error));
  else if (frame->has_next)
    frame->offset = g_steal_pointer (&ps.last_offset);
  ok = ok && ps.error == NULL;
  g_free (ps.last_offset);
  g_clear_error (&ps.error);
  return ok;
}

typedef struct {
  const ScanPlan *sp;
  const AbValue *start; /* sp->start, or its copy in strings */
  gsize plen;
  GStringChunk *strings; /* the frame's, or NULL */
} IndexRows;

static AbEdgeOut *
index_row_edge (const guint8 *k, gsize klen, const guint8 *v, gsize vlen, gpointer data,
                GError **error)
{
  const IndexRows *ir = data;
  const ScanPlan *sp = ir->sp;
  GError *local = NULL;
  AbEdgeOut *e = ab_engine_edge_from_index (sp->t, sp->dir, ir->start, sp->idx->n_fields, ir->plen,
                                            k, klen, v, vlen, ir->strings, &local);
  if (e == NULL)
    {
      ab_engine_fail (error, AB_ENGINE_ERROR_INTERNAL, "corrupt index row: %s", local->message);
      g_clear_error (&local);
    }
  return e;
}

static gboolean
run_scan (const ScanPlan *sp, const gchar *offset, AbEdgeFrame *frame, GError **error)
{
  ScanWindow w = { 0 };
  if (!window_of (sp, offset, &w, error))
    return window_clear (&w), FALSE;
  AbScanRange range = window_range (&w, 0);
  IndexRows ir = { sp, &sp->start, w.plen, NULL };
  AbValue start = AB_VALUE_INIT;
  if (sp->borrow_strings)
    {
      ir.strings = frame->strings = g_string_chunk_new (1024);
      if (sp->start.kind == AB_VALUE_STRING || sp->start.kind == AB_VALUE_JSON)
        {
          gchar *s = g_string_chunk_insert_len (frame->strings, sp->start.u.s.data,
                                                (gssize) sp->start.u.s.len);
          ab_value_borrow_string (&start, sp->start.kind, s, sp->start.u.s.len);
          ir.start = &start;
        }
    }
  AbPageRead pr = { (guint) sp->limit, w.plen, sp->edge_offsets, index_row_edge, &ir };
  gboolean ok = ab_engine_read_page (sp->engine->store, &range, &pr, frame, error);
  window_clear (&w);
  return ok;
}

static gboolean
delete_row (const guint8 *k, gsize klen, const guint8 *v, gsize vlen, gpointer batch)
{
  (void) v;
  (void) vlen;
  ab_batch_delete (batch, k, klen);
  return TRUE;
}

/* Scan-delete (docs/data-model.md §10): one page of an immutable table's index. */
gboolean
ab_engine_scan_delete (AbEngine *engine, const gchar *db, const gchar *table, const AbScanParams *p,
                       guint *deleted, GError **error)
{
  g_autoptr (AbTableDesc) t = ab_engine_resolve (engine, db, table, NULL, error);
  if (t == NULL)
    return FALSE;
  if (t->schema->kind != AB_TABLE_IMMUTABLE_EDGE)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "scan-delete is only supported on immutable tables; %s.%s is not one",
                           db, table);
  if (p->limit < 0)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "limit is required for scan-delete");
  ScanPlan sp = { 0 };
  ScanWindow w = { 0 };
  g_autoptr (AbBatch) batch = ab_batch_new ();
  GError *local = NULL;
  gboolean ok = plan_scan (engine, t, p, &sp, error) && window_of (&sp, NULL, &w, error);
  if (ok)
    {
      AbScanRange range = window_range (&w, (guint) sp.limit);
      ok = ab_store_scan_with (engine->store, &range, delete_row, batch, &local)
           && (ab_batch_len (batch) == 0 || ab_store_batch (engine->store, batch, &local));
      if (!ok)
        ab_engine_propagate (error, local);
    }
  window_clear (&w);
  scan_plan_clear (&sp);
  if (ok)
    *deleted = ab_batch_len (batch);
  return ok;
}

AbEdgeFrame *
ab_engine_scan (AbEngine *engine, const gchar *db, const gchar *table, const AbScanParams *p,
                GError **error)
{
  g_autoptr (AbTableDesc) t = ab_engine_resolve (engine, db, table, NULL, error);
  if (t == NULL)
    return NULL;
  ScanPlan sp = { 0 };
  /* room for a page (the default 25; large limits grow as they fill) */
  g_autoptr (AbEdgeFrame) frame
      = ab_edge_frame_sized_new (p->limit < 0 ? 25 : (guint) MIN (p->limit, 256));
  gboolean ok = plan_scan (engine, t, p, &sp, error) && run_scan (&sp, p->offset, frame, error);
  if (ok)
    ab_edge_frame_filter (frame, sp.filters);
  if (ok && sp.total)
    ok = ab_engine_count_value (engine, db, table, &sp.start, p->direction, &frame->total, error);
  scan_plan_clear (&sp);
  return ok ? g_steal_pointer (&frame) : NULL;
}
