/* The 2-hop query: fan-out caps checked before any read, the first hop from
 * every start node, the distinct far ends read concurrently on the key pool
 * (cache seek or index scan each), then exclusions, filters, dedup, hits. */
#include <string.h>
#include "engine/read/read.h"
#include "engine/plan/plan.h"
#include "model/types.h"

#define HOP_DEFAULT_LIMIT 100

void
ab_multihop_result_free (AbMultihopResult *r)
{
  if (r == NULL)
    return;
  g_ptr_array_unref (r->edges);
  g_array_unref (r->hits);
  g_ptr_array_unref (r->via);
  g_free (r);
}

static gboolean
plan_hop (AbEngine *engine, const gchar *db, const AbHop *hop, guint k, AbHopPlan *hp,
          GError **error)
{
  hp->dir = hop->direction;
  hp->index = hop->index;
  hp->ranges = hop->ranges;
  hp->t = ab_engine_resolve (engine, db, hop->table != NULL ? hop->table : "", NULL, error);
  if (hp->t == NULL)
    return FALSE;
  if (hp->t->schema->kind != AB_TABLE_EDGE)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "hops[%u]: multihop reads edge tables; %s.%s is a %s table", k, db,
                           hop->table, ab_table_kind_name (hp->t->schema->kind));
  if ((hop->cache == NULL) == (hop->index == NULL))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "hops[%u]: name exactly one of `cache` or `index`", k);
  guint max = engine->cfg.max_scan_limit, dflt = 25;
  if (hop->cache != NULL)
    {
      hp->cache = ab_engine_find_cache (hp->t, hop->cache, error);
      if (hp->cache == NULL)
        return FALSE;
      ab_cache_limits (hp->cache, &dflt, &max);
    }
  else if (ab_schema_index (hp->t->schema, hop->index) == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "hops[%u]: index `%s` is not found in label `%s.%s`.", k, hop->index, db,
                           hop->table);
  hp->limit = hop->limit < 0 ? dflt : (guint) hop->limit;
  if (hop->cache != NULL && hp->limit > max)
    hp->limit = max; /* as seek: cut to what a trimmed row keeps */
  if (hp->limit < 1 || hp->limit > max)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "hops[%u]: limit must be between 1 and %u", k, max);
  return TRUE;
}

/* Fan-out bounds from the request alone, so a query is refused before it
 * reads anything. */
static gboolean
check_fanout (AbEngine *engine, guint starts, const AbHopPlan hp[2], GError **error)
{
  const AbEngineConfig *c = &engine->cfg;
  guint64 nodes = (guint64) starts * hp[0].limit, edges = nodes * hp[1].limit;
  if (starts == 0)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "`start` is required");
  if (starts > c->max_hop_starts)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "too many start nodes: %u > %u",
                           starts, c->max_hop_starts);
  if (nodes > c->max_hop_nodes)
    return ab_engine_fail (
        error, AB_ENGINE_ERROR_BAD_REQUEST,
        "fan-out too large: %u start nodes x first-hop limit %u = %" G_GUINT64_FORMAT
        " second-hop nodes > %u",
        starts, hp[0].limit, nodes, c->max_hop_nodes);
  if (edges > c->max_hop_edges)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "fan-out too large: up to %" G_GUINT64_FORMAT " second-hop nodes x "
                           "second-hop limit %u = %" G_GUINT64_FORMAT " edges > %u",
                           nodes, hp[1].limit, edges, c->max_hop_edges);
  return TRUE;
}

/* The far end of an edge read in direction dir (edges come back unflipped). */
static const AbValue *
far_end (const AbEdgeOut *e, AbQueryDirection dir)
{
  return dir == AB_QDIR_OUT ? &e->target : &e->source;
}

static gboolean
value_in (GArray *values, const AbValue *v)
{
  for (guint i = 0; i < values->len; i++)
    if (ab_value_equal (&g_array_index (values, AbValue, i), v))
      return TRUE;
  return FALSE;
}

static GArray *
value_array_new (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (AbValue));
  g_array_set_clear_func (a, (GDestroyNotify) ab_value_clear);
  return a;
}

static void
append_copy (GArray *values, const AbValue *v)
{
  AbValue c = AB_VALUE_INIT;
  ab_value_copy (&c, v);
  g_array_append_val (values, c);
}

typedef struct {
  AbEdgeOut *edge;
  guint hits;
  GArray *via; /* AbValue: first-hop nodes */
} Entry;

#define VIA_MAX 10

static gint
by_hits (gconstpointer a, gconstpointer b, gpointer unused)
{
  const Entry *x = a, *y = b;
  (void) unused;
  return x->hits > y->hits ? -1 : x->hits < y->hits;
}

typedef struct {
  const AbMultihopParams *p;
  GHashTable *starts; /* texts */
  GHashTable *firsts; /* texts of first-hop nodes */
  GHashTable *seen;   /* final node text -> entry index + 1 (dedup) */
  GArray *entries;    /* Entry */
} Merge;

/* Adds one second-hop edge reached through first-hop node `via`. */
static void
merge_edge (Merge *m, AbEdgeOut **slot, const AbValue *via)
{
  const AbMultihopParams *p = m->p;
  g_autofree gchar *end = ab_value_to_string (far_end (*slot, p->hops[1].direction));
  if ((p->exclude_start && g_hash_table_contains (m->starts, end))
      || (p->exclude_first_hop && g_hash_table_contains (m->firsts, end)))
    return;
  guint at = p->dedup ? GPOINTER_TO_UINT (g_hash_table_lookup (m->seen, end)) : 0;
  if (at == 0)
    {
      Entry e = { .edge = g_steal_pointer (slot), .hits = 0, .via = value_array_new () };
      g_array_append_val (m->entries, e);
      at = m->entries->len;
      if (p->dedup)
        g_hash_table_insert (m->seen, g_steal_pointer (&end), GUINT_TO_POINTER (at));
    }
  Entry *e = &g_array_index (m->entries, Entry, at - 1);
  e->hits++;
  if (e->via->len < VIA_MAX && !value_in (e->via, via))
    append_copy (e->via, via);
}

static AbMultihopResult *
finish (Merge *m, const AbMultihopParams *p)
{
  if (p->dedup && p->order_by_hits)
    g_qsort_with_data (m->entries->data, (gint) m->entries->len, sizeof (Entry), by_hits, NULL);
  guint limit = p->limit < 0 ? HOP_DEFAULT_LIMIT : (guint) p->limit;
  AbMultihopResult *r = g_new0 (AbMultihopResult, 1);
  r->edges = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_edge_out_free);
  r->hits = g_array_new (FALSE, FALSE, sizeof (guint));
  r->via = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  r->has_next = m->entries->len > limit;
  for (guint i = 0; i < m->entries->len; i++)
    {
      Entry *e = &g_array_index (m->entries, Entry, i);
      if (i < limit)
        {
          g_ptr_array_add (r->edges, e->edge);
          g_array_append_val (r->hits, e->hits);
          g_ptr_array_add (r->via, e->via);
        }
      else
        {
          ab_edge_out_free (e->edge);
          g_array_unref (e->via);
        }
    }
  return r;
}

static GHashTable *
text_set (GArray *values)
{
  GHashTable *set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < values->len; i++)
    g_hash_table_add (set, ab_value_to_string (&g_array_index (values, AbValue, i)));
  return set;
}

/* Distinct far ends of the first hop, in read order. */
static GArray *
second_nodes (AbHopRead *reads, guint n, AbQueryDirection dir, guint *edges)
{
  GArray *nodes = value_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  *edges = 0;
  for (guint i = 0; i < n; i++)
    for (guint j = 0; reads[i].frame != NULL && j < reads[i].frame->edges->len; j++)
      {
        const AbValue *v = far_end (reads[i].frame->edges->pdata[j], dir);
        (*edges)++;
        if (g_hash_table_add (seen, ab_value_to_string (v)))
          append_copy (nodes, v);
      }
  return nodes;
}

static void
merge_clear (Merge *m, gboolean free_entries)
{
  for (guint i = 0; free_entries && i < m->entries->len; i++)
    {
      ab_edge_out_free (g_array_index (m->entries, Entry, i).edge);
      g_array_unref (g_array_index (m->entries, Entry, i).via);
    }
  g_hash_table_unref (m->starts);
  g_hash_table_unref (m->firsts);
  g_hash_table_unref (m->seen);
  g_array_unref (m->entries);
}

static AbMultihopResult *
run (AbEngine *engine, const AbMultihopParams *p, AbHopPlan hp[2], GPtrArray *filters,
     GError **error)
{
  g_autoptr (GArray) starts = value_array_new ();
  for (guint i = 0; i < p->starts->len; i++)
    {
      AbValue v = AB_VALUE_INIT;
      ab_value_set_string (&v, AB_VALUE_STRING, p->starts->pdata[i], strlen (p->starts->pdata[i]));
      g_array_append_val (starts, v);
    }
  GError *local = NULL;
  guint first_edges = 0, second_edges = 0;
  AbHopRead *r1 = ab_hop_read_all (engine, &hp[0], starts, TRUE, &local);
  g_autoptr (GArray) nodes = second_nodes (r1, starts->len, p->hops[0].direction, &first_edges);
  ab_hop_reads_free (r1, starts->len);
  if (local != NULL)
    return ab_engine_propagate (error, local), NULL;
  AbHopRead *r2 = ab_hop_read_all (engine, &hp[1], nodes, FALSE, &local);
  Merge m = { .p = p,
              .starts = text_set (starts),
              .firsts = text_set (nodes),
              .seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
              .entries = g_array_new (FALSE, TRUE, sizeof (Entry)) };
  for (guint i = 0; local == NULL && i < nodes->len; i++)
    {
      AbEdgeFrame *f = r2[i].frame;
      if (f == NULL)
        continue;
      ab_edge_frame_filter (f, filters);
      second_edges += f->edges->len;
      for (guint j = 0; j < f->edges->len; j++)
        merge_edge (&m, (AbEdgeOut **) &f->edges->pdata[j], &g_array_index (nodes, AbValue, i));
    }
  ab_hop_reads_free (r2, nodes->len);
  if (local != NULL)
    return merge_clear (&m, TRUE), ab_engine_propagate (error, local), NULL;
  AbMultihopResult *res = finish (&m, p);
  merge_clear (&m, FALSE);
  res->first_hop_edges = first_edges;
  res->second_hop_nodes = nodes->len;
  res->second_hop_edges = second_edges;
  return res;
}

AbMultihopResult *
ab_engine_multihop (AbEngine *engine, const AbMultihopParams *p, GError **error)
{
  AbHopPlan hp[2] = { { 0 } };
  AbMultihopResult *res = NULL;
  if (p->limit == 0 || (p->limit > 0 && (guint) p->limit > engine->cfg.max_scan_limit))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "limit must be between 1 and %u",
                           engine->cfg.max_scan_limit),
           NULL;
  if (plan_hop (engine, p->database, &p->hops[0], 0, &hp[0], error)
      && plan_hop (engine, p->database, &p->hops[1], 1, &hp[1], error)
      && check_fanout (engine, p->starts != NULL ? p->starts->len : 0, hp, error))
    {
      g_autoptr (GPtrArray) filters
          = ab_predicates_parse (hp[1].t, p->filters, TRUE, "filters", error);
      if (filters != NULL)
        res = run (engine, p, hp, filters, error);
    }
  for (guint k = 0; k < 2; k++)
    g_clear_pointer (&hp[k].t, ab_table_desc_unref);
  return res;
}
