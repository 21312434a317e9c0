/* Top-K rankings of group cells (docs/data-model.md §17.1): the score of a
 * ranked value is the sum of its cells; the write path re-scores the entries
 * a request's increments touch, moves their rank/score rows, puts due rows. */
#include <string.h>
#include "engine/topk/topk.h"
#include "codec/bytes.h"
#include "engine/plan/plan.h"

void
ab_topk_entry_clear (AbTopkEntry *e)
{
  g_clear_pointer (&e->cells, g_bytes_unref);
  ab_value_clear (&e->entity);
  for (guint i = 0; i < e->n_values; i++)
    ab_value_clear (&e->values[i]);
  g_clear_pointer (&e->values, g_free);
  if (e->suffix != NULL)
    g_ptr_array_unref (e->suffix);
  e->suffix = NULL;
}

GArray *
ab_topk_entry_array_new (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (AbTopkEntry));
  g_array_set_clear_func (a, (GDestroyNotify) ab_topk_entry_clear);
  return a;
}

gboolean
ab_topk_entry_is_cell (const AbTopkEntry *e)
{
  return e->n_values == e->group->n_fields && !ab_topk_is_relative (e->topk);
}

gboolean
ab_topk_has_any (const AbTableDesc *t)
{
  for (guint i = 0; i < t->schema->group_defs->len; i++)
    if (((const AbGroup *) t->schema->group_defs->pdata[i])->topks->len > 0)
      return TRUE;
  return FALSE;
}

typedef struct {
  const AbTableDesc *t;
  const AbGroup *g;
} Typing;

static gboolean
cell_field_type (gconstpointer data, const gchar *field, AbType *out)
{
  const Typing *ty = data;
  for (guint i = 0; i < ty->g->n_fields; i++)
    if (g_str_equal (ty->g->fields[i].name, field))
      {
        *out = ab_group_field_type (ty->t->schema, &ty->g->fields[i]);
        return TRUE;
      }
  return FALSE;
}

GPtrArray *
ab_topk_group_predicates (const AbTableDesc *t, const AbGroup *g, const gchar *text,
                          const gchar *what, GError **error)
{
  Typing ty = { t, g };
  return ab_predicates_parse_typed (text, FALSE, what, cell_field_type, &ty, error);
}

GPtrArray *
ab_topk_ranges (const AbTableDesc *t, const AbGroup *g, const AbTopk *k, GError **error)
{
  return ab_topk_group_predicates (t, g, k->constant_ranges, "ranges", error);
}

typedef struct {
  const AbGroup *g;
  const AbValue *values;
} CellView;

static const AbValue *
cell_lookup (const gchar *field, gpointer data)
{
  const CellView *cv = data;
  for (guint i = 0; i < cv->g->n_fields; i++)
    if (g_str_equal (cv->g->fields[i].name, field))
      return &cv->values[i];
  return NULL;
}

/* Decodes a group cell key: entity, direction, the qualifier's values, and
 * the offsets where each qualifier element ends. FALSE when it is not a cell
 * of g (a sibling, a malformed key). */
gboolean
ab_topk_decode_cell (const AbGroup *g, const guint8 *k, gsize len, AbValue *entity,
                     AbDirection *dir, AbValue *values, gsize *ends)
{
  AbKeyParts parts;
  gsize pos;
  gint8 d;
  gint32 code;
  if (!ab_codec_parse_key (k, len, &parts, NULL))
    return FALSE;
  pos = parts.rest;
  *entity = parts.source; /* moved */
  if (!ab_codec_get_int8 (k, len, &pos, &d, NULL)
      || !ab_codec_get_int32 (k, len, &pos, &code, NULL))
    return FALSE;
  *dir = (AbDirection) d;
  for (guint i = 0; i < g->n_fields; i++)
    {
      if (!ab_codec_get_value (k, len, &pos, &values[i], NULL, NULL))
        return FALSE;
      ends[i] = pos;
    }
  return pos == len;
}

static void
values_clear (AbValue *values, guint n)
{
  for (guint i = 0; i < n; i++)
    ab_value_clear (&values[i]);
}

/* Does a cell (values) count towards its entry's score under the ranges? */
static gboolean
cell_counts (const AbGroup *g, GPtrArray *ranges, const AbValue *values)
{
  CellView cv = { g, values };
  return ab_filters_match (ranges, cell_lookup, &cv);
}

gboolean
ab_topk_cell_matches (const AbGroup *g, GPtrArray *ranges, const AbValue *values)
{
  return cell_counts (g, ranges, values);
}

static gboolean
same_entry (const AbTopkEntry *e, const AbTopk *k, GBytes *cells)
{
  return e->topk == k && g_bytes_equal (e->cells, cells);
}

gboolean
ab_topk_entries_of_cell (const AbTableDesc *t, const guint8 *key, gsize len, gint64 now_ms,
                         GArray *entries, GError **error)
{
  AbRowType type;
  gint32 code;
  gsize row_len;
  if (!ab_codec_wide_parts (key, len, &type, &code, &row_len) || type != AB_ROW_GROUP)
    return TRUE;
  const AbGroup *g = ab_schema_group_by_code (t->schema, code);
  if (g == NULL || g->topks->len == 0)
    return TRUE;
  AbValue *values = g_new0 (AbValue, g->n_fields);
  gsize *ends = g_new0 (gsize, g->n_fields);
  AbValue entity = AB_VALUE_INIT;
  AbDirection dir;
  gboolean cell = ab_topk_decode_cell (g, key, len, &entity, &dir, values, ends);
  for (guint i = 0; cell && i < g->topks->len; i++)
    {
      const AbTopk *k = g->topks->pdata[i];
      g_autoptr (GPtrArray) ranges = ab_topk_ranges_at (t, g, k, now_ms, error);
      /* a relative window: every cell its constant ranges admit, since the
       * cell may enter or leave the window later */
      g_autoptr (GPtrArray) fixed
          = ranges != NULL && ab_topk_is_relative (k) ? ab_topk_ranges (t, g, k, error) : NULL;
      if (ranges == NULL || (ab_topk_is_relative (k) && fixed == NULL))
        {
          cell = FALSE;
          break;
        }
      if (!cell_counts (g, fixed != NULL ? fixed : ranges, values))
        continue; /* a cell no ranking of k counts (its segment is filtered out) */
      g_autoptr (GBytes) cells = g_bytes_new (key, ends[k->ranked]);
      gboolean seen = FALSE;
      for (guint e = 0; e < entries->len && !seen; e++)
        seen = same_entry (&g_array_index (entries, AbTopkEntry, e), k, cells);
      if (seen)
        continue;
      AbTopkEntry e
          = { .group = g, .topk = k, .cells = g_bytes_ref (cells), .dir = dir, .at = now_ms };
      ab_value_copy (&e.entity, &entity);
      e.n_values = k->ranked + 1;
      e.values = g_new0 (AbValue, e.n_values);
      for (guint f = 0; f < e.n_values; f++)
        ab_value_copy (&e.values[f], &values[f]);
      e.suffix = g_steal_pointer (&ranges);
      g_array_append_val (entries, e);
    }
  gboolean failed = error != NULL && *error != NULL;
  values_clear (values, g->n_fields);
  g_free (values);
  g_free (ends);
  ab_value_clear (&entity);
  return !failed;
}

gboolean
ab_topk_cell_value (const AbTopkEntry *e, const guint8 *key, gsize len, const guint8 *val,
                    gsize vlen, gint64 *out)
{
  const AbGroup *g = e->group;
  AbValue *values = g_new0 (AbValue, g->n_fields);
  gsize *ends = g_new0 (gsize, g->n_fields);
  AbValue entity = AB_VALUE_INIT;
  AbDirection dir;
  gboolean counts = vlen == 8 && ab_topk_decode_cell (g, key, len, &entity, &dir, values, ends)
                    && cell_counts (g, e->suffix, values);
  if (counts)
    *out = ab_codec_get_be64 (val);
  values_clear (values, g->n_fields);
  g_free (values);
  g_free (ends);
  ab_value_clear (&entity);
  return counts;
}

gboolean
ab_topk_score_window (AbStore *reader, const AbTopkEntry *e, AbTopkWindow *w, gint64 *score,
                      GError **error)
{
  gsize plen;
  const guint8 *p = g_bytes_get_data (e->cells, &plen);
  AbScanRange range;
  g_autoptr (GByteArray) stop = ab_codec_prefix_range (p, plen, &range);
  g_autoptr (GArray) rows = ab_kv_array_new ();
  GError *local = NULL;
  if (!ab_store_scan (reader, &range, rows, &local))
    return ab_engine_propagate (error, local), FALSE;
  *score = 0;
  for (guint i = 0; i < rows->len; i++)
    {
      AbKv *kv = &g_array_index (rows, AbKv, i);
      gsize kl, vl;
      const guint8 *k = g_bytes_get_data (kv->key, &kl);
      const guint8 *v = g_bytes_get_data (kv->value, &vl);
      gint64 x;
      if (ab_topk_cell_value (e, k, kl, v, vl, &x))
        *score += x;
      if (w != NULL && vl == 8 && ab_codec_get_be64 (v) != 0)
        ab_topk_window_note (w, k, kl);
    }
  return TRUE;
}

gboolean
ab_topk_score (AbStore *reader, const AbTopkEntry *e, gint64 *score, GError **error)
{
  return ab_topk_score_window (reader, e, NULL, score, error);
}

/* row(entity, dir, type, topk) || enc(segment values ASC) */
static GByteArray *
entry_row (const AbTableDesc *t, const AbTopkEntry *e, AbRowType type, GError **error)
{
  g_autoptr (GByteArray) key
      = ab_codec_wide_key (&e->entity, e->dir, t->code, type, e->topk->code, error);
  for (guint i = 0; key != NULL && i < e->topk->ranked; i++)
    if (!ab_codec_put_value (key, &e->values[i], AB_ORDER_ASC, error))
      return NULL;
  return g_steal_pointer (&key);
}

GByteArray *
ab_topk_rank_prefix (const AbTableDesc *t, const AbTopkEntry *e, GError **error)
{
  return entry_row (t, e, AB_ROW_TOPK_RANK, error);
}

GByteArray *
ab_topk_rank_key (const AbTableDesc *t, const AbTopkEntry *e, gint64 score, GError **error)
{
  g_autoptr (GByteArray) key = entry_row (t, e, AB_ROW_TOPK_RANK, error);
  if (key == NULL)
    return NULL;
  ab_codec_put_int64 (key, score, AB_ORDER_DESC);
  if (!ab_codec_put_value (key, &e->values[e->topk->ranked], AB_ORDER_ASC, error))
    return NULL;
  return g_steal_pointer (&key);
}

GByteArray *
ab_topk_score_key (const AbTableDesc *t, const AbTopkEntry *e, GError **error)
{
  g_autoptr (GByteArray) key = entry_row (t, e, AB_ROW_TOPK_SCORE, error);
  if (key == NULL || !ab_codec_put_value (key, &e->values[e->topk->ranked], AB_ORDER_ASC, error))
    return NULL;
  return g_steal_pointer (&key);
}

void
ab_topk_value (guint8 out[16], gint64 score, gint64 now_ms)
{
  ab_codec_put_be64 (out, score);
  ab_codec_put_be64 (out + 8, now_ms);
}

/* Appends a mutation of key (freed) to out, with a copy of the value. */
static void
batch_take (AbBatch *out, AbMutationKind kind, GBytes *key, const guint8 *val, gsize vlen)
{
  gsize klen;
  const guint8 *k = g_bytes_get_data (key, &klen);
  if (kind == AB_MUT_PUT)
    ab_batch_put (out, k, klen, val, vlen);
  else
    ab_batch_delete (out, k, klen);
  g_bytes_unref (key);
}

/* The rank key of an entry at `score`: prefix (its rank prefix) ||
 * encD(score) || ranked (enc(ranked value ASC)). */
static GBytes *
rank_key_of (const GByteArray *prefix, gint64 score, const GByteArray *ranked)
{
  GByteArray *key = g_byte_array_sized_new (prefix->len + 9 + ranked->len);
  g_byte_array_append (key, prefix->data, prefix->len);
  ab_codec_put_int64 (key, score, AB_ORDER_DESC);
  g_byte_array_append (key, ranked->data, ranked->len);
  return g_byte_array_free_to_bytes (key);
}

/* Moves e's rank row from `before` (when it had one) to `score`, and puts or
 * deletes its score row sk (NULL: a cell entry, which has none). */
static gboolean
write_entry_at (const AbTableDesc *t, const AbTopkEntry *e, GBytes *sk, gboolean had, gint64 before,
                gint64 score, gint64 now_ms, AbBatch *out, GError **error)
{
  if ((had && before == score) || (!had && score == 0))
    return TRUE;
  g_autoptr (GByteArray) prefix = entry_row (t, e, AB_ROW_TOPK_RANK, error);
  g_autoptr (GByteArray) ranked = g_byte_array_sized_new (16);
  if (prefix == NULL
      || !ab_codec_put_value (ranked, &e->values[e->topk->ranked], AB_ORDER_ASC, error))
    return FALSE;
  if (had)
    batch_take (out, AB_MUT_DELETE, rank_key_of (prefix, before, ranked), NULL, 0);
  if (score == 0)
    {
      if (sk != NULL)
        batch_take (out, AB_MUT_DELETE, g_bytes_ref (sk), NULL, 0);
      return TRUE;
    }
  guint8 v[16];
  ab_topk_value (v, score, now_ms);
  batch_take (out, AB_MUT_PUT, rank_key_of (prefix, score, ranked), v, sizeof v);
  if (sk != NULL)
    batch_take (out, AB_MUT_PUT, g_bytes_ref (sk), v, sizeof v);
  return TRUE;
}

gboolean
ab_topk_write_entry (const AbTableDesc *t, const AbTopkEntry *e, GBytes *old, gint64 score,
                     gint64 now_ms, AbBatch *out, GError **error)
{
  gboolean had = old != NULL && g_bytes_get_size (old) >= 8;
  gint64 before = had ? ab_codec_get_be64 (g_bytes_get_data (old, NULL)) : 0;
  if ((had && before == score) || (!had && score == 0))
    return TRUE;
  g_autoptr (GBytes) key = NULL;
  if (!ab_topk_entry_is_cell (e))
    {
      GByteArray *sk = ab_topk_score_key (t, e, error);
      if (sk == NULL)
        return FALSE;
      key = g_byte_array_free_to_bytes (sk);
    }
  return write_entry_at (t, e, key, had, before, score, now_ms, out, error);
}

const AbTopk *
ab_topk_by_code (const AbTableDesc *t, gint32 code, const AbGroup **group)
{
  for (guint i = 0; i < t->schema->group_defs->len; i++)
    {
      const AbGroup *g = t->schema->group_defs->pdata[i];
      for (guint j = 0; j < g->topks->len; j++)
        if (((const AbTopk *) g->topks->pdata[j])->code == code)
          {
            *group = g;
            return g->topks->pdata[j];
          }
    }
  return NULL;
}

/* The entry's cells prefix: its group row || encD(segment and ranked values),
 * the qualifier elements of its cells (as the write path encodes them). */
static GBytes *
entry_cells (const AbTableDesc *t, const AbTopkEntry *e, GError **error)
{
  g_autoptr (GByteArray) key = ab_engine_group_row (t, e->group, &e->entity, e->dir, error);
  for (guint i = 0; key != NULL && i < e->n_values; i++)
    if (!ab_codec_put_value (key, &e->values[i], AB_ORDER_DESC, error))
      return NULL;
  return key != NULL ? g_byte_array_free_to_bytes (g_steal_pointer (&key)) : NULL;
}

gboolean
ab_topk_entry_of_row (const AbTableDesc *t, const guint8 *key, gsize len, gint64 now_ms,
                      AbTopkEntry *e, gint64 *rank_score)
{
  gsize pos = 4;
  gint32 table, code;
  gint8 type, dir;
  gint64 score = 0;
  gboolean ok;
  memset (e, 0, sizeof *e);
  e->entity.kind = AB_VALUE_NULL;
  ok = len > 4 && ab_codec_get_value (key, len, &pos, &e->entity, NULL, NULL)
       && ab_codec_get_int32 (key, len, &pos, &table, NULL) && table == t->code
       && ab_codec_get_int8 (key, len, &pos, &type, NULL)
       && (type == AB_ROW_TOPK_RANK || type == AB_ROW_TOPK_SCORE)
       && ab_codec_get_int8 (key, len, &pos, &dir, NULL) && (dir == AB_DIR_OUT || dir == AB_DIR_IN)
       && ab_codec_get_int32 (key, len, &pos, &code, NULL)
       && (e->topk = ab_topk_by_code (t, code, &e->group)) != NULL;
  if (ok)
    {
      e->at = now_ms;
      e->dir = (AbDirection) dir;
      e->n_values = e->topk->ranked + 1;
      e->values = g_new0 (AbValue, e->n_values);
    }
  for (guint i = 0; ok && i < e->topk->ranked; i++)
    ok = ab_codec_get_value (key, len, &pos, &e->values[i], NULL, NULL);
  if (ok && type == AB_ROW_TOPK_RANK)
    {
      AbValue s = AB_VALUE_INIT;
      ok = ab_codec_get_value (key, len, &pos, &s, NULL, NULL) && s.kind == AB_VALUE_INT64;
      score = ok ? s.u.i : 0;
      ab_value_clear (&s);
    }
  ok = ok && ab_codec_get_value (key, len, &pos, &e->values[e->topk->ranked], NULL, NULL)
       && pos == len && (e->suffix = ab_topk_ranges_at (t, e->group, e->topk, now_ms, NULL)) != NULL
       && (e->cells = entry_cells (t, e, NULL)) != NULL;
  if (!ok)
    ab_topk_entry_clear (e);
  else if (rank_score != NULL)
    *rank_score = score;
  return ok;
}

gboolean
ab_topk_rescore_entry (AbStore *reader, const AbTableDesc *t, const AbTopkEntry *e, GBytes *old,
                       gint64 *score, AbBatch *out, GError **error)
{
  gboolean had = old != NULL && g_bytes_get_size (old) >= 8;
  gint64 before = had ? ab_codec_get_be64 (g_bytes_get_data (old, NULL)) : 0;
  g_autoptr (AbTopkWindow) w = ab_topk_window_new (t, e);
  if (!ab_topk_score_window (reader, e, w, score, error)
      || !ab_topk_write_entry (t, e, old, *score, e->at, out, error))
    return FALSE;
  if (w != NULL && !ab_topk_put_due (t, e, ab_topk_window_next (w), out, error))
    return FALSE;
  if (had && before == *score && *score != 0)
    return ab_topk_write_entry (t, e, NULL, *score, e->at, out, error);
  if (old != NULL && *score == 0 && before == 0)
    {
      /* a malformed or zero score row, which the move above leaves */
      g_autoptr (GByteArray) sk = ab_topk_score_key (t, e, error);
      if (sk == NULL)
        return FALSE;
      ab_batch_delete (out, sk->data, sk->len);
    }
  return TRUE;
}

/* ---- the write path's plan ---- */

/* One top-K met in a batch: its ranges resolved at now and, for a relative
 * window, its constant ranges (any cell they admit may enter the window).
 * `bad`: the window falls outside the calendar (no entries of it). */
typedef struct {
  GPtrArray *ranges;
  GPtrArray *fixed;
  gboolean bad;
} PlanTopk;

static void
plan_topk_free (PlanTopk *pt)
{
  if (pt->ranges != NULL)
    g_ptr_array_unref (pt->ranges);
  if (pt->fixed != NULL)
    g_ptr_array_unref (pt->fixed);
  g_free (pt);
}

/* The batch's cells under one entry's prefix (its top-K and cells, the
 * first bytes of a cell key the batch holds): folded once, whatever their
 * number and order. */
typedef struct {
  const AbTopk *k;
  const guint8 *cells;
  gsize len;
  guint hash;
  gint entry;    /* index of its entry, -1 until a cell its ranges admit is met */
  gint64 delta;  /* the increments of the cells that count now */
  GArray *noted; /* relative windows: every cell under the prefix (indexes) */
} PlanSlot;

static guint
slot_hash (gconstpointer p)
{
  return ((const PlanSlot *) p)->hash;
}

static gboolean
slot_equal (gconstpointer a, gconstpointer b)
{
  const PlanSlot *x = a, *y = b;
  return x->k == y->k && x->len == y->len && memcmp (x->cells, y->cells, x->len) == 0;
}

static void
slot_free (PlanSlot *s)
{
  if (s->noted != NULL)
    g_array_unref (s->noted);
  g_free (s);
}

typedef struct {
  const AbTableDesc *t;
  gint64 now;
  GHashTable *topks; /* AbTopk* -> PlanTopk* */
  GHashTable *slots; /* PlanSlot*, a set */
  GArray *entries;   /* AbTopkEntry, in the order their first admitting cell came */
  GPtrArray *of;     /* PlanSlot* of each entry */
} Plan;

/* The ranges of k at the plan's now, computed once per batch; NULL (error
 * set) when they cannot be parsed. */
static PlanTopk *
plan_topk (Plan *pl, const AbGroup *g, const AbTopk *k, GError **error)
{
  PlanTopk *pt = g_hash_table_lookup (pl->topks, k);
  if (pt != NULL)
    return pt;
  pt = g_new0 (PlanTopk, 1);
  GError *local = NULL;
  pt->ranges = ab_topk_ranges_at (pl->t, g, k, pl->now, &local);
  if (pt->ranges != NULL && ab_topk_is_relative (k))
    pt->fixed = ab_topk_ranges (pl->t, g, k, &local);
  pt->bad = pt->ranges == NULL || (ab_topk_is_relative (k) && pt->fixed == NULL);
  if (local != NULL)
    {
      plan_topk_free (pt);
      g_propagate_error (error, local);
      return NULL;
    }
  g_hash_table_insert (pl->topks, (gpointer) k, pt);
  return pt;
}

/* Folds cell i (key, its increment delta) into the slots of the entries it
 * belongs to, creating an entry at the first cell its ranges admit: the
 * entries and sums ab_topk_entries_of_cell and a scan of the batch give. */
static gboolean
plan_cell (Plan *pl, guint i, const guint8 *key, gsize len, const gint64 *delta, GError **error)
{
  AbRowType type;
  gint32 code;
  gsize row_len;
  if (!ab_codec_wide_parts (key, len, &type, &code, &row_len) || type != AB_ROW_GROUP)
    return TRUE;
  const AbGroup *g = ab_schema_group_by_code (pl->t->schema, code);
  if (g == NULL || g->topks->len == 0)
    return TRUE;
  AbValue *values = g_newa (AbValue, g->n_fields);
  gsize *ends = g_newa (gsize, g->n_fields);
  memset (values, 0, sizeof (AbValue) * g->n_fields);
  AbValue entity = AB_VALUE_INIT;
  AbDirection dir;
  gboolean ok = TRUE;
  gboolean cell = ab_topk_decode_cell (g, key, len, &entity, &dir, values, ends);
  for (guint j = 0; cell && j < g->topks->len; j++)
    {
      const AbTopk *k = g->topks->pdata[j];
      PlanTopk *pt = plan_topk (pl, g, k, error);
      if (pt == NULL)
        {
          ok = FALSE;
          break;
        }
      if (pt->bad)
        break;
      PlanSlot probe = { .k = k, .cells = key, .len = ends[k->ranked] };
      probe.hash = g_direct_hash (k);
      for (gsize b = 0; b < probe.len; b++)
        probe.hash = probe.hash * 31 + key[b];
      PlanSlot *s = g_hash_table_lookup (pl->slots, &probe);
      if (s == NULL)
        {
          s = g_memdup2 (&probe, sizeof probe);
          s->entry = -1;
          if (ab_topk_is_relative (k))
            s->noted = g_array_new (FALSE, FALSE, sizeof (guint));
          g_hash_table_add (pl->slots, s);
        }
      if (s->noted != NULL)
        g_array_append_val (s->noted, i);
      if (delta != NULL && cell_counts (g, pt->ranges, values))
        s->delta += *delta;
      if (s->entry >= 0 || !cell_counts (g, pt->fixed != NULL ? pt->fixed : pt->ranges, values))
        continue;
      AbTopkEntry e = { .group = g,
                        .topk = k,
                        .cells = g_bytes_new (s->cells, s->len),
                        .dir = dir,
                        .at = pl->now,
                        .suffix = g_ptr_array_ref (pt->ranges) };
      ab_value_copy (&e.entity, &entity);
      e.n_values = k->ranked + 1;
      e.values = g_new0 (AbValue, e.n_values);
      for (guint f = 0; f < e.n_values; f++)
        ab_value_copy (&e.values[f], &values[f]);
      s->entry = (gint) pl->entries->len;
      g_array_append_val (pl->entries, e);
      g_ptr_array_add (pl->of, s);
    }
  values_clear (values, g->n_fields);
  ab_value_clear (&entity);
  return ok;
}

/* The scores the entries start from. With `was` (inside the write
 * transaction: was[i] the stored score row of entry i, or NULL) a stored
 * score is the sum of the entry's cells, and this request's share is added
 * to it rather than summing them again. Otherwise (after HBase's batch, a
 * cell entry, or no score row yet) the cells are summed: an entry whose
 * prefix is a whole cell key (no field after the ranked one) has that one
 * cell, read with the others in one multi-get; the others are scanned. A
 * relative window counts only the cells inside it now. */
static gboolean
stored_scores (AbStore *reader, GArray *entries, GBytes *const *was, gint64 *scores, GError **error)
{
  g_autoptr (GPtrArray) cells = g_ptr_array_new ();
  g_autoptr (GArray) which = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < entries->len; i++)
    {
      const AbTopkEntry *e = &g_array_index (entries, AbTopkEntry, i);
      GBytes *row = was != NULL ? was[i] : NULL;
      if (row != NULL && g_bytes_get_size (row) >= 8)
        scores[i] = ab_codec_get_be64 (g_bytes_get_data (row, NULL));
      else if (e->n_values == e->group->n_fields)
        {
          g_ptr_array_add (cells, e->cells);
          g_array_append_val (which, i);
        }
      else if (!ab_topk_score (reader, e, &scores[i], error))
        return FALSE;
    }
  if (cells->len == 0)
    return TRUE;
  g_autoptr (GArray) rows = ab_kv_array_new ();
  GError *local = NULL;
  if (!ab_store_multi_get_shared (reader, cells, rows, &local))
    return ab_engine_propagate (error, local), FALSE;
  for (guint j = 0; j < which->len; j++)
    {
      guint i = g_array_index (which, guint, j);
      const AbKv *kv = &g_array_index (rows, AbKv, j);
      gsize kl, vl;
      const guint8 *k = g_bytes_get_data (cells->pdata[j], &kl);
      const guint8 *v = kv->value != NULL ? g_bytes_get_data (kv->value, &vl) : NULL;
      gint64 x;
      scores[i] = 0;
      if (v != NULL
          && ab_topk_cell_value (&g_array_index (entries, AbTopkEntry, i), k, kl, v, vl, &x))
        scores[i] = x;
    }
  return TRUE;
}

static void
bytes_unref0 (gpointer p)
{
  if (p != NULL)
    g_bytes_unref (p);
}

/* The score rows of the entries that have one: keys[i] (NULL for a cell
 * entry) and, read through reader, was[i] (NULL when absent). */
static gboolean
score_rows (AbStore *reader, const AbTableDesc *t, GArray *entries, GPtrArray *keys, GBytes **was,
            GError **error)
{
  g_autoptr (GPtrArray) wanted = g_ptr_array_new ();
  for (guint i = 0; i < entries->len; i++)
    {
      const AbTopkEntry *e = &g_array_index (entries, AbTopkEntry, i);
      gboolean cell = ab_topk_entry_is_cell (e);
      GByteArray *sk = cell ? NULL : ab_topk_score_key (t, e, error);
      if (!cell && sk == NULL)
        return FALSE;
      GBytes *key = sk != NULL ? g_byte_array_free_to_bytes (sk) : NULL;
      g_ptr_array_add (keys, key);
      if (key != NULL)
        g_ptr_array_add (wanted, key);
    }
  if (wanted->len == 0)
    return TRUE;
  g_autoptr (GArray) old = ab_kv_array_new ();
  GError *local = NULL;
  if (!ab_store_multi_get_shared (reader, wanted, old, &local))
    return ab_engine_propagate (error, local), FALSE;
  for (guint i = 0, j = 0; i < entries->len; i++)
    if (keys->pdata[i] != NULL)
      {
        GBytes *v = g_array_index (old, AbKv, j++).value;
        was[i] = v != NULL ? g_bytes_ref (v) : NULL;
      }
  return TRUE;
}

gboolean
ab_engine_topk_plan (AbEngine *engine, AbStore *reader, const AbTableDesc *t, GPtrArray *cells,
                     GArray *deltas, gboolean applied, AbBatch *out, GError **error)
{
  if (!ab_topk_has_any (t))
    return TRUE;
  Plan pl = { .t = t, .now = ab_engine_now_ms (engine) };
  g_autoptr (GHashTable) topks = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                        (GDestroyNotify) plan_topk_free);
  g_autoptr (GHashTable) slots
      = g_hash_table_new_full (slot_hash, slot_equal, (GDestroyNotify) slot_free, NULL);
  g_autoptr (GArray) entries = ab_topk_entry_array_new ();
  g_autoptr (GPtrArray) of = g_ptr_array_new ();
  pl.topks = topks, pl.slots = slots, pl.entries = entries, pl.of = of;
  for (guint i = 0; i < cells->len; i++)
    {
      gsize kl;
      const guint8 *k = g_bytes_get_data (cells->pdata[i], &kl);
      if (!plan_cell (&pl, i, k, kl, deltas != NULL ? &g_array_index (deltas, gint64, i) : NULL,
                      error))
        return FALSE;
    }
  guint n = entries->len;
  if (n == 0)
    return TRUE;
  g_autoptr (GPtrArray) keys = g_ptr_array_new_full (n, bytes_unref0);
  GBytes **was = g_new0 (GBytes *, n);
  g_autofree gint64 *scores = g_new0 (gint64, n);
  gboolean ok = score_rows (reader, t, entries, keys, was, error)
                && stored_scores (reader, entries, applied ? NULL : was, scores, error);
  for (guint i = 0; ok && i < n; i++)
    {
      AbTopkEntry *e = &g_array_index (entries, AbTopkEntry, i);
      const PlanSlot *s = of->pdata[i];
      gboolean had = was[i] != NULL && g_bytes_get_size (was[i]) >= 8;
      gint64 before = had ? ab_codec_get_be64 (g_bytes_get_data (was[i], NULL)) : 0;
      gint64 score = scores[i] + (applied ? 0 : s->delta);
      if (ab_topk_entry_is_cell (e))
        {
          /* the cell is the score: its rank row is at the cell's old value */
          before = applied ? scores[i] - s->delta : scores[i];
          had = before != 0;
        }
      g_autoptr (AbTopkWindow) w = ab_topk_window_new (t, e);
      for (guint c = 0; w != NULL && c < s->noted->len; c++)
        {
          gsize kl;
          const guint8 *k
              = g_bytes_get_data (cells->pdata[g_array_index (s->noted, guint, c)], &kl);
          ab_topk_window_note (w, k, kl);
        }
      ok = write_entry_at (t, e, keys->pdata[i], had, before, score, pl.now, out, error);
      gint64 next = ok && w != NULL ? ab_topk_window_next (w) : G_MAXINT64;
      if (next != G_MAXINT64)
        {
          gsize sl;
          const guint8 *sk = g_bytes_get_data (keys->pdata[i], &sl);
          guint8 v[8];
          ab_codec_put_be64 (v, next);
          g_autoptr (GByteArray) due = ab_topk_due_key_of (sk, sl, next);
          ab_batch_put (out, due->data, due->len, v, sizeof v);
        }
    }
  for (guint i = 0; i < n; i++)
    bytes_unref0 (was[i]);
  g_free (was);
  return ok;
}
