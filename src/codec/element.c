/* Element codec: one header byte + payload per value, ASC or DESC (DESC is the
 * whole ASC element bit-inverted), docs/storage-format.md §1. Owns the codec error domain.
 * Every reader checks the remaining length before touching a byte. */
#include <string.h>
#include "codec/element.h"

G_DEFINE_QUARK (ab - codec - error - quark, ab_codec_error)

/* DESC is produced by encoding ASC and inverting in place: one code path for
 * both orders, so the two can never drift apart. */
static inline void
finish_order (guint8 *p, gsize n, AbOrder order)
{
  if (order != AB_ORDER_DESC)
    return;
  for (gsize i = 0; i < n; i++)
    p[i] = (guint8) ~p[i];
}

/* Header, then bits as nbytes big-endian (already in ASC payload form). */
static inline void
put_raw (AbBuf *out, guint8 hdr, guint64 bits, guint nbytes, AbOrder order)
{
  guint8 *p = ab_buf_extend (out, nbytes + 1);
  p[0] = hdr;
  for (guint i = 0; i < nbytes; i++)
    p[1 + i] = (guint8) (bits >> (8 * (nbytes - 1 - i)));
  finish_order (p, nbytes + 1, order);
}

/* Flipping the sign bit makes two's complement order like unsigned bytes. */
static inline void
put_fixed (AbBuf *out, guint8 hdr, guint64 v, guint nbytes, AbOrder order)
{
  put_raw (out, hdr, v ^ ((guint64) 1 << (8 * nbytes - 1)), nbytes, order);
}

void
ab_buf_put_null (AbBuf *out, AbOrder order)
{
  guint8 *p = ab_buf_extend (out, 1);
  *p = AB_HDR_NULL;
  finish_order (p, 1, order);
}

void
ab_buf_put_bool (AbBuf *out, gboolean b, AbOrder order)
{
  guint8 *p = ab_buf_extend (out, 1);
  *p = b ? AB_HDR_TRUE : AB_HDR_FALSE;
  finish_order (p, 1, order);
}

void
ab_buf_put_int8 (AbBuf *out, gint8 v, AbOrder order)
{
  put_fixed (out, AB_HDR_INT8, (guint64) (guint8) v, 1, order);
}

void
ab_buf_put_int16 (AbBuf *out, gint16 v, AbOrder order)
{
  put_fixed (out, AB_HDR_INT16, (guint64) (guint16) v, 2, order);
}

void
ab_buf_put_int32 (AbBuf *out, gint32 v, AbOrder order)
{
  put_fixed (out, AB_HDR_INT32, (guint64) (guint32) v, 4, order);
}

void
ab_buf_put_int64 (AbBuf *out, gint64 v, AbOrder order)
{
  put_fixed (out, AB_HDR_INT64, (guint64) v, 8, order);
}

/* Non-negative: flip the sign bit; negative: invert all bits. Then the IEEE
 * bit patterns order like the numbers they stand for. */
void
ab_buf_put_float32 (AbBuf *out, gfloat v, AbOrder order)
{
  guint32 b;
  memcpy (&b, &v, sizeof b);
  b ^= (b & 0x80000000u) ? 0xFFFFFFFFu : 0x80000000u;
  put_raw (out, AB_HDR_FLOAT32, b, 4, order);
}

void
ab_buf_put_float64 (AbBuf *out, gdouble v, AbOrder order)
{
  const guint64 sign = G_GUINT64_CONSTANT (0x8000000000000000);
  guint64 b;
  memcpy (&b, &v, sizeof b);
  b ^= (b & sign) ? G_MAXUINT64 : sign;
  put_raw (out, AB_HDR_FLOAT64, b, 8, order);
}

/* Strings and json share the layout: header, bytes, 0x00. A NUL inside would
 * end the element early, and bad UTF-8 could never be read back. */
static gboolean
put_text (AbBuf *out, guint8 hdr, const gchar *data, gsize len, AbOrder order, GError **error)
{
  gboolean ascii = ab_text_is_ascii (data, len);
  if (!ascii && len > 0 && memchr (data, '\0', len) != NULL)
    {
      g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_INVALID, "text contains a NUL byte");
      return FALSE;
    }
  if (!ascii && !g_utf8_validate_len (data, len, NULL))
    {
      g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_INVALID, "text is not valid UTF-8");
      return FALSE;
    }
  if (len > G_MAXSIZE - 2)
    {
      g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_INVALID, "text too long");
      return FALSE;
    }
  guint8 *p = ab_buf_extend (out, len + 2);
  p[0] = hdr;
  if (len > 0)
    memcpy (p + 1, data, len);
  p[len + 1] = 0;
  finish_order (p, len + 2, order);
  return TRUE;
}

gboolean
ab_buf_put_string (AbBuf *out, const gchar *data, gsize len, AbOrder order, GError **error)
{
  return put_text (out, AB_HDR_STRING, data, len, order, error);
}

gboolean
ab_buf_put_json (AbBuf *out, const gchar *data, gsize len, AbOrder order, GError **error)
{
  return put_text (out, AB_HDR_JSON, data, len, order, error);
}

/* AbValue promises its integers fit their width; check anyway so that a bad
 * value fails loudly instead of being silently truncated on disk. */
static gboolean
int_fits (const AbValue *v, GError **error)
{
  gint64 lo = G_MININT64, hi = G_MAXINT64;
  switch (v->kind)
    {
      case AB_VALUE_INT8:
        lo = G_MININT8;
        hi = G_MAXINT8;
        break;
      case AB_VALUE_INT16:
        lo = G_MININT16;
        hi = G_MAXINT16;
        break;
      case AB_VALUE_INT32:
        lo = G_MININT32;
        hi = G_MAXINT32;
        break;
      default: break;
    }
  if (v->u.i >= lo && v->u.i <= hi)
    return TRUE;
  g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_INVALID,
               "integer %" G_GINT64_FORMAT " out of range for its width", v->u.i);
  return FALSE;
}

static gboolean
put_int_value (AbBuf *out, const AbValue *v, AbOrder order, GError **error)
{
  if (!int_fits (v, error))
    return FALSE;
  switch (v->kind)
    {
      case AB_VALUE_INT8: ab_buf_put_int8 (out, (gint8) v->u.i, order); break;
      case AB_VALUE_INT16: ab_buf_put_int16 (out, (gint16) v->u.i, order); break;
      case AB_VALUE_INT32: ab_buf_put_int32 (out, (gint32) v->u.i, order); break;
      default: ab_buf_put_int64 (out, v->u.i, order); break;
    }
  return TRUE;
}

gboolean
ab_buf_put_value (AbBuf *out, const AbValue *v, AbOrder order, GError **error)
{
  switch (v->kind)
    {
      case AB_VALUE_NULL: ab_buf_put_null (out, order); return TRUE;
      case AB_VALUE_BOOL: ab_buf_put_bool (out, v->u.b, order); return TRUE;
      case AB_VALUE_FLOAT32: ab_buf_put_float32 (out, (gfloat) v->u.f, order); return TRUE;
      case AB_VALUE_FLOAT64: ab_buf_put_float64 (out, v->u.f, order); return TRUE;
      case AB_VALUE_STRING: return ab_buf_put_string (out, v->u.s.data, v->u.s.len, order, error);
      case AB_VALUE_JSON: return ab_buf_put_json (out, v->u.s.data, v->u.s.len, order, error);
      case AB_VALUE_INT8:
      case AB_VALUE_INT16:
      case AB_VALUE_INT32:
      case AB_VALUE_INT64: return put_int_value (out, v, order, error);
    }
  g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_INVALID, "unknown value kind %d",
               (int) v->kind);
  return FALSE;
}

/* The GByteArray forms: encode into an AbBuf, then one append. */

#define AB_GBA_PUT(name, type)                                      \
  void ab_codec_put_##name (GByteArray *out, type v, AbOrder order) \
  {                                                                 \
    AbBuf b;                                                        \
    ab_buf_init (&b);                                               \
    ab_buf_put_##name (&b, v, order);                               \
    ab_buf_flush_to (&b, out, TRUE);                                \
  }
AB_GBA_PUT (int8, gint8)
AB_GBA_PUT (int32, gint32)
AB_GBA_PUT (int64, gint64)

gboolean
ab_codec_put_string (GByteArray *out, const gchar *data, gsize len, AbOrder order, GError **error)
{
  AbBuf b;
  ab_buf_init (&b);
  return ab_buf_flush_to (&b, out, ab_buf_put_string (&b, data, len, order, error));
}

gboolean
ab_codec_put_json (GByteArray *out, const gchar *data, gsize len, AbOrder order, GError **error)
{
  AbBuf b;
  ab_buf_init (&b);
  return ab_buf_flush_to (&b, out, ab_buf_put_json (&b, data, len, order, error));
}

gboolean
ab_codec_put_value (GByteArray *out, const AbValue *v, AbOrder order, GError **error)
{
  AbBuf b;
  ab_buf_init (&b);
  return ab_buf_flush_to (&b, out, ab_buf_put_value (&b, v, order, error));
}

/* ---- decoding ---- */

/* What a header byte announces, ASC and DESC (DESC headers are the ASC ones
 * inverted: 0xC9..0xFA, apart from 0x05..0x36): the payload width plus 2,
 * 1 for text (ends at its terminator), 0 for no element. One table load per
 * element instead of a switch per question. */
#define HDR_TEXT 1
#define HDR_WIDTH(w) ((w) + 2)
#define HDR_BOTH(h, code) [h] = (code), [(guint8) ~(h)] = (code)
static const guint8 header_code[256] = {
  HDR_BOTH (AB_HDR_NULL, HDR_WIDTH (0)),    HDR_BOTH (AB_HDR_FALSE, HDR_WIDTH (0)),
  HDR_BOTH (AB_HDR_TRUE, HDR_WIDTH (0)),    HDR_BOTH (AB_HDR_INT8, HDR_WIDTH (1)),
  HDR_BOTH (AB_HDR_INT16, HDR_WIDTH (2)),   HDR_BOTH (AB_HDR_INT32, HDR_WIDTH (4)),
  HDR_BOTH (AB_HDR_FLOAT32, HDR_WIDTH (4)), HDR_BOTH (AB_HDR_INT64, HDR_WIDTH (8)),
  HDR_BOTH (AB_HDR_FLOAT64, HDR_WIDTH (8)), HDR_BOTH (AB_HDR_JSON, HDR_TEXT),
  HDR_BOTH (AB_HDR_STRING, HDR_TEXT),
};

/* The element at buf[pos]: its ASC header, order and extent (header through
 * terminator), all checked against len. */
static inline gboolean
element_at (const guint8 *buf, gsize len, gsize pos, guint8 *asc_hdr, AbOrder *order, gsize *extent,
            GError **error)
{
  if (pos >= len)
    {
      g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TRUNCATED,
                   "expected an element at offset %" G_GSIZE_FORMAT, pos);
      return FALSE;
    }
  guint8 h = buf[pos], code = header_code[h];
  if (code == 0)
    {
      g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_MALFORMED,
                   "unknown element header 0x%02x at offset %" G_GSIZE_FORMAT, h, pos);
      return FALSE;
    }
  gboolean desc = h >= 0x80;
  *asc_hdr = desc ? (guint8) ~h : h;
  *order = desc ? AB_ORDER_DESC : AB_ORDER_ASC;
  gsize avail = len - pos - 1;
  if (code != HDR_TEXT)
    {
      gsize w = (gsize) code - 2;
      if (avail < w)
        {
          g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TRUNCATED,
                       "element at offset %" G_GSIZE_FORMAT " needs %" G_GSIZE_FORMAT
                       " payload bytes, has %" G_GSIZE_FORMAT,
                       pos, w, avail);
          return FALSE;
        }
      *extent = 1 + w;
      return TRUE;
    }
  const guint8 *end = avail ? memchr (buf + pos + 1, desc ? 0xFF : 0x00, avail) : NULL;
  if (end == NULL)
    {
      g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TRUNCATED,
                   "text element at offset %" G_GSIZE_FORMAT " has no terminator", pos);
      return FALSE;
    }
  *extent = (gsize) (end - (buf + pos)) + 1;
  return TRUE;
}

gboolean
ab_codec_skip (const guint8 *buf, gsize len, gsize *pos, GError **error)
{
  guint8 hdr;
  AbOrder order;
  gsize extent;
  if (!element_at (buf, len, *pos, &hdr, &order, &extent, error))
    return FALSE;
  *pos += extent;
  return TRUE;
}

/* Big-endian payload of n bytes, in its ASC form. */
static guint64
read_raw (const guint8 *p, guint n, AbOrder order)
{
  guint64 v = 0;
  guint32 v32;
  switch (n) /* the widths that occur, read whole (every read path decodes them) */
    {
      case 8:
        memcpy (&v, p, 8);
        v = GUINT64_FROM_BE (v);
        break;
      case 4:
        memcpy (&v32, p, 4);
        v = GUINT32_FROM_BE (v32);
        break;
      default:
        for (guint i = 0; i < n; i++)
          v = (v << 8) | p[i];
    }
  if (order == AB_ORDER_DESC)
    v ^= n >= 8 ? G_MAXUINT64 : ((guint64) 1 << (8 * n)) - 1;
  return v;
}

/* Inverse of put_fixed, in either order. */
static gint64
read_int (const guint8 *p, guint n, AbOrder order)
{
  return ab_codec_int_from_bits (read_raw (p, n, order), n);
}

/* A set top bit in the encoding means the number was non-negative. */
static gdouble
decode_float32 (guint32 e)
{
  guint32 b = (e & 0x80000000u) ? e ^ 0x80000000u : ~e;
  gfloat f;
  memcpy (&f, &b, sizeof f);
  return f;
}

static gdouble
decode_float64 (guint64 e)
{
  const guint64 sign = G_GUINT64_CONSTANT (0x8000000000000000);
  guint64 b = (e & sign) ? e ^ sign : ~e;
  gdouble d;
  memcpy (&d, &b, sizeof d);
  return d;
}

/* The text of p[0..n) into a heap string, or into strings when given. */
static gboolean
decode_text (const guint8 *p, gsize n, AbOrder order, AbValueKind kind, AbValue *out,
             GStringChunk *strings, GError **error)
{
  gchar *s;
  if (strings != NULL)
    s = g_string_chunk_insert_len (strings, (const gchar *) p, (gssize) n);
  else
    {
      s = g_malloc (n + 1);
      memcpy (s, p, n);
      s[n] = '\0';
    }
  if (order != AB_ORDER_ASC)
    for (gsize i = 0; i < n; i++)
      s[i] = (gchar) ~s[i];
  if (!ab_text_is_ascii (s, n) && !g_utf8_validate_len (s, n, NULL))
    {
      if (strings == NULL)
        g_free (s);
      g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_MALFORMED,
                   "text element is not valid UTF-8");
      return FALSE;
    }
  if (strings != NULL)
    ab_value_borrow_string (out, kind, s, n);
  else
    ab_value_take_string (out, kind, s, n);
  return TRUE;
}

static AbValueKind
int_kind (guint8 asc_hdr)
{
  switch (asc_hdr)
    {
      case AB_HDR_INT8: return AB_VALUE_INT8;
      case AB_HDR_INT16: return AB_VALUE_INT16;
      case AB_HDR_INT32: return AB_VALUE_INT32;
      default: return AB_VALUE_INT64;
    }
}

/* Fills out from an element whose extent is already known to be in bounds. */
static gboolean
decode_element (const guint8 *p, gsize extent, guint8 hdr, AbOrder order, AbValue *out,
                GStringChunk *strings, GError **error)
{
  guint n = (guint) extent - 1;
  switch (hdr)
    {
      case AB_HDR_NULL: ab_value_set_null (out); return TRUE;
      case AB_HDR_FALSE: ab_value_set_bool (out, FALSE); return TRUE;
      case AB_HDR_TRUE: ab_value_set_bool (out, TRUE); return TRUE;
      case AB_HDR_FLOAT32:
        ab_value_set_float (out, AB_VALUE_FLOAT32,
                            decode_float32 ((guint32) read_raw (p + 1, n, order)));
        return TRUE;
      case AB_HDR_FLOAT64:
        ab_value_set_float (out, AB_VALUE_FLOAT64, decode_float64 (read_raw (p + 1, n, order)));
        return TRUE;
      case AB_HDR_STRING:
        return decode_text (p + 1, n - 1, order, AB_VALUE_STRING, out, strings, error);
      case AB_HDR_JSON:
        return decode_text (p + 1, n - 1, order, AB_VALUE_JSON, out, strings, error);
      default: break;
    }
  ab_value_set_int (out, int_kind (hdr), read_int (p + 1, n, order));
  return TRUE;
}

static gboolean
get_value (const guint8 *buf, gsize len, gsize *pos, AbValue *out, AbOrder *order_out,
           GStringChunk *strings, GError **error)
{
  guint8 hdr;
  AbOrder order;
  gsize extent;
  if (!element_at (buf, len, *pos, &hdr, &order, &extent, error)
      || !decode_element (buf + *pos, extent, hdr, order, out, strings, error))
    return FALSE;
  *pos += extent;
  if (order_out != NULL)
    *order_out = order;
  return TRUE;
}

gboolean
ab_codec_get_value (const guint8 *buf, gsize len, gsize *pos, AbValue *out, AbOrder *order_out,
                    GError **error)
{
  return get_value (buf, len, pos, out, order_out, NULL, error);
}

gboolean
ab_codec_get_value_in (const guint8 *buf, gsize len, gsize *pos, AbValue *out, AbOrder *order_out,
                       GStringChunk *strings, GError **error)
{
  return get_value (buf, len, pos, out, order_out, strings, error);
}

/* The typed readers' refusals (their fast paths are inline, element.h). */
gboolean
ab_codec_typed_fail (const guint8 *buf, gsize len, gsize pos, guint8 want, GError **error)
{
  if (pos >= len)
    g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TRUNCATED,
                 "expected element 0x%02x at offset %" G_GSIZE_FORMAT ", buffer ended", want, pos);
  else if (buf[pos] != want)
    g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_MALFORMED,
                 "expected element 0x%02x at offset %" G_GSIZE_FORMAT ", found 0x%02x", want, pos,
                 buf[pos]);
  else
    g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TRUNCATED,
                 "element at offset %" G_GSIZE_FORMAT " is truncated", pos);
  return FALSE;
}
