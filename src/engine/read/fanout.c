/* Fan-out reads: one cache seek or index scan per start node, run
 * concurrently on the engine's key pool; shared by the 2-hop query and the
 * query document (POST /graph/v3/query). */
#include "engine/read/read.h"
#include "engine/plan/plan.h"
#include "model/types.h"

static void
read_one (gpointer item)
{
  AbHopRead *r = item;
  const AbHopPlan *hp = r->plan;
  if (ab_value_is_null (&r->node))
    return; /* did not cast to the start type */
  if (hp->cache != NULL)
    {
      r->frame = ab_engine_seek_row (r->engine, hp->t, hp->cache, &r->node, hp->dir, hp->limit,
                                     hp->ranges, hp->offset, &r->error);
      return;
    }
  g_autofree gchar *text = ab_value_to_string (&r->node);
  AbScanParams sp = { .index = hp->index,
                      .start = text,
                      .direction = hp->dir,
                      .limit = (gint) hp->limit,
                      .ranges = hp->ranges,
                      .offset = hp->offset };
  r->frame = ab_engine_scan (r->engine, hp->t->database, hp->t->table, &sp, &r->error);
}

AbHopRead *
ab_hop_read_all (AbEngine *engine, const AbHopPlan *hp, GArray *nodes, gboolean strict,
                 GError **error)
{
  AbHopRead *reads = g_new0 (AbHopRead, MAX (nodes->len, 1));
  AbSchema *s = hp->t->schema;
  AbType type = hp->dir == AB_QDIR_OUT ? s->source_type : s->target_type;
  for (guint i = 0; i < nodes->len; i++)
    {
      g_autofree gchar *text = ab_value_to_string (&g_array_index (nodes, AbValue, i));
      g_autoptr (GError) bad = NULL;
      reads[i].engine = engine;
      reads[i].plan = hp;
      if (!ab_model_cast_text (text, type, "start", &reads[i].node, &bad) && strict
          && (error == NULL || *error == NULL))
        ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "%s", bad->message);
    }
  if (error != NULL && *error != NULL)
    return reads;
  ab_engine_parallel_chunked (engine, reads, sizeof *reads, nodes->len, read_one);
  for (guint i = 0; i < nodes->len; i++)
    if (reads[i].error != NULL && (error == NULL || *error == NULL))
      g_propagate_error (error, g_steal_pointer (&reads[i].error));
  return reads;
}

void
ab_hop_reads_free (AbHopRead *reads, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      ab_value_clear (&reads[i].node);
      g_clear_pointer (&reads[i].frame, ab_edge_frame_free);
      g_clear_error (&reads[i].error);
    }
  g_free (reads);
}
