/* The record plan of one key (docs/data-model.md §4-§5): from the before and after
 * states, the status and the State put, Index puts/deletes per index and
 * direction, Count increments and the Group/Cache cells (groups.c), appended
 * to one store batch. */
#include <string.h>
#include "engine/wide.h"

/* Appends a row to batch, taking key's (and value's) bytes instead of
 * copying them; value NULL: an increment by delta. */
static void
batch_take (AbBatch *batch, GByteArray *key, GBytes *value, gint64 delta)
{
  AbMutation m = { .kind = value != NULL ? AB_MUT_PUT : AB_MUT_INCREMENT, .delta = delta };
  m.key = g_byte_array_free_to_bytes (key);
  m.value = value;
  g_array_append_val (batch->items, m);
}

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
      ab_value_set_int (out, AB_VALUE_INT64, st->version);
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

GByteArray *
ab_engine_index_key (const AbTableDesc *t, const AbIndex *idx, const AbValue *source,
                     const AbValue *target, const AbState *st, AbDirection dir, GError **error)
{
  const AbValue *dsrc, *dtgt;
  if (!ab_engine_directed (t, source, target, st, dir, &dsrc, &dtgt))
    return NULL;
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
  GByteArray *key = ab_codec_index_key (dsrc, dir, t->code, idx->code, values, orders,
                                        idx->n_fields, dtgt, error);
  for (guint i = 0; i < idx->n_fields; i++)
    ab_value_clear (&values[i]);
  if (!few)
    {
      g_free (values);
      g_free (orders);
    }
  return key;
}

gboolean
ab_engine_index_value (const AbTableDesc *t, const AbState *st, GByteArray *out, GError **error)
{
  GArray *props = g_array_new (FALSE, TRUE, sizeof (AbCodedProp));
  for (guint f = 0; f < st->n; f++)
    {
      if (st->slots[f].kind == AB_SLOT_ABSENT)
        continue;
      const AbField *field = t->schema->fields->pdata[f];
      AbCodedProp p = { .code = field->code };
      if (st->slots[f].kind == AB_SLOT_VALUE)
        p.value = st->slots[f].value; /* borrowed: not cleared below */
      g_array_append_val (props, p);
    }
  gboolean ok = ab_codec_encode_index_value (out, st->version, (AbCodedProp *) props->data,
                                             props->len, error);
  g_array_free (props, TRUE);
  return ok;
}

/* All index keys of an active state, as GBytes (hash set semantics by key). */
static GPtrArray *
index_keys (const AbTableDesc *t, const AbValue *source, const AbValue *target, const AbState *st,
            GError **error)
{
  GPtrArray *keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  AbDirection dirs[2];
  guint nd = ab_engine_directions (t, dirs);
  for (guint i = 0; i < t->schema->indexes->len; i++)
    for (guint d = 0; d < nd; d++)
      {
        GError *local = NULL;
        GByteArray *k = ab_engine_index_key (t, t->schema->indexes->pdata[i], source, target, st,
                                             dirs[d], &local);
        if (local != NULL)
          {
            g_propagate_error (error, local);
            g_ptr_array_unref (keys);
            return NULL;
          }
        if (k != NULL)
          g_ptr_array_add (keys, g_byte_array_free_to_bytes (k));
      }
  return keys;
}

static gboolean
contains_key (GPtrArray *keys, GBytes *k)
{
  for (guint i = 0; i < keys->len; i++)
    if (g_bytes_equal (keys->pdata[i], k))
      return TRUE;
  return FALSE;
}

static gboolean
count_delta (const AbTableDesc *t, const AbValue *source, const AbValue *target, const AbState *st,
             gint64 delta, AbBatch *batch, GError **error)
{
  AbDirection dirs[2];
  guint nd = ab_engine_directions (t, dirs);
  for (guint d = 0; d < nd; d++)
    {
      const AbValue *dsrc, *dtgt;
      if (!ab_engine_directed (t, source, target, st, dirs[d], &dsrc, &dtgt))
        continue;
      GByteArray *k = ab_codec_count_key (dsrc, dirs[d], t->code, error);
      if (k == NULL)
        return FALSE;
      batch_take (batch, k, NULL, delta);
    }
  return TRUE;
}

static gboolean
put_indexes (const AbTableDesc *t, GPtrArray *keys, const AbState *after, AbBatch *batch,
             GError **error)
{
  if (keys->len == 0)
    return TRUE;
  GByteArray *value = g_byte_array_new ();
  if (!ab_engine_index_value (t, after, value, error))
    {
      g_byte_array_unref (value);
      return FALSE;
    }
  /* every index row shares the value's bytes */
  g_autoptr (GBytes) shared = g_byte_array_free_to_bytes (value);
  for (guint i = 0; i < keys->len; i++)
    {
      AbMutation m = { .kind = AB_MUT_PUT };
      m.key = g_bytes_ref (keys->pdata[i]);
      m.value = g_bytes_ref (shared);
      g_array_append_val (batch->items, m);
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
      g_autoptr (GByteArray) kb = hb ? ab_codec_count_key (b, dirs[d], t->code, error) : NULL;
      g_autoptr (GByteArray) ka = ha ? ab_codec_count_key (a, dirs[d], t->code, error) : NULL;
      if ((hb && kb == NULL) || (ha && ka == NULL))
        return FALSE;
      if (kb != NULL)
        batch_take (batch, g_steal_pointer (&kb), NULL, -1);
      if (ka != NULL)
        batch_take (batch, g_steal_pointer (&ka), NULL, 1);
    }
  return TRUE;
}

static gboolean
plan_rows (const AbTableDesc *t, const AbValue *s, const AbValue *tg, const AbState *before,
           const AbState *after, AbKeyStatus status, AbBatch *batch, GError **error)
{
  g_autoptr (GPtrArray) old_keys
      = before->active ? index_keys (t, s, tg, before, error) : g_ptr_array_new ();
  if (old_keys == NULL)
    return FALSE;
  g_autoptr (GPtrArray) new_keys
      = after->active ? index_keys (t, s, tg, after, error) : g_ptr_array_new ();
  if (new_keys == NULL || !put_indexes (t, new_keys, after, batch, error))
    return FALSE;
  if (status == AB_STATUS_CREATED && !count_delta (t, s, tg, after, 1, batch, error))
    return FALSE;
  if (status == AB_STATUS_DELETED && !count_delta (t, s, tg, before, -1, batch, error))
    return FALSE;
  if (status == AB_STATUS_UPDATED && !count_moves (t, s, tg, before, after, batch, error))
    return FALSE;
  for (guint i = 0; i < old_keys->len; i++)
    if (!contains_key (new_keys, old_keys->pdata[i]))
      {
        gsize klen;
        const guint8 *k = g_bytes_get_data (old_keys->pdata[i], &klen);
        ab_batch_delete (batch, k, klen);
      }
  if (t->schema->kind == AB_TABLE_IMMUTABLE_EDGE)
    return TRUE; /* Index rows only */
  return ab_engine_plan_wide (t, s, tg, before, after, batch, error);
}

AbKeyStatus
ab_engine_plan (const AbTableDesc *t, const AbValue *source, const AbValue *target,
                const AbState *before, const AbState *after, AbBatch *batch, GError **error)
{
  gboolean multi = t->schema->kind == AB_TABLE_MULTI_EDGE;
  const AbValue *ktarget = multi ? source : target;
  g_autoptr (GByteArray) skey = ab_codec_state_key (source, ktarget, t->code, error);
  g_autoptr (GByteArray) bval = g_byte_array_new ();
  g_autoptr (GByteArray) aval = g_byte_array_new ();
  if (skey == NULL || !ab_state_encode (t->schema, after, aval, error))
    return AB_STATUS_ERROR;
  gboolean initial = ab_state_is_initial (before);
  if (!initial && !ab_state_encode (t->schema, before, bval, error))
    return AB_STATUS_ERROR;
  gboolean same
      = !initial && bval->len == aval->len && memcmp (bval->data, aval->data, aval->len) == 0;
  batch_take (batch, g_steal_pointer (&skey), g_byte_array_free_to_bytes (g_steal_pointer (&aval)),
              0);
  AbKeyStatus status = AB_STATUS_IDLE;
  if (!same && !before->active && after->active)
    status = AB_STATUS_CREATED;
  else if (!same && before->active && !after->active)
    status = AB_STATUS_DELETED;
  else if (!same && before->active && after->active)
    status = AB_STATUS_UPDATED;
  if (status != AB_STATUS_IDLE && t->schema->kind != AB_TABLE_VERTEX
      && !plan_rows (t, source, target, before, after, status, batch, error))
    return AB_STATUS_ERROR;
  return status;
}
