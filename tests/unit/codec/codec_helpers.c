/* Helpers for the codec suites (see codec_helpers.h): hex literals, order
 * comparison, seeded random values tuned to hit encoding edge cases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "codec_helpers.h"

GByteArray *
th_hex (const gchar *hex)
{
  GByteArray *out = g_byte_array_new ();
  gint hi = -1;
  for (const gchar *p = hex; *p; p++)
    {
      if (*p == ' ')
        continue;
      gint d = g_ascii_xdigit_value (*p);
      ck_assert_msg (d >= 0, "bad hex literal '%s'", hex);
      if (hi < 0)
        hi = d;
      else
        {
          guint8 b = (guint8) (hi << 4 | d);
          g_byte_array_append (out, &b, 1);
          hi = -1;
        }
    }
  ck_assert_msg (hi < 0, "odd-length hex literal '%s'", hex);
  return out;
}

void
th_assert_hex (const guint8 *buf, gsize len, const gchar *hex)
{
  g_autoptr (GByteArray) want = th_hex (hex);
  g_autoptr (GString) got = g_string_new (NULL);
  g_autoptr (GString) exp = g_string_new (NULL);
  for (gsize i = 0; i < len; i++)
    g_string_append_printf (got, "%02x", buf[i]);
  for (guint i = 0; i < want->len; i++)
    g_string_append_printf (exp, "%02x", want->data[i]);
  ck_assert_str_eq (got->str, exp->str);
}

gint
th_sign (gint v)
{
  return (v > 0) - (v < 0);
}

gint
th_bytes_cmp (const guint8 *a, gsize alen, const guint8 *b, gsize blen)
{
  gsize n = MIN (alen, blen);
  gint c = n ? memcmp (a, b, n) : 0;
  if (c != 0)
    return th_sign (c);
  return alen < blen ? -1 : alen > blen;
}

GRand *
th_rand_new (void)
{
  const gchar *env = g_getenv ("AB_TEST_SEED");
  guint32 seed = env ? (guint32) g_ascii_strtoull (env, NULL, 10) : 20240601u;
  return g_rand_new_with_seed (seed);
}

gint
th_rounds (gint n)
{
  return g_getenv ("AB_TEST_UNDER_VALGRIND") != NULL ? MAX (n / 10, 1) : n;
}

static gint64
random_int (GRand *r, gint64 lo, gint64 hi)
{
  guint64 bits = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
  switch (g_rand_int_range (r, 0, 6))
    {
      case 0: return lo;
      case 1: return hi;
      case 2: return g_rand_int_range (r, -3, 4);
      case 3:
        return g_rand_boolean (r) ? lo + g_rand_int_range (r, 0, 3)
                                  : hi - g_rand_int_range (r, 0, 3);
      default:
        {
          /* Uniform over the width: the two's complement bits, sign-extended. */
          guint width = 64 - (guint) __builtin_clzll ((guint64) hi) + 1;
          guint shift = 64 - width;
          return (gint64) (bits << shift) >> shift;
        }
    }
}

static gdouble
random_double (GRand *r)
{
  static const gdouble specials[] = { 0.0, -0.0, 1.0, -1.0, 1.5, -1.5, 0.8 };
  guint64 bits = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
  gdouble d;
  switch (g_rand_int_range (r, 0, 8))
    {
      case 0: return specials[g_rand_int_range (r, 0, G_N_ELEMENTS (specials))];
      case 1: return g_rand_boolean (r) ? INFINITY : -INFINITY;
      case 2: return g_rand_boolean (r) ? NAN : -NAN;
      case 3: /* subnormals */ bits &= G_GUINT64_CONSTANT (0x800FFFFFFFFFFFFF); break;
      case 4: return (gdouble) g_rand_int_range (r, -5, 6) / 4.0;
      default: break;
    }
  memcpy (&d, &bits, sizeof d);
  return d;
}

static gdouble
random_float (GRand *r)
{
  guint32 bits = g_rand_int (r);
  gfloat f;
  switch (g_rand_int_range (r, 0, 4))
    {
      case 0: return random_double (r);
      case 1: bits &= 0x807FFFFFu; break; /* subnormals */
      default: break;
    }
  memcpy (&f, &bits, sizeof f);
  return f;
}

/* Short strings from a few pieces (ASCII and 2/3/4-byte UTF-8), so prefixes
 * and equal strings occur often. */
static void
random_text (GRand *r, AbValueKind kind, AbValue *out)
{
  static const gchar *pieces[] = {
    "a",
    "b",
    "z",
    "\x01",
    "\x7f",
    "\xc3\xa9",
    "\xc3\xbf",
    "\xe6\x97\xa5",
    "\xef\xbf\xbd",
    "\xf0\x9f\x98\x80",
    "{",
    "\"",
  };
  g_autoptr (GString) s = g_string_new (NULL);
  gint n = g_rand_int_range (r, 0, 6);
  for (gint i = 0; i < n; i++)
    g_string_append (s, pieces[g_rand_int_range (r, 0, G_N_ELEMENTS (pieces))]);
  ab_value_set_string (out, kind, s->str, s->len);
}

void
th_random_value (GRand *r, AbValueKind kind, AbValue *out)
{
  switch (kind)
    {
      case AB_VALUE_NULL: ab_value_set_null (out); break;
      case AB_VALUE_BOOL: ab_value_set_bool (out, g_rand_boolean (r)); break;
      case AB_VALUE_INT8: ab_value_set_int (out, kind, random_int (r, G_MININT8, G_MAXINT8)); break;
      case AB_VALUE_INT16:
        ab_value_set_int (out, kind, random_int (r, G_MININT16, G_MAXINT16));
        break;
      case AB_VALUE_INT32:
        ab_value_set_int (out, kind, random_int (r, G_MININT32, G_MAXINT32));
        break;
      case AB_VALUE_INT64:
        ab_value_set_int (out, kind, random_int (r, G_MININT64, G_MAXINT64));
        break;
      case AB_VALUE_FLOAT32: ab_value_set_float (out, kind, random_float (r)); break;
      case AB_VALUE_FLOAT64: ab_value_set_float (out, kind, random_double (r)); break;
      case AB_VALUE_STRING:
      case AB_VALUE_JSON: random_text (r, kind, out); break;
    }
}

AbValueKind
th_random_kind (GRand *r)
{
  return (AbValueKind) g_rand_int_range (r, AB_VALUE_NULL, AB_VALUE_JSON + 1);
}

GByteArray *
th_encode (const AbValue *v, AbOrder order)
{
  g_autoptr (GError) error = NULL;
  GByteArray *out = g_byte_array_new ();
  gboolean ok = ab_codec_put_value (out, v, order, &error);
  ck_assert_msg (ok, "encode failed: %s", error ? error->message : "?");
  return out;
}

guint8 *
th_exact_copy (const guint8 *buf, gsize len)
{
  /* malloc(0) may return NULL; one spare allocation keeps the pointer valid
   * without giving readers any readable byte past len. */
  guint8 *p = malloc (len ? len : 1);
  ck_assert_ptr_nonnull (p);
  if (len)
    memcpy (p, buf, len);
  return p;
}
