/* Group and Cache cells of a transition (docs/data-model.md §4-§5): the cells an
 * active State implies (group deltas, cache cells with their values), and
 * the plan that turns before/after into increments, puts and deletes. */
#include <string.h>
#include "engine/plan/plan.h"

GArray *
ab_wide_cell_array_new (void)
{
  return ab_kv_array_new_of (sizeof (AbWideCell));
}

GByteArray *
ab_engine_group_row (const AbTableDesc *t, const AbGroup *g, const AbValue *dsrc, AbDirection dir,
                     GError **error)
{
  return ab_codec_wide_key (dsrc, dir, t->code, AB_ROW_GROUP, g->code, error);
}

static guint
group_directions (const AbGroup *g, AbDirection dirs[2])
{
  if (g->direction == AB_DIRTYPE_OUT || g->direction == AB_DIRTYPE_IN)
    {
      dirs[0] = g->direction == AB_DIRTYPE_OUT ? AB_DIR_OUT : AB_DIR_IN;
      return 1;
    }
  dirs[0] = AB_DIR_OUT;
  dirs[1] = AB_DIR_IN;
  return 2;
}

/* SUM: the value field cast to long (floats truncated, numeric text parsed,
 * booleans 0/1, anything else 0); 1 per edge without a value field. */
static gint64
sum_value (const AbTableDesc *t, const AbGroup *g, const AbValue *s, const AbValue *tg,
           const AbState *st)
{
  if (g->value_field == NULL)
    return 1;
  AbValue v = AB_VALUE_INIT;
  ab_engine_field_value (t, g->value_field, s, tg, st, &v);
  gint64 out = 0;
  switch (v.kind)
    {
      case AB_VALUE_INT8:
      case AB_VALUE_INT16:
      case AB_VALUE_INT32:
      case AB_VALUE_INT64: out = v.u.i; break;
      case AB_VALUE_FLOAT32:
      case AB_VALUE_FLOAT64:
        out = v.u.f >= 9.2e18 ? G_MAXINT64 : v.u.f <= -9.2e18 ? G_MININT64 : (gint64) v.u.f;
        break;
      case AB_VALUE_BOOL: out = v.u.b ? 1 : 0; break;
      case AB_VALUE_STRING: out = g_ascii_strtoll (v.u.s.data, NULL, 10); break;
      default: break;
    }
  ab_value_clear (&v);
  return out;
}

/* row || per field encD(value, bucketed where a bucket is defined). */
static GByteArray *
group_cell_key (const AbTableDesc *t, const AbGroup *g, const AbValue *s, const AbValue *tg,
                const AbState *st, const AbValue *dsrc, AbDirection dir, GError **error)
{
  g_autoptr (GByteArray) key = ab_engine_group_row (t, g, dsrc, dir, error);
  for (guint i = 0; key != NULL && i < g->n_fields; i++)
    {
      AbValue raw = AB_VALUE_INIT, bucketed = AB_VALUE_INIT;
      ab_engine_field_value (t, g->fields[i].name, s, tg, st, &raw);
      if (g->fields[i].bucket != NULL)
        ab_bucket_apply (g->fields[i].bucket, &raw, &bucketed);
      gboolean ok = ab_codec_put_value (key, g->fields[i].bucket != NULL ? &bucketed : &raw,
                                        AB_ORDER_DESC, error);
      ab_value_clear (&raw);
      ab_value_clear (&bucketed);
      if (!ok)
        return NULL;
    }
  return g_steal_pointer (&key);
}

gboolean
ab_engine_group_cells (const AbTableDesc *t, const AbValue *s, const AbValue *tg, const AbState *st,
                       gint64 sign, GArray *out, GError **error)
{
  for (guint i = 0; i < t->schema->group_defs->len; i++)
    {
      const AbGroup *g = t->schema->group_defs->pdata[i];
      gint64 x = g->type == AB_GROUP_COUNT ? 1 : sum_value (t, g, s, tg, st);
      if (x == 0)
        continue;
      AbDirection dirs[2];
      guint nd = group_directions (g, dirs);
      for (guint d = 0; d < nd; d++)
        {
          const AbValue *dsrc, *dtgt;
          if (!ab_engine_directed (t, s, tg, st, dirs[d], &dsrc, &dtgt))
            continue;
          GByteArray *k = group_cell_key (t, g, s, tg, st, dsrc, dirs[d], error);
          if (k == NULL)
            return FALSE;
          AbWideCell c
              = { .kv.key = g_byte_array_free_to_bytes (k), .delta = sign * x, .group = g };
          g_array_append_val (out, c);
        }
    }
  return TRUE;
}

/* row || per field enc(value, order) || enc(dtarget); NULL without an error
 * when the edge has no directed source or a value outside a field's
 * `dimension` list (the cache does not keep it). */
static GByteArray *
cache_cell_key (const AbTableDesc *t, const AbCache *c, const AbValue *s, const AbValue *tg,
                const AbState *st, AbDirection dir, GError **error)
{
  const AbValue *dsrc, *dtgt;
  if (!ab_engine_directed (t, s, tg, st, dir, &dsrc, &dtgt))
    return NULL;
  g_autoptr (GByteArray) key = ab_codec_wide_key (dsrc, dir, t->code, AB_ROW_CACHE, c->code, error);
  for (guint i = 0; key != NULL && i < c->n_fields; i++)
    {
      AbValue v = AB_VALUE_INIT;
      ab_engine_field_value (t, c->fields[i].field, s, tg, st, &v);
      g_autofree gchar *text
          = c->allowed[i] != NULL && v.kind != AB_VALUE_NULL ? ab_value_to_string (&v) : NULL;
      gboolean keep = c->allowed[i] == NULL || (text != NULL && ab_cache_allows (c, i, text));
      gboolean ok = keep && ab_codec_put_value (key, &v, c->fields[i].order, error);
      ab_value_clear (&v);
      if (!ok)
        return NULL; /* an error, or a value outside the field's `dimension`: no cell */
    }
  if (key == NULL || !ab_codec_put_value (key, dtgt, AB_ORDER_ASC, error))
    return NULL;
  return g_steal_pointer (&key);
}

gboolean
ab_engine_cache_cells (const AbTableDesc *t, const AbValue *s, const AbValue *tg, const AbState *st,
                       GArray *out, GError **error)
{
  if (t->schema->cache_defs->len == 0)
    return TRUE;
  g_autoptr (GByteArray) value = g_byte_array_new ();
  if (!ab_engine_index_value (t, st, value, error))
    return FALSE;
  g_autoptr (GBytes) vbytes = g_bytes_new (value->data, value->len);
  AbDirection dirs[2];
  guint nd = ab_engine_directions (t, dirs);
  for (guint i = 0; i < t->schema->cache_defs->len; i++)
    for (guint d = 0; d < nd; d++)
      {
        const AbCache *c = t->schema->cache_defs->pdata[i];
        GError *local = NULL;
        GByteArray *k = cache_cell_key (t, c, s, tg, st, dirs[d], &local);
        if (local != NULL)
          return g_propagate_error (error, local), FALSE;
        if (k == NULL)
          continue; /* no directed source, or outside a `dimension` list */
        AbWideCell cell
            = { .kv = { g_byte_array_free_to_bytes (k), g_bytes_ref (vbytes) }, .cache = c };
        g_array_append_val (out, cell);
      }
  return TRUE;
}

/* Group deltas of before (-) and after (+), merged per cell, zero dropped. */
static gboolean
plan_groups (const AbTableDesc *t, const AbValue *s, const AbValue *tg, const AbState *before,
             const AbState *after, AbBatch *batch, GError **error)
{
  g_autoptr (GArray) cells = ab_wide_cell_array_new ();
  if ((before->meta.active && !ab_engine_group_cells (t, s, tg, before, -1, cells, error))
      || (after->meta.active && !ab_engine_group_cells (t, s, tg, after, 1, cells, error)))
    return FALSE;
  for (guint i = 0; i < cells->len; i++)
    {
      AbWideCell *c = &g_array_index (cells, AbWideCell, i);
      for (guint j = i + 1; j < cells->len && c->delta != 0; j++)
        {
          AbWideCell *o = &g_array_index (cells, AbWideCell, j);
          if (o->delta != 0 && g_bytes_equal (c->kv.key, o->kv.key))
            {
              c->delta += o->delta;
              o->delta = 0;
            }
        }
      gsize klen;
      const guint8 *k = g_bytes_get_data (c->kv.key, &klen);
      if (c->delta != 0)
        ab_batch_add (batch, k, klen, c->delta);
    }
  return TRUE;
}

static gboolean
has_key (GArray *cells, GBytes *key)
{
  for (guint i = 0; i < cells->len; i++)
    if (g_bytes_equal (g_array_index (cells, AbWideCell, i).kv.key, key))
      return TRUE;
  return FALSE;
}

gboolean
ab_engine_plan_wide (const AbTableDesc *t, const AbValue *s, const AbValue *tg,
                     const AbState *before, const AbState *after, AbBatch *batch, GError **error)
{
  if (t->schema->group_defs->len == 0 && t->schema->cache_defs->len == 0)
    return TRUE; /* most tables: no wide rows, and nothing to allocate for them */
  if (!plan_groups (t, s, tg, before, after, batch, error))
    return FALSE;
  g_autoptr (GArray) old_cells = ab_wide_cell_array_new ();
  g_autoptr (GArray) new_cells = ab_wide_cell_array_new ();
  if ((before->meta.active && !ab_engine_cache_cells (t, s, tg, before, old_cells, error))
      || (after->meta.active && !ab_engine_cache_cells (t, s, tg, after, new_cells, error)))
    return FALSE;
  for (guint i = 0; i < new_cells->len; i++)
    {
      AbWideCell *c = &g_array_index (new_cells, AbWideCell, i);
      gsize klen, vlen;
      const guint8 *k = g_bytes_get_data (c->kv.key, &klen);
      const guint8 *v = g_bytes_get_data (c->kv.value, &vlen);
      ab_batch_put (batch, k, klen, v, vlen);
    }
  for (guint i = 0; i < old_cells->len; i++)
    {
      AbWideCell *c = &g_array_index (old_cells, AbWideCell, i);
      if (has_key (new_cells, c->kv.key))
        continue;
      gsize klen;
      const guint8 *k = g_bytes_get_data (c->kv.key, &klen);
      ab_batch_delete (batch, k, klen);
    }
  return TRUE;
}
