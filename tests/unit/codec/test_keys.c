/* Keys suite: xxhash32 check values and the §9 code table, every likes.likes,
 * vertex and queue row key of docs/storage-format.md §9, parse_key round trips, and hostile
 * keys (truncations, random bytes, unknown record types). */
#include <stdlib.h>
#include <string.h>
#include "codec_helpers.h"
#include "codec/keys.h"

#define CA 1700000000000

static AbValue
str_value (const gchar *s)
{
  AbValue v = AB_VALUE_INIT;
  ab_value_set_string (&v, AB_VALUE_STRING, s, strlen (s));
  return v;
}

START_TEST (test_xxh32_check_values)
{
  ck_assert_uint_eq ((guint32) ab_codec_hash ("", 0), 0x02CC5D05u);
  ck_assert_uint_eq ((guint32) ab_codec_hash ("abc", 3), 0x32D153FFu);
  /* Longer than one 16-byte stripe, so the four-lane path runs too. */
  ck_assert_int_eq (ab_codec_code ("your_namespace.your_queue"), 1506924192);
}
END_TEST

START_TEST (test_codes_table)
{
  ck_assert_int_eq (ab_codec_table_code ("likes", "likes"), 207242104);
  ck_assert_int_eq (ab_codec_code ("likes.likes"), 207242104);
  ck_assert_int_eq (ab_codec_code ("created_at"), 1432827941);
  ck_assert_int_eq (ab_codec_code ("created_at_desc"), -373869625);
  ck_assert_int_eq (ab_codec_code ("recent"), -1757833817);
  ck_assert_int_eq (ab_codec_code ("__InsertTs__"), 306306609);
  ck_assert_int_eq (ab_codec_code ("__DeleteTs__"), 1013158786);
  ck_assert_int_eq (ab_codec_code ("__InsertTs__"), AB_CODE_INSERT_TS);
  ck_assert_int_eq (ab_codec_code ("__DeleteTs__"), AB_CODE_DELETE_TS);
  ck_assert_int_eq (ab_codec_code ("seq"), -1414212762);
  ck_assert_int_eq (ab_codec_code ("value"), -189858128);
  ck_assert_int_eq (ab_codec_code ("user1"), -1148669225);
  ck_assert_int_eq ((guint32) ab_codec_code ("user1"), 0xBB88B2D7u);
  ck_assert_int_eq (ab_codec_table_code ("your_namespace", "your_queue"), 1506924192);

  /* floorMod(code("user1"), 30) = 25: C's % truncates, so adjust. */
  gint32 c = ab_codec_code ("user1");
  ck_assert_int_eq (((c % 30) + 30) % 30, 25);

  /* The int32 elements of the codes table. */
  g_autoptr (GByteArray) b = g_byte_array_new ();
  ab_codec_put_int32 (b, 207242104, AB_ORDER_ASC);
  ab_codec_put_int32 (b, 1432827941, AB_ORDER_ASC);
  ab_codec_put_int32 (b, -373869625, AB_ORDER_ASC);
  ab_codec_put_int32 (b, -1757833817, AB_ORDER_ASC);
  ab_codec_put_int32 (b, AB_CODE_INSERT_TS, AB_ORDER_ASC);
  ab_codec_put_int32 (b, AB_CODE_DELETE_TS, AB_ORDER_ASC);
  ab_codec_put_int32 (b, -1414212762, AB_ORDER_ASC);
  ab_codec_put_int32 (b, -189858128, AB_ORDER_ASC);
  th_assert_hex (b->data, b->len,
                 "2b 8c5a4378 2b d5673825 2b 69b733c7 2b 173995a7 2b 9241de31 "
                 "2b bc639382 2b 2bb4d366 2b 74aefeb0");
}
END_TEST

/* Parses key and checks the prefix fields and that the salt is the hash of
 * the body (everything between the salt and rest). */
static void
check_parse (GByteArray *key, const AbValue *source, gint32 table, AbRowType type, gsize rest)
{
  g_autoptr (GError) error = NULL;
  AbKeyParts parts;
  ck_assert (ab_codec_parse_key (key->data, key->len, &parts, &error));
  ck_assert (ab_value_equal (&parts.source, source));
  ck_assert_int_eq (parts.table_code, table);
  ck_assert_int_eq (parts.type, type);
  ck_assert_uint_eq (parts.rest, rest);
  guint32 salt = ((guint32) key->data[0] << 24) | ((guint32) key->data[1] << 16)
                 | ((guint32) key->data[2] << 8) | key->data[3];
  ck_assert_uint_eq (parts.salt, salt);
  ck_assert_uint_eq (parts.salt, (guint32) ab_codec_hash (key->data + 4, rest - 4));
  ab_codec_key_parts_clear (&parts);
}

/* 4 salt + 7 "Alice"/"Phone" + 5 table + 2 type. */
#define NAME_PREFIX_LEN 18

/* Sidecar cells follow a Lock or Count row's whole key with 0xFF and a tag;
 * every other key, and a bare Lock or Count key, is none. */
START_TEST (test_sidecar_keys)
{
  g_autoptr (GError) error = NULL;
  AbValue alice = str_value ("Alice"), phone = str_value ("Phone");
  gint32 t = ab_codec_table_code ("likes", "likes");
  g_autoptr (GByteArray) lock = ab_codec_lock_key (&alice, &phone, t, &error);
  g_autoptr (GByteArray) cout = ab_codec_count_key (&alice, AB_DIR_OUT, t, &error);
  g_autoptr (GByteArray) state = ab_codec_state_key (&alice, &phone, t, &error);
  ck_assert_uint_eq (ab_codec_sidecar_row_length (lock->data, lock->len), 0);
  ck_assert_uint_eq (ab_codec_sidecar_row_length (cout->data, cout->len), 0);
  const guint8 id[3] = { 1, 2, 3 };
  g_autoptr (GByteArray) intent = g_byte_array_new ();
  ab_codec_sidecar_key (intent, lock->data, lock->len, AB_SIDECAR_INTENT, NULL, 0);
  th_assert_hex (intent->data, intent->len,
                 "74ccbcc5 34416c69636500 2b8c5a4378 297f 3450686f6e6500 ff69");
  ck_assert_uint_eq (ab_codec_sidecar_row_length (intent->data, intent->len), lock->len);
  g_autoptr (GByteArray) receipt = g_byte_array_new ();
  ab_codec_sidecar_key (receipt, cout->data, cout->len, AB_SIDECAR_RECEIPT, id, 3);
  th_assert_hex (receipt->data, receipt->len,
                 "b173f9e0 34416c69636500 2b8c5a4378 297e 2982 ff72 010203");
  ck_assert_uint_eq (ab_codec_sidecar_row_length (receipt->data, receipt->len), cout->len);
  /* a State key (or one cut short) never is, whatever follows it */
  g_autoptr (GByteArray) other = g_byte_array_new ();
  ab_codec_sidecar_key (other, state->data, state->len, AB_SIDECAR_INTENT, NULL, 0);
  ck_assert_uint_eq (ab_codec_sidecar_row_length (other->data, other->len), 0);
  ck_assert_uint_eq (ab_codec_sidecar_row_length (intent->data, lock->len + 1), 0);
  ck_assert_uint_eq (ab_codec_sidecar_row_length (intent->data, 3), 0);
  ab_value_clear (&alice);
  ab_value_clear (&phone);
}
END_TEST

START_TEST (test_likes_rows)
{
  g_autoptr (GError) error = NULL;
  AbValue alice = str_value ("Alice"), phone = str_value ("Phone");
  gint32 t = ab_codec_table_code ("likes", "likes");

  g_autoptr (GByteArray) state = ab_codec_state_key (&alice, &phone, t, &error);
  th_assert_hex (state->data, state->len, "be167e23 34416c69636500 2b8c5a4378 297d 3450686f6e6500");
  check_parse (state, &alice, t, AB_ROW_STATE, NAME_PREFIX_LEN);
  g_autoptr (GByteArray) lock = ab_codec_lock_key (&alice, &phone, t, &error);
  th_assert_hex (lock->data, lock->len, "74ccbcc5 34416c69636500 2b8c5a4378 297f 3450686f6e6500");
  check_parse (lock, &alice, t, AB_ROW_LOCK, NAME_PREFIX_LEN);
  g_autoptr (GByteArray) cout = ab_codec_count_key (&alice, AB_DIR_OUT, t, &error);
  th_assert_hex (cout->data, cout->len, "b173f9e0 34416c69636500 2b8c5a4378 297e 2982");
  check_parse (cout, &alice, t, AB_ROW_COUNT, NAME_PREFIX_LEN);
  g_autoptr (GByteArray) cin = ab_codec_count_key (&phone, AB_DIR_IN, t, &error);
  th_assert_hex (cin->data, cin->len, "d6beb071 3450686f6e6500 2b8c5a4378 297e 2983");
  check_parse (cin, &phone, t, AB_ROW_COUNT, NAME_PREFIX_LEN);
  ck_assert_ptr_null (error);
  ab_value_clear (&alice);
  ab_value_clear (&phone);
}
END_TEST

/* Keys longer than the encoder's inline room: the salt is filled in after
 * the body moved to the heap, and must still be the hash of that body. */
START_TEST (test_long_keys)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *big = g_strnfill (3 * AB_BUF_INLINE, 'x');
  AbValue src = str_value (big), tgt = str_value ("t");
  gint32 t = ab_codec_table_code ("db", "tb");
  gsize rest = 4 + (strlen (big) + 2) + 5 + 2;
  g_autoptr (GByteArray) state = ab_codec_state_key (&src, &tgt, t, &error);
  ck_assert_ptr_nonnull (state);
  ck_assert_uint_eq (state->len, rest + 3);
  check_parse (state, &src, t, AB_ROW_STATE, rest);
  AbBuf b;
  ab_buf_init (&b);
  ck_assert (ab_key_count (&b, &src, AB_DIR_OUT, t, &error));
  g_autoptr (GByteArray) count = ab_buf_to_array (&b);
  ab_buf_clear (&b);
  g_autoptr (GByteArray) count2 = ab_codec_count_key (&src, AB_DIR_OUT, t, &error);
  ck_assert_uint_eq (count->len, rest + 2);
  ck_assert_mem_eq (count->data, count2->data, count->len);
  check_parse (count, &src, t, AB_ROW_COUNT, rest);
  ab_value_clear (&src);
  ab_value_clear (&tgt);
}
END_TEST

START_TEST (test_likes_index_rows)
{
  g_autoptr (GError) error = NULL;
  AbValue alice = str_value ("Alice"), phone = str_value ("Phone");
  AbValue ca = AB_VALUE_INIT;
  AbOrder desc = AB_ORDER_DESC;
  gint32 t = ab_codec_code ("likes.likes"), ic = ab_codec_code ("created_at_desc");

  ab_value_set_int (&ca, AB_VALUE_INT64, CA);
  g_autoptr (GByteArray) out
      = ab_codec_index_key (&alice, AB_DIR_OUT, t, ic, &ca, &desc, 1, &phone, &error);
  th_assert_hex (out->data, out->len,
                 "ae88fb19 34416c69636500 2b8c5a4378 297c 2982 2b69b733c7 "
                 "d37ffffe74301a97ff 3450686f6e6500");
  check_parse (out, &alice, t, AB_ROW_INDEX, NAME_PREFIX_LEN);
  g_autoptr (GByteArray) in
      = ab_codec_index_key (&phone, AB_DIR_IN, t, ic, &ca, &desc, 1, &alice, &error);
  th_assert_hex (in->data, in->len,
                 "d4368e6a 3450686f6e6500 2b8c5a4378 297c 2983 2b69b733c7 "
                 "d37ffffe74301a97ff 34416c69636500");
  check_parse (in, &phone, t, AB_ROW_INDEX, NAME_PREFIX_LEN);
  g_autoptr (GByteArray) p = ab_codec_index_prefix (&alice, AB_DIR_OUT, t, ic, &error);
  th_assert_hex (p->data, p->len, "ae88fb19 34416c69636500 2b8c5a4378 297c 2982 2b69b733c7");
  /* The index key extends its scan prefix. */
  ck_assert_mem_eq (out->data, p->data, p->len);
  ck_assert_ptr_null (error);
  ab_value_clear (&alice);
  ab_value_clear (&phone);
}
END_TEST

/* Group and cache rows share the index prefix shape with their own type. */
START_TEST (test_wide_keys)
{
  AbValue alice = str_value ("Alice");
  gint32 t = ab_codec_code ("likes.likes"), ic = ab_codec_code ("created_at_desc");
  g_autoptr (GByteArray) g = ab_codec_wide_key (&alice, AB_DIR_OUT, t, AB_ROW_GROUP, 5, NULL);
  g_autoptr (GByteArray) c = ab_codec_wide_key (&alice, AB_DIR_IN, t, AB_ROW_CACHE, ic, NULL);
  g_autoptr (GByteArray) gbody = th_hex ("34416c69636500 2b8c5a4378 297b");
  g_autoptr (GByteArray) cbody = th_hex ("34416c69636500 2b8c5a4378 297a");
  ck_assert_uint_eq (g->len, 4 + gbody->len + 7);
  ck_assert_mem_eq (g->data + 4, gbody->data, gbody->len);
  th_assert_hex (g->data + 4 + gbody->len, 7, "2982 2b80000005");
  ck_assert_uint_eq ((guint32) ab_codec_hash (gbody->data, gbody->len),
                     ((guint32) g->data[0] << 24) | ((guint32) g->data[1] << 16)
                         | ((guint32) g->data[2] << 8) | g->data[3]);
  ck_assert_mem_eq (c->data + 4, cbody->data, cbody->len);
  th_assert_hex (c->data + 4 + cbody->len, 7, "2983 2b69b733c7");
  check_parse (g, &alice, t, AB_ROW_GROUP, NAME_PREFIX_LEN);
  check_parse (c, &alice, t, AB_ROW_CACHE, NAME_PREFIX_LEN);
  ab_value_clear (&alice);
}
END_TEST

static GByteArray *
recent_key (const gchar *target, gint64 created_at)
{
  AbValue bob = str_value ("Bob"), tgt = str_value (target), ca = AB_VALUE_INIT;
  AbOrder desc = AB_ORDER_DESC;
  ab_value_set_int (&ca, AB_VALUE_INT64, created_at);
  GByteArray *k = ab_codec_index_key (&bob, AB_DIR_OUT, ab_codec_code ("likes.likes"),
                                      ab_codec_code ("recent"), &ca, &desc, 1, &tgt, NULL);
  ab_value_clear (&bob);
  ab_value_clear (&tgt);
  return k;
}

START_TEST (test_quick_start_order)
{
  g_autoptr (GByteArray) laptop = recent_key ("Laptop", 1737377177350);
  g_autoptr (GByteArray) phone = recent_key ("Phone", 1737377177297);
  th_assert_hex (laptop->data, laptop->len,
                 "9b349368 34426f6200 2b8c5a4378 297c 2982 2b173995a7 "
                 "d37ffffe6b7c4020f9 344c6170746f7000");
  th_assert_hex (phone->data, phone->len,
                 "9b349368 34426f6200 2b8c5a4378 297c 2982 2b173995a7 "
                 "d37ffffe6b7c40212e 3450686f6e6500");
  ck_assert_int_lt (th_bytes_cmp (laptop->data, laptop->len, phone->data, phone->len), 0);
}
END_TEST

START_TEST (test_queue_index_key)
{
  AbValue part = AB_VALUE_INIT, seq = AB_VALUE_INIT;
  AbValue id = str_value ("01JT7Q0Z8CM4A1E8ZPXW3G5T7F");
  AbOrder asc = AB_ORDER_ASC;
  gint32 t = ab_codec_table_code ("your_namespace", "your_queue");
  gint32 c = ab_codec_code ("user1");

  ab_value_set_int (&part, AB_VALUE_INT64, ((c % 30) + 30) % 30);
  ab_value_set_int (&seq, AB_VALUE_INT64, 1001);
  g_autoptr (GByteArray) k
      = ab_codec_index_key (&part, AB_DIR_OUT, t, ab_codec_code ("seq"), &seq, &asc, 1, &id, NULL);
  th_assert_hex (k->data, k->len,
                 "1b3877b9 2c8000000000000019 2bd9d1d6a0 297c 2982 2b2bb4d366 "
                 "2c80000000000003e9 "
                 "3430314a543751305a38434d34413145385a50585733473554374600");
  check_parse (k, &part, t, AB_ROW_INDEX, 4 + 9 + 5 + 2);
  ab_value_clear (&id);
}
END_TEST

/* Keys of random sources (every kind) parse back to what built them. */
START_TEST (test_parse_round_trip)
{
  g_autoptr (GRand) r = th_rand_new ();
  for (gint i = 0; i < 5000; i++)
    {
      AbValue src = AB_VALUE_INIT, tgt = AB_VALUE_INIT;
      th_random_value (r, th_random_kind (r), &src);
      th_random_value (r, th_random_kind (r), &tgt);
      gint32 t = (gint32) g_rand_int (r);
      g_autoptr (GByteArray) key = ab_codec_state_key (&src, &tgt, t, NULL);
      g_autoptr (GByteArray) body = th_encode (&src, AB_ORDER_ASC);
      check_parse (key, &src, t, AB_ROW_STATE, 4 + body->len + 5 + 2);
      /* The rest is exactly the target element. */
      AbKeyParts parts;
      ck_assert (ab_codec_parse_key (key->data, key->len, &parts, NULL));
      AbValue got = AB_VALUE_INIT;
      gsize pos = parts.rest;
      ck_assert (ab_codec_get_value (key->data, key->len, &pos, &got, NULL, NULL));
      ck_assert (ab_value_equal (&got, &tgt));
      ck_assert_uint_eq (pos, key->len);
      ab_codec_key_parts_clear (&parts);
      ab_value_clear (&got);
      ab_value_clear (&src);
      ab_value_clear (&tgt);
    }
}
END_TEST

static void
expect_parse_error (const guint8 *key, gsize len, gint code)
{
  g_autofree guint8 *buf = th_exact_copy (key, len);
  g_autoptr (GError) error = NULL;
  AbKeyParts parts;
  ck_assert (!ab_codec_parse_key (buf, len, &parts, &error));
  ck_assert_msg (g_error_matches (error, AB_CODEC_ERROR, code), "%s", error->message);
  ck_assert_int_eq (parts.source.kind, AB_VALUE_NULL);
  ab_codec_key_parts_clear (&parts);
}

START_TEST (test_parse_rejects)
{
  g_autoptr (GByteArray) state = th_hex ("be167e23 34416c69636500 2b8c5a4378 297d 3450686f6e6500");
  /* Every cut before the end of the type element is truncated. */
  for (gsize cut = 0; cut < NAME_PREFIX_LEN; cut++)
    expect_parse_error (state->data, cut, AB_CODEC_ERROR_TRUNCATED);
  g_autoptr (GByteArray) type0 = th_hex ("00000000 34416c69636500 2b8c5a4378 2980");
  expect_parse_error (type0->data, type0->len, AB_CODEC_ERROR_MALFORMED);
  g_autoptr (GByteArray) type_m7 = th_hex ("00000000 34416c69636500 2b8c5a4378 2979");
  expect_parse_error (type_m7->data, type_m7->len, AB_CODEC_ERROR_MALFORMED);
  g_autoptr (GByteArray) desc_src = th_hex ("00000000 cbbe93969c9aff 2b8c5a4378 297d");
  expect_parse_error (desc_src->data, desc_src->len, AB_CODEC_ERROR_MALFORMED);
  g_autoptr (GByteArray) no_table = th_hex ("00000000 05 2c8c5a4378 297d");
  expect_parse_error (no_table->data, no_table->len, AB_CODEC_ERROR_MALFORMED);
}
END_TEST

START_TEST (test_parse_fuzz)
{
  g_autoptr (GRand) r = th_rand_new ();
  g_autoptr (GByteArray) valid = th_hex ("ae88fb19 34416c69636500 2b8c5a4378 297c 2982");
  for (gint i = 0, rounds = th_rounds (20000); i < rounds; i++)
    {
      /* Start from a valid key and damage a few bytes, or cut it. */
      gsize len = (gsize) g_rand_int_range (r, 0, valid->len + 1);
      guint8 *buf = th_exact_copy (valid->data, len);
      for (gint k = g_rand_int_range (r, 0, 3); k > 0 && len > 0; k--)
        buf[g_rand_int_range (r, 0, len)] = (guint8) g_rand_int (r);
      AbKeyParts parts;
      g_autoptr (GError) error = NULL;
      if (ab_codec_parse_key (buf, len, &parts, &error))
        {
          ck_assert_uint_le (parts.rest, len);
          ck_assert_int_ge (parts.type, AB_ROW_CACHE);
          ck_assert_int_le (parts.type, AB_ROW_LOCK);
          ab_codec_key_parts_clear (&parts);
        }
      else
        ck_assert_ptr_nonnull (error);
      free (buf);
    }
}
END_TEST

START_TEST (test_encode_errors)
{
  g_autoptr (GError) error = NULL;
  AbValue bad = AB_VALUE_INIT, ok = str_value ("x");
  ab_value_set_string (&bad, AB_VALUE_STRING, "a\0b", 3);
  ck_assert_ptr_null (ab_codec_state_key (&bad, &ok, 1, &error));
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_INVALID));
  g_clear_error (&error);
  ck_assert_ptr_null (ab_codec_lock_key (&ok, &bad, 1, &error));
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_INVALID));
  g_clear_error (&error);
  ck_assert_ptr_null (ab_codec_index_key (&ok, AB_DIR_OUT, 1, 2, &bad, (AbOrder[]){ AB_ORDER_DESC },
                                          1, &ok, &error));
  ck_assert (g_error_matches (error, AB_CODEC_ERROR, AB_CODEC_ERROR_INVALID));
  g_clear_error (&error);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_byte_array_append (out, (const guint8 *) "zz", 2);
  ck_assert (!ab_codec_put_prefix (out, &bad, 1, AB_ROW_STATE, &error));
  /* A failed prefix leaves the caller's buffer as it was. */
  ck_assert_uint_eq (out->len, 2);
  ab_value_clear (&bad);
  ab_value_clear (&ok);
}
END_TEST

/* Vertex tables (docs/storage-format.md §3): State and Lock rows keyed by
 * (id, "-"), for a string and a long id. Derived independently (a separate
 * xxhash32 and element encoder that also reproduces the likes.likes vectors
 * above), not produced by upstream code. */
START_TEST (test_vertex_rows)
{
  g_autoptr (GError) error = NULL;
  AbValue alice = str_value ("alice"), marker = str_value ("-"), n42 = AB_VALUE_INIT;
  ab_value_set_int (&n42, AB_VALUE_INT64, 42);
  gint32 users = ab_codec_table_code ("shop", "users");
  gint32 items = ab_codec_table_code ("shop", "items");
  ck_assert_int_eq (users, -1642550785);
  ck_assert_int_eq (items, -1655476976);
  g_autoptr (GByteArray) state = ab_codec_state_key (&alice, &marker, users, &error);
  th_assert_hex (state->data, state->len, "f42d09ec 34616c69636500 2b1e18a9ff 297d 342d00");
  check_parse (state, &alice, users, AB_ROW_STATE, 4 + 7 + 5 + 2);
  g_autoptr (GByteArray) lock = ab_codec_lock_key (&alice, &marker, users, &error);
  th_assert_hex (lock->data, lock->len, "9f2a35b7 34616c69636500 2b1e18a9ff 297f 342d00");
  g_autoptr (GByteArray) nstate = ab_codec_state_key (&n42, &marker, items, &error);
  th_assert_hex (nstate->data, nstate->len, "849bb830 2c800000000000002a 2b1d536d10 297d 342d00");
  check_parse (nstate, &n42, items, AB_ROW_STATE, 4 + 9 + 5 + 2);
  g_autoptr (GByteArray) nlock = ab_codec_lock_key (&n42, &marker, items, &error);
  th_assert_hex (nlock->data, nlock->len, "73a16115 2c800000000000002a 2b1d536d10 297f 342d00");
  ck_assert_ptr_null (error);
  ab_value_clear (&alice);
  ab_value_clear (&marker);
}
END_TEST

static Suite *
keys_suite (void)
{
  Suite *s = suite_create ("codec_keys");
  TCase *tc = tcase_create ("core");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_xxh32_check_values);
  tcase_add_test (tc, test_codes_table);
  tcase_add_test (tc, test_likes_rows);
  tcase_add_test (tc, test_sidecar_keys);
  tcase_add_test (tc, test_long_keys);
  tcase_add_test (tc, test_vertex_rows);
  tcase_add_test (tc, test_likes_index_rows);
  tcase_add_test (tc, test_wide_keys);
  tcase_add_test (tc, test_quick_start_order);
  tcase_add_test (tc, test_queue_index_key);
  tcase_add_test (tc, test_parse_round_trip);
  tcase_add_test (tc, test_parse_rejects);
  tcase_add_test (tc, test_parse_fuzz);
  tcase_add_test (tc, test_encode_errors);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (keys_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
