/* Wide-row composite keys: ab_codec_wide_row_length finds where the Group
 * and Cache row ends inside row || qualifier, returns the whole length for
 * narrow rows, reserved keys and hostile bytes, and never reads past. */
#include <string.h>
#include "codec_helpers.h"
#include "codec/keys.h"
#include "ab_check.h"

static GByteArray *
wide_row (const gchar *source, AbRowType type, AbDirection dir, gint32 code)
{
  AbValue v = AB_VALUE_INIT;
  ab_value_set_string (&v, AB_VALUE_STRING, source, strlen (source));
  g_autoptr (GError) error = NULL;
  GByteArray *k = ab_codec_wide_key (&v, dir, 207242104, type, code, &error);
  ab_value_clear (&v);
  ck_assert_msg (k != NULL, "%s", error ? error->message : "");
  return k;
}

START_TEST (test_group_and_cache_rows)
{
  AbRowType types[] = { AB_ROW_GROUP, AB_ROW_CACHE };
  for (guint t = 0; t < 2; t++)
    {
      g_autoptr (GByteArray) row = wide_row ("Alice", types[t], AB_DIR_IN, -1757833817);
      guint rlen = row->len;
      /* the row alone, then with a qualifier of two DESC elements */
      ck_assert_uint_eq (ab_codec_wide_row_length (row->data, row->len), rlen);
      ab_codec_put_int64 (row, 42, AB_ORDER_DESC);
      ck_assert_uint_eq (ab_codec_wide_row_length (row->data, row->len), rlen);
      ab_codec_put_string (row, "20240101", 8, AB_ORDER_DESC, NULL);
      ck_assert_uint_eq (ab_codec_wide_row_length (row->data, row->len), rlen);
      /* a reserved one-byte qualifier (cache boundary marker) */
      g_byte_array_set_size (row, rlen);
      g_byte_array_append (row, (const guint8 *) "", 1);
      ck_assert_uint_eq (ab_codec_wide_row_length (row->data, row->len), rlen);
    }
}
END_TEST

START_TEST (test_narrow_and_reserved_keys)
{
  AbValue s = AB_VALUE_INIT, t = AB_VALUE_INIT;
  ab_value_set_string (&s, AB_VALUE_STRING, "Alice", 5);
  ab_value_set_string (&t, AB_VALUE_STRING, "Phone", 5);
  g_autoptr (GByteArray) st = ab_codec_state_key (&s, &t, 207242104, NULL);
  g_autoptr (GByteArray) ct = ab_codec_count_key (&s, AB_DIR_OUT, 207242104, NULL);
  g_autoptr (GByteArray) ip = ab_codec_index_prefix (&s, AB_DIR_OUT, 207242104, 7, NULL);
  ck_assert_uint_eq (ab_codec_wide_row_length (st->data, st->len), st->len);
  ck_assert_uint_eq (ab_codec_wide_row_length (ct->data, ct->len), ct->len);
  ck_assert_uint_eq (ab_codec_wide_row_length (ip->data, ip->len), ip->len);
  static const guint8 meta[] = { 0, 0, 0, 0, 0, 'a', 'b', 'm', 'e', 't', 'a', 0 };
  ck_assert_uint_eq (ab_codec_wide_row_length (meta, sizeof meta), sizeof meta);
  ab_value_clear (&s);
  ab_value_clear (&t);
}
END_TEST

/* Every truncation of a group cell key: the row length or the whole
 * length, never more; exact copies make any overread visible to ASan. */
START_TEST (test_truncations_and_noise)
{
  g_autoptr (GByteArray) row = wide_row ("Bob", AB_ROW_GROUP, AB_DIR_OUT, 99);
  guint rlen = row->len;
  ab_codec_put_int64 (row, 7, AB_ORDER_DESC);
  for (guint n = 0; n <= row->len; n++)
    {
      guint8 *copy = th_exact_copy (row->data, n);
      gsize got = ab_codec_wide_row_length (copy, n);
      ck_assert_uint_eq (got, n >= rlen ? rlen : n);
      g_free (copy);
    }
  g_autoptr (GRand) r = th_rand_new ();
  for (guint i = 0; i < 2000; i++)
    {
      guint n = g_rand_int_range (r, 0, 40);
      guint8 *buf = g_malloc (n + 1);
      for (guint j = 0; j < n; j++)
        buf[j] = (guint8) g_rand_int_range (r, 0, 256);
      if (n > 12 && i % 2 == 0)
        memcpy (buf, row->data, 12); /* a plausible prefix, then noise */
      ck_assert_uint_le (ab_codec_wide_row_length (buf, n), n);
      g_free (buf);
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("codec-wide");
  TCase *tc = tcase_create ("wide");
  tcase_add_test (tc, test_group_and_cache_rows);
  tcase_add_test (tc, test_narrow_and_reserved_keys);
  tcase_add_test (tc, test_truncations_and_noise);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
