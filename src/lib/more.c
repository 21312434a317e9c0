/* libactionbase reads over caches, groups and two hops: seek, agg and
 * multihop. The engine takes these starts and ranges as text, so the typed
 * values are written out here (a value holding ';' or ',' is refused). */
#include "lib/lib-private.h"

static gchar *
text_of (AbDbValue v)
{
  AbValue view;
  ab_lib_value_view (v, &view);
  return ab_value_is_null (&view) ? NULL : ab_value_to_string (&view);
}

/* The checks and the text forms a seek or an agg starts with. */
static gboolean
read_texts (AbDb *db, const char *database, const char *table, AbDbValue start,
            const AbDbPredicate *ranges, guint n_ranges, gchar **stext, gchar **rtext,
            GError **error)
{
  if (!ab_lib_names_ok (db, database, table, error)
      || !ab_lib_ranges_text (ranges, n_ranges, rtext, error))
    return FALSE;
  *stext = text_of (start);
  return TRUE;
}

AbDbEdges *
ab_db_seek (AbDb *db, const char *database, const char *table, const char *cache, AbDbValue start,
            AbDbDirection direction, guint limit, const AbDbPredicate *ranges, guint n_ranges,
            const char *resume, GError **error)
{
  g_autofree gchar *rtext = NULL, *stext = NULL;
  if (!read_texts (db, database, table, start, ranges, n_ranges, &stext, &rtext, error))
    return NULL;
  AbSeekParams p = { .cache = cache,
                     .start = stext,
                     .direction = (AbQueryDirection) direction,
                     .limit = ab_lib_limit (limit),
                     .ranges = rtext,
                     .offset = resume };
  GError *local = NULL;
  AbEdgeFrame *f = ab_engine_seek (db->engine, database, table, &p, &local);
  if (f == NULL)
    return ab_lib_propagate (error, local), NULL;
  return ab_lib_edges_new (f);
}

struct _AbDbAgg {
  AbAggResult *r;
};

AbDbAgg *
ab_db_agg (AbDb *db, const char *database, const char *table, const char *group, AbDbValue start,
           AbDbDirection direction, const AbDbPredicate *ranges, guint n_ranges, guint limit,
           GError **error)
{
  g_autofree gchar *rtext = NULL, *stext = NULL;
  if (!read_texts (db, database, table, start, ranges, n_ranges, &stext, &rtext, error))
    return NULL;
  AbAggParams p = { .group = group,
                    .start = stext,
                    .direction = (AbQueryDirection) direction,
                    .ranges = rtext,
                    .limit = ab_lib_limit (limit) };
  GError *local = NULL;
  AbAggResult *r = ab_engine_agg (db->engine, database, table, &p, &local);
  if (r == NULL)
    return ab_lib_propagate (error, local), NULL;
  AbDbAgg *a = g_new0 (AbDbAgg, 1);
  a->r = r;
  return a;
}

guint
ab_db_agg_len (const AbDbAgg *agg)
{
  return agg->r->values->len;
}

guint
ab_db_agg_n_fields (const AbDbAgg *agg)
{
  return agg->r->n_fields;
}

const char *
ab_db_agg_field (const AbDbAgg *agg, guint f)
{
  g_return_val_if_fail (f < agg->r->n_fields, NULL);
  return agg->r->fields[f];
}

AbDbValue
ab_db_agg_key (const AbDbAgg *agg, guint i, guint f)
{
  g_return_val_if_fail (i < agg->r->values->len && f < agg->r->n_fields, ab_db_null ());
  return ab_lib_value_out (&g_array_index (agg->r->keys, AbValue, i * agg->r->n_fields + f));
}

gint64
ab_db_agg_value (const AbDbAgg *agg, guint i)
{
  g_return_val_if_fail (i < agg->r->values->len, 0);
  return g_array_index (agg->r->values, gint64, i);
}

void
ab_db_agg_free (AbDbAgg *agg)
{
  if (agg == NULL)
    return;
  ab_agg_result_free (agg->r);
  g_free (agg);
}

/* A public hop as the engine's; the ranges text goes to *text. */
static gboolean
hop_of (const AbDbHop *in, AbHop *out, gchar **text, GError **error)
{
  if (!ab_lib_require (in, "hop", error)
      || !ab_lib_ranges_text (in->ranges, in->n_ranges, text, error))
    return FALSE;
  *out = (AbHop){ .table = in->table,
                  .cache = in->cache,
                  .index = in->index,
                  .direction = (AbQueryDirection) in->direction,
                  .limit = ab_lib_limit (in->limit),
                  .ranges = *text };
  return TRUE;
}

AbDbEdges *
ab_db_multihop (AbDb *db, const char *database, const AbDbValue *starts, guint n_starts,
                const AbDbHop *first, const AbDbHop *second, gboolean dedup, gboolean order_by_hits,
                guint limit, GError **error)
{
  if (!ab_lib_require (db, "db", error) || !ab_lib_require (database, "database", error))
    return NULL;
  g_autofree gchar *r1 = NULL, *r2 = NULL;
  AbMultihopParams p = { .database = database,
                         .dedup = dedup,
                         .order_by_hits = order_by_hits,
                         .limit = ab_lib_limit (limit) };
  if (!hop_of (first, &p.hops[0], &r1, error) || !hop_of (second, &p.hops[1], &r2, error))
    return NULL;
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n_starts; i++)
    g_ptr_array_add (texts, text_of (starts[i]));
  p.starts = texts;
  GError *local = NULL;
  g_autoptr (AbMultihopResult) r = ab_engine_multihop (db->engine, &p, &local);
  if (r == NULL)
    return ab_lib_propagate (error, local), NULL;
  AbEdgeFrame *f = g_new0 (AbEdgeFrame, 1);
  f->edges = g_ptr_array_ref (r->edges);
  f->has_next = r->has_next;
  f->total = -1;
  return ab_lib_edges_new (f);
}
