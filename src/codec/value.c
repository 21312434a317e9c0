/* AbValue life cycle, equality, ordering and text form. The ordering matches
 * the ASC element encoding so that tests can check codec order against it;
 * values of different kinds order by their header byte, as encoded. */
#include <math.h>
#include <string.h>
#include "codec/value.h"

void
ab_value_copy (AbValue *dst, const AbValue *src)
{
  *dst = *src;
  dst->borrowed = FALSE;
  if (src->kind == AB_VALUE_STRING || src->kind == AB_VALUE_JSON)
    dst->u.s.data = g_memdup2 (src->u.s.data, src->u.s.len + 1);
}

void
ab_value_set_null (AbValue *v)
{
  ab_value_clear (v);
}

void
ab_value_set_bool (AbValue *v, gboolean b)
{
  ab_value_clear (v);
  v->kind = AB_VALUE_BOOL;
  v->u.b = b ? TRUE : FALSE;
}

void
ab_value_set_int (AbValue *v, AbValueKind kind, gint64 i)
{
  ab_value_clear (v);
  v->kind = kind;
  v->u.i = i;
}

void
ab_value_set_float (AbValue *v, AbValueKind kind, gdouble f)
{
  ab_value_clear (v);
  v->kind = kind;
  v->u.f = kind == AB_VALUE_FLOAT32 ? (gdouble) (gfloat) f : f;
}

void
ab_value_set_string (AbValue *v, AbValueKind kind, const gchar *data, gsize len)
{
  gchar *copy = g_malloc (len + 1);
  memcpy (copy, data, len);
  copy[len] = '\0';
  ab_value_take_string (v, kind, copy, len);
}

void
ab_value_take_string (AbValue *v, AbValueKind kind, gchar *data, gsize len)
{
  ab_value_clear (v);
  v->kind = kind;
  v->u.s.data = data;
  v->u.s.len = len;
}

void
ab_value_borrow_string (AbValue *v, AbValueKind kind, gchar *data, gsize len)
{
  ab_value_take_string (v, kind, data, len);
  v->borrowed = TRUE;
}

/* Header byte of the ASC encoding: the cross-kind order. */
static guint8
kind_rank (const AbValue *v)
{
  switch (v->kind)
    {
      case AB_VALUE_NULL: return 0x05;
      case AB_VALUE_INT8: return 0x29;
      case AB_VALUE_INT16: return 0x2A;
      case AB_VALUE_INT32: return 0x2B;
      case AB_VALUE_INT64: return 0x2C;
      case AB_VALUE_FLOAT32: return 0x30;
      case AB_VALUE_FLOAT64: return 0x31;
      case AB_VALUE_JSON: return 0x32;
      case AB_VALUE_STRING: return 0x34;
      case AB_VALUE_BOOL: return v->u.b ? 0x36 : 0x35;
    }
  return 0;
}

/* Floats order by their encoded bits: -NaN < -inf < ... < -0 < +0 < ... < +NaN. */
static guint64
float_key (const AbValue *v)
{
  if (v->kind == AB_VALUE_FLOAT32)
    {
      gfloat f = (gfloat) v->u.f;
      guint32 b;
      memcpy (&b, &f, 4);
      b ^= (guint32) ((gint32) b >> 31) | 0x80000000u;
      return b;
    }
  guint64 b;
  memcpy (&b, &v->u.f, 8);
  b ^= (guint64) ((gint64) b >> 63) | G_GUINT64_CONSTANT (0x8000000000000000);
  return b;
}

gint
ab_value_compare (const AbValue *a, const AbValue *b)
{
  guint8 ra = kind_rank (a), rb = kind_rank (b);
  if (ra != rb)
    return ra < rb ? -1 : 1;
  switch (a->kind)
    {
      case AB_VALUE_NULL:
      case AB_VALUE_BOOL: return 0;
      case AB_VALUE_INT8:
      case AB_VALUE_INT16:
      case AB_VALUE_INT32:
      case AB_VALUE_INT64: return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
      case AB_VALUE_FLOAT32:
      case AB_VALUE_FLOAT64:
        {
          guint64 ka = float_key (a), kb = float_key (b);
          return ka < kb ? -1 : ka > kb;
        }
      case AB_VALUE_STRING:
      case AB_VALUE_JSON:
        {
          gsize n = MIN (a->u.s.len, b->u.s.len);
          gint c = memcmp (a->u.s.data, b->u.s.data, n);
          if (c != 0)
            return c < 0 ? -1 : 1;
          return a->u.s.len < b->u.s.len ? -1 : a->u.s.len > b->u.s.len;
        }
    }
  return 0;
}

gboolean
ab_value_equal (const AbValue *a, const AbValue *b)
{
  return a->kind == b->kind && ab_value_compare (a, b) == 0;
}

void
ab_value_append_string (GString *out, const AbValue *v)
{
  switch (v->kind)
    {
      case AB_VALUE_NULL: g_string_append (out, "null"); return;
      case AB_VALUE_BOOL: g_string_append (out, v->u.b ? "true" : "false"); return;
      case AB_VALUE_INT8:
      case AB_VALUE_INT16:
      case AB_VALUE_INT32:
      case AB_VALUE_INT64: g_string_append_printf (out, "%" G_GINT64_FORMAT, v->u.i); return;
      case AB_VALUE_FLOAT32:
      case AB_VALUE_FLOAT64:
        {
          gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
          g_string_append (out, g_ascii_dtostr (buf, sizeof buf, v->u.f));
          return;
        }
      case AB_VALUE_STRING:
      case AB_VALUE_JSON: g_string_append_len (out, v->u.s.data, (gssize) v->u.s.len); return;
    }
}

gchar *
ab_value_to_string (const AbValue *v)
{
  GString *s = g_string_sized_new (v->kind == AB_VALUE_STRING ? v->u.s.len : 24);
  ab_value_append_string (s, v);
  return g_string_free (s, FALSE);
}
