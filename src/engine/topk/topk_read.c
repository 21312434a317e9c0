/* Top-K reads (docs/data-model.md §17.1): one ranking of (entity, direction,
 * segment) as a bounded scan of its rank rows, score DESC then ranked value
 * ASC, paged with scan's offset tokens; and the score answer's edges. */
#include <string.h>
#include "engine/topk/topk.h"
#include "engine/read/read.h"
#include "codec/bytes.h"
#include "codec/record.h"

#define TOPK_DEFAULT_LIMIT 10

static AbField SCORE_FIELD = { .name = (gchar *) "score", .type = AB_TYPE_LONG };

/* The eq value of `field` in preds, or NULL. */
static const AbValue *
eq_value (GPtrArray *preds, const gchar *field)
{
  for (guint i = 0; preds != NULL && i < preds->len; i++)
    {
      const AbPredicate *p = preds->pdata[i];
      if (g_str_equal (p->field, field) && p->op == AB_PRED_EQ)
        return &g_array_index (p->values, AbValue, 0);
    }
  return NULL;
}

/* The segment of the ranking asked for: every field before the ranked one
 * from `filters` (eq), else from the definition's constant ranges. */
static gboolean
segment_values (const AbTableDesc *t, const AbGroup *g, const AbTopk *k, const gchar *filters,
                AbTopkEntry *e, GError **error)
{
  g_autoptr (GPtrArray) given = ab_topk_group_predicates (t, g, filters, "filters", error);
  g_autoptr (GPtrArray) fixed = given != NULL ? ab_topk_ranges (t, g, k, error) : NULL;
  if (fixed == NULL)
    return FALSE;
  for (guint i = 0; i < given->len; i++)
    {
      const AbPredicate *p = given->pdata[i];
      gboolean segment = FALSE;
      for (guint f = 0; f < k->ranked; f++)
        segment |= g_str_equal (g->fields[f].name, p->field);
      if (!segment || p->op != AB_PRED_EQ)
        return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                               "`filters` of top-K `%s` take eq on its segment fields only; "
                               "`%s` is not one",
                               k->name, p->field);
    }
  e->n_values = k->ranked + 1;
  e->values = g_new0 (AbValue, e->n_values);
  for (guint f = 0; f < k->ranked; f++)
    {
      const AbValue *v = eq_value (given, g->fields[f].name);
      if (v == NULL)
        v = eq_value (fixed, g->fields[f].name);
      if (v == NULL)
        return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                               "top-K `%s` ranks per `%s`: give it in `filters` "
                               "(filters=%s:eq:<value>)",
                               k->name, g->fields[f].name, g->fields[f].name);
      ab_value_copy (&e->values[f], v);
    }
  return TRUE;
}

static const AbTopk *
find_topk (const AbTableDesc *t, const AbTopkParams *p, const AbGroup **g, GError **error)
{
  const AbTopk *k = p->topk != NULL ? ab_schema_topk (t->schema, p->topk, g) : NULL;
  if (k == NULL)
    ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "topk `%s` is not found in table `%s.%s`.",
                    p->topk != NULL ? p->topk : "", t->database, t->table);
  return k;
}

static gboolean
pick_direction (const AbGroup *g, const AbTopkParams *p, AbQueryDirection *dir, GError **error)
{
  if (p->direction == NULL)
    *dir = g->direction == AB_DIRTYPE_IN ? AB_QDIR_IN : AB_QDIR_OUT;
  else if (!ab_query_direction_parse (p->direction, dir))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "'direction' must be OUT or IN, got '%s'", p->direction);
  gboolean out = *dir == AB_QDIR_OUT;
  if ((g->direction == AB_DIRTYPE_OUT && !out) || (g->direction == AB_DIRTYPE_IN && out))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "group `%s` is kept for direction %s only", g->name,
                           ab_dirtype_name (g->direction));
  return TRUE;
}

/* One rank row as an edge: {version: when scored, source: the entity,
 * target: the ranked value, properties: {score}}. */
typedef struct {
  const AbTopkEntry *e;
  gsize plen;
} RankRows;

static AbEdgeOut *
rank_edge (const guint8 *k, gsize len, const guint8 *v, gsize vlen, gpointer data, GError **error)
{
  const RankRows *rr = data;
  gsize pos = rr->plen;
  AbValue score = AB_VALUE_INIT;
  AbEdgeOut *out = ab_edge_out_new ();
  GError *local = NULL;
  if (vlen != 16 || !ab_codec_get_value (k, len, &pos, &score, NULL, &local)
      || !ab_codec_get_value (k, len, &pos, &out->target, NULL, &local))
    {
      ab_value_clear (&score);
      ab_edge_out_free (out);
      if (local == NULL)
        return ab_engine_fail (error, AB_ENGINE_ERROR_INTERNAL, "malformed top-K rank row"), NULL;
      return ab_engine_propagate (error, local), NULL;
    }
  out->version = ab_codec_get_be64 (v + 8);
  ab_value_copy (&out->source, &rr->e->entity);
  ab_edge_out_take (out, &SCORE_FIELD, &score);
  return out;
}

static gboolean
read_page (AbEngine *engine, const AbTableDesc *t, const AbTopkEntry *e, guint limit,
           const gchar *offset, AbEdgeFrame *frame, GError **error)
{
  g_autoptr (GByteArray) prefix = ab_topk_rank_prefix (t, e, error);
  if (prefix == NULL)
    return FALSE;
  g_autoptr (GByteArray) start = g_byte_array_new ();
  g_byte_array_append (start, prefix->data, prefix->len);
  if (offset != NULL)
    {
      g_autoptr (GBytes) suffix = ab_engine_offset_suffix (offset, 1, e->topk->name, error);
      if (suffix == NULL)
        return FALSE;
      g_byte_array_append (start, g_bytes_get_data (suffix, NULL), g_bytes_get_size (suffix));
    }
  g_autoptr (GByteArray) stop = ab_codec_prefix_upper_bound (prefix->data, prefix->len);
  AbScanRange range = { .start = start->data,
                        .start_len = start->len,
                        .start_inclusive = offset == NULL,
                        .stop = stop != NULL ? stop->data : NULL,
                        .stop_len = stop != NULL ? stop->len : 0 };
  RankRows rr = { e, prefix->len };
  AbPageRead pr = { limit, prefix->len, FALSE, rank_edge, &rr };
  return ab_engine_read_page (engine->store, &range, &pr, frame, error);
}

AbEdgeFrame *
ab_engine_topk (AbEngine *engine, const gchar *db, const gchar *table, const AbTopkParams *p,
                GError **error)
{
  if (p->limit == 0 || (p->limit > 0 && (guint) p->limit > engine->cfg.max_scan_limit))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "limit must be between 1 and %u",
                           engine->cfg.max_scan_limit),
           NULL;
  if (p->entity == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "'entity' is required."), NULL;
  g_autoptr (AbTableDesc) t = ab_engine_resolve (engine, db, table, NULL, error);
  const AbGroup *g = NULL;
  const AbTopk *k = t != NULL ? find_topk (t, p, &g, error) : NULL;
  AbQueryDirection dir;
  if (k == NULL || !pick_direction (g, p, &dir, error))
    return NULL;
  AbTopkEntry e = { .group = g, .topk = k, .dir = (AbDirection) dir };
  g_autoptr (AbEdgeFrame) frame = ab_edge_frame_new ();
  gboolean ok = ab_query_cast_start (t, p->entity, dir, &e.entity, error)
                && segment_values (t, g, k, p->filters, &e, error)
                && read_page (engine, t, &e, p->limit < 0 ? TOPK_DEFAULT_LIMIT : (guint) p->limit,
                              p->offset, frame, error);
  ab_topk_entry_clear (&e);
  return ok ? g_steal_pointer (&frame) : NULL;
}
