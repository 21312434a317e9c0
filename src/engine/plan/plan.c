/* The record plan of one key (docs/data-model.md §4-§5): from the before and after
 * states, the status and the State put (or delete, after a purge), Index
 * puts/deletes per index and direction, Count increments and the Group/Cache
 * cells (groups.c), appended to one store batch. */
#include <string.h>
#include "engine/plan/plan.h"

guint
ab_engine_directions (const AbTableDesc *t, AbDirection dirs[2])
{
  switch (t->schema->direction)
    {
      case AB_DIRTYPE_OUT: dirs[0] = AB_DIR_OUT; return 1;
      case AB_DIRTYPE_IN: dirs[0] = AB_DIR_IN; return 1;
      case AB_DIRTYPE_BOTH: break;
    }
  dirs[0] = AB_DIR_OUT;
  dirs[1] = AB_DIR_IN;
  return 2;
}

static const AbValue *
slot_value (const AbTableDesc *t, const AbState *st, const gchar *name)
{
  gint pos = ab_schema_field_pos (t->schema, name);
  if (pos < 0 || st->slots[pos].kind != AB_SLOT_VALUE || ab_value_is_null (&st->slots[pos].value))
    return NULL;
  return &st->slots[pos].value;
}

gboolean
ab_engine_directed (const AbTableDesc *t, const AbValue *source, const AbValue *target,
                    const AbState *st, AbDirection dir, const AbValue **dsrc, const AbValue **dtgt)
{
  if (t->schema->kind == AB_TABLE_MULTI_EDGE)
    {
      *dsrc = slot_value (t, st, dir == AB_DIR_OUT ? "_source" : "_target");
      *dtgt = source; /* the id */
      return *dsrc != NULL;
    }
  *dsrc = dir == AB_DIR_OUT ? source : target;
  *dtgt = dir == AB_DIR_OUT ? target : source;
  return TRUE;
}

/* Index/group/cache field value: a property, or a system field (v3 or v2
 * spelling); null when absent. */
gboolean
ab_engine_field_value (const AbTableDesc *t, const gchar *name, const AbValue *source,
                       const AbValue *target, const AbState *st, AbValue *out)
{
  if (g_str_equal (name, "version") || g_str_equal (name, "ts"))
    {
      ab_value_set_int (out, AB_VALUE_INT64, st->meta.version);
      return TRUE;
    }
  gboolean multi = t->schema->kind == AB_TABLE_MULTI_EDGE;
  const AbValue *v = NULL;
  if (g_str_equal (name, "source") || g_str_equal (name, "src"))
    v = multi ? slot_value (t, st, "_source") : source;
  else if (g_str_equal (name, "target") || g_str_equal (name, "tgt"))
    v = multi ? slot_value (t, st, "_target") : target;
  else
    v = slot_value (t, st, name);
  if (v != NULL)
    ab_value_copy (out, v);
  return TRUE;
}

gboolean
ab_engine_index_key_buf (const AbTableDesc *t, const AbIndex *idx, const AbValue *source,
                         const AbValue *target, const AbState *st, AbDirection dir, AbBuf *out,
                         GError **error)
{
  const AbValue *dsrc, *dtgt;
  if (!ab_engine_directed (t, source, target, st, dir, &dsrc, &dtgt))
    return TRUE;
  /* most indexes have a few fields: no allocation for those */
  AbValue few_values[4] = { AB_VALUE_INIT, AB_VALUE_INIT, AB_VALUE_INIT, AB_VALUE_INIT };
  AbOrder few_orders[4];
  gboolean few = idx->n_fields <= G_N_ELEMENTS (few_values);
  AbValue *values = few ? few_values : g_new0 (AbValue, idx->n_fields);
  AbOrder *orders = few ? few_orders : g_new0 (AbOrder, idx->n_fields);
  for (guint i = 0; i < idx->n_fields; i++)
    {
      ab_engine_field_value (t, idx->fields[i].field, source, target, st, &values[i]);
      orders[i] = idx->fields[i].order;
    }
  gboolean ok = ab_key_index (out, dsrc, dir, t->code, idx->code, values, orders, idx->n_fields,
                              dtgt, error);
  for (guint i = 0; i < idx->n_fields; i++)
    ab_value_clear (&values[i]);
  if (!few)
    {
      g_free (values);
      g_free (orders);
    }
  return ok;
}

GByteArray *
ab_engine_index_key (const AbTableDesc *t, const AbIndex *idx, const AbValue *source,
                     const AbValue *target, const AbState *st, AbDirection dir, GError **error)
{
  g_auto (AbBuf) b;
  ab_buf_init (&b);
  if (!ab_engine_index_key_buf (t, idx, source, target, st, dir, &b, error) || b.len == 0)
    return NULL;
  return ab_buf_to_array (&b);
}

gboolean
ab_engine_index_value_buf (const AbTableDesc *t, const AbState *st, AbBuf *out, GError **error)
{
  static const AbValue null_value = AB_VALUE_INIT;
  gsize start = out->len;
  ab_buf_put_int64 (out, st->meta.version, AB_ORDER_ASC);
  for (guint f = 0; f < st->n; f++)
    {
      if (st->slots[f].kind == AB_SLOT_ABSENT)
        continue;
      const AbField *field = t->schema->fields->pdata[f];
      const AbValue *v = st->slots[f].kind == AB_SLOT_VALUE ? &st->slots[f].value : &null_value;
      if (!ab_buf_index_cell (out, field->code, v, error))
        {
          out->len = start;
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
ab_engine_index_value (const AbTableDesc *t, const AbState *st, GByteArray *out, GError **error)
{
  AbBuf b;
  ab_buf_init (&b);
  return ab_buf_flush_to (&b, out, ab_engine_index_value_buf (t, st, &b, error));
}

/* All index keys of an active state, end to end in one buffer (most states
 * have a few: no allocation for those). */
typedef struct {
  AbBuf bytes;
  guint n;
  gsize *ends; /* ends[i]: where key i stops in bytes */
  gsize few[8];
} IndexKeys;

static void
index_keys_clear (IndexKeys *k)
{
  ab_buf_clear (&k->bytes);
  if (k->ends != k->few)
    g_free (k->ends);
  k->ends = k->few;
  k->n = 0;
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (IndexKeys, index_keys_clear)

static const guint8 *
index_key (const IndexKeys *k, guint i, gsize *len)
{
  gsize start = i > 0 ? k->ends[i - 1] : 0;
  *len = k->ends[i] - start;
  return k->bytes.data + start;
}

/* keys (initialised) gets st's index keys, none when st is not active. */
static gboolean
index_keys (const AbTableDesc *t, const AbValue *source, const AbValue *target, const AbState *st,
            IndexKeys *keys, GError **error)
{
  AbDirection dirs[2];
  guint nd = ab_engine_directions (t, dirs);
  guint max = t->schema->indexes->len * nd;
  ab_buf_init (&keys->bytes);
  keys->n = 0;
  keys->ends = max <= G_N_ELEMENTS (keys->few) ? keys->few : g_new (gsize, max);
  if (!st->meta.active)
    return TRUE;
  for (guint i = 0; i < t->schema->indexes->len; i++)
    for (guint d = 0; d < nd; d++)
      {
        gsize before = keys->bytes.len;
        if (!ab_engine_index_key_buf (t, t->schema->indexes->pdata[i], source, target, st, dirs[d],
                                      &keys->bytes, error))
          return FALSE;
        if (keys->bytes.len > before)
          keys->ends[keys->n++] = keys->bytes.len;
      }
  return TRUE;
}

static gboolean
contains_key (const IndexKeys *keys, const guint8 *k, gsize klen)
{
  for (guint i = 0; i < keys->n; i++)
    {
      gsize len;
      const guint8 *at = index_key (keys, i, &len);
      if (len == klen && memcmp (at, k, len) == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
count_delta (const AbTableDesc *t, const AbValue *source, const AbValue *target, const AbState *st,
             gint64 delta, AbBatch *batch, GError **error)
{
  AbDirection dirs[2];
  guint nd = ab_engine_directions (t, dirs);
  g_auto (AbBuf) b;
  ab_buf_init (&b);
  for (guint d = 0; d < nd; d++)
    {
      const AbValue *dsrc, *dtgt;
      if (!ab_engine_directed (t, source, target, st, dirs[d], &dsrc, &dtgt))
        continue;
      b.len = 0;
      if (!ab_key_count (&b, dsrc, dirs[d], t->code, error))
        return FALSE;
      ab_batch_add (batch, b.data, b.len, delta);
    }
  return TRUE;
}

static gboolean
put_indexes (const AbTableDesc *t, const IndexKeys *keys, const AbState *after, AbBatch *batch,
             GError **error)
{
  if (keys->n == 0)
    return TRUE;
  g_auto (AbBuf) value;
  ab_buf_init (&value);
  if (!ab_engine_index_value_buf (t, after, &value, error))
    return FALSE;
  for (guint i = 0; i < keys->n; i++)
    {
      gsize klen;
      const guint8 *k = index_key (keys, i, &klen);
      ab_batch_put (batch, k, klen, value.data, value.len);
    }
  return TRUE;
}

/* Counts move only when the directed source changes (multi-edge endpoints). */
static gboolean
count_moves (const AbTableDesc *t, const AbValue *s, const AbValue *tg, const AbState *before,
             const AbState *after, AbBatch *batch, GError **error)
{
  AbDirection dirs[2];
  guint nd = ab_engine_directions (t, dirs);
  for (guint d = 0; d < nd; d++)
    {
      const AbValue *b, *a, *ignore;
      gboolean hb = ab_engine_directed (t, s, tg, before, dirs[d], &b, &ignore);
      gboolean ha = ab_engine_directed (t, s, tg, after, dirs[d], &a, &ignore);
      if (hb && ha && ab_value_equal (a, b))
        continue;
      g_auto (AbBuf) kb;
      g_auto (AbBuf) ka;
      ab_buf_init (&kb);
      ab_buf_init (&ka);
      if ((hb && !ab_key_count (&kb, b, dirs[d], t->code, error))
          || (ha && !ab_key_count (&ka, a, dirs[d], t->code, error)))
        return FALSE;
      if (hb)
        ab_batch_add (batch, kb.data, kb.len, -1);
      if (ha)
        ab_batch_add (batch, ka.data, ka.len, 1);
    }
  return TRUE;
}

static gboolean
plan_rows (const AbTableDesc *t, const AbValue *s, const AbValue *tg, const AbState *before,
           const AbState *after, AbKeyStatus status, AbBatch *batch, GError **error)
{
  g_auto (IndexKeys) old_keys = { .n = 0 };
  g_auto (IndexKeys) new_keys = { .n = 0 };
  if (!index_keys (t, s, tg, before, &old_keys, error)
      || !index_keys (t, s, tg, after, &new_keys, error)
      || !put_indexes (t, &new_keys, after, batch, error))
    return FALSE;
  if (status == AB_STATUS_CREATED && !count_delta (t, s, tg, after, 1, batch, error))
    return FALSE;
  if (status == AB_STATUS_DELETED && !count_delta (t, s, tg, before, -1, batch, error))
    return FALSE;
  if (status == AB_STATUS_UPDATED && !count_moves (t, s, tg, before, after, batch, error))
    return FALSE;
  for (guint i = 0; i < old_keys.n; i++)
    {
      gsize klen;
      const guint8 *k = index_key (&old_keys, i, &klen);
      if (!contains_key (&new_keys, k, klen))
        ab_batch_delete (batch, k, klen);
    }
  if (t->schema->kind == AB_TABLE_IMMUTABLE_EDGE)
    return TRUE; /* Index rows only */
  return ab_engine_plan_wide (t, s, tg, before, after, batch, error);
}

/* after is the initial state, which only a PURGE folds to (docs/data-model.md
 * §2.5): no State row (none to delete: IDLE, nothing written); an active
 * edge's other rows go as for a DELETE. */
static AbKeyStatus
plan_purge (const AbTableDesc *t, const AbValue *source, const AbValue *target,
            const AbState *before, const AbState *after, const AbBuf *skey, AbBatch *batch,
            GError **error)
{
  if (ab_state_is_initial (before))
    return AB_STATUS_IDLE;
  ab_batch_delete (batch, skey->data, skey->len);
  if (before->meta.active && t->schema->kind != AB_TABLE_VERTEX
      && !plan_rows (t, source, target, before, after, AB_STATUS_DELETED, batch, error))
    return AB_STATUS_ERROR;
  return AB_STATUS_DELETED;
}

AbKeyStatus
ab_engine_plan (const AbTableDesc *t, const AbValue *source, const AbValue *target,
                const AbState *before, const AbState *after, AbBatch *batch, GError **error)
{
  gboolean multi = t->schema->kind == AB_TABLE_MULTI_EDGE;
  const AbValue *ktarget = multi ? source : target;
  g_auto (AbBuf) skey;
  g_auto (AbBuf) bval;
  g_auto (AbBuf) aval;
  ab_buf_init (&skey);
  ab_buf_init (&bval);
  ab_buf_init (&aval);
  if (!ab_key_state (&skey, source, ktarget, t->code, error))
    return AB_STATUS_ERROR;
  if (ab_state_is_initial (after))
    return plan_purge (t, source, target, before, after, &skey, batch, error);
  if (!ab_state_encode_buf (t->schema, after, &aval, error))
    return AB_STATUS_ERROR;
  gboolean initial = ab_state_is_initial (before);
  if (!initial && !ab_state_encode_buf (t->schema, before, &bval, error))
    return AB_STATUS_ERROR;
  gboolean same = !initial && bval.len == aval.len && memcmp (bval.data, aval.data, aval.len) == 0;
  ab_batch_put (batch, skey.data, skey.len, aval.data, aval.len);
  AbKeyStatus status = AB_STATUS_IDLE;
  if (!same && !before->meta.active && after->meta.active)
    status = AB_STATUS_CREATED;
  else if (!same && before->meta.active && !after->meta.active)
    status = AB_STATUS_DELETED;
  else if (!same && before->meta.active && after->meta.active)
    status = AB_STATUS_UPDATED;
  if (status != AB_STATUS_IDLE && t->schema->kind != AB_TABLE_VERTEX
      && !plan_rows (t, source, target, before, after, status, batch, error))
    return AB_STATUS_ERROR;
  return status;
}
