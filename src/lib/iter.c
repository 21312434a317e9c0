/* libactionbase scan iterator: walks a whole index window a page at a time
 * (the scan's limit is the page size); every edge carries the token that
 * resumes right after it. The scan is copied, so the caller's may go. */
#include "lib/lib-private.h"

struct _AbDbIter {
  AbDb *db;
  gchar *database, *table;
  AbDbScan scan;    /* deep copy: strings in owned, arrays below */
  GPtrArray *owned; /* strings of the copy */
  AbDbPredicate *ranges, *filters;
  AbEdgeFrame *page; /* NULL before the first fetch */
  guint pos;         /* the current edge in page */
  AbDbEdges view;    /* one-edge view of the current edge */
};

static const char *
keep (AbDbIter *it, const char *s)
{
  if (s == NULL)
    return NULL;
  gchar *copy = g_strdup (s);
  g_ptr_array_add (it->owned, copy);
  return copy;
}

static AbDbValue
keep_value (AbDbIter *it, AbDbValue v)
{
  if (v.type == AB_DB_STRING || v.type == AB_DB_JSON)
    v.u.s = keep (it, v.u.s);
  return v;
}

static AbDbPredicate *
keep_preds (AbDbIter *it, const AbDbPredicate *preds, guint n)
{
  AbDbPredicate *out = g_new0 (AbDbPredicate, MAX (n, 1));
  for (guint i = 0; preds != NULL && i < n; i++)
    {
      AbDbValue *vals = g_new0 (AbDbValue, MAX (preds[i].n_values, 1));
      g_ptr_array_add (it->owned, vals);
      for (guint k = 0; preds[i].values != NULL && k < preds[i].n_values; k++)
        vals[k] = keep_value (it, preds[i].values[k]);
      out[i] = (AbDbPredicate){ .field = keep (it, preds[i].field),
                                .op = preds[i].op,
                                .values = vals,
                                .n_values = preds[i].n_values };
    }
  return out;
}

AbDbIter *
ab_db_scan_iter (AbDb *db, const char *database, const char *table, const AbDbScan *scan,
                 GError **error)
{
  if (!ab_lib_names_ok (db, database, table, error) || !ab_lib_require (scan, "scan", error))
    return NULL;
  AbDbIter *it = g_new0 (AbDbIter, 1);
  it->db = db;
  it->database = g_strdup (database);
  it->table = g_strdup (table);
  it->owned = g_ptr_array_new_with_free_func (g_free);
  it->scan = *scan;
  it->scan.index = keep (it, scan->index);
  it->scan.start = keep_value (it, scan->start);
  it->scan.resume = keep (it, scan->resume);
  it->scan.ranges = it->ranges = keep_preds (it, scan->ranges, scan->n_ranges);
  it->scan.filters = it->filters = keep_preds (it, scan->filters, scan->n_filters);
  return it;
}

gboolean
ab_db_iter_next (AbDbIter *it, GError **error)
{
  if (it->page != NULL && it->pos + 1 < it->page->edges->len)
    {
      it->view.first = ++it->pos;
      return TRUE;
    }
  /* Next page: the current one's token (filters may leave a page empty). */
  while (it->page == NULL || it->page->has_next)
    {
      const char *resume = it->page != NULL ? it->page->offset : it->scan.resume;
      AbEdgeFrame *next
          = ab_lib_scan_page (it->db, it->database, it->table, &it->scan, resume, TRUE, error);
      if (next == NULL)
        return FALSE; /* the iterator stays where it was */
      g_clear_pointer (&it->page, ab_edge_frame_free);
      it->page = next;
      it->pos = 0;
      it->view = (AbDbEdges){ .frame = next, .first = 0, .len = 1 };
      if (next->edges->len > 0)
        return TRUE;
    }
  it->view.len = 0;
  return FALSE;
}

const AbDbEdges *
ab_db_iter_edge (const AbDbIter *it)
{
  return &it->view;
}

const char *
ab_db_iter_token (AbDbIter *it)
{
  if (it->page == NULL || it->pos >= it->page->edges->len)
    return NULL;
  const AbEdgeOut *e = it->page->edges->pdata[it->pos];
  return e->offset;
}

void
ab_db_iter_free (AbDbIter *it)
{
  if (it == NULL)
    return;
  g_clear_pointer (&it->page, ab_edge_frame_free);
  g_free (it->database);
  g_free (it->table);
  g_free (it->ranges);
  g_free (it->filters);
  g_ptr_array_unref (it->owned);
  g_free (it);
}
