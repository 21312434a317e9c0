/* libactionbase reads: get, mget, get by id, count(s) and one page of a
 * scan, each from typed values and predicates straight into the engine's
 * typed entries (no text or JSON in between, except ids). */
#include "lib/lib-private.h"
#include "catalog/catalog.h"

/* The engine's frame (or error) as the public list. */
static AbDbEdges *
wrap (AbEdgeFrame *frame, GError *local, GError **error)
{
  if (frame == NULL)
    return ab_lib_propagate (error, local), NULL;
  return ab_lib_edges_new (frame);
}

AbDbEdges *
ab_db_get (AbDb *db, const char *database, const char *table, AbDbValue source, AbDbValue target,
           GError **error)
{
  if (!ab_lib_names_ok (db, database, table, error))
    return NULL;
  AbValue s, t;
  ab_lib_value_view (source, &s);
  ab_lib_value_view (target, &t);
  GError *local = NULL;
  AbEdgeFrame *f
      = ab_engine_get_values (db->engine, database, table, &s, 1, &t, 1, NULL, 0, &local);
  return wrap (f, local, error);
}

/* n public values viewed as engine values (g_free the result). */
static AbValue *
views (const AbDbValue *in, guint n)
{
  AbValue *out = g_new0 (AbValue, MAX (n, 1));
  for (guint i = 0; in != NULL && i < n; i++)
    ab_lib_value_view (in[i], &out[i]);
  return out;
}

AbDbEdges *
ab_db_mget (AbDb *db, const char *database, const char *table, const AbDbValue *sources,
            guint n_sources, const AbDbValue *targets, guint n_targets,
            const AbDbPredicate *filters, guint n_filters, GError **error)
{
  if (!ab_lib_names_ok (db, database, table, error))
    return NULL;
  g_autofree AbValue *srcs = views (sources, n_sources);
  g_autofree AbValue *tgts = views (targets, n_targets);
  g_autofree AbValue *storage = NULL;
  g_autofree AbRangeSpec *specs = ab_lib_specs (filters, n_filters, &storage);
  GError *local = NULL;
  AbEdgeFrame *f = ab_engine_get_values (db->engine, database, table, srcs, n_sources, tgts,
                                         n_targets, specs, n_filters, &local);
  return wrap (f, local, error);
}

AbDbEdges *
ab_db_get_ids (AbDb *db, const char *database, const char *table, const AbDbValue *ids, guint n_ids,
               GError **error)
{
  if (!ab_lib_names_ok (db, database, table, error))
    return NULL;
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n_ids; i++)
    {
      AbValue v;
      ab_lib_value_view (ids[i], &v);
      g_ptr_array_add (texts, ab_value_to_string (&v));
    }
  /* vertices/get or multi-edges/ids by the table's kind (the engine names the
   * other kinds in its error) */
  g_autoptr (AbTableDesc) t
      = ab_catalog_resolve (ab_engine_catalog (db->engine), database, table, NULL, NULL);
  gboolean vertex = t != NULL && t->schema->kind == AB_TABLE_VERTEX;
  GError *local = NULL;
  AbEdgeFrame *f = vertex
                       ? ab_engine_get_vertices (db->engine, database, table, texts, NULL, &local)
                       : ab_engine_get_ids (db->engine, database, table, texts, NULL, &local);
  return wrap (f, local, error);
}

gboolean
ab_db_count (AbDb *db, const char *database, const char *table, AbDbValue node,
             AbDbDirection direction, gint64 *count, GError **error)
{
  return ab_db_counts (db, database, table, &node, 1, direction, count, error);
}

gboolean
ab_db_counts (AbDb *db, const char *database, const char *table, const AbDbValue *nodes,
              guint n_nodes, AbDbDirection direction, gint64 *counts, GError **error)
{
  if (!ab_lib_names_ok (db, database, table, error))
    return FALSE;
  for (guint i = 0; i < n_nodes; i++)
    {
      AbValue v;
      ab_lib_value_view (nodes[i], &v);
      GError *local = NULL;
      if (!ab_engine_count_value (db->engine, database, table, &v, (AbQueryDirection) direction,
                                  &counts[i], &local))
        return ab_lib_propagate (error, local), FALSE;
    }
  return TRUE;
}

AbEdgeFrame *
ab_lib_scan_page (AbDb *db, const char *database, const char *table, const AbDbScan *scan,
                  const char *resume, gboolean edge_offsets, GError **error)
{
  AbValue start;
  ab_lib_value_view (scan->start, &start);
  g_autofree AbValue *rstore = NULL, *fstore = NULL;
  g_autofree AbRangeSpec *ranges = ab_lib_specs (scan->ranges, scan->n_ranges, &rstore);
  g_autofree AbRangeSpec *filters = ab_lib_specs (scan->filters, scan->n_filters, &fstore);
  AbScanParams p = { .index = scan->index,
                     .direction = (AbQueryDirection) scan->direction,
                     .limit = ab_lib_limit (scan->limit),
                     .offset = resume,
                     .start_value = &start,
                     .range_specs = ranges,
                     .n_range_specs = scan->n_ranges,
                     .filter_specs = filters,
                     .n_filter_specs = scan->n_filters,
                     .edge_offsets = edge_offsets,
                     .borrow_strings = TRUE };
  GError *local = NULL;
  AbEdgeFrame *f = ab_engine_scan (db->engine, database, table, &p, &local);
  if (f == NULL)
    ab_lib_propagate (error, local);
  return f;
}

AbDbEdges *
ab_db_scan (AbDb *db, const char *database, const char *table, const AbDbScan *scan, GError **error)
{
  if (!ab_lib_names_ok (db, database, table, error) || !ab_lib_require (scan, "scan", error))
    return NULL;
  AbEdgeFrame *f = ab_lib_scan_page (db, database, table, scan, scan->resume, FALSE, error);
  return f != NULL ? ab_lib_edges_new (f) : NULL;
}
