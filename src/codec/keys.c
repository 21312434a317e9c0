/* Name codes (signed xxhash32, seed 0) and the row keys built on the salted
 * prefix salt || enc(source) || enc_int32(table) || enc_int8(type), plus the
 * parser that splits a key back into that prefix (docs/storage-format.md §2-§4). */
#include <string.h>
#include <xxhash.h>
#include "codec/keys.h"

gint32
ab_codec_hash (const void *data, gsize len)
{
  /* Upstream reads the unsigned digest as a Java int: same bits, signed. */
  return (gint32) (guint32) XXH32 (data, len, 0);
}

gint32
ab_codec_code (const gchar *name)
{
  return ab_codec_hash (name, strlen (name));
}

gint32
ab_codec_table_code (const gchar *database, const gchar *table)
{
  g_autofree gchar *full = g_strconcat (database, ".", table, NULL);
  return ab_codec_code (full);
}

/* The record type whose body the salt hashes: the top-K rank and score rows
 * take their entity's Group salt (storage-format.md §3), so an entity's
 * ranking sits next to its group cells; every other row its own type's. */
static AbRowType
salt_type (AbRowType type)
{
  return type == AB_ROW_TOPK_RANK || type == AB_ROW_TOPK_SCORE ? AB_ROW_GROUP : type;
}

/* The salt is the hash of the encoded body, so it is written last: reserve
 * four bytes, append the body, then fill the salt in. */
gboolean
ab_key_prefix (AbBuf *out, const AbValue *source, gint32 table_code, AbRowType type, GError **error)
{
  gsize start = out->len;
  memset (ab_buf_extend (out, 4), 0, 4);
  if (!ab_buf_put_value (out, source, AB_ORDER_ASC, error))
    {
      out->len = start;
      return FALSE;
    }
  ab_buf_put_int32 (out, table_code, AB_ORDER_ASC);
  gsize at_type = out->len;
  ab_buf_put_int8 (out, (gint8) salt_type (type), AB_ORDER_ASC);

  guint8 *salt = out->data + start; /* after the appends: they may move data */
  guint32 h = (guint32) ab_codec_hash (salt + 4, out->len - start - 4);
  for (guint i = 0; i < 4; i++)
    salt[i] = (guint8) (h >> (24 - 8 * i));
  if (salt_type (type) != type)
    {
      out->len = at_type; /* the row's own type after the borrowed salt */
      ab_buf_put_int8 (out, (gint8) type, AB_ORDER_ASC);
    }
  return TRUE;
}

/* prefix || enc(target): the shape of State and Lock keys. */
static gboolean
pair_key (AbBuf *out, const AbValue *source, const AbValue *target, gint32 table_code,
          AbRowType type, GError **error)
{
  gsize start = out->len;
  if (ab_key_prefix (out, source, table_code, type, error)
      && ab_buf_put_value (out, target, AB_ORDER_ASC, error))
    return TRUE;
  out->len = start;
  return FALSE;
}

gboolean
ab_key_state (AbBuf *out, const AbValue *source, const AbValue *target, gint32 table_code,
              GError **error)
{
  return pair_key (out, source, target, table_code, AB_ROW_STATE, error);
}

gboolean
ab_key_lock (AbBuf *out, const AbValue *source, const AbValue *target, gint32 table_code,
             GError **error)
{
  return pair_key (out, source, target, table_code, AB_ROW_LOCK, error);
}

gboolean
ab_key_count (AbBuf *out, const AbValue *dsource, AbDirection dir, gint32 table_code,
              GError **error)
{
  if (!ab_key_prefix (out, dsource, table_code, AB_ROW_COUNT, error))
    return FALSE;
  ab_buf_put_int8 (out, (gint8) dir, AB_ORDER_ASC);
  return TRUE;
}

gboolean
ab_key_wide (AbBuf *out, const AbValue *dsource, AbDirection dir, gint32 table_code, AbRowType type,
             gint32 code, GError **error)
{
  if (!ab_key_prefix (out, dsource, table_code, type, error))
    return FALSE;
  ab_buf_put_int8 (out, (gint8) dir, AB_ORDER_ASC);
  ab_buf_put_int32 (out, code, AB_ORDER_ASC);
  return TRUE;
}

gboolean
ab_key_index (AbBuf *out, const AbValue *dsource, AbDirection dir, gint32 table_code,
              gint32 index_code, const AbValue *values, const AbOrder *orders, guint n_fields,
              const AbValue *dtarget, GError **error)
{
  gsize start = out->len;
  if (!ab_key_wide (out, dsource, dir, table_code, AB_ROW_INDEX, index_code, error))
    return FALSE;
  for (guint i = 0; i < n_fields; i++)
    if (!ab_buf_put_value (out, &values[i], orders[i], error))
      goto fail;
  /* The target is always ASC, whatever the field orders. */
  if (ab_buf_put_value (out, dtarget, AB_ORDER_ASC, error))
    return TRUE;
fail:
  out->len = start;
  return FALSE;
}

/* ---- the GByteArray forms ---- */

static GByteArray *
to_array (AbBuf *b, gboolean ok)
{
  GByteArray *a = ok ? ab_buf_to_array (b) : NULL;
  ab_buf_clear (b);
  return a;
}

gboolean
ab_codec_put_prefix (GByteArray *out, const AbValue *source, gint32 table_code, AbRowType type,
                     GError **error)
{
  AbBuf b;
  ab_buf_init (&b);
  return ab_buf_flush_to (&b, out, ab_key_prefix (&b, source, table_code, type, error));
}

GByteArray *
ab_codec_state_key (const AbValue *source, const AbValue *target, gint32 table_code, GError **error)
{
  AbBuf b;
  ab_buf_init (&b);
  return to_array (&b, ab_key_state (&b, source, target, table_code, error));
}

GByteArray *
ab_codec_lock_key (const AbValue *source, const AbValue *target, gint32 table_code, GError **error)
{
  AbBuf b;
  ab_buf_init (&b);
  return to_array (&b, ab_key_lock (&b, source, target, table_code, error));
}

GByteArray *
ab_codec_count_key (const AbValue *dsource, AbDirection dir, gint32 table_code, GError **error)
{
  AbBuf b;
  ab_buf_init (&b);
  return to_array (&b, ab_key_count (&b, dsource, dir, table_code, error));
}

GByteArray *
ab_codec_wide_key (const AbValue *dsource, AbDirection dir, gint32 table_code, AbRowType type,
                   gint32 code, GError **error)
{
  AbBuf b;
  ab_buf_init (&b);
  return to_array (&b, ab_key_wide (&b, dsource, dir, table_code, type, code, error));
}

GByteArray *
ab_codec_index_prefix (const AbValue *dsource, AbDirection dir, gint32 table_code,
                       gint32 index_code, GError **error)
{
  return ab_codec_wide_key (dsource, dir, table_code, AB_ROW_INDEX, index_code, error);
}

GByteArray *
ab_codec_index_key (const AbValue *dsource, AbDirection dir, gint32 table_code, gint32 index_code,
                    const AbValue *values, const AbOrder *orders, guint n_fields,
                    const AbValue *dtarget, GError **error)
{
  AbBuf b;
  ab_buf_init (&b);
  return to_array (&b, ab_key_index (&b, dsource, dir, table_code, index_code, values, orders,
                                     n_fields, dtarget, error));
}

static gboolean
known_row_type (gint8 t)
{
  return t >= AB_ROW_CACHE && t <= AB_ROW_LOCK;
}

gboolean
ab_codec_wide_parts (const guint8 *key, gsize len, AbRowType *type, gint32 *code, gsize *row_len)
{
  gsize pos = 4;
  gint32 table, c;
  gint8 t, dir;
  if (len < 4 || !ab_codec_skip (key, len, &pos, NULL)
      || !ab_codec_get_int32 (key, len, &pos, &table, NULL)
      || !ab_codec_get_int8 (key, len, &pos, &t, NULL))
    return FALSE;
  if (t != AB_ROW_GROUP && t != AB_ROW_CACHE)
    return FALSE;
  if (!ab_codec_get_int8 (key, len, &pos, &dir, NULL)
      || !ab_codec_get_int32 (key, len, &pos, &c, NULL))
    return FALSE;
  *type = (AbRowType) t;
  *code = c;
  *row_len = pos;
  return TRUE;
}

gsize
ab_codec_wide_row_length (const guint8 *key, gsize len)
{
  AbRowType type;
  gint32 code;
  gsize row_len;
  return ab_codec_wide_parts (key, len, &type, &code, &row_len) ? row_len : len;
}

gsize
ab_codec_sidecar_row_length (const guint8 *key, gsize len)
{
  gsize pos = 4;
  gint32 table;
  gint8 t, dir;
  if (len < 4 || !ab_codec_skip (key, len, &pos, NULL)
      || !ab_codec_get_int32 (key, len, &pos, &table, NULL)
      || !ab_codec_get_int8 (key, len, &pos, &t, NULL))
    return 0;
  if (t == AB_ROW_COUNT && !ab_codec_get_int8 (key, len, &pos, &dir, NULL))
    return 0;
  if (t == AB_ROW_LOCK && !ab_codec_skip (key, len, &pos, NULL))
    return 0;
  if ((t != AB_ROW_COUNT && t != AB_ROW_LOCK) || len < pos + 2 || key[pos] != AB_SIDECAR_MARK)
    return 0;
  return pos;
}

void
ab_codec_sidecar_key (GByteArray *out, const guint8 *row, gsize row_len, guint8 tag,
                      const guint8 *id, gsize id_len)
{
  const guint8 head[2] = { AB_SIDECAR_MARK, tag };
  g_byte_array_append (out, row, (guint) row_len);
  g_byte_array_append (out, head, 2);
  if (id_len > 0)
    g_byte_array_append (out, id, (guint) id_len);
}

guint32
ab_codec_key_salt (const guint8 *key)
{
  return ((guint32) key[0] << 24) | ((guint32) key[1] << 16) | ((guint32) key[2] << 8) | key[3];
}

/* The salt is reported, not checked: a caller that wants to detect a corrupt
 * key compares it with ab_codec_hash (key + 4, rest - 4). */
gboolean
ab_codec_parse_key (const guint8 *key, gsize len, AbKeyParts *out, GError **error)
{
  gsize pos = 4;
  gint8 type;
  AbOrder order = AB_ORDER_ASC;

  memset (out, 0, sizeof *out);
  out->source.kind = AB_VALUE_NULL;
  if (len < 4)
    {
      g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TRUNCATED,
                   "key of %" G_GSIZE_FORMAT " bytes has no salt", len);
      return FALSE;
    }
  out->salt = ab_codec_key_salt (key);
  if (!ab_codec_get_value (key, len, &pos, &out->source, &order, error)
      || !ab_codec_get_int32 (key, len, &pos, &out->table_code, error)
      || !ab_codec_get_int8 (key, len, &pos, &type, error))
    {
      ab_codec_key_parts_clear (out);
      return FALSE;
    }
  if (order != AB_ORDER_ASC || !known_row_type (type))
    {
      ab_codec_key_parts_clear (out);
      g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_MALFORMED,
                   "bad key prefix (source order %d, record type %d)", (int) order, type);
      return FALSE;
    }
  out->type = (AbRowType) type;
  out->rest = pos;
  return TRUE;
}

void
ab_codec_key_parts_clear (AbKeyParts *parts)
{
  ab_value_clear (&parts->source);
  memset (parts, 0, sizeof *parts);
  parts->source.kind = AB_VALUE_NULL;
}
