/* Row value suite: the §9 State/Index/Lock values, createdAt/deletedAt
 * lifting, random round trips, and hostile values (every truncation, random
 * damage, bad active flag, DESC elements, trailing bytes). */
#include <stdlib.h>
#include <string.h>
#include "codec_helpers.h"
#include "codec/keys.h"
#include "codec/record.h"

#define CA 1700000000000
#define CREATED_AT_CODE 1432827941

START_TEST (test_state_value_vector)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GByteArray) out = g_byte_array_new ();
  AbStateValue sv;
  AbValue ca = AB_VALUE_INIT;

  ab_codec_state_value_init (&sv);
  sv.meta.active = TRUE;
  sv.meta.version = CA;
  sv.meta.has_created_at = TRUE;
  sv.meta.created_at = CA;
  ab_value_set_int (&ca, AB_VALUE_INT64, CA);
  ab_codec_state_value_add (&sv, ab_codec_code ("created_at"), &ca, CA);
  ck_assert (ab_codec_encode_state_value (out, &sv, &error));
  th_assert_hex (out->data, out->len,
                 "2981 2c8000018bcfe56800 2bd5673825 2c8000018bcfe56800 "
                 "2c8000018bcfe56800 2b9241de31 2c8000018bcfe56800 2c8000018bcfe56800");
  ab_codec_state_value_clear (&sv);

  AbStateValue got = { 0 };
  ck_assert (ab_codec_decode_state_value (out->data, out->len, &got, &error));
  ck_assert (got.meta.active);
  ck_assert_int_eq (got.meta.version, CA);
  ck_assert (got.meta.has_created_at);
  ck_assert_int_eq (got.meta.created_at, CA);
  ck_assert (!got.meta.has_deleted_at);
  /* The reserved cell is lifted, not left among the properties. */
  ck_assert_uint_eq (got.props->len, 1);
  AbCodedProp *p = &g_array_index (got.props, AbCodedProp, 0);
  ck_assert_int_eq (p->code, CREATED_AT_CODE);
  ck_assert (ab_value_equal (&p->value, &ca));
  ck_assert_int_eq (p->version, CA);
  ab_codec_state_value_clear (&got);
}
END_TEST

/* Inactive state with a deleted-at cell and a null (UNSET/DELETED) property. */
START_TEST (test_state_value_deleted)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  AbStateValue sv;
  AbValue null = AB_VALUE_INIT;

  ab_codec_state_value_init (&sv);
  sv.meta.version = 5;
  sv.meta.has_deleted_at = TRUE;
  sv.meta.deleted_at = -1;
  ab_codec_state_value_add (&sv, -7, &null, 4);
  ck_assert (ab_codec_encode_state_value (out, &sv, NULL));
  th_assert_hex (out->data, out->len,
                 "2980 2c8000000000000005 2b7ffffff9 05 2c8000000000000004 "
                 "2bbc639382 2c7fffffffffffffff 2c7fffffffffffffff");
  /* Decoding into an already-used value replaces its contents. */
  ck_assert (ab_codec_decode_state_value (out->data, out->len, &sv, NULL));
  ck_assert (!sv.meta.active);
  ck_assert (!sv.meta.has_created_at);
  ck_assert (sv.meta.has_deleted_at);
  ck_assert_int_eq (sv.meta.deleted_at, -1);
  ck_assert_uint_eq (sv.props->len, 1);
  ck_assert_int_eq (g_array_index (sv.props, AbCodedProp, 0).value.kind, AB_VALUE_NULL);
  ck_assert_int_eq (g_array_index (sv.props, AbCodedProp, 0).version, 4);
  ab_codec_state_value_clear (&sv);
}
END_TEST

START_TEST (test_index_value_vector)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GArray) props = ab_codec_coded_prop_array_new ();
  AbCodedProp p = { .code = ab_codec_code ("created_at"), .value = AB_VALUE_INIT };
  gint64 version = 0;

  ab_value_set_int (&p.value, AB_VALUE_INT64, CA);
  ck_assert (ab_codec_encode_index_value (out, CA, &p, 1, NULL));
  th_assert_hex (out->data, out->len, "2c8000018bcfe56800 2bd5673825 2c8000018bcfe56800");
  ck_assert (ab_codec_decode_index_value (out->data, out->len, &version, props, NULL));
  ck_assert_int_eq (version, CA);
  ck_assert_uint_eq (props->len, 1);
  ck_assert_int_eq (g_array_index (props, AbCodedProp, 0).code, CREATED_AT_CODE);
  ck_assert (ab_value_equal (&g_array_index (props, AbCodedProp, 0).value, &p.value));
  ab_value_clear (&p.value);
}
END_TEST

START_TEST (test_queue_index_value)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  AbCodedProp props[2] = { { .code = ab_codec_code ("seq") }, { .code = ab_codec_code ("value") } };
  ab_value_set_int (&props[0].value, AB_VALUE_INT64, 1001);
  ab_value_set_string (&props[1].value, AB_VALUE_STRING, "{\"body\":\"world\"}", 16);
  ck_assert (ab_codec_encode_index_value (out, 1001, props, 2, NULL));
  th_assert_hex (out->data, out->len,
                 "2c80000000000003e9 2b2bb4d366 2c80000000000003e9 2b74aefeb0 "
                 "347b22626f6479223a22776f726c64227d00");
  ab_value_clear (&props[0].value);
  ab_value_clear (&props[1].value);
}
END_TEST

START_TEST (test_lock_value)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  gint64 ms = 0;
  ab_codec_encode_lock_value (out, 1700000000123);
  th_assert_hex (out->data, out->len, "2c8000018bcfe5687b");
  ck_assert (ab_codec_decode_lock_value (out->data, out->len, &ms, &error));
  ck_assert_int_eq (ms, 1700000000123);
  ck_assert (!ab_codec_decode_lock_value (out->data, out->len - 1, &ms, &error));
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TRUNCATED));
  g_clear_error (&error);
  g_byte_array_append (out, (const guint8 *) "\x05", 1);
  ck_assert (!ab_codec_decode_lock_value (out->data, out->len, &ms, &error));
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_MALFORMED));
}
END_TEST

START_TEST (test_be64)
{
  guint8 b[8];
  ab_codec_put_be64 (b, -2);
  th_assert_hex (b, 8, "fffffffffffffffe");
  ck_assert_int_eq (ab_codec_get_be64 (b), -2);
  ab_codec_put_be64 (b, 0x0102030405060708);
  th_assert_hex (b, 8, "0102030405060708");
  ck_assert_int_eq (ab_codec_get_be64 (b), 0x0102030405060708);
  ab_codec_put_be64 (b, G_MININT64);
  ck_assert_int_eq (ab_codec_get_be64 (b), G_MININT64);
}
END_TEST

static void
random_state (GRand *r, AbStateValue *sv)
{
  ab_codec_state_value_init (sv);
  sv->meta.active = g_rand_boolean (r);
  sv->meta.version = (gint64) g_rand_int (r) << 12;
  sv->meta.has_created_at = g_rand_boolean (r);
  sv->meta.created_at = g_rand_int (r);
  sv->meta.has_deleted_at = g_rand_boolean (r);
  sv->meta.deleted_at = -(gint64) g_rand_int (r);
  for (gint n = g_rand_int_range (r, 0, 5); n > 0; n--)
    {
      AbValue v = AB_VALUE_INIT;
      th_random_value (r, th_random_kind (r), &v);
      gint32 code = (gint32) g_rand_int (r);
      if (code == AB_CODE_INSERT_TS || code == AB_CODE_DELETE_TS)
        code = 0;
      ab_codec_state_value_add (sv, code, &v, g_rand_int (r));
      ab_value_clear (&v);
    }
}

static void
assert_state_equal (const AbStateValue *a, const AbStateValue *b)
{
  ck_assert_int_eq (a->meta.active, b->meta.active);
  ck_assert_int_eq (a->meta.version, b->meta.version);
  ck_assert_int_eq (a->meta.has_created_at, b->meta.has_created_at);
  if (a->meta.has_created_at)
    ck_assert_int_eq (a->meta.created_at, b->meta.created_at);
  ck_assert_int_eq (a->meta.has_deleted_at, b->meta.has_deleted_at);
  if (a->meta.has_deleted_at)
    ck_assert_int_eq (a->meta.deleted_at, b->meta.deleted_at);
  ck_assert_uint_eq (a->props->len, b->props->len);
  for (guint i = 0; i < a->props->len; i++)
    {
      const AbCodedProp *pa = &g_array_index (a->props, AbCodedProp, i);
      const AbCodedProp *pb = &g_array_index (b->props, AbCodedProp, i);
      ck_assert_int_eq (pa->code, pb->code);
      ck_assert_int_eq (pa->version, pb->version);
      ck_assert (ab_value_equal (&pa->value, &pb->value));
    }
}

START_TEST (test_state_round_trip)
{
  g_autoptr (GRand) r = th_rand_new ();
  for (gint i = 0; i < 3000; i++)
    {
      AbStateValue sv, got = { 0 };
      g_autoptr (GByteArray) out = g_byte_array_new ();
      random_state (r, &sv);
      ck_assert (ab_codec_encode_state_value (out, &sv, NULL));
      ck_assert (ab_codec_decode_state_value (out->data, out->len, &got, NULL));
      assert_state_equal (&sv, &got);
      ab_codec_state_value_clear (&sv);
      ab_codec_state_value_clear (&got);
    }
}
END_TEST

START_TEST (test_index_round_trip)
{
  g_autoptr (GRand) r = th_rand_new ();
  for (gint i = 0; i < 3000; i++)
    {
      AbStateValue sv;
      g_autoptr (GByteArray) out = g_byte_array_new ();
      g_autoptr (GArray) props = ab_codec_coded_prop_array_new ();
      gint64 version = 0;
      random_state (r, &sv);
      for (guint k = 0; k < sv.props->len; k++)
        g_array_index (sv.props, AbCodedProp, k).version = 0;
      ck_assert (ab_codec_encode_index_value (out, sv.meta.version, (AbCodedProp *) sv.props->data,
                                              sv.props->len, NULL));
      ck_assert (ab_codec_decode_index_value (out->data, out->len, &version, props, NULL));
      ck_assert_int_eq (version, sv.meta.version);
      ck_assert_uint_eq (props->len, sv.props->len);
      for (guint k = 0; k < props->len; k++)
        {
          ck_assert_int_eq (g_array_index (props, AbCodedProp, k).code,
                            g_array_index (sv.props, AbCodedProp, k).code);
          ck_assert (ab_value_equal (&g_array_index (props, AbCodedProp, k).value,
                                     &g_array_index (sv.props, AbCodedProp, k).value));
        }
      ab_codec_state_value_clear (&sv);
    }
}
END_TEST

/* Cell boundaries of an encoded state value: where a cut still decodes. */
static GArray *
state_boundaries (const AbStateValue *sv)
{
  GArray *b = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr (GByteArray) tmp = g_byte_array_new ();
  ab_codec_put_int8 (tmp, 0, AB_ORDER_ASC);
  ab_codec_put_int64 (tmp, 0, AB_ORDER_ASC);
  gsize end = tmp->len;
  g_array_append_val (b, end);
  for (guint i = 0; i < sv->props->len; i++)
    {
      const AbCodedProp *p = &g_array_index (sv->props, AbCodedProp, i);
      ab_codec_put_int32 (tmp, 0, AB_ORDER_ASC);
      ck_assert (ab_codec_put_value (tmp, &p->value, AB_ORDER_ASC, NULL));
      ab_codec_put_int64 (tmp, 0, AB_ORDER_ASC);
      end = tmp->len;
      g_array_append_val (b, end);
    }
  for (gint k = 0; k < sv->meta.has_created_at + sv->meta.has_deleted_at; k++)
    {
      end = tmp->len + 23 * (gsize) (k + 1);
      g_array_append_val (b, end);
    }
  return b;
}

static gboolean
contains (GArray *a, gsize v)
{
  for (guint i = 0; i < a->len; i++)
    if (g_array_index (a, gsize, i) == v)
      return TRUE;
  return FALSE;
}

START_TEST (test_state_truncations)
{
  g_autoptr (GRand) r = th_rand_new ();
  for (gint i = 0; i < 500; i++)
    {
      AbStateValue sv;
      g_autoptr (GByteArray) out = g_byte_array_new ();
      random_state (r, &sv);
      ck_assert (ab_codec_encode_state_value (out, &sv, NULL));
      g_autoptr (GArray) ends = state_boundaries (&sv);
      for (gsize cut = 0; cut <= out->len; cut++)
        {
          guint8 *buf = th_exact_copy (out->data, cut);
          g_autoptr (GError) error = NULL;
          AbStateValue got = { 0 };
          gboolean ok = ab_codec_decode_state_value (buf, cut, &got, &error);
          ck_assert_msg (ok == contains (ends, cut), "cut %zu of %u", cut, out->len);
          ck_assert (ok || error != NULL);
          if (!ok)
            ck_assert_uint_eq (got.props->len, 0);
          ab_codec_state_value_clear (&got);
          free (buf);
        }
      ab_codec_state_value_clear (&sv);
    }
}
END_TEST

START_TEST (test_record_fuzz)
{
  g_autoptr (GRand) r = th_rand_new ();
  g_autoptr (GArray) props = ab_codec_coded_prop_array_new ();
  for (gint i = 0; i < 5000; i++)
    {
      AbStateValue sv, got = { 0 };
      g_autoptr (GByteArray) out = g_byte_array_new ();
      random_state (r, &sv);
      ck_assert (ab_codec_encode_state_value (out, &sv, NULL));
      ab_codec_state_value_clear (&sv);
      for (gint k = g_rand_int_range (r, 1, 4); k > 0; k--)
        out->data[g_rand_int_range (r, 0, out->len)] = (guint8) g_rand_int (r);
      guint8 *buf = th_exact_copy (out->data, out->len);
      gint64 version;
      ab_codec_decode_state_value (buf, out->len, &got, NULL);
      ab_codec_state_value_clear (&got);
      guint before = props->len;
      if (!ab_codec_decode_index_value (buf, out->len, &version, props, NULL))
        ck_assert_uint_eq (props->len, before);
      g_array_set_size (props, 0);
      free (buf);
    }
}
END_TEST

/* A failed index decode leaves the caller's array as it was. */
START_TEST (test_index_value_truncations)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  AbCodedProp props[2] = { { .code = 1 }, { .code = 2 } };
  ab_value_set_string (&props[0].value, AB_VALUE_STRING, "ab", 2);
  ab_value_set_int (&props[1].value, AB_VALUE_INT16, -3);
  ck_assert (ab_codec_encode_index_value (out, 9, props, 2, NULL));
  th_assert_hex (out->data, out->len, "2c8000000000000009 2b80000001 34616200 2b80000002 2a7ffd");
  for (gsize cut = 0; cut <= out->len; cut++)
    {
      g_autoptr (GArray) got = ab_codec_coded_prop_array_new ();
      g_autoptr (GError) error = NULL;
      guint8 *buf = th_exact_copy (out->data, cut);
      gint64 version = 0;
      g_array_set_size (got, 1);
      gboolean ok = ab_codec_decode_index_value (buf, cut, &version, got, &error);
      ck_assert_int_eq (ok, cut == 9 || cut == 18 || cut == out->len);
      ck_assert_uint_eq (got->len, ok ? 1 + (cut > 9) + (cut > 18) : 1);
      ck_assert (ok || g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TRUNCATED));
      free (buf);
    }
  ab_value_clear (&props[0].value);
}
END_TEST

static void
expect_state_error (const gchar *hex, gint code)
{
  g_autoptr (GByteArray) b = th_hex (hex);
  g_autoptr (GError) error = NULL;
  AbStateValue got = { 0 };
  ck_assert (!ab_codec_decode_state_value (b->data, b->len, &got, &error));
  ck_assert_msg (g_error_matches (error, AB_CODEC_ERROR, code), "%s", error->message);
  ab_codec_state_value_clear (&got);
}

START_TEST (test_state_rejects)
{
  expect_state_error ("", AB_CODEC_ERROR_TRUNCATED);
  expect_state_error ("2982 2c8000000000000001", AB_CODEC_ERROR_MALFORMED);
  expect_state_error ("05 2c8000000000000001", AB_CODEC_ERROR_MALFORMED);
  expect_state_error ("2981 2b80000001", AB_CODEC_ERROR_MALFORMED);
  /* A DESC element is never written in a value. */
  expect_state_error ("2981 2c8000000000000001 2b80000001 cbff 2c8000000000000001",
                      AB_CODEC_ERROR_MALFORMED);
  /* A property without its version. */
  expect_state_error ("2981 2c8000000000000001 2b80000001 05", AB_CODEC_ERROR_TRUNCATED);
}
END_TEST

static Suite *
record_suite (void)
{
  Suite *s = suite_create ("codec_record");
  TCase *tc = tcase_create ("core");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_state_value_vector);
  tcase_add_test (tc, test_state_value_deleted);
  tcase_add_test (tc, test_index_value_vector);
  tcase_add_test (tc, test_queue_index_value);
  tcase_add_test (tc, test_lock_value);
  tcase_add_test (tc, test_be64);
  tcase_add_test (tc, test_state_round_trip);
  tcase_add_test (tc, test_index_round_trip);
  tcase_add_test (tc, test_state_truncations);
  tcase_add_test (tc, test_record_fuzz);
  tcase_add_test (tc, test_index_value_truncations);
  tcase_add_test (tc, test_state_rejects);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (record_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
