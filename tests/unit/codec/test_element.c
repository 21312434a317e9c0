/* Element codec suite: the §9 element vectors, the order property (encoded
 * byte order == value order, reversed for DESC, also for composite tuples),
 * round trips, and hostile input (random bytes, every truncation). */
#include <math.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "codec_helpers.h"

#define ORDER_ITERS 10000

static void
check_elem (const AbValue *v, const gchar *asc, const gchar *desc)
{
  g_autoptr (GByteArray) a = th_encode (v, AB_ORDER_ASC);
  g_autoptr (GByteArray) d = th_encode (v, AB_ORDER_DESC);
  th_assert_hex (a->data, a->len, asc);
  if (desc != NULL)
    th_assert_hex (d->data, d->len, desc);
}

START_TEST (test_vectors_elements)
{
  AbValue v = AB_VALUE_INIT;
  ab_value_set_string (&v, AB_VALUE_STRING, "Alice", 5);
  check_elem (&v, "34 416c696365 00", "cb be93969c9a ff");
  ab_value_set_string (&v, AB_VALUE_STRING, "Phone", 5);
  check_elem (&v, "34 50686f6e65 00", "cb af9790919a ff");
  ab_value_set_int (&v, AB_VALUE_INT64, 42);
  check_elem (&v, "2c 800000000000002a", "d3 7fffffffffffffd5");
  ab_value_set_int (&v, AB_VALUE_INT64, -1);
  check_elem (&v, "2c 7fffffffffffffff", NULL);
  ab_value_set_int (&v, AB_VALUE_INT64, 1700000000000);
  check_elem (&v, "2c 8000018bcfe56800", "d3 7ffffe74301a97ff");
  ab_value_set_int (&v, AB_VALUE_INT32, 0);
  check_elem (&v, "2b 80000000", NULL);
  ab_value_set_int (&v, AB_VALUE_INT32, -1);
  check_elem (&v, "2b 7fffffff", NULL);
  ab_value_set_int (&v, AB_VALUE_INT8, 1);
  check_elem (&v, "29 81", NULL);
  ab_value_set_int (&v, AB_VALUE_INT8, 0);
  check_elem (&v, "29 80", NULL);
  ab_value_set_float (&v, AB_VALUE_FLOAT64, 1.5);
  check_elem (&v, "31 bff8000000000000", NULL);
  ab_value_set_float (&v, AB_VALUE_FLOAT64, -1.5);
  check_elem (&v, "31 4007ffffffffffff", NULL);
  ab_value_set_float (&v, AB_VALUE_FLOAT64, 0.0);
  check_elem (&v, "31 8000000000000000", NULL);
  ab_value_set_float (&v, AB_VALUE_FLOAT64, -0.0);
  check_elem (&v, "31 7fffffffffffffff", NULL);
  ab_value_set_float (&v, AB_VALUE_FLOAT64, 0.8);
  check_elem (&v, "31 bfe999999999999a", "ce 4016666666666665");
  ab_value_set_float (&v, AB_VALUE_FLOAT32, 0.8);
  check_elem (&v, "30 bf4ccccd", NULL);
  ab_value_set_bool (&v, TRUE);
  check_elem (&v, "36", "c9");
  ab_value_set_bool (&v, FALSE);
  check_elem (&v, "35", "ca");
  ab_value_set_null (&v);
  check_elem (&v, "05", "fa");
  ab_value_set_string (&v, AB_VALUE_JSON, "{\"a\":1}", 7);
  check_elem (&v, "32 7b2261223a317d 00", "cd 84dd9edd c5ce82 ff");
  ab_value_clear (&v);
}
END_TEST

/* Widths other than the §9 table: int16 and the integer extremes. */
START_TEST (test_vectors_int_widths)
{
  AbValue v = AB_VALUE_INIT;
  ab_value_set_int (&v, AB_VALUE_INT16, -2);
  check_elem (&v, "2a 7ffe", "d5 8001");
  ab_value_set_int (&v, AB_VALUE_INT8, G_MININT8);
  check_elem (&v, "29 00", "d6 ff");
  ab_value_set_int (&v, AB_VALUE_INT64, G_MAXINT64);
  check_elem (&v, "2c ffffffffffffffff", "d3 0000000000000000");
  ab_value_set_int (&v, AB_VALUE_INT32, G_MININT32);
  check_elem (&v, "2b 00000000", "d4 ffffffff");
  ab_value_clear (&v);
}
END_TEST

static void
check_pair_order (const AbValue *a, const AbValue *b)
{
  gint want = th_sign (ab_value_compare (a, b));
  for (gint o = AB_ORDER_ASC; o <= AB_ORDER_DESC; o++)
    {
      g_autoptr (GByteArray) ea = th_encode (a, (AbOrder) o);
      g_autoptr (GByteArray) eb = th_encode (b, (AbOrder) o);
      gint got = th_bytes_cmp (ea->data, ea->len, eb->data, eb->len);
      if (got == (o == AB_ORDER_ASC ? want : -want))
        continue;
      g_autofree gchar *sa = ab_value_to_string (a);
      g_autofree gchar *sb = ab_value_to_string (b);
      ck_assert_msg (FALSE, "order %d: '%s'(kind %d) vs '%s'(kind %d): value %d, bytes %d", o, sa,
                     a->kind, sb, b->kind, want, got);
    }
}

/* Same kind: the order property per type. */
START_TEST (test_order_same_kind)
{
  g_autoptr (GRand) r = th_rand_new ();
  AbValueKind kind = (AbValueKind) _i;
  for (gint i = 0, rounds = th_rounds (ORDER_ITERS); i < rounds; i++)
    {
      AbValue a = AB_VALUE_INIT, b = AB_VALUE_INIT;
      th_random_value (r, kind, &a);
      th_random_value (r, kind, &b);
      check_pair_order (&a, &b);
      check_pair_order (&a, &a);
      ab_value_clear (&a);
      ab_value_clear (&b);
    }
}
END_TEST

/* Mixed kinds: the header byte decides, consistently with ab_value_compare. */
START_TEST (test_order_mixed_kinds)
{
  g_autoptr (GRand) r = th_rand_new ();
  for (gint i = 0, rounds = th_rounds (ORDER_ITERS); i < rounds; i++)
    {
      AbValue a = AB_VALUE_INIT, b = AB_VALUE_INIT;
      th_random_value (r, th_random_kind (r), &a);
      th_random_value (r, th_random_kind (r), &b);
      check_pair_order (&a, &b);
      ab_value_clear (&a);
      ab_value_clear (&b);
    }
}
END_TEST

#define TUPLE_MAX 4

/* Tuple comparison field by field, each field in its own order. */
static gint
tuple_compare (const AbValue *a, const AbValue *b, const AbOrder *orders, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      gint c = th_sign (ab_value_compare (&a[i], &b[i]));
      if (c != 0)
        return orders[i] == AB_ORDER_DESC ? -c : c;
    }
  return 0;
}

static GByteArray *
tuple_encode (const AbValue *vals, const AbOrder *orders, guint n)
{
  GByteArray *out = g_byte_array_new ();
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GByteArray) e = th_encode (&vals[i], orders[i]);
      g_byte_array_append (out, e->data, e->len);
    }
  return out;
}

/* A field is null about a third of the time; otherwise of the field's kind. */
static void
random_field (GRand *r, AbValueKind kind, AbValue *out)
{
  if (g_rand_int_range (r, 0, 3) == 0)
    ab_value_set_null (out);
  else
    th_random_value (r, kind, out);
}

START_TEST (test_order_composite)
{
  g_autoptr (GRand) r = th_rand_new ();
  for (gint i = 0, rounds = th_rounds (ORDER_ITERS); i < rounds; i++)
    {
      AbValue a[TUPLE_MAX] = { AB_VALUE_INIT }, b[TUPLE_MAX] = { AB_VALUE_INIT };
      AbOrder orders[TUPLE_MAX];
      guint n = (guint) g_rand_int_range (r, 1, TUPLE_MAX + 1);
      for (guint f = 0; f < n; f++)
        {
          AbValueKind kind = th_random_kind (r);
          orders[f] = g_rand_boolean (r) ? AB_ORDER_DESC : AB_ORDER_ASC;
          random_field (r, kind, &a[f]);
          /* Often share a field so that later fields decide. */
          if (g_rand_boolean (r))
            ab_value_copy (&b[f], &a[f]);
          else
            random_field (r, kind, &b[f]);
        }
      g_autoptr (GByteArray) ea = tuple_encode (a, orders, n);
      g_autoptr (GByteArray) eb = tuple_encode (b, orders, n);
      ck_assert_int_eq (th_bytes_cmp (ea->data, ea->len, eb->data, eb->len),
                        tuple_compare (a, b, orders, n));
      for (guint f = 0; f < n; f++)
        {
          ab_value_clear (&a[f]);
          ab_value_clear (&b[f]);
        }
    }
}
END_TEST

/* Asserts enc(vals[i]) strictly increase (ASC) and strictly decrease (DESC). */
static void
check_strictly_sorted (const AbValue *vals, guint n)
{
  for (guint i = 0; i + 1 < n; i++)
    {
      g_autoptr (GByteArray) a = th_encode (&vals[i], AB_ORDER_ASC);
      g_autoptr (GByteArray) b = th_encode (&vals[i + 1], AB_ORDER_ASC);
      g_autoptr (GByteArray) ad = th_encode (&vals[i], AB_ORDER_DESC);
      g_autoptr (GByteArray) bd = th_encode (&vals[i + 1], AB_ORDER_DESC);
      ck_assert_msg (th_bytes_cmp (a->data, a->len, b->data, b->len) < 0,
                     "ASC not increasing at %u", i);
      ck_assert_msg (th_bytes_cmp (ad->data, ad->len, bd->data, bd->len) > 0,
                     "DESC not decreasing at %u", i);
      ck_assert_int_lt (ab_value_compare (&vals[i], &vals[i + 1]), 0);
    }
}

static const gdouble float_ladder[] = {
  -NAN,
  -INFINITY,
  -DBL_MAX,
  -1e10,
  -1.0,
  -FLT_MIN,
  -FLT_TRUE_MIN,
  -DBL_MIN,
  -4.9406564584124654e-324,
  -0.0,
  0.0,
  4.9406564584124654e-324,
  2.2250738585072009e-308,
  DBL_MIN,
  FLT_TRUE_MIN,
  FLT_MIN,
  0.5,
  1.0,
  1.0000000000000002,
  1e300,
  DBL_MAX,
  INFINITY,
  NAN,
};

START_TEST (test_order_float_ladder)
{
  AbValue vals[G_N_ELEMENTS (float_ladder)];
  for (gint kind = AB_VALUE_FLOAT32; kind <= AB_VALUE_FLOAT64; kind++)
    {
      guint n = 0;
      for (guint i = 0; i < G_N_ELEMENTS (float_ladder); i++)
        {
          gdouble d = float_ladder[i];
          /* Values that collapse together in float32 are kept once. */
          if (kind == AB_VALUE_FLOAT32 && n > 0 && !isnan (d)
              && (gfloat) d == (gfloat) vals[n - 1].u.f
              && !signbit ((gfloat) d) == !signbit (vals[n - 1].u.f))
            continue;
          vals[n] = (AbValue) AB_VALUE_INIT;
          ab_value_set_float (&vals[n++], (AbValueKind) kind, d);
        }
      ck_assert_uint_ge (n, 12);
      check_strictly_sorted (vals, n);
    }
}
END_TEST

START_TEST (test_order_strings)
{
  static const gchar *ladder[] = {
    "",
    "\x01",
    "A",
    "Alice",
    "Alice\x01",
    "Alicea",
    "a",
    "ab",
    "abc",
    "ab\x7f",
    "ab\xc3\xa9",
    "\xc3\xa9",
    "\xc3\xa9t\xc3\xa9",
    "\xc3\xbf",
    "\xe6\x97\xa5",
    "\xe6\x97\xa5\xe6\x9c\xac",
    "\xef\xbf\xbd",
    "\xf0\x9f\x98\x80",
  };
  AbValue vals[G_N_ELEMENTS (ladder)];
  for (gint kind = AB_VALUE_STRING; kind >= AB_VALUE_JSON; kind--)
    {
      for (guint i = 0; i < G_N_ELEMENTS (ladder); i++)
        {
          vals[i] = (AbValue) AB_VALUE_INIT;
          ab_value_set_string (&vals[i], (AbValueKind) kind, ladder[i], strlen (ladder[i]));
        }
      check_strictly_sorted (vals, G_N_ELEMENTS (ladder));
      for (guint i = 0; i < G_N_ELEMENTS (ladder); i++)
        ab_value_clear (&vals[i]);
    }
}
END_TEST

/* Null first in ASC and last in DESC, against every other kind. */
START_TEST (test_order_null_extremes)
{
  g_autoptr (GRand) r = th_rand_new ();
  AbValue null = AB_VALUE_INIT;
  g_autoptr (GByteArray) na = th_encode (&null, AB_ORDER_ASC);
  g_autoptr (GByteArray) nd = th_encode (&null, AB_ORDER_DESC);
  for (gint i = 0, rounds = th_rounds (2000); i < rounds; i++)
    {
      AbValue v = AB_VALUE_INIT;
      AbValueKind kind = th_random_kind (r);
      if (kind == AB_VALUE_NULL)
        continue;
      th_random_value (r, kind, &v);
      g_autoptr (GByteArray) a = th_encode (&v, AB_ORDER_ASC);
      g_autoptr (GByteArray) d = th_encode (&v, AB_ORDER_DESC);
      ck_assert_int_lt (th_bytes_cmp (na->data, na->len, a->data, a->len), 0);
      ck_assert_int_gt (th_bytes_cmp (nd->data, nd->len, d->data, d->len), 0);
      ab_value_clear (&v);
    }
}
END_TEST

static void
check_round_trip (const AbValue *v, AbOrder order)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GByteArray) e = th_encode (v, order);
  g_autofree guint8 *buf = g_memdup2 (e->data, e->len);
  AbValue got = AB_VALUE_INIT;
  AbOrder got_order = 1 - order;
  gsize pos = 0, skip = 0;

  ck_assert (ab_codec_get_value (buf, e->len, &pos, &got, &got_order, &error));
  ck_assert_ptr_null (error);
  ck_assert_uint_eq (pos, e->len);
  ck_assert_int_eq (got_order, order);
  ck_assert_int_eq (got.kind, v->kind);
  ck_assert (ab_value_equal (&got, v));
  ck_assert (ab_codec_skip (buf, e->len, &skip, &error));
  ck_assert_uint_eq (skip, e->len);
  /* Re-encoding is byte-identical (no NaN/-0.0 canonicalisation). */
  g_autoptr (GByteArray) again = th_encode (&got, order);
  ck_assert_int_eq (th_bytes_cmp (again->data, again->len, e->data, e->len), 0);
  ck_assert (!got.borrowed);
  ab_value_clear (&got);

  /* The same into an arena: a text's bytes borrowed from it, the rest as
   * above; clearing the value leaves the arena's copy alone (ASan would see
   * a free of it), and a copy owns its own. */
  GStringChunk *strings = g_string_chunk_new (16);
  AbValue in = AB_VALUE_INIT, copy = AB_VALUE_INIT;
  pos = 0;
  ck_assert (ab_codec_get_value_in (buf, e->len, &pos, &in, &got_order, strings, &error));
  ck_assert_int_eq (got_order, order);
  ck_assert_uint_eq (pos, e->len);
  ck_assert (ab_value_equal (&in, v));
  gboolean text = v->kind == AB_VALUE_STRING || v->kind == AB_VALUE_JSON;
  ck_assert_int_eq (in.borrowed, text);
  ab_value_copy (&copy, &in);
  ck_assert (!copy.borrowed);
  ck_assert (ab_value_equal (&copy, v));
  if (text)
    ck_assert_ptr_ne (copy.u.s.data, in.u.s.data);
  gchar *kept = text ? in.u.s.data : NULL;
  ab_value_clear (&in);
  if (text)
    ck_assert_mem_eq (kept, v->u.s.data, v->u.s.len + 1);
  ab_value_clear (&copy);
  g_string_chunk_free (strings);
}

START_TEST (test_round_trip)
{
  g_autoptr (GRand) r = th_rand_new ();
  for (gint i = 0, rounds = th_rounds (ORDER_ITERS); i < rounds; i++)
    {
      AbValue v = AB_VALUE_INIT;
      th_random_value (r, th_random_kind (r), &v);
      check_round_trip (&v, AB_ORDER_ASC);
      check_round_trip (&v, AB_ORDER_DESC);
      ab_value_clear (&v);
    }
}
END_TEST

/* A sequence of elements decodes back in order, each reporting its order. */
START_TEST (test_round_trip_sequence)
{
  g_autoptr (GRand) r = th_rand_new ();
  for (gint iter = 0; iter < 500; iter++)
    {
      AbValue vals[8];
      AbOrder orders[8];
      g_autoptr (GByteArray) buf = g_byte_array_new ();
      for (guint i = 0; i < 8; i++)
        {
          vals[i] = (AbValue) AB_VALUE_INIT;
          th_random_value (r, th_random_kind (r), &vals[i]);
          orders[i] = g_rand_boolean (r) ? AB_ORDER_DESC : AB_ORDER_ASC;
          ck_assert (ab_codec_put_value (buf, &vals[i], orders[i], NULL));
        }
      gsize pos = 0;
      for (guint i = 0; i < 8; i++)
        {
          AbValue got = AB_VALUE_INIT;
          AbOrder o;
          ck_assert (ab_codec_get_value (buf->data, buf->len, &pos, &got, &o, NULL));
          ck_assert (ab_value_equal (&got, &vals[i]));
          ck_assert_int_eq (o, orders[i]);
          ab_value_clear (&got);
          ab_value_clear (&vals[i]);
        }
      ck_assert_uint_eq (pos, buf->len);
    }
}
END_TEST

START_TEST (test_typed_readers)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  gint8 i8;
  gint32 i32;
  gint64 i64;
  gsize pos = 0;

  ab_codec_put_int8 (b, -128, AB_ORDER_ASC);
  ab_codec_put_int32 (b, G_MININT32, AB_ORDER_ASC);
  ab_codec_put_int64 (b, -373869625, AB_ORDER_ASC);
  ab_codec_put_int64 (b, 7, AB_ORDER_DESC);
  ck_assert (ab_codec_get_int8 (b->data, b->len, &pos, &i8, &error));
  ck_assert_int_eq (i8, -128);
  ck_assert (ab_codec_get_int32 (b->data, b->len, &pos, &i32, &error));
  ck_assert_int_eq (i32, G_MININT32);
  /* Wrong width: an int64 is not an int32. */
  ck_assert (!ab_codec_get_int32 (b->data, b->len, &pos, &i32, &error));
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_MALFORMED));
  g_clear_error (&error);
  ck_assert (ab_codec_get_int64 (b->data, b->len, &pos, &i64, &error));
  ck_assert_int_eq (i64, -373869625);
  /* Typed readers accept ASC only. */
  ck_assert (!ab_codec_get_int64 (b->data, b->len, &pos, &i64, &error));
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_MALFORMED));
  g_clear_error (&error);
  pos = b->len;
  ck_assert (!ab_codec_get_int8 (b->data, b->len, &pos, &i8, &error));
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TRUNCATED));
}
END_TEST

/* Typed readers on every cut of their element, in exact-size buffers. */
START_TEST (test_typed_readers_truncated)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  ab_codec_put_int8 (b, 3, AB_ORDER_ASC);
  ab_codec_put_int32 (b, 3, AB_ORDER_ASC);
  ab_codec_put_int64 (b, 3, AB_ORDER_ASC);
  static const gsize starts[] = { 0, 2, 7, 16 };
  for (guint e = 0; e < 3; e++)
    for (gsize cut = starts[e]; cut < starts[e + 1]; cut++)
      {
        guint8 *buf = th_exact_copy (b->data, cut);
        g_autoptr (GError) error = NULL;
        gsize pos = starts[e];
        gint8 i8;
        gint32 i32;
        gint64 i64;
        gboolean ok = e == 0   ? ab_codec_get_int8 (buf, cut, &pos, &i8, &error)
                      : e == 1 ? ab_codec_get_int32 (buf, cut, &pos, &i32, &error)
                               : ab_codec_get_int64 (buf, cut, &pos, &i64, &error);
        ck_assert (!ok);
        ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TRUNCATED));
        ck_assert_uint_eq (pos, starts[e]);
        free (buf);
      }
}
END_TEST

static void
expect_decode_error (const gchar *hex, gint code)
{
  g_autoptr (GByteArray) b = th_hex (hex);
  g_autofree guint8 *buf = th_exact_copy (b->data, b->len);
  g_autoptr (GError) error = NULL;
  AbValue v = AB_VALUE_INIT;
  gsize pos = 0;
  ck_assert_msg (!ab_codec_get_value (buf, b->len, &pos, &v, NULL, &error), "'%s' decoded", hex);
  ck_assert_msg (g_error_matches (error, AB_CODEC_ERROR, code), "'%s': %s", hex, error->message);
  ck_assert_uint_eq (pos, 0);
  ck_assert_int_eq (v.kind, AB_VALUE_NULL);
  /* the same through an arena */
  GStringChunk *strings = g_string_chunk_new (16);
  g_clear_error (&error);
  ck_assert_msg (!ab_codec_get_value_in (buf, b->len, &pos, &v, NULL, strings, &error),
                 "'%s' decoded", hex);
  ck_assert_msg (g_error_matches (error, AB_CODEC_ERROR, code), "'%s': %s", hex, error->message);
  ck_assert_uint_eq (pos, 0);
  ck_assert_int_eq (v.kind, AB_VALUE_NULL);
  g_string_chunk_free (strings);
}

START_TEST (test_decode_rejects)
{
  expect_decode_error ("", AB_CODEC_ERROR_TRUNCATED);
  expect_decode_error ("00", AB_CODEC_ERROR_MALFORMED);
  expect_decode_error ("ff", AB_CODEC_ERROR_MALFORMED);
  expect_decode_error ("2d 00", AB_CODEC_ERROR_MALFORMED);
  expect_decode_error ("33 61 00", AB_CODEC_ERROR_MALFORMED);
  expect_decode_error ("34 61 62", AB_CODEC_ERROR_TRUNCATED);       /* no terminator */
  expect_decode_error ("cb 9e 00", AB_CODEC_ERROR_TRUNCATED);       /* DESC ends at ff */
  expect_decode_error ("34 ff 00", AB_CODEC_ERROR_MALFORMED);       /* bad UTF-8 */
  expect_decode_error ("34 c3 00", AB_CODEC_ERROR_MALFORMED);       /* cut sequence */
  expect_decode_error ("cb 00 ff", AB_CODEC_ERROR_MALFORMED);       /* DESC of 0xff */
  expect_decode_error ("32 ed a0 80 00", AB_CODEC_ERROR_MALFORMED); /* surrogate */
  expect_decode_error ("2c 80", AB_CODEC_ERROR_TRUNCATED);
  expect_decode_error ("d3 7f ff", AB_CODEC_ERROR_TRUNCATED);
  expect_decode_error ("31", AB_CODEC_ERROR_TRUNCATED);
}
END_TEST

START_TEST (test_encode_rejects)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  AbValue v = AB_VALUE_INIT;

  ck_assert (!ab_codec_put_string (b, "a\0b", 3, AB_ORDER_ASC, &error));
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_INVALID));
  g_clear_error (&error);
  ck_assert (!ab_codec_put_json (b, "\xff", 1, AB_ORDER_DESC, &error));
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_INVALID));
  g_clear_error (&error);
  ab_value_set_int (&v, AB_VALUE_INT8, 128);
  ck_assert (!ab_codec_put_value (b, &v, AB_ORDER_ASC, &error));
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_INVALID));
  g_clear_error (&error);
  ab_value_set_int (&v, AB_VALUE_INT32, (gint64) G_MININT32 - 1);
  ck_assert (!ab_codec_put_value (b, &v, AB_ORDER_ASC, &error));
  g_clear_error (&error);
  ck_assert_uint_eq (b->len, 0);
  /* An empty string is fine: header and terminator. */
  ck_assert (ab_codec_put_string (b, "", 0, AB_ORDER_DESC, &error));
  th_assert_hex (b->data, b->len, "cb ff");
}
END_TEST

/* The one-pass ASCII check in front of the UTF-8 checks must accept exactly
 * what they accept among short texts: every byte alone, then each byte
 * between two ASCII letters, through the encoder and back. */
START_TEST (test_text_checks_match_glib)
{
  ck_assert (ab_text_is_ascii ("", 0));
  ck_assert (ab_text_is_ascii ("user42\x7f", 7));
  ck_assert (!ab_text_is_ascii ("a\0b", 3));
  ck_assert (!ab_text_is_ascii ("caf\xc3\xa9", 5));
  for (guint c = 0; c < 256; c++)
    for (guint wide = 0; wide < 2; wide++)
      {
        gchar text[3] = { 'a', (gchar) c, 'b' };
        const gchar *s = wide ? text : text + 1;
        gsize len = wide ? 3 : 1;
        gboolean valid = g_utf8_validate_len (s, len, NULL);
        ck_assert_int_eq (ab_text_is_ascii (s, len), c >= 1 && c < 0x80);
        g_autoptr (GByteArray) b = g_byte_array_new ();
        g_autoptr (GError) error = NULL;
        ck_assert_int_eq (ab_codec_put_string (b, s, len, AB_ORDER_ASC, &error), valid);
        if (!valid)
          continue;
        AbValue v = AB_VALUE_INIT;
        gsize pos = 0;
        ck_assert (ab_codec_get_value (b->data, b->len, &pos, &v, NULL, &error));
        ck_assert_uint_eq (v.u.s.len, len);
        ck_assert_mem_eq (v.u.s.data, s, len);
        ab_value_clear (&v);
      }
  /* a stored element with a byte the encoder refuses is refused on read */
  static const guint8 bad[] = { AB_HDR_STRING, 'a', 0xc3, 0x00 };
  AbValue v = AB_VALUE_INIT;
  gsize pos = 0;
  g_autoptr (GError) error = NULL;
  ck_assert (!ab_codec_get_value (bad, sizeof bad, &pos, &v, NULL, &error));
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_MALFORMED));
}
END_TEST

/* Decodes elements until failure; the byte after a failure is never read. */
static void
decode_all (const guint8 *buf, gsize len)
{
  gsize pos = 0;
  while (pos < len)
    {
      g_autoptr (GError) error = NULL;
      AbValue v = AB_VALUE_INIT;
      gsize before = pos, skip = pos;
      gboolean ok = ab_codec_get_value (buf, len, &pos, &v, NULL, &error);
      gboolean ok_skip = ab_codec_skip (buf, len, &skip, NULL);
      ab_value_clear (&v);
      if (!ok)
        {
          ck_assert_ptr_nonnull (error);
          ck_assert_uint_eq (pos, before);
          return;
        }
      ck_assert (ok_skip);
      ck_assert_uint_eq (skip, pos);
      ck_assert_uint_gt (pos, before);
      ck_assert_uint_le (pos, len);
    }
}

/* The encoders write into an AbBuf that starts inline and moves to the
 * heap when it fills: a long string must come out whole in both orders, and
 * what was written before the move must survive it. */
START_TEST (test_buf_grows_past_inline)
{
  gsize n = AB_BUF_INLINE * 3 + 7;
  g_autofree gchar *text = g_malloc (n);
  for (gsize i = 0; i < n; i++)
    text[i] = (gchar) ('a' + i % 26);
  for (int order = AB_ORDER_ASC; order <= AB_ORDER_DESC; order++)
    {
      g_auto (AbBuf) b;
      ab_buf_init (&b);
      ab_buf_put_int32 (&b, 7, (AbOrder) order);
      ck_assert_ptr_eq (b.data, b.inline_);
      ck_assert (ab_buf_put_string (&b, text, n, (AbOrder) order, NULL));
      ck_assert_ptr_ne (b.data, b.inline_);
      ck_assert_uint_eq (b.len, 5 + n + 2);
      guint8 flip = order == AB_ORDER_DESC ? 0xFF : 0x00;
      const guint8 int7[5] = { AB_HDR_INT32, 0x80, 0, 0, 7 };
      for (guint i = 0; i < 5; i++)
        ck_assert_uint_eq (b.data[i], int7[i] ^ flip);
      ck_assert_uint_eq (b.data[5], AB_HDR_STRING ^ flip);
      for (gsize i = 0; i < n; i++)
        ck_assert_uint_eq (b.data[6 + i], (guint8) text[i] ^ flip);
      ck_assert_uint_eq (b.data[6 + n], flip);
      /* the GByteArray form appends the same bytes after what is there */
      g_autoptr (GByteArray) a = g_byte_array_new ();
      g_byte_array_append (a, (const guint8 *) "xy", 2);
      ab_codec_put_int32 (a, 7, (AbOrder) order);
      ck_assert (ab_codec_put_string (a, text, n, (AbOrder) order, NULL));
      ck_assert_uint_eq (a->len, 2 + b.len);
      ck_assert_mem_eq (a->data + 2, b.data, b.len);
      g_autoptr (GBytes) copy = ab_buf_to_bytes (&b);
      ck_assert_uint_eq (g_bytes_get_size (copy), b.len);
      ab_buf_clear (&b);
      ck_assert_ptr_eq (b.data, b.inline_);
      ck_assert_uint_eq (b.len, 0);
    }
}
END_TEST

/* A failed text element leaves the buffer as it was. */
START_TEST (test_buf_failed_put_appends_nothing)
{
  g_auto (AbBuf) b;
  ab_buf_init (&b);
  ab_buf_put_int8 (&b, 1, AB_ORDER_ASC);
  g_autoptr (GError) error = NULL;
  ck_assert (!ab_buf_put_string (&b, "a\0b", 3, AB_ORDER_ASC, &error));
  ck_assert_uint_eq (b.len, 2);
  g_autoptr (GByteArray) a = g_byte_array_new ();
  ck_assert (!ab_codec_put_string (a, "\xff", 1, AB_ORDER_ASC, NULL));
  ck_assert_uint_eq (a->len, 0);
}
END_TEST

START_TEST (test_fuzz_random_bytes)
{
  g_autoptr (GRand) r = th_rand_new ();
  /* Bytes drawn from the header set half the time, so decoding goes deep. */
  static const guint8 hdrs[] = { 0x05, 0x29, 0x2a, 0x2b, 0x2c, 0x30, 0x31, 0x32, 0x34,
                                 0x35, 0x36, 0xfa, 0xd6, 0xcb, 0xcd, 0x00, 0xff };
  for (gint i = 0, rounds = th_rounds (20000); i < rounds; i++)
    {
      gsize len = (gsize) g_rand_int_range (r, 0, 40);
      guint8 *buf = malloc (len ? len : 1);
      for (gsize k = 0; k < len; k++)
        buf[k] = g_rand_boolean (r) ? hdrs[g_rand_int_range (r, 0, sizeof hdrs)]
                                    : (guint8) g_rand_int (r);
      decode_all (buf, len);
      free (buf);
    }
}
END_TEST

/* Every proper prefix of a valid element fails as truncated. */
START_TEST (test_truncations)
{
  g_autoptr (GRand) r = th_rand_new ();
  for (gint i = 0, rounds = th_rounds (3000); i < rounds; i++)
    {
      AbValue v = AB_VALUE_INIT;
      th_random_value (r, th_random_kind (r), &v);
      g_autoptr (GByteArray) e = th_encode (&v, g_rand_boolean (r) ? AB_ORDER_DESC : AB_ORDER_ASC);
      for (gsize cut = 0; cut < e->len; cut++)
        {
          guint8 *buf = th_exact_copy (e->data, cut);
          g_autoptr (GError) error = NULL;
          AbValue got = AB_VALUE_INIT;
          gsize pos = 0;
          ck_assert (!ab_codec_get_value (buf, cut, &pos, &got, NULL, &error));
          ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TRUNCATED));
          pos = 0;
          ck_assert (!ab_codec_skip (buf, cut, &pos, NULL));
          free (buf);
        }
      ab_value_clear (&v);
    }
}
END_TEST

static Suite *
element_suite (void)
{
  Suite *s = suite_create ("codec_element");
  TCase *tc = tcase_create ("core");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_vectors_elements);
  tcase_add_test (tc, test_vectors_int_widths);
  tcase_add_loop_test (tc, test_order_same_kind, AB_VALUE_NULL, AB_VALUE_JSON + 1);
  tcase_add_test (tc, test_order_mixed_kinds);
  tcase_add_test (tc, test_order_composite);
  tcase_add_test (tc, test_order_float_ladder);
  tcase_add_test (tc, test_order_strings);
  tcase_add_test (tc, test_order_null_extremes);
  tcase_add_test (tc, test_round_trip);
  tcase_add_test (tc, test_round_trip_sequence);
  tcase_add_test (tc, test_typed_readers);
  tcase_add_test (tc, test_typed_readers_truncated);
  tcase_add_test (tc, test_decode_rejects);
  tcase_add_test (tc, test_encode_rejects);
  tcase_add_test (tc, test_text_checks_match_glib);
  tcase_add_test (tc, test_buf_grows_past_inline);
  tcase_add_test (tc, test_buf_failed_put_appends_nothing);
  tcase_add_test (tc, test_fuzz_random_bytes);
  tcase_add_test (tc, test_truncations);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (element_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
