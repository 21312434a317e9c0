/* Row values: the State value (active, version, versioned properties, the
 * reserved createdAt/deletedAt cells), the Index/Cache value, the Lock value
 * and the raw 8-byte counters (docs/storage-format.md §5). */
#include <string.h>
#include "codec/record.h"
#include "codec/keys.h"

static void
coded_prop_clear (gpointer p)
{
  ab_value_clear (&((AbCodedProp *) p)->value);
}

GArray *
ab_codec_coded_prop_array_new (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (AbCodedProp));
  g_array_set_clear_func (a, coded_prop_clear);
  return a;
}

void
ab_codec_state_value_init (AbStateValue *sv)
{
  memset (sv, 0, sizeof *sv);
  sv->props = ab_codec_coded_prop_array_new ();
}

void
ab_codec_state_value_clear (AbStateValue *sv)
{
  g_clear_pointer (&sv->props, g_array_unref);
  memset (sv, 0, sizeof *sv);
}

static void
append_prop (GArray *props, gint32 code, const AbValue *value, gint64 version)
{
  AbCodedProp p = { .code = code, .version = version };
  ab_value_copy (&p.value, value);
  g_array_append_val (props, p);
}

void
ab_codec_state_value_add (AbStateValue *sv, gint32 code, const AbValue *value, gint64 version)
{
  append_prop (sv->props, code, value, version);
}

/* A timestamp cell repeats the time as both value and version. */
static void
put_ts_cell (AbBuf *out, gint32 code, gint64 ts)
{
  ab_buf_put_int32 (out, code, AB_ORDER_ASC);
  ab_buf_put_int64 (out, ts, AB_ORDER_ASC);
  ab_buf_put_int64 (out, ts, AB_ORDER_ASC);
}

void
ab_buf_state_head (AbBuf *out, const AbStateMeta *m)
{
  ab_buf_put_int8 (out, m->active ? 1 : 0, AB_ORDER_ASC);
  ab_buf_put_int64 (out, m->version, AB_ORDER_ASC);
}

gboolean
ab_buf_state_cell (AbBuf *out, gint32 code, const AbValue *value, gint64 version, GError **error)
{
  ab_buf_put_int32 (out, code, AB_ORDER_ASC);
  if (!ab_buf_put_value (out, value, AB_ORDER_ASC, error))
    return FALSE;
  ab_buf_put_int64 (out, version, AB_ORDER_ASC);
  return TRUE;
}

void
ab_buf_state_tail (AbBuf *out, const AbStateMeta *m)
{
  if (m->has_created_at)
    put_ts_cell (out, AB_CODE_INSERT_TS, m->created_at);
  if (m->has_deleted_at)
    put_ts_cell (out, AB_CODE_DELETE_TS, m->deleted_at);
}

static gboolean
state_value (AbBuf *out, const AbStateValue *sv, GError **error)
{
  ab_buf_state_head (out, &sv->meta);
  for (guint i = 0; sv->props != NULL && i < sv->props->len; i++)
    {
      const AbCodedProp *p = &g_array_index (sv->props, AbCodedProp, i);
      if (!ab_buf_state_cell (out, p->code, &p->value, p->version, error))
        return FALSE;
    }
  ab_buf_state_tail (out, &sv->meta);
  return TRUE;
}

gboolean
ab_codec_encode_state_value (GByteArray *out, const AbStateValue *sv, GError **error)
{
  AbBuf b;
  ab_buf_init (&b);
  return ab_buf_flush_to (&b, out, state_value (&b, sv, error));
}

/* Lifts a reserved cell: the time is the value when it is an integer (what
 * the encoder writes); a null value falls back to the cell version. */
static void
lift_ts (const AbCodedProp *p, gboolean *has, gint64 *ts)
{
  gboolean is_int = p->value.kind >= AB_VALUE_INT8 && p->value.kind <= AB_VALUE_INT64;
  *has = TRUE;
  *ts = is_int ? p->value.u.i : p->version;
}

/* Reads code || value [|| version] at *pos; values must be ASC. */
static gboolean
read_cell (const guint8 *buf, gsize len, gsize *pos, gboolean versioned, AbCodedProp *p,
           GStringChunk *strings, GError **error)
{
  AbOrder order = AB_ORDER_ASC;
  if (!ab_codec_get_int32 (buf, len, pos, &p->code, error)
      || !ab_codec_get_value_in (buf, len, pos, &p->value, &order, strings, error))
    return FALSE;
  if (order != AB_ORDER_ASC)
    {
      g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_MALFORMED,
                   "DESC element in a row value at offset %" G_GSIZE_FORMAT, *pos);
      return FALSE;
    }
  return !versioned || ab_codec_get_int64 (buf, len, pos, &p->version, error);
}

static gboolean
read_active (const guint8 *buf, gsize len, gsize *pos, gboolean *active, GError **error)
{
  gint8 flag;
  if (!ab_codec_get_int8 (buf, len, pos, &flag, error))
    return FALSE;
  if (flag != 0 && flag != 1)
    {
      g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_MALFORMED,
                   "state active flag is %d, not 0 or 1", flag);
      return FALSE;
    }
  *active = flag == 1;
  return TRUE;
}

/* The cells after the head: reserved timestamp cells lifted into head,
 * the others handed to sink. */
static gboolean
decode_state_cells (const guint8 *buf, gsize len, gsize pos, AbStateValue *head,
                    AbStateCellSink sink, gpointer user, GError **error)
{
  while (pos < len)
    {
      AbCodedProp p = { .value = AB_VALUE_INIT };
      if (!read_cell (buf, len, &pos, TRUE, &p, NULL, error))
        {
          ab_value_clear (&p.value);
          return FALSE;
        }
      if (p.code == AB_CODE_INSERT_TS || p.code == AB_CODE_DELETE_TS)
        {
          if (p.code == AB_CODE_INSERT_TS)
            lift_ts (&p, &head->meta.has_created_at, &head->meta.created_at);
          else
            lift_ts (&p, &head->meta.has_deleted_at, &head->meta.deleted_at);
          ab_value_clear (&p.value);
          continue;
        }
      sink (&p, user);
      ab_value_clear (&p.value);
    }
  return TRUE;
}

gboolean
ab_codec_decode_state_stream (const guint8 *buf, gsize len, AbStateValue *head,
                              AbStateCellSink sink, gpointer user, GError **error)
{
  gsize pos = 0;
  return read_active (buf, len, &pos, &head->meta.active, error)
         && ab_codec_get_int64 (buf, len, &pos, &head->meta.version, error)
         && decode_state_cells (buf, len, pos, head, sink, user, error);
}

static void
append_cell (AbCodedProp *p, gpointer props)
{
  g_array_append_val ((GArray *) props, *p);
  memset (&p->value, 0, sizeof p->value); /* taken */
}

/* out is initialised here (its previous contents, if any, are released); on
 * failure it is left empty but valid, so the caller's clear is always safe. */
gboolean
ab_codec_decode_state_value (const guint8 *buf, gsize len, AbStateValue *out, GError **error)
{
  if (out->props != NULL)
    ab_codec_state_value_clear (out);
  ab_codec_state_value_init (out);
  if (!ab_codec_decode_state_stream (buf, len, out, append_cell, out->props, error))
    {
      ab_codec_state_value_clear (out);
      ab_codec_state_value_init (out);
      return FALSE;
    }
  return TRUE;
}

gboolean
ab_codec_encode_index_value (GByteArray *out, gint64 version, const AbCodedProp *props, guint n,
                             GError **error)
{
  AbBuf b;
  gboolean ok = TRUE;
  ab_buf_init (&b);
  ab_buf_put_int64 (&b, version, AB_ORDER_ASC);
  for (guint i = 0; ok && i < n; i++)
    ok = ab_buf_index_cell (&b, props[i].code, &props[i].value, error);
  return ab_buf_flush_to (&b, out, ok);
}

gboolean
ab_buf_index_cell (AbBuf *out, gint32 code, const AbValue *value, GError **error)
{
  ab_buf_put_int32 (out, code, AB_ORDER_ASC);
  return ab_buf_put_value (out, value, AB_ORDER_ASC, error);
}

gboolean
ab_codec_decode_index_stream (const guint8 *buf, gsize len, gint64 *version, AbStateCellSink sink,
                              gpointer user, GError **error)
{
  return ab_codec_decode_index_stream_in (buf, len, version, sink, user, NULL, error);
}

gboolean
ab_codec_decode_index_stream_in (const guint8 *buf, gsize len, gint64 *version,
                                 AbStateCellSink sink, gpointer user, GStringChunk *strings,
                                 GError **error)
{
  gsize pos = 0;
  if (!ab_codec_get_int64 (buf, len, &pos, version, error))
    return FALSE;
  while (pos < len)
    {
      AbCodedProp p = { .value = AB_VALUE_INIT };
      gboolean ok = read_cell (buf, len, &pos, FALSE, &p, strings, error);
      if (ok)
        sink (&p, user);
      ab_value_clear (&p.value);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* Appends to props; on failure props is restored to its original length. */
gboolean
ab_codec_decode_index_value (const guint8 *buf, gsize len, gint64 *version, GArray *props,
                             GError **error)
{
  guint had = props->len;
  if (ab_codec_decode_index_stream (buf, len, version, append_cell, props, error))
    return TRUE;
  g_array_set_size (props, had);
  return FALSE;
}

void
ab_codec_encode_lock_value (GByteArray *out, gint64 now_ms)
{
  ab_codec_put_int64 (out, now_ms, AB_ORDER_ASC);
}

gboolean
ab_codec_decode_lock_value (const guint8 *buf, gsize len, gint64 *ms, GError **error)
{
  gsize pos = 0;
  if (!ab_codec_get_int64 (buf, len, &pos, ms, error))
    return FALSE;
  if (pos != len)
    {
      g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_MALFORMED,
                   "lock value has %" G_GSIZE_FORMAT " trailing bytes", len - pos);
      return FALSE;
    }
  return TRUE;
}

void
ab_codec_put_be64 (guint8 out[8], gint64 v)
{
  guint64 u = (guint64) v;
  for (guint i = 0; i < 8; i++)
    out[i] = (guint8) (u >> (56 - 8 * i));
}

gint64
ab_codec_get_be64 (const guint8 in[8])
{
  guint64 u = 0;
  for (guint i = 0; i < 8; i++)
    u = (u << 8) | in[i];
  return (gint64) u;
}
