/* Engine state: life cycle, the stored-value mapping (field codes <-> schema
 * slots, sentinels stored as null) and the transition function of
 * docs/data-model.md §2, written once for every table kind. */
#include <string.h>
#include "engine/core/core.h"

void
ab_state_init (AbState *st, guint n_fields)
{
  memset (st, 0, sizeof *st);
  st->meta.version = G_MININT64;
  st->n = n_fields;
  st->slots = g_new0 (AbSlot, n_fields);
}

void
ab_state_clear (AbState *st)
{
  for (guint i = 0; i < st->n; i++)
    ab_value_clear (&st->slots[i].value);
  g_free (st->slots);
  memset (st, 0, sizeof *st);
}

void
ab_state_copy (AbState *dst, const AbState *src)
{
  *dst = *src;
  dst->slots = g_new0 (AbSlot, src->n);
  for (guint i = 0; i < src->n; i++)
    {
      dst->slots[i] = src->slots[i];
      memset (&dst->slots[i].value, 0, sizeof (AbValue));
      ab_value_copy (&dst->slots[i].value, &src->slots[i].value);
    }
}

gboolean
ab_state_is_initial (const AbState *st)
{
  if (st->meta.active || st->meta.version != G_MININT64 || st->meta.has_created_at
      || st->meta.has_deleted_at)
    return FALSE;
  for (guint i = 0; i < st->n; i++)
    if (st->slots[i].kind != AB_SLOT_ABSENT)
      return FALSE;
  return TRUE;
}

gboolean
ab_slot_present (const AbSlot *slot)
{
  return slot->kind == AB_SLOT_VALUE && !ab_value_is_null (&slot->value);
}

void
ab_schema_cells_sink (AbCodedProp *cell, gpointer schema_cells)
{
  AbSchemaCells *c = schema_cells;
  gint pos = ab_schema_field_pos_by_code (c->schema, cell->code);
  if (pos >= 0)
    c->sink ((guint) pos, c->schema->fields->pdata[pos], cell, c->user);
}

/* A cell into its field's slot, its value taken. */
static void
cell_to_slot (guint pos, const AbField *field, AbCodedProp *p, gpointer state)
{
  AbSlot *slot = &((AbState *) state)->slots[pos];
  (void) field;
  ab_value_clear (&slot->value);
  slot->kind = AB_SLOT_VALUE;
  slot->value = p->value; /* taken */
  memset (&p->value, 0, sizeof p->value);
  slot->version = p->version;
}

gboolean
ab_state_decode (const AbSchema *schema, const guint8 *buf, gsize len, AbState *out, GError **error)
{
  AbStateValue head = { 0 };
  AbSchemaCells cells = { schema, cell_to_slot, out };
  ab_state_init (out, schema->fields->len);
  if (!ab_codec_decode_state_stream (buf, len, &head, ab_schema_cells_sink, &cells, error))
    {
      ab_state_clear (out);
      return FALSE;
    }
  out->meta = head.meta;
  return TRUE;
}

gboolean
ab_state_encode_buf (const AbSchema *schema, const AbState *st, AbBuf *out, GError **error)
{
  static const AbValue null_value = AB_VALUE_INIT;
  gsize start = out->len;
  ab_buf_state_head (out, &st->meta);
  for (guint f = 0; f < st->n; f++)
    {
      const AbSlot *slot = &st->slots[f];
      if (slot->kind == AB_SLOT_ABSENT)
        continue;
      const AbField *field = schema->fields->pdata[f];
      if (!ab_buf_state_cell (out, field->code,
                              slot->kind == AB_SLOT_VALUE ? &slot->value : &null_value,
                              slot->version, error))
        {
          out->len = start;
          return FALSE;
        }
    }
  ab_buf_state_tail (out, &st->meta);
  return TRUE;
}

gboolean
ab_state_encode (const AbSchema *schema, const AbState *st, GByteArray *out, GError **error)
{
  AbBuf b;
  ab_buf_init (&b);
  return ab_buf_flush_to (&b, out, ab_state_encode_buf (schema, st, &b, error));
}

void
ab_event_init (AbEvent *ev, guint n_fields)
{
  memset (ev, 0, sizeof *ev);
  ev->n = n_fields;
  ev->props = g_new0 (AbEventProp, n_fields);
}

void
ab_event_clear (AbEvent *ev)
{
  for (guint i = 0; i < ev->n; i++)
    ab_value_clear (&ev->props[i].value);
  g_free (ev->props);
  memset (ev, 0, sizeof *ev);
}

static void
slot_set (AbSlot *slot, AbSlotKind kind, const AbValue *value, gint64 version)
{
  ab_value_clear (&slot->value);
  slot->kind = kind;
  if (kind == AB_SLOT_VALUE)
    ab_value_copy (&slot->value, value);
  slot->version = version;
}

/* Event value usable as a new value: present and non-null. */
static gboolean
ev_has_value (const AbEventProp *p)
{
  return p->present && !ab_value_is_null (&p->value);
}

static void
transit_insert_slot (AbSlot *cur, const AbEventProp *p, gint64 ev)
{
  if (cur->kind == AB_SLOT_ABSENT)
    slot_set (cur, ev_has_value (p) ? AB_SLOT_VALUE : AB_SLOT_UNSET, &p->value, ev);
  else if (ev < cur->version)
    return;
  else if (ev_has_value (p))
    slot_set (cur, AB_SLOT_VALUE, &p->value, ev);
  else if (ev == cur->version && ab_slot_present (cur))
    return;
  else
    slot_set (cur, AB_SLOT_UNSET, NULL, ev);
}

static void
transit_update_slot (AbSlot *cur, const AbEventProp *p, gint64 ev)
{
  if (!p->present)
    return;
  if (cur->kind != AB_SLOT_ABSENT && ev < cur->version)
    return;
  slot_set (cur, ab_value_is_null (&p->value) ? AB_SLOT_UNSET : AB_SLOT_VALUE, &p->value, ev);
}

static void
transit_times (AbStateMeta *m, AbOpType op, gint64 ev, gboolean override)
{
  if (op == AB_OP_INSERT)
    {
      if (!m->has_created_at || ev >= m->created_at)
        {
          m->has_created_at = TRUE;
          m->created_at = ev;
        }
      if (override && m->has_deleted_at && m->created_at == m->deleted_at)
        m->has_deleted_at = FALSE;
    }
  else if (op == AB_OP_DELETE)
    {
      if (!m->has_deleted_at || ev >= m->deleted_at)
        {
          m->has_deleted_at = TRUE;
          m->deleted_at = ev;
        }
      if (override && m->has_created_at && m->deleted_at == m->created_at)
        m->has_created_at = FALSE;
    }
  m->active = m->has_created_at && (!m->has_deleted_at || m->created_at > m->deleted_at);
}

void
ab_state_transit (AbState *st, const AbEvent *e, gboolean insert_merge)
{
  if (e->type == AB_OP_PURGE)
    {
      guint n = st->n;
      ab_state_clear (st);
      ab_state_init (st, n);
      return;
    }
  gint64 ev = e->version;
  gboolean override = ev == st->meta.version;
  st->meta.version = MAX (ev, st->meta.version);
  transit_times (&st->meta, e->type, ev, override);
  for (guint f = 0; f < st->n; f++)
    {
      AbSlot *cur = &st->slots[f];
      const AbEventProp *p = &e->props[f];
      if (e->type == AB_OP_DELETE)
        {
          if (cur->kind == AB_SLOT_ABSENT || ev >= cur->version)
            slot_set (cur, AB_SLOT_DELETED, NULL, ev);
        }
      else if (e->type == AB_OP_UPDATE || insert_merge)
        transit_update_slot (cur, p, ev);
      else
        transit_insert_slot (cur, p, ev);
    }
}

const AbEvent *
ab_events_last_purge (GPtrArray *events)
{
  const AbEvent *last = NULL;
  for (guint i = 0; i < events->len; i++)
    {
      const AbEvent *ev = events->pdata[i];
      if (ev->type == AB_OP_PURGE && (last == NULL || ev->seq > last->seq))
        last = ev;
    }
  return last;
}

const AbEvent *
ab_events_last_folded (GPtrArray *events)
{
  const AbEvent *purge = ab_events_last_purge (events), *top = NULL;
  for (guint i = 0; i < events->len; i++)
    {
      const AbEvent *ev = events->pdata[i];
      if (purge != NULL && ev->seq <= purge->seq)
        continue;
      if (top == NULL || ev->version > top->version
          || (ev->version == top->version && ev->seq > top->seq))
        top = ev;
    }
  return top != NULL ? top : purge;
}

gboolean
ab_state_check_valid (const AbSchema *schema, const AbState *st, GError **error)
{
  if (!st->meta.active)
    return TRUE;
  if (!st->meta.has_created_at)
    {
      g_set_error_literal (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST,
                           "createdAt must be provided");
      return FALSE;
    }
  for (guint f = 0; f < st->n; f++)
    {
      const AbField *field = schema->fields->pdata[f];
      if (!field->nullable && !ab_slot_present (&st->slots[f]))
        {
          g_set_error (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST, "%s must be provided",
                       field->name);
          return FALSE;
        }
    }
  return TRUE;
}

const gchar *
ab_op_name (AbOpType op)
{
  static const gchar *names[] = { "INSERT", "UPDATE", "DELETE", "PURGE" };
  return AB_ENUM_NAME (names, op);
}

gboolean
ab_op_parse (const gchar *name, AbOpType *out)
{
  for (AbOpType op = AB_OP_INSERT; op <= AB_OP_PURGE; op++)
    if (g_strcmp0 (name, ab_op_name (op)) == 0)
      {
        *out = op;
        return TRUE;
      }
  return FALSE;
}
