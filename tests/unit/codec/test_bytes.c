/* Byte helpers suite: plusOne and prefix upper bound (with the §9 scan
 * vectors built from real keys), offset tokens both ways, token garbage,
 * and hex. */
#include <stdlib.h>
#include <string.h>
#include "codec_helpers.h"
#include "codec/bytes.h"
#include "codec/keys.h"

static void
check_plus_one (const gchar *in, const gchar *want, gboolean want_ok)
{
  g_autoptr (GByteArray) b = th_hex (in);
  ck_assert_int_eq (ab_codec_plus_one (b), want_ok);
  th_assert_hex (b->data, b->len, want);
}

START_TEST (test_plus_one)
{
  check_plus_one ("0a 0b ff", "0a 0c 00", TRUE);
  check_plus_one ("cb 9e 9d ff", "cb 9e 9e 00", TRUE);
  check_plus_one ("00", "01", TRUE);
  check_plus_one ("01 ff ff", "02 00 00", TRUE);
  check_plus_one ("ff ff", "00 00", FALSE);
  check_plus_one ("", "", FALSE);
}
END_TEST

static void
check_upper (const gchar *in, const gchar *want)
{
  g_autoptr (GByteArray) b = th_hex (in);
  g_autoptr (GByteArray) u = ab_codec_prefix_upper_bound (b->data, b->len);
  if (want == NULL)
    {
      ck_assert_ptr_null (u);
      return;
    }
  ck_assert_ptr_nonnull (u);
  th_assert_hex (u->data, u->len, want);
}

START_TEST (test_prefix_upper_bound)
{
  check_upper ("0a 0b ff", "0a 0c");
  check_upper ("ff ff", NULL);
  check_upper ("", NULL);
  check_upper ("00", "01");
  check_upper ("12 fe ff ff", "12 ff");
}
END_TEST

/* The range over a prefix: from the prefix, inclusive, to its upper bound. */
START_TEST (test_prefix_range)
{
  g_autoptr (GByteArray) b = th_hex ("0a 0b ff");
  AbScanRange r;
  g_autoptr (GByteArray) stop = ab_codec_prefix_range (b->data, b->len, &r);
  ck_assert_ptr_eq (r.start, b->data);
  ck_assert_uint_eq (r.start_len, b->len);
  ck_assert (r.start_inclusive && !r.stop_inclusive);
  ck_assert_ptr_eq (r.stop, stop->data);
  th_assert_hex (r.stop, r.stop_len, "0a 0c");
  ck_assert_uint_eq (r.limit, 0);
  g_autoptr (GByteArray) all = th_hex ("ff ff");
  g_autoptr (GByteArray) none = ab_codec_prefix_range (all->data, all->len, &r);
  ck_assert_ptr_null (none);
  ck_assert (r.stop == NULL && r.stop_len == 0);
}
END_TEST

/* Scan bounds of index created_at_desc, start Alice, OUT (docs/storage-format.md §9). */
START_TEST (test_scan_vectors)
{
  AbValue alice = AB_VALUE_INIT, v = AB_VALUE_INIT;
  ab_value_set_string (&alice, AB_VALUE_STRING, "Alice", 5);
  g_autoptr (GByteArray) p = ab_codec_index_prefix (
      &alice, AB_DIR_OUT, ab_codec_code ("likes.likes"), ab_codec_code ("created_at_desc"), NULL);
  th_assert_hex (p->data, p->len, "ae88fb19 34416c69636500 2b8c5a4378 297c 2982 2b69b733c7");
  g_autoptr (GByteArray) ub = ab_codec_prefix_upper_bound (p->data, p->len);
  th_assert_hex (ub->data, ub->len, "ae88fb19 34416c69636500 2b8c5a4378 297c 2982 2b69b733c8");

  /* lt (exclusive start) and gte (inclusive stop) give the same key. */
  ab_value_set_int (&v, AB_VALUE_INT64, 1700000000000);
  ck_assert (ab_codec_put_value (p, &v, AB_ORDER_DESC, NULL));
  ck_assert (ab_codec_plus_one (p));
  th_assert_hex (p->data, p->len,
                 "ae88fb19 34416c69636500 2b8c5a4378 297c 2982 2b69b733c7 d37ffffe74301a9800");
  ab_value_clear (&alice);
}
END_TEST

START_TEST (test_queue_scan_vectors)
{
  AbValue part = AB_VALUE_INIT, v = AB_VALUE_INIT;
  ab_value_set_int (&part, AB_VALUE_INT64, 25);
  g_autoptr (GByteArray) p = ab_codec_index_prefix (
      &part, AB_DIR_OUT, ab_codec_table_code ("your_namespace", "your_queue"),
      ab_codec_code ("seq"), NULL);
  g_autoptr (GByteArray) end = ab_codec_prefix_upper_bound (p->data, p->len);
  th_assert_hex (end->data, end->len,
                 "1b3877b9 2c8000000000000019 2bd9d1d6a0 297c 2982 2b2bb4d367");
  g_autoptr (GByteArray) start = g_byte_array_new ();
  g_byte_array_append (start, p->data, p->len);
  ab_value_set_int (&v, AB_VALUE_INT64, 1000);
  ck_assert (ab_codec_put_value (start, &v, AB_ORDER_ASC, NULL));
  ck_assert (ab_codec_plus_one (start));
  th_assert_hex (start->data, start->len,
                 "1b3877b9 2c8000000000000019 2bd9d1d6a0 297c 2982 2b2bb4d366 "
                 "2c80000000000003e9");
  ab_value_set_int (&v, AB_VALUE_INT64, 1001);
  ck_assert (ab_codec_put_value (p, &v, AB_ORDER_ASC, NULL));
  ck_assert (ab_codec_plus_one (p));
  th_assert_hex (p->data, p->len,
                 "1b3877b9 2c8000000000000019 2bd9d1d6a0 297c 2982 2b2bb4d366 "
                 "2c80000000000003ea");
}
END_TEST

static void
check_token (const gchar *suffix_hex, const gchar *token)
{
  g_autoptr (GByteArray) suffix = th_hex (suffix_hex);
  g_autofree gchar *got = ab_codec_offset_encode (suffix->data, suffix->len);
  ck_assert_str_eq (got, token);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) back = ab_codec_offset_decode (token, &error);
  ck_assert_ptr_nonnull (back);
  gsize n;
  const guint8 *d = g_bytes_get_data (back, &n);
  th_assert_hex (d, n, suffix_hex);
}

START_TEST (test_offset_tokens)
{
  check_token ("d37ffffe74301a97ff 3450686f6e6500", "iToeeb_YxGvIAlGJuq4R9Q");
  check_token ("d37ffffe6b7c4020f9 344c6170746f7000", "iToeeaCUntzOAk2ApbQbhVo");
  /* Padding is accepted when present. */
  g_autoptr (GBytes) padded = ab_codec_offset_decode ("iToeeb_YxGvIAlGJuq4R9Q==", NULL);
  ck_assert_ptr_nonnull (padded);
  ck_assert_uint_eq (g_bytes_get_size (padded), 16);
}
END_TEST

START_TEST (test_offset_round_trip)
{
  g_autoptr (GRand) r = th_rand_new ();
  for (gint i = 0; i < 5000; i++)
    {
      gsize len = (gsize) g_rand_int_range (r, 0, 50);
      g_autofree guint8 *s = g_malloc (len + 1);
      for (gsize k = 0; k < len; k++)
        s[k] = (guint8) g_rand_int (r);
      g_autofree gchar *tok = ab_codec_offset_encode (s, len);
      ck_assert_ptr_null (strpbrk (tok, "+/="));
      g_autoptr (GBytes) back = ab_codec_offset_decode (tok, NULL);
      ck_assert_ptr_nonnull (back);
      ck_assert_uint_eq (g_bytes_get_size (back), len);
      if (len)
        ck_assert_mem_eq (g_bytes_get_data (back, NULL), s, len);
    }
}
END_TEST

static void
expect_token_error (const gchar *token)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) b = ab_codec_offset_decode (token, &error);
  ck_assert_msg (b == NULL, "'%s' decoded", token ? token : "(null)");
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TOKEN));
}

START_TEST (test_offset_garbage)
{
  expect_token_error (NULL);
  expect_token_error ("a");
  expect_token_error ("abcde");
  expect_token_error ("ab!d");
  expect_token_error ("ab+d");
  expect_token_error ("ab/d");
  expect_token_error ("ab d");
  expect_token_error ("ab=d");
  expect_token_error ("==");
  expect_token_error ("ab=");
  expect_token_error ("a===");
  expect_token_error ("abc===");
  expect_token_error ("iToeeb_YxGvIAlGJuq4R9Q\xc3\xa9");
}
END_TEST

/* Random strings over the token alphabet and some junk never crash, and a
 * successful decode re-encodes to the same length class. */
START_TEST (test_offset_fuzz)
{
  static const gchar alphabet[]
      = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ \x80";
  g_autoptr (GRand) r = th_rand_new ();
  for (gint i = 0, rounds = th_rounds (20000); i < rounds; i++)
    {
      gsize len = (gsize) g_rand_int_range (r, 0, 30);
      g_autofree gchar *tok = g_malloc (len + 1);
      for (gsize k = 0; k < len; k++)
        tok[k] = alphabet[g_rand_int_range (r, 0, sizeof alphabet - 1)];
      tok[len] = '\0';
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) b = ab_codec_offset_decode (tok, &error);
      ck_assert ((b == NULL) == (error != NULL));
      if (b != NULL)
        ck_assert_uint_le (g_bytes_get_size (b), len * 3 / 4);
    }
}
END_TEST

START_TEST (test_hex)
{
  static const guint8 b[] = { 0x00, 0x0f, 0xa0, 0xff };
  g_autofree gchar *h = ab_codec_hex (b, sizeof b);
  ck_assert_str_eq (h, "000fa0ff");
  g_autofree gchar *e = ab_codec_hex (NULL, 0);
  ck_assert_str_eq (e, "");
}
END_TEST

static Suite *
bytes_suite (void)
{
  Suite *s = suite_create ("codec_bytes");
  TCase *tc = tcase_create ("core");
  tcase_add_test (tc, test_plus_one);
  tcase_add_test (tc, test_prefix_upper_bound);
  tcase_add_test (tc, test_prefix_range);
  tcase_add_test (tc, test_scan_vectors);
  tcase_add_test (tc, test_queue_scan_vectors);
  tcase_add_test (tc, test_offset_tokens);
  tcase_add_test (tc, test_offset_round_trip);
  tcase_add_test (tc, test_offset_garbage);
  tcase_add_test (tc, test_offset_fuzz);
  tcase_add_test (tc, test_hex);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (bytes_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
