/* Cache reads (docs/data-model.md §7.6 `seek`): the window of a cache row chosen by
 * ranges, decoded like Index rows, checked against the row's trimming
 * boundary, with the equivalent index as the fallback for a short row. */
#include <string.h>
#include "engine/read/read.h"
#include "engine/plan/plan.h"
#include "codec/bytes.h"

/* Range fields: a prefix of the cache's fields, eq on all but the last. */
static gboolean
check_ranges (const AbCache *c, GPtrArray *ranges, GError **error)
{
  for (guint i = 0; i < ranges->len; i++)
    {
      const AbPredicate *p = ranges->pdata[i];
      guint pos = 0;
      while (pos < c->n_fields && !g_str_equal (c->fields[pos].field, p->field))
        pos++;
      if (pos >= ranges->len)
        return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                               "valid `ranges` for cache `%s` cover a prefix of its fields in "
                               "order; `%s` is out of place",
                               c->name, p->field);
      if (pos + 1 < ranges->len && p->op != AB_PRED_EQ)
        return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                               "`%s` of cache `%s` needs eq: only the trailing predicate may be "
                               "a range",
                               p->field, c->name);
    }
  return TRUE;
}

/* An index with exactly the cache's fields and orders, if the table has one
 * (never for a cache with a `dimension` list: the index holds every edge). */
static const AbIndex *
equivalent_index (const AbTableDesc *t, const AbCache *c)
{
  if (ab_cache_has_dimensions (c))
    return NULL;
  for (guint i = 0; i < t->schema->indexes->len; i++)
    {
      const AbIndex *idx = t->schema->indexes->pdata[i];
      gboolean same = idx->n_fields == c->n_fields;
      for (guint f = 0; same && f < c->n_fields; f++)
        same = g_str_equal (idx->fields[f].field, c->fields[f].field)
               && idx->fields[f].order == c->fields[f].order;
      if (same)
        return idx;
    }
  return NULL;
}

typedef struct {
  GByteArray *row;
  GByteArray *start;
  GByteArray *stop;
  GArray *cells;    /* AbKv, marker excluded */
  GBytes *boundary; /* qualifier below which the row is complete, or NULL */
} Window;

static void
window_clear (Window *w)
{
  g_clear_pointer (&w->row, g_byte_array_unref);
  g_clear_pointer (&w->start, g_byte_array_unref);
  g_clear_pointer (&w->stop, g_byte_array_unref);
  g_clear_pointer (&w->cells, g_array_unref);
  g_clear_pointer (&w->boundary, g_bytes_unref);
}

static gboolean
is_marker (const Window *w, GBytes *key)
{
  gsize len;
  const guint8 *k = g_bytes_get_data (key, &len);
  return len == w->row->len + 1 && k[w->row->len] == AB_WIDE_MARK;
}

/* Reads up to limit + 1 cells of the window and the boundary marker. */
static gboolean
read_window (AbEngine *engine, Window *w, guint limit, gboolean from_row_start, GError **error)
{
  GError *local = NULL;
  AbScanRange range = { .start = w->start->data,
                        .start_len = w->start->len,
                        .stop = w->stop != NULL ? w->stop->data : NULL,
                        .stop_len = w->stop != NULL ? w->stop->len : 0,
                        .limit = limit + 1 + (from_row_start ? 1 : 0) };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  if (!ab_store_scan (engine->store, &range, rows, &local))
    return ab_engine_propagate (error, local), FALSE;
  w->cells = ab_kv_array_new ();
  for (guint i = 0; i < rows->len; i++)
    {
      AbKv *kv = &g_array_index (rows, AbKv, i);
      if (is_marker (w, kv->key))
        w->boundary = g_bytes_ref (kv->value);
      else if (w->cells->len <= limit)
        {
          AbKv copy = { g_bytes_ref (kv->key), g_bytes_ref (kv->value) };
          g_array_append_val (w->cells, copy);
        }
    }
  if (from_row_start)
    return TRUE;
  g_autoptr (GByteArray) mark = g_byte_array_new ();
  g_byte_array_append (mark, w->row->data, w->row->len);
  guint8 zero = AB_WIDE_MARK;
  g_byte_array_append (mark, &zero, 1);
  if (!ab_store_get (engine->store, mark->data, mark->len, &w->boundary, &local))
    return ab_engine_propagate (error, local), FALSE;
  return TRUE;
}

/* Exact unless trimming removed cells the window would show: the row is
 * complete below its boundary B, so the answer is exact when its last
 * cell (or, when short, the window's end) lies below B. */
static gboolean
window_exact (const Window *w, guint limit)
{
  if (w->boundary == NULL)
    return TRUE;
  gsize blen;
  const guint8 *b = g_bytes_get_data (w->boundary, &blen);
  g_autoptr (GByteArray) bkey = g_byte_array_new ();
  g_byte_array_append (bkey, w->row->data, w->row->len);
  g_byte_array_append (bkey, b, blen);
  if (w->cells->len >= limit)
    {
      gsize klen;
      const guint8 *k = g_bytes_get_data (g_array_index (w->cells, AbKv, limit - 1).key, &klen);
      return ab_store_key_compare (k, klen, bkey->data, bkey->len) < 0;
    }
  return w->stop != NULL
         && ab_store_key_compare (w->stop->data, w->stop->len, bkey->data, bkey->len) <= 0;
}

static gboolean
plan_window (const AbTableDesc *t, const AbCache *c, const AbValue *start, AbQueryDirection dir,
             GPtrArray *ranges, Window *w, GError **error)
{
  GError *local = NULL;
  w->row = ab_codec_wide_key (start, (AbDirection) dir, t->code, AB_ROW_CACHE, c->code, &local);
  if (w->row == NULL)
    return ab_engine_propagate (error, local), FALSE;
  w->start = g_byte_array_new ();
  g_byte_array_append (w->start, w->row->data, w->row->len);
  if (!ab_engine_range_keys (c->fields, c->n_fields, ranges, w->row, w->start, &w->stop, error))
    return FALSE;
  if (w->stop == NULL)
    w->stop = ab_codec_prefix_upper_bound (w->row->data, w->row->len);
  return TRUE;
}

/* The equivalent index's row keys end like the cache's cells, so its pages
 * (and offsets) continue the seek's. */
static AbEdgeFrame *
fallback_scan (AbEngine *engine, const AbTableDesc *t, const AbIndex *idx, const AbValue *start,
               AbQueryDirection dir, guint limit, const gchar *ranges, const gchar *offset,
               GError **error)
{
  g_autofree gchar *text = ab_value_to_string (start);
  AbScanParams sp = { .index = idx->name,
                      .start = text,
                      .direction = dir,
                      .limit = (gint) limit,
                      .ranges = ranges,
                      .offset = offset };
  return ab_engine_scan (engine, t->database, t->table, &sp, error);
}

AbEdgeFrame *
ab_engine_seek_row (AbEngine *engine, const AbTableDesc *t, const AbCache *c, const AbValue *start,
                    AbQueryDirection dir, guint limit, const gchar *ranges, const gchar *offset,
                    GError **error)
{
  g_autoptr (GPtrArray) preds = ab_predicates_parse (t, ranges, FALSE, "ranges", error);
  if (preds == NULL || !check_ranges (c, preds, error))
    return NULL;
  g_autoptr (GBytes) after
      = offset != NULL ? ab_engine_offset_suffix (offset, c->n_fields, c->name, error) : NULL;
  if (offset != NULL && after == NULL)
    return NULL;
  Window w = { 0 };
  g_autoptr (AbEdgeFrame) frame = ab_edge_frame_new ();
  gboolean ok = plan_window (t, c, start, dir, preds, &w, error);
  if (ok && after != NULL)
    {
      /* as in scan: the page starts after the offset; range starts give way */
      g_byte_array_set_size (w.start, w.row->len);
      g_byte_array_append (w.start, g_bytes_get_data (after, NULL), g_bytes_get_size (after));
    }
  ok = ok && read_window (engine, &w, limit, w.start->len == w.row->len, error);
  const AbIndex *idx = ok && !window_exact (&w, limit) ? equivalent_index (t, c) : NULL;
  if (idx != NULL && limit <= engine->cfg.max_scan_limit)
    {
      window_clear (&w);
      return fallback_scan (engine, t, idx, start, dir, limit, ranges, offset, error);
    }
  frame->has_next = ok && w.cells->len > limit;
  /* A full page that ends where trimming cut the row: the equivalent index
   * may hold more, and the next page (past the boundary) reads it there. */
  if (ok && !frame->has_next && w.cells->len == limit && equivalent_index (t, c) != NULL
      && !window_exact (&w, limit + 1))
    frame->has_next = TRUE;
  for (guint i = 0; ok && i < MIN (w.cells->len, limit); i++)
    {
      GError *local = NULL;
      AbEdgeOut *e = ab_engine_edge_from_row (t, dir, start, c->n_fields, w.row->len,
                                              &g_array_index (w.cells, AbKv, i), &local);
      if (e == NULL)
        {
          ok = ab_engine_fail (error, AB_ENGINE_ERROR_INTERNAL, "corrupt cache cell: %s",
                               local->message);
          g_clear_error (&local);
        }
      else
        g_ptr_array_add (frame->edges, e);
    }
  if (ok && frame->has_next)
    {
      gsize klen;
      const guint8 *k = g_bytes_get_data (g_array_index (w.cells, AbKv, limit - 1).key, &klen);
      frame->offset = ab_codec_offset_encode (k + w.row->len, klen - w.row->len);
    }
  window_clear (&w);
  return ok ? g_steal_pointer (&frame) : NULL;
}

const AbCache *
ab_engine_find_cache (const AbTableDesc *t, const gchar *name, GError **error)
{
  const AbCache *c = name != NULL ? ab_schema_cache (t->schema, name) : NULL;
  if (c == NULL)
    ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "cache `%s` is not found in label `%s.%s`.",
                    name != NULL ? name : "", t->database, t->table);
  return c;
}

AbEdgeFrame *
ab_engine_seek (AbEngine *engine, const gchar *db, const gchar *table, const AbSeekParams *p,
                GError **error)
{
  g_autoptr (AbTableDesc) t = ab_engine_resolve (engine, db, table, NULL, error);
  if (t == NULL)
    return NULL;
  const AbCache *c = ab_engine_find_cache (t, p->cache, error);
  if (c == NULL)
    return NULL;
  if (p->limit == 0)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "limit must be at least 1"), NULL;
  /* beyond limit + tolerance a trimmed row holds nothing: larger limits are cut to it */
  guint limit = p->limit < 0 ? c->limit : MIN ((guint) p->limit, ab_cache_bound (c));
  AbValue start = AB_VALUE_INIT;
  if (!ab_query_cast_start (t, p->start, p->direction, &start, error))
    return NULL;
  AbEdgeFrame *f
      = ab_engine_seek_row (engine, t, c, &start, p->direction, limit, p->ranges, p->offset, error);
  ab_value_clear (&start);
  return f;
}
