/* Element encoding: the self-describing header byte + payload layout of every
 * key component and value element (docs/storage-format.md §1), ASC and DESC. Decoders
 * never read past the buffer and report malformed input with a GError. */
#pragma once
#include <glib.h>
#include "codec/buf.h"
#include "codec/value.h"

#define AB_CODEC_ERROR (ab_codec_error_quark ())
GQuark ab_codec_error_quark (void);

typedef enum {
  AB_CODEC_ERROR_TRUNCATED, /* buffer ends inside an element */
  AB_CODEC_ERROR_MALFORMED, /* unknown header, bad terminator, bad UTF-8 */
  AB_CODEC_ERROR_INVALID,   /* value cannot be encoded (e.g. NUL in a string) */
  AB_CODEC_ERROR_TOKEN,     /* bad offset token */
} AbCodecError;

typedef enum { AB_ORDER_ASC = 0, AB_ORDER_DESC = 1 } AbOrder;

/* TRUE when every byte is in 0x01..0x7F: such text is valid UTF-8 without
 * NUL, decided in one pass (ids are mostly short ASCII); on FALSE the caller
 * runs its full checks (g_utf8_validate_len, which also refuses NUL). */
static inline gboolean
ab_text_is_ascii (const gchar *data, gsize len)
{
  gsize i = 0;
  while (i < len && (guchar) data[i] - 1u < 0x7fu)
    i++;
  return i == len;
}

/* Header bytes (ASC form); the DESC header is the bitwise NOT. */
enum {
  AB_HDR_NULL = 0x05,
  AB_HDR_INT8 = 0x29,
  AB_HDR_INT16 = 0x2A,
  AB_HDR_INT32 = 0x2B,
  AB_HDR_INT64 = 0x2C,
  AB_HDR_FLOAT32 = 0x30,
  AB_HDR_FLOAT64 = 0x31,
  AB_HDR_JSON = 0x32,
  AB_HDR_STRING = 0x34,
  AB_HDR_FALSE = 0x35,
  AB_HDR_TRUE = 0x36,
};

/* Appending to a GByteArray (encoded in an AbBuf, then one append): the
 * element types callers write alone; any other through ab_codec_put_value. */
void ab_codec_put_int8 (GByteArray *out, gint8 v, AbOrder order);
void ab_codec_put_int32 (GByteArray *out, gint32 v, AbOrder order);
void ab_codec_put_int64 (GByteArray *out, gint64 v, AbOrder order);
/* Fails (AB_CODEC_ERROR_INVALID) if data contains a 0x00 byte. */
gboolean ab_codec_put_string (GByteArray *out, const gchar *data, gsize len, AbOrder order,
                              GError **error);
gboolean ab_codec_put_json (GByteArray *out, const gchar *data, gsize len, AbOrder order,
                            GError **error);
/* Any AbValue, by its kind. */
gboolean ab_codec_put_value (GByteArray *out, const AbValue *v, AbOrder order, GError **error);

/* The same encoders appending to an AbBuf (no allocation while it fits):
 * what the key builders and the hot paths use. */
void ab_buf_put_null (AbBuf *out, AbOrder order);
void ab_buf_put_bool (AbBuf *out, gboolean b, AbOrder order);
void ab_buf_put_int8 (AbBuf *out, gint8 v, AbOrder order);
void ab_buf_put_int16 (AbBuf *out, gint16 v, AbOrder order);
void ab_buf_put_int32 (AbBuf *out, gint32 v, AbOrder order);
void ab_buf_put_int64 (AbBuf *out, gint64 v, AbOrder order);
void ab_buf_put_float32 (AbBuf *out, gfloat v, AbOrder order);
void ab_buf_put_float64 (AbBuf *out, gdouble v, AbOrder order);
gboolean ab_buf_put_string (AbBuf *out, const gchar *data, gsize len, AbOrder order,
                            GError **error);
gboolean ab_buf_put_json (AbBuf *out, const gchar *data, gsize len, AbOrder order, GError **error);
gboolean ab_buf_put_value (AbBuf *out, const AbValue *v, AbOrder order, GError **error);

/* Decodes one element at buf[*pos]; advances *pos past it. out must be clear;
 * order_out (nullable) receives the element's order. */
gboolean ab_codec_get_value (const guint8 *buf, gsize len, gsize *pos, AbValue *out,
                             AbOrder *order_out, GError **error);
/* The same with a string or json element's text put in strings (nullable:
 * then as above) and borrowed from it: one arena for a page of values
 * instead of a heap string each. */
gboolean ab_codec_get_value_in (const guint8 *buf, gsize len, gsize *pos, AbValue *out,
                                AbOrder *order_out, GStringChunk *strings, GError **error);
/* Advances *pos past one element without decoding it. */
gboolean ab_codec_skip (const guint8 *buf, gsize len, gsize *pos, GError **error);
/* Typed readers: fail unless the element has exactly that header (ASC).
 * Inline, as every row value starts with them (version, cell codes); the
 * error is set out of line. */
gboolean ab_codec_typed_fail (const guint8 *buf, gsize len, gsize pos, guint8 want, GError **error);

/* An n-byte integer payload's bits (big-endian, ASC form) back to the
 * number: the encoders' sign-bit flip undone, the sign extended. */
static inline gint64
ab_codec_int_from_bits (guint64 u, guint n)
{
  u ^= (guint64) 1 << (8 * n - 1);
  guint shift = 64 - 8 * n;
  return (gint64) (u << shift) >> shift;
}

/* Reads the n-byte integer after the header want at *pos, or fails. */
static inline gboolean
ab_codec_get_fixed (const guint8 *buf, gsize len, gsize *pos, guint8 want, guint n, gint64 *out,
                    GError **error)
{
  if (*pos >= len || buf[*pos] != want || len - *pos - 1 < n)
    return ab_codec_typed_fail (buf, len, *pos, want, error);
  guint64 u = 0;
  for (guint i = 0; i < n; i++) /* n is a constant: unrolled */
    u = (u << 8) | buf[*pos + 1 + i];
  *out = ab_codec_int_from_bits (u, n);
  *pos += 1 + n;
  return TRUE;
}

/* The narrower widths: out is written only on success. */
#define AB_CODEC_GET_NARROW(name, type, hdr, n)                                                    \
  static inline gboolean ab_codec_get_##name (const guint8 *buf, gsize len, gsize *pos, type *out, \
                                              GError **error)                                      \
  {                                                                                                \
    gint64 v = 0;                                                                                  \
    if (!ab_codec_get_fixed (buf, len, pos, hdr, n, &v, error))                                    \
      return FALSE;                                                                                \
    *out = (type) v;                                                                               \
    return TRUE;                                                                                   \
  }
AB_CODEC_GET_NARROW (int8, gint8, AB_HDR_INT8, 1)
AB_CODEC_GET_NARROW (int32, gint32, AB_HDR_INT32, 4)

static inline gboolean
ab_codec_get_int64 (const guint8 *buf, gsize len, gsize *pos, gint64 *out, GError **error)
{
  return ab_codec_get_fixed (buf, len, pos, AB_HDR_INT64, 8, out, error);
}
