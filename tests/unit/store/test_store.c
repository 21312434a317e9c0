/* Conformance suite of the datastore seam: every test runs against each
 * backend (memory:, lmdb:, hbase:// when AB_HBASE_ADDR is set) and checks the
 * contract of store.h: order, scan bounds, increments, check-and-set, batches,
 * counters and concurrency; and where a key lives for change records. */
#include <stdlib.h>
#include "store_test_util.h"
#include "codec/keys.h"
#include "codec/record.h"
#include "store/backend.h" /* the backend's name */

/* ---- the keys of the order tests, sorted by hand (unsigned, shorter first) ---- */

typedef struct {
  const char *bytes;
  gsize len;
} Key;

#define K(lit)            \
  {                       \
    lit, sizeof (lit) - 1 \
  }
static const Key sorted[] = {
  K ("\x00"), K ("\x00\x00"), K ("\x00\x01"), K ("\x01"), K ("\x01\x00"), K ("\x01\xff"),
  K ("a"),    K ("a\x00"),    K ("ab"),       K ("abc"),  K ("b"),        K ("\x7f"),
  K ("\x80"), K ("\x80\x00"), K ("\xfe\xff"), K ("\xff"), K ("\xff\x00"), K ("\xff\xff"),
};
#define N_SORTED G_N_ELEMENTS (sorted)

/* Bounds that are not keys, with the index of the first key above them. */
static const struct {
  Key key;
  guint above;
} gaps[] = {
  { K (""), 0 },
  { K ("\x00\x00\x00"), 2 },
  { K ("aa"), 8 },
  { K ("\x80\x00\x00"), 14 },
  { K ("\xff\xff\xff"), N_SORTED },
};

static void
load_sorted (AbStore *s)
{
  /* Insert in a scrambled order so the store has to sort. */
  for (guint n = 0; n < N_SORTED; n++)
    {
      guint i = (n * 7 + 3) % N_SORTED;
      g_autofree gchar *v = g_strdup_printf ("v%u", i);
      st_put (s, (const guint8 *) sorted[i].bytes, sorted[i].len, ST_S (v));
    }
}

static void
assert_rows (GArray *rows, guint first, guint count)
{
  ck_assert_uint_eq (rows->len, count);
  for (guint r = 0; r < count; r++)
    {
      AbKv *kv = &g_array_index (rows, AbKv, r);
      g_autofree gchar *v = g_strdup_printf ("v%u", first + r);
      st_assert_bytes_eq (kv->key, (const guint8 *) sorted[first + r].bytes, sorted[first + r].len);
      st_assert_bytes_eq (kv->value, ST_S (v));
    }
}

START_TEST (test_get_put_delete)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  GError *error = NULL;
  st_assert_value (s, ST_S ("k"), NULL, 0);
  st_put (s, ST_S ("k"), ST_S ("one"));
  st_assert_value (s, ST_S ("k"), ST_S ("one"));
  st_put (s, ST_S ("k"), ST_S ("two"));
  st_assert_value (s, ST_S ("k"), ST_S ("two"));
  st_put (s, ST_S ("empty"), ST_S (""));
  st_assert_value (s, ST_S ("empty"), ST_S (""));
  ck_assert (ab_store_delete (s, ST_S ("k"), &error));
  st_assert_value (s, ST_S ("k"), NULL, 0);
  ck_assert (ab_store_delete (s, ST_S ("never"), &error)); /* absent: no error */
  ck_assert_ptr_null (error);
  ck_assert (ab_store_batch_is_atomic (s) == !st_backend_hbase (_i));
}
END_TEST

START_TEST (test_empty_key)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  GError *error = NULL;
  ck_assert (!ab_store_put (s, (const guint8 *) "", 0, ST_S ("v"), &error));
  ck_assert_int_eq (error->code, AB_STORE_ERROR_IO);
  g_clear_error (&error);
  st_assert_value (s, (const guint8 *) "", 0, NULL, 0);
}
END_TEST

/* Many keys at once (a plan made ahead reads thousands): scrambled,
 * repeated, absent ones between present ones, a prefix of a present key and
 * keys past the last one, each answered in its place. */
START_TEST (test_multi_get_many)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GArray) out = ab_kv_array_new ();
  GError *error = NULL;
  for (guint i = 0; i < 100; i += 2)
    {
      g_autofree gchar *k = g_strdup_printf ("k%03u", i);
      g_autofree gchar *v = g_strdup_printf ("v%u", i);
      st_put (s, (const guint8 *) k, strlen (k), (const guint8 *) v, strlen (v));
    }
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (guint j = 0; j < 150; j++)
    g_ptr_array_add (names, g_strdup_printf ("k%03u", (j * 37) % 110)); /* 100..109 absent */
  g_ptr_array_add (names, g_strdup ("k0"));                             /* a prefix of k000 */
  g_ptr_array_add (names, g_strdup ("zzz"));                            /* past the last key */
  g_ptr_array_add (names, g_strdup ("a"));                              /* before the first */
  g_ptr_array_add (names, g_strdup ("k098"));                           /* the last present key */
  for (guint i = 0; i < names->len; i++)
    g_ptr_array_add (keys, g_bytes_new (names->pdata[i], strlen (names->pdata[i])));
  ck_assert (ab_store_multi_get (s, keys, out, &error));
  ck_assert_uint_eq (out->len, names->len);
  for (guint i = 0; i < out->len; i++)
    {
      const gchar *name = names->pdata[i];
      AbKv *kv = &g_array_index (out, AbKv, i);
      st_assert_bytes_eq (kv->key, (const guint8 *) name, strlen (name));
      guint n = 0;
      if (strlen (name) == 4 && name[0] == 'k' && (n = atoi (name + 1)) < 100 && n % 2 == 0)
        {
          g_autofree gchar *v = g_strdup_printf ("v%u", n);
          st_assert_bytes_eq (kv->value, (const guint8 *) v, strlen (v));
        }
      else
        ck_assert_msg (kv->value == NULL, "%s should be absent", name);
    }
}
END_TEST

START_TEST (test_multi_get_order)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GArray) out = ab_kv_array_new ();
  const char *names[] = { "c", "missing", "a", "b", "a", "zz" };
  GError *error = NULL;
  st_put (s, ST_S ("a"), ST_S ("A"));
  st_put (s, ST_S ("b"), ST_S ("B"));
  st_put (s, ST_S ("c"), ST_S ("C"));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_ptr_array_add (keys, g_bytes_new (names[i], strlen (names[i])));
  ck_assert (ab_store_multi_get (s, keys, out, &error));
  ck_assert_uint_eq (out->len, G_N_ELEMENTS (names));
  for (guint i = 0; i < out->len; i++)
    {
      AbKv *kv = &g_array_index (out, AbKv, i);
      st_assert_bytes_eq (kv->key, ST_S (names[i]));
      if (strlen (names[i]) == 1)
        {
          gchar up = g_ascii_toupper (names[i][0]);
          st_assert_bytes_eq (kv->value, (const guint8 *) &up, 1);
        }
      else
        {
          ck_assert_ptr_null (kv->value);
        }
    }
}
END_TEST

START_TEST (test_scan_order_unsigned)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  g_autoptr (GArray) out = ab_kv_array_new ();
  AbScanRange all = { 0 };
  GError *error = NULL;
  load_sorted (s);
  ck_assert (ab_store_scan (s, &all, out, &error));
  assert_rows (out, 0, N_SORTED);
}
END_TEST

/* A bound: a key of `sorted` (index), a gap (first index above), or none. */
typedef struct {
  const Key *key;
  gboolean exists;
  guint index;
} Bound;

static guint
n_bounds (void)
{
  return N_SORTED + G_N_ELEMENTS (gaps) + 1;
}

static Bound
bound_at (guint b)
{
  Bound r = { NULL, FALSE, 0 };
  if (b < N_SORTED)
    r = (Bound){ &sorted[b], TRUE, b };
  else if (b < N_SORTED + G_N_ELEMENTS (gaps))
    r = (Bound){ &gaps[b - N_SORTED].key, FALSE, gaps[b - N_SORTED].above };
  return r;
}

/* Expected [first, last+1) of a range, worked out from the indices alone. */
static void
expected_window (Bound lo, gboolean lo_inc, Bound hi, gboolean hi_inc, gint *first, gint *end)
{
  *first = lo.key == NULL ? 0 : (gint) lo.index + (lo.exists && !lo_inc ? 1 : 0);
  if (hi.key == NULL)
    *end = N_SORTED;
  else
    *end = (gint) hi.index + (hi.exists && hi_inc ? 1 : 0);
  if (*end < *first)
    *end = *first;
}

typedef struct {
  GArray *rows; /* AbKv copies */
  guint max;    /* the visitor ends the scan after this many */
} Collect;

static gboolean
collect_row (const guint8 *k, gsize klen, const guint8 *v, gsize vlen, gpointer data)
{
  Collect *c = data;
  AbKv kv = { g_bytes_new (k, klen), g_bytes_new (v, vlen) };
  g_array_append_val (c->rows, kv);
  return c->rows->len < c->max;
}

static void
check_range (AbStore *s, guint b1, gboolean inc1, guint b2, gboolean inc2, guint limit)
{
  g_autoptr (GArray) out = ab_kv_array_new ();
  Bound lo = bound_at (b1), hi = bound_at (b2);
  AbScanRange r = { .start_inclusive = inc1, .stop_inclusive = inc2, .limit = limit };
  GError *error = NULL;
  gint first, end;
  guint count;
  if (lo.key)
    {
      r.start = (const guint8 *) lo.key->bytes;
      r.start_len = lo.key->len;
    }
  if (hi.key)
    {
      r.stop = (const guint8 *) hi.key->bytes;
      r.stop_len = hi.key->len;
    }
  expected_window (lo, inc1, hi, inc2, &first, &end);
  count = (guint) (end - first);
  if (limit > 0 && count > limit)
    count = limit;
  ck_assert_msg (ab_store_scan (s, &r, out, &error), "scan: %s", error ? error->message : "");
  ck_assert_msg (out->len == count, "bounds %u%s..%u%s limit %u: %u rows, expected %u", b1,
                 inc1 ? "]" : ")", b2, inc2 ? "]" : ")", limit, out->len, count);
  assert_rows (out, (guint) first, count);
  /* scan_with walks the same rows, borrowed */
  g_autoptr (GArray) seen = ab_kv_array_new ();
  Collect all = { seen, G_MAXUINT };
  ck_assert (ab_store_scan_with (s, &r, collect_row, &all, &error));
  assert_rows (seen, (guint) first, count);
  /* and stops when its visitor says so */
  if (count >= 2)
    {
      g_array_set_size (seen, 0);
      Collect two = { seen, 2 };
      ck_assert (ab_store_scan_with (s, &r, collect_row, &two, &error));
      assert_rows (seen, (guint) first, 2);
    }
}

START_TEST (test_scan_every_bound)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  static const guint limits[] = { 0, 1, 3 };
  load_sorted (s);
  for (guint b1 = 0; b1 < n_bounds (); b1++)
    for (guint b2 = 0; b2 < n_bounds (); b2++)
      for (guint flags = 0; flags < 4; flags++)
        for (guint l = 0; l < G_N_ELEMENTS (limits); l++)
          check_range (s, b1, flags & 1, b2, (flags >> 1) & 1, limits[l]);
}
END_TEST

START_TEST (test_scan_empty_store_and_range)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  g_autoptr (GArray) out = ab_kv_array_new ();
  AbScanRange all = { 0 };
  AbScanRange none = { ST_S ("b"), TRUE, ST_S ("a"), TRUE, 0 };
  GError *error = NULL;
  ck_assert (ab_store_scan (s, &all, out, &error));
  ck_assert_uint_eq (out->len, 0);
  st_put (s, ST_S ("a"), ST_S ("1"));
  st_put (s, ST_S ("b"), ST_S ("2"));
  ck_assert (ab_store_scan (s, &none, out, &error));
  ck_assert_uint_eq (out->len, 0);
}
END_TEST

START_TEST (test_increment)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  GError *error = NULL;
  gint64 v = 0;
  ck_assert (ab_store_increment (s, ST_S ("c"), 5, &v, &error));
  ck_assert_int_eq (v, 5);
  ck_assert (ab_store_increment (s, ST_S ("c"), -12, &v, &error));
  ck_assert_int_eq (v, -7);
  st_assert_counter (s, ST_S ("c"), -7);
  ck_assert (ab_store_increment (s, ST_S ("d"), -3, &v, &error));
  ck_assert_int_eq (v, -3);
  ck_assert (ab_store_increment (s, ST_S ("c"), 0, NULL, &error));
  st_assert_counter (s, ST_S ("c"), -7);
  st_put (s, ST_S ("max"), (const guint8 *) "\x7f\xff\xff\xff\xff\xff\xff\xff", 8);
  ck_assert (ab_store_increment (s, ST_S ("max"), 1, &v, &error));
  ck_assert_int_eq (v, G_MININT64); /* wraps like a Java long */
  ck_assert_ptr_null (error);
}
END_TEST

START_TEST (test_increment_width)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  GError *error = NULL;
  gint64 v = 42;
  st_put (s, ST_S ("w"), ST_S ("abc"));
  ck_assert (!ab_store_increment (s, ST_S ("w"), 1, &v, &error));
  ck_assert_ptr_nonnull (error);
  ck_assert_int_eq (error->domain, AB_STORE_ERROR);
  ck_assert_int_eq (error->code, AB_STORE_ERROR_WIDTH);
  g_clear_error (&error);
  st_assert_value (s, ST_S ("w"), ST_S ("abc"));
  st_put (s, ST_S ("w9"), ST_S ("123456789"));
  ck_assert (!ab_store_increment (s, ST_S ("w9"), 1, &v, &error));
  ck_assert_int_eq (error->code, AB_STORE_ERROR_WIDTH);
  g_clear_error (&error);
}
END_TEST

START_TEST (test_check_and_put)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  GError *error = NULL;
  gboolean applied = FALSE;
  ck_assert (ab_store_check_and_put (s, ST_S ("k"), NULL, 0, ST_S ("v1"), &applied, &error));
  ck_assert (applied);
  ck_assert (ab_store_check_and_put (s, ST_S ("k"), NULL, 0, ST_S ("v2"), &applied, &error));
  ck_assert (!applied);
  st_assert_value (s, ST_S ("k"), ST_S ("v1"));
  ck_assert (ab_store_check_and_put (s, ST_S ("k"), ST_S ("nope"), ST_S ("v3"), &applied, &error));
  ck_assert (!applied);
  ck_assert (ab_store_check_and_put (s, ST_S ("k"), ST_S ("v1"), ST_S ("v4"), &applied, &error));
  ck_assert (applied);
  st_assert_value (s, ST_S ("k"), ST_S ("v4"));
  /* expected bytes on an absent key: no match */
  ck_assert (ab_store_check_and_put (s, ST_S ("x"), ST_S ("v"), ST_S ("w"), &applied, &error));
  ck_assert (!applied);
  st_assert_value (s, ST_S ("x"), NULL, 0);
  ck_assert_ptr_null (error);
  /* an empty stored value equals an empty expected, not "absent" (HBase
   * cannot tell the two apart in a check: docs/hbase-adapter.md §3.6) */
  if (st_backend_hbase (_i))
    return;
  st_put (s, ST_S ("e"), ST_S (""));
  ck_assert (ab_store_check_and_put (s, ST_S ("e"), NULL, 0, ST_S ("n"), &applied, &error));
  ck_assert (!applied);
  ck_assert (ab_store_check_and_put (s, ST_S ("e"), ST_S (""), ST_S ("n"), &applied, &error));
  ck_assert (applied);
  ck_assert_ptr_null (error);
}
END_TEST

START_TEST (test_check_and_delete)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  GError *error = NULL;
  gboolean applied = TRUE;
  ck_assert (ab_store_check_and_delete (s, ST_S ("k"), ST_S ("v"), &applied, &error));
  ck_assert (!applied);
  st_put (s, ST_S ("k"), ST_S ("v"));
  ck_assert (ab_store_check_and_delete (s, ST_S ("k"), ST_S ("other"), &applied, &error));
  ck_assert (!applied);
  st_assert_value (s, ST_S ("k"), ST_S ("v"));
  ck_assert (ab_store_check_and_delete (s, ST_S ("k"), ST_S ("v"), &applied, &error));
  ck_assert (applied);
  st_assert_value (s, ST_S ("k"), NULL, 0);
  ck_assert_ptr_null (error);
}
END_TEST

/* A Lock or Count row's sidecar cells (codec/keys.h): read and written by
 * their own keys, added to in the row's batch, and deleted with the row by
 * a check-and-delete on every store (on HBase they are its qualifiers). */
static gboolean
collect_key (const guint8 *key, gsize klen, const guint8 *value, gsize vlen, gpointer data)
{
  (void) value, (void) vlen;
  g_ptr_array_add (data, g_bytes_new (key, klen));
  return TRUE;
}

START_TEST (test_sidecars)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  g_autoptr (GError) error = NULL;
  AbValue a = AB_VALUE_INIT, b = AB_VALUE_INIT;
  ab_value_set_string (&a, AB_VALUE_STRING, "a", 1);
  ab_value_set_string (&b, AB_VALUE_STRING, "b", 1);
  g_autoptr (GByteArray) lock = ab_codec_lock_key (&a, &b, 7, &error);
  g_autoptr (GByteArray) count = ab_codec_count_key (&a, AB_DIR_OUT, 7, &error);
  g_autoptr (GByteArray) intent = g_byte_array_new ();
  g_autoptr (GByteArray) receipt = g_byte_array_new ();
  ab_codec_sidecar_key (intent, lock->data, lock->len, AB_SIDECAR_INTENT, NULL, 0);
  ab_codec_sidecar_key (receipt, count->data, count->len, AB_SIDECAR_RECEIPT, ST_S ("w1"));
  gboolean applied = FALSE;
  ck_assert (
      ab_store_check_and_put (s, lock->data, lock->len, NULL, 0, ST_S ("t"), &applied, &error));
  ck_assert (applied);
  st_put (s, intent->data, intent->len, ST_S ("plan"));
  st_assert_value (s, lock->data, lock->len, ST_S ("t"));
  st_assert_value (s, intent->data, intent->len, ST_S ("plan"));
  g_autoptr (AbBatch) add = ab_batch_new ();
  ab_batch_add (add, count->data, count->len, 3);
  ab_batch_add (add, receipt->data, receipt->len, 1);
  ck_assert_msg (ab_store_batch (s, add, &error), "%s", error ? error->message : "");
  g_autoptr (GBytes) n = NULL;
  ck_assert (ab_store_get (s, count->data, count->len, &n, &error) && n != NULL);
  ck_assert_int_eq (ab_codec_get_be64 (g_bytes_get_data (n, NULL)), 3);
  g_autoptr (GBytes) r = NULL;
  ck_assert (ab_store_get (s, receipt->data, receipt->len, &r, &error) && r != NULL);
  /* the sidecar scan finds both, and not a wide row's cell whose
   * qualifier starts with ff (data), nor the rows themselves */
  g_autoptr (GByteArray) group = ab_codec_wide_key (&a, AB_DIR_OUT, 7, AB_ROW_GROUP, 9, &error);
  g_byte_array_append (group, (const guint8 *) "\xff\x69", 2);
  st_put (s, group->data, group->len, ST_S ("g"));
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  ck_assert (ab_store_scan_sidecars (s, collect_key, found, &error));
  ck_assert_uint_eq (found->len, 2);
  for (guint i = 0; i < found->len; i++)
    {
      gsize len;
      const guint8 *k = g_bytes_get_data (found->pdata[i], &len);
      gboolean is_intent = len == intent->len && memcmp (k, intent->data, len) == 0;
      gboolean is_receipt = len == receipt->len && memcmp (k, receipt->data, len) == 0;
      ck_assert_msg (is_intent || is_receipt, "the sidecar scan found another key");
    }
  /* a renewed lock keeps its intent; its release takes it */
  ck_assert (
      ab_store_check_and_put (s, lock->data, lock->len, ST_S ("t"), ST_S ("u"), &applied, &error));
  ck_assert (applied);
  st_assert_value (s, intent->data, intent->len, ST_S ("plan"));
  ck_assert (ab_store_check_and_delete (s, lock->data, lock->len, ST_S ("u"), &applied, &error));
  ck_assert (applied);
  st_assert_value (s, lock->data, lock->len, NULL, 0);
  st_assert_value (s, intent->data, intent->len, NULL, 0);
  g_autoptr (AbBatch) drop = ab_batch_new ();
  ab_batch_delete (drop, receipt->data, receipt->len);
  ck_assert (ab_store_batch (s, drop, &error));
  st_assert_value (s, receipt->data, receipt->len, NULL, 0);
  g_clear_pointer (&n, g_bytes_unref);
  ck_assert (ab_store_get (s, count->data, count->len, &n, &error) && n != NULL);
  ck_assert_int_eq (ab_codec_get_be64 (g_bytes_get_data (n, NULL)), 3);
  ab_value_clear (&a);
  ab_value_clear (&b);
}
END_TEST

START_TEST (test_batch_in_order)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  g_autoptr (AbBatch) b = ab_batch_new ();
  GError *error = NULL;
  st_put (s, ST_S ("gone"), ST_S ("x"));
  ab_batch_put (b, ST_S ("a"), ST_S ("1"));
  ab_batch_increment (b, ST_S ("n"), 3);
  ab_batch_delete (b, ST_S ("gone"));
  ab_batch_put (b, ST_S ("a"), ST_S ("2")); /* later put wins */
  ab_batch_increment (b, ST_S ("n"), 4);    /* sees the first increment */
  ab_batch_put (b, ST_S ("p"), ST_S ("tmp"));
  ab_batch_delete (b, ST_S ("p")); /* put then delete: absent */
  ab_batch_delete (b, ST_S ("q"));
  ab_batch_put (b, ST_S ("q"), ST_S ("back")); /* delete then put: present */
  ab_batch_put (b, ST_S ("c"), (const guint8 *) "\0\0\0\0\0\0\0\x0a", 8);
  ab_batch_increment (b, ST_S ("c"), -1); /* sees the put */
  ck_assert_uint_eq (ab_batch_len (b), 11);
  ck_assert_msg (ab_store_batch (s, b, &error), "%s", error ? error->message : "");
  st_assert_value (s, ST_S ("a"), ST_S ("2"));
  st_assert_counter (s, ST_S ("n"), 7);
  st_assert_value (s, ST_S ("gone"), NULL, 0);
  st_assert_value (s, ST_S ("p"), NULL, 0);
  st_assert_value (s, ST_S ("q"), ST_S ("back"));
  st_assert_counter (s, ST_S ("c"), 9);
}
END_TEST

/* Counter adds (AB_MUT_ADD) in a batch: on an absent row, on a counter, after
 * and before a put or a delete of the same key, as a later read sees them;
 * on a row that is no counter, the row keeps its value (an error or not). */
START_TEST (test_batch_add)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  g_autoptr (AbBatch) b = ab_batch_new ();
  GError *error = NULL;
  gint64 v;
  ck_assert (ab_store_increment (s, ST_S ("have"), 40, &v, NULL));
  st_put (s, ST_S ("was"), (const guint8 *) "\0\0\0\0\0\0\0\x05", 8);
  ab_batch_add (b, ST_S ("new"), 5);
  ab_batch_add (b, ST_S ("new"), -2);
  ab_batch_add (b, ST_S ("have"), 2);
  ab_batch_put (b, ST_S ("p"), (const guint8 *) "\0\0\0\0\0\0\0\x0a", 8);
  ab_batch_add (b, ST_S ("p"), 1); /* on the put */
  ab_batch_add (b, ST_S ("q"), 4);
  ab_batch_put (b, ST_S ("q"), ST_S ("x")); /* the put wins */
  ab_batch_delete (b, ST_S ("was"));
  ab_batch_add (b, ST_S ("was"), 7); /* from nothing again */
  ck_assert_msg (ab_store_batch (s, b, &error), "%s", error ? error->message : "");
  st_assert_counter (s, ST_S ("new"), 3);
  st_assert_counter (s, ST_S ("have"), 42);
  st_assert_counter (s, ST_S ("p"), 11);
  st_assert_value (s, ST_S ("q"), ST_S ("x"));
  st_assert_counter (s, ST_S ("was"), 7);
  /* a later increment reads what the adds made */
  ck_assert (ab_store_increment (s, ST_S ("new"), 10, &v, NULL));
  ck_assert_int_eq (v, 13);
  /* the adds read back in a scan too */
  g_autoptr (GArray) out = ab_kv_array_new ();
  AbScanRange r = { .start = (const guint8 *) "new",
                    .start_len = 3,
                    .start_inclusive = TRUE,
                    .stop = (const guint8 *) "p",
                    .stop_len = 1,
                    .stop_inclusive = TRUE };
  ck_assert (ab_store_scan (s, &r, out, NULL));
  ck_assert_uint_eq (out->len, 2);
  st_assert_bytes_eq (g_array_index (out, AbKv, 1).value, (const guint8 *) "\0\0\0\0\0\0\0\x0b", 8);
  /* a row that is no counter keeps its value */
  g_autoptr (AbBatch) odd = ab_batch_new ();
  st_put (s, ST_S ("text"), ST_S ("abc"));
  ab_batch_add (odd, ST_S ("text"), 1);
  if (!ab_store_batch (s, odd, &error))
    {
      ck_assert_int_eq (error->code, AB_STORE_ERROR_WIDTH);
      g_clear_error (&error);
    }
  st_assert_value (s, ST_S ("text"), ST_S ("abc"));
}
END_TEST

/* Plans queued back to back, each reading a counter through its view (get
 * and scan) and adding 1 to it: each sees the adds of the plans before it,
 * whether they share its group or were written before. */
typedef struct {
  GMutex lock;
  GCond cond;
  guint left;
  gint64 seen_get[24], seen_scan[24];
  guint k;
} AddRun;

typedef struct {
  AddRun *run;
  guint k;
} AddPlan;

static gint64
counter_of (GBytes *b)
{
  if (b == NULL)
    return 0;
  ck_assert_uint_eq (g_bytes_get_size (b), 8);
  guint64 n;
  memcpy (&n, g_bytes_get_data (b, NULL), 8);
  return (gint64) GUINT64_FROM_BE (n);
}

static gboolean
add_plan (AbStore *view, AbBatch *batch, gpointer data, GError **error)
{
  AddPlan *p = data;
  g_autoptr (GBytes) cur = NULL;
  g_autoptr (GArray) out = ab_kv_array_new ();
  AbScanRange r = { .start = (const guint8 *) "tally",
                    .start_len = 5,
                    .start_inclusive = TRUE,
                    .stop = (const guint8 *) "tally",
                    .stop_len = 5,
                    .stop_inclusive = TRUE };
  if (!ab_store_get (view, ST_S ("tally"), &cur, error) || !ab_store_scan (view, &r, out, error))
    return FALSE;
  p->run->seen_get[p->k] = counter_of (cur);
  p->run->seen_scan[p->k] = out->len == 1 ? counter_of (g_array_index (out, AbKv, 0).value) : -1;
  ab_batch_add (batch, ST_S ("tally"), 1);
  return TRUE;
}

static void
add_done (gpointer data, const GError *error)
{
  AddPlan *p = data;
  ck_assert_ptr_null (error);
  g_mutex_lock (&p->run->lock);
  p->run->left--;
  g_cond_signal (&p->run->cond);
  g_mutex_unlock (&p->run->lock);
}

START_TEST (test_transact_adds)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  if (!ab_store_can_transact (s))
    return; /* hbase: test_transact_groups checks the refusal */
  enum { N = 24 };
  AddRun run = { .left = N };
  AddPlan plans[N];
  g_mutex_init (&run.lock);
  g_cond_init (&run.cond);
  for (guint k = 0; k < N; k++)
    {
      plans[k] = (AddPlan){ &run, k };
      ab_store_transact_async (s, add_plan, add_done, &plans[k]);
    }
  g_mutex_lock (&run.lock);
  while (run.left > 0)
    g_cond_wait (&run.cond, &run.lock);
  g_mutex_unlock (&run.lock);
  for (guint k = 0; k < N; k++)
    {
      ck_assert_int_eq (run.seen_get[k], k);
      ck_assert_int_eq (run.seen_scan[k], k == 0 ? -1 : (gint64) k);
    }
  st_assert_counter (s, ST_S ("tally"), N);
  g_mutex_clear (&run.lock);
  g_cond_clear (&run.cond);
}
END_TEST

/* A conditional delete in a batch removes its key only when the value is
 * the expected one; a mismatch or an absent key is not an error. */
START_TEST (test_batch_delete_if)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  g_autoptr (AbBatch) b = ab_batch_new ();
  g_autoptr (AbBatch) again = ab_batch_new ();
  GError *error = NULL;
  st_put (s, ST_S ("lock1"), ST_S ("mine"));
  st_put (s, ST_S ("lock2"), ST_S ("theirs"));
  ab_batch_put (b, ST_S ("data"), ST_S ("d"));
  ab_batch_delete_if (b, ST_S ("lock1"), ST_S ("mine"));
  ab_batch_delete_if (b, ST_S ("lock2"), ST_S ("mine")); /* someone else's */
  ab_batch_delete_if (b, ST_S ("lock3"), ST_S ("mine")); /* absent */
  ck_assert_msg (ab_store_batch (s, b, &error), "%s", error ? error->message : "");
  st_assert_value (s, ST_S ("data"), ST_S ("d"));
  st_assert_value (s, ST_S ("lock1"), NULL, 0);
  st_assert_value (s, ST_S ("lock2"), ST_S ("theirs"));
  st_assert_value (s, ST_S ("lock3"), NULL, 0);
  /* an expected value that is a prefix of the stored one does not match */
  ab_batch_delete_if (again, ST_S ("lock2"), ST_S ("the"));
  ck_assert (ab_store_batch (s, again, &error));
  st_assert_value (s, ST_S ("lock2"), ST_S ("theirs"));
  ck_assert_ptr_null (error);
}
END_TEST

START_TEST (test_batch_atomic_on_failure)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  g_autoptr (AbBatch) b = ab_batch_new ();
  GError *error = NULL;
  st_put (s, ST_S ("bad"), ST_S ("xyz"));
  st_put (s, ST_S ("keep"), ST_S ("old"));
  ab_batch_put (b, ST_S ("new"), ST_S ("1"));
  ab_batch_put (b, ST_S ("keep"), ST_S ("changed"));
  ab_batch_increment (b, ST_S ("cnt"), 1);
  ab_batch_increment (b, ST_S ("bad"), 1);
  ab_batch_put (b, ST_S ("after"), ST_S ("2"));
  ck_assert (!ab_store_batch (s, b, &error));
  ck_assert_int_eq (error->code, AB_STORE_ERROR_WIDTH);
  g_clear_error (&error);
  st_assert_value (s, ST_S ("bad"), ST_S ("xyz"));
  if (!ab_store_batch_is_atomic (s))
    return; /* the other mutations may or may not have been applied */
  st_assert_value (s, ST_S ("new"), NULL, 0);
  st_assert_value (s, ST_S ("keep"), ST_S ("old"));
  st_assert_value (s, ST_S ("cnt"), NULL, 0);
  st_assert_value (s, ST_S ("after"), NULL, 0);
  st_assert_value (s, ST_S ("bad"), ST_S ("xyz"));
}
END_TEST

START_TEST (test_stats)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  g_autoptr (GBytes) v = NULL;
  AbStoreStats st;
  GError *error = NULL;
  st_put (s, ST_S ("w"), ST_S ("abc"));
  ck_assert (ab_store_get (s, ST_S ("w"), &v, &error));
  ck_assert (!ab_store_increment (s, ST_S ("w"), 1, NULL, &error));
  g_clear_error (&error);
  ab_store_stats (s, &st);
  ck_assert_uint_eq (st.ops[AB_STORE_VERB_BATCH], 1);
  ck_assert_uint_eq (st.errors[AB_STORE_VERB_BATCH], 0);
  ck_assert_uint_eq (st.ops[AB_STORE_VERB_GET], 1);
  ck_assert_uint_eq (st.ops[AB_STORE_VERB_INCREMENT], 1);
  ck_assert_uint_eq (st.errors[AB_STORE_VERB_INCREMENT], 1);
  ck_assert_uint_eq (st.ops[AB_STORE_VERB_SCAN], 0);
  ck_assert_str_eq (ab_store_verb_name (AB_STORE_VERB_CHECK_AND_PUT), "check_and_put");
  /* figures for /metrics: rocksdb's health (test_store_rocksdb.c) and
   * hbase's shared calls (test_hbase.c); none from memory and lmdb */
  AbStoreGauge g[AB_STORE_GAUGE_MAX];
  guint n = ab_store_gauges (s, g, AB_STORE_GAUGE_MAX);
  gboolean reports = strcmp (s->vt->name, "rocksdb") == 0 || strcmp (s->vt->name, "hbase") == 0;
  ck_assert_msg ((n > 0) == reports, "%s: %u", s->vt->name, n);
}
END_TEST

/* ---- where a key lives, for change records ---- */

static void
assert_coord (const AbStoreCoord *c, const gchar *name, const guint8 *data, gsize len)
{
  ck_assert_str_eq (c->name, name);
  ck_assert_uint_eq (c->len, len);
  ck_assert (len == 0 || memcmp (c->data, data, len) == 0);
}

/* A narrow key is the row of cell f:e; a Group/Cache composite key is its
 * wide row plus the rest as the qualifier, in family f. */
START_TEST (test_cell_coords)
{
  AbStoreCoord c[AB_STORE_COORDS];
  ab_store_cell_coords (ST_S ("narrow"), c);
  assert_coord (&c[0], "family", ST_S ("f"));
  assert_coord (&c[1], "qualifier", ST_S ("e"));
  assert_coord (&c[2], "row", ST_S ("narrow"));
  AbValue src = AB_VALUE_INIT;
  ab_value_set_string (&src, AB_VALUE_STRING, "Alice", 5);
  g_autoptr (GByteArray) key
      = ab_codec_wide_key (&src, AB_DIR_OUT, 207242104, AB_ROW_GROUP, -1757833817, NULL);
  ab_value_clear (&src);
  gsize row_len = key->len;
  ab_codec_put_int64 (key, 42, AB_ORDER_DESC);
  ab_store_cell_coords (key->data, key->len, c);
  assert_coord (&c[0], "family", ST_S ("f"));
  assert_coord (&c[1], "qualifier", key->data + row_len, key->len - row_len);
  assert_coord (&c[2], "row", key->data, row_len);
}
END_TEST

/* A batch owns its rows' bytes: many rows, values past the chunk size and
 * an empty one keep their bytes as the batch grows; clear and append reuse it;
 * every backend writes them. */
static void
arena_row (guint i, gchar *key, gsize klen, GByteArray *value)
{
  g_snprintf (key, klen, "arena/%05u", i);
  g_byte_array_set_size (value, 0);
  gsize n = i % 997 == 0 ? 100000 + i : i % 13 == 0 ? 0 : 1 + i % 300;
  for (gsize j = 0; j < n; j++)
    g_byte_array_append (value, (const guint8 *) &"0123456789abcdef"[(i + j) % 16], 1);
}

START_TEST (test_batch_owns_bytes)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  g_autoptr (AbBatch) b = ab_batch_new ();
  g_autoptr (GByteArray) value = g_byte_array_new ();
  gchar key[32];
  GError *error = NULL;
  const guint n = 3000;
  for (int round = 0; round < 2; round++)
    {
      ab_batch_clear (b);
      ck_assert_uint_eq (ab_batch_len (b), 0);
      for (guint i = 0; i < n; i++)
        {
          arena_row (i + round, key, sizeof key, value);
          ab_batch_put (b, ST_S (key), value->data, value->len);
        }
      ab_batch_increment (b, ST_S ("arena/count"), round + 1);
      for (guint i = 0; i < n; i++)
        {
          const AbMutation *m = &g_array_index (b->items, AbMutation, i);
          arena_row (i + round, key, sizeof key, value);
          ck_assert_int_eq (m->kind, AB_MUT_PUT);
          ck_assert_uint_eq (m->klen, strlen (key));
          ck_assert_int_eq (memcmp (m->key, key, m->klen), 0);
          ck_assert_uint_eq (m->vlen, value->len);
          ck_assert (value->len == 0 || memcmp (m->value, value->data, value->len) == 0);
        }
    }
  g_autoptr (AbBatch) copy = ab_batch_new ();
  for (guint i = 0; i < ab_batch_len (b); i++)
    ab_batch_append (copy, &g_array_index (b->items, AbMutation, i));
  g_clear_pointer (&b, ab_batch_free); /* the copy owns its own bytes */
  ck_assert_msg (ab_store_batch (s, copy, &error), "%s", error ? error->message : "");
  for (guint i = 0; i < n; i += 97)
    {
      arena_row (i + 1, key, sizeof key, value);
      st_assert_value (s, ST_S (key), value->len > 0 ? value->data : (const guint8 *) "",
                       value->len);
    }
  st_assert_counter (s, ST_S ("arena/count"), 2);
}
END_TEST

START_TEST (test_mutation_names)
{
  ck_assert_str_eq (ab_store_mutation_name (AB_MUT_PUT), "Put");
  ck_assert_str_eq (ab_store_mutation_name (AB_MUT_DELETE), "Delete");
  ck_assert_str_eq (ab_store_mutation_name (AB_MUT_INCREMENT), "Increment");
  ck_assert_str_eq (ab_store_mutation_name (AB_MUT_DELETE_IF), "CheckAndDelete");
  ck_assert_str_eq (ab_store_mutation_name (AB_MUT_ADD), "Increment"); /* an HBase Increment */
  ck_assert_str_eq (ab_store_mutation_name ((AbMutationKind) (AB_MUT_ADD + 1)), "UNKNOWN");
  ck_assert_str_eq (ab_store_mutation_name ((AbMutationKind) -1), "UNKNOWN");
}
END_TEST

/* What a tool asks of a URI before opening it (local_uri.c): the directory
 * of a local store, resolved (two spellings are one store), none for the
 * others; sync=0 (the last sync= wins) on local stores only; the URI a
 * native copy is read by. */
START_TEST (test_local_uris)
{
  g_autofree gchar *tmp = g_dir_make_tmp ("ab-uri-XXXXXX", NULL);
  g_autofree gchar *real = realpath (tmp, NULL);
  static const gchar *const kinds[] = { "lmdb", "rocksdb" };
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autofree gchar *uri = g_strdup_printf ("%s:%s/./?sync=0", kinds[i], tmp);
      g_autofree gchar *dir = ab_store_uri_dir (uri);
      ck_assert_str_eq (dir, real);
      g_autofree gchar *missing = g_strdup_printf ("%s:%s/new?sync=1", kinds[i], tmp);
      g_autofree gchar *new_dir = ab_store_uri_dir (missing);
      g_autofree gchar *want = g_build_filename (tmp, "new", NULL);
      ck_assert_str_eq (new_dir, want);
      ck_assert (ab_store_uri_defers_sync (uri));
      ck_assert (!ab_store_uri_defers_sync (missing));
      g_autofree gchar *plain = g_strdup_printf ("%s:%s", kinds[i], tmp);
      ck_assert (!ab_store_uri_defers_sync (plain));
      g_autofree gchar *last = g_strdup_printf ("%s:%s?sync=0&memory=1m&sync=1", kinds[i], tmp);
      ck_assert (!ab_store_uri_defers_sync (last));
      g_autofree gchar *off = g_strdup_printf ("%s:%s?nosync=1&sync=0", kinds[i], tmp);
      ck_assert (ab_store_uri_defers_sync (off));
      g_autoptr (GError) error = NULL;
      g_autofree gchar *own = g_strdup_printf ("%s:%s/%s", kinds[i], tmp, kinds[i]);
      g_autoptr (AbStore) s = ab_store_open (own, &error);
      ck_assert_msg (s != NULL, "open %s: %s", own, error ? error->message : "");
      g_autofree gchar *native = ab_store_native_uri (s, "/backup/x");
      g_autofree gchar *native_want
          = g_strdup_printf ("%s:/backup/x%s", kinds[i], i == 0 ? "" : "?readonly=1");
      ck_assert_str_eq (native, native_want);
    }
  ck_assert_ptr_null (ab_store_uri_dir ("memory:"));
  ck_assert_ptr_null (ab_store_uri_dir ("hbase://localhost:9090/ns?table=t"));
  ck_assert (!ab_store_uri_defers_sync ("memory:"));
  ck_assert (!ab_store_uri_defers_sync ("hbase://localhost:9090/ns?table=t&sync=0"));
  g_autofree gchar *rm = g_strdup_printf ("rm -rf '%s'", tmp);
  ck_assert_int_eq (system (rm), 0);
}
END_TEST

/* Sorted loads are rocksdb's alone: every other store says it has none
 * (its callers write batches then). */
START_TEST (test_sorted_load_support)
{
  AbStore *s = st_open_backend (_i);
  AbStoreLoad *l = ab_store_load_new (s);
  ck_assert_int_eq (l != NULL, g_str_equal (ab_store_kind (s), "rocksdb"));
  ab_store_load_free (l);
  ab_store_close (s);
}
END_TEST

static Suite *
store_suite (void)
{
  Suite *suite = suite_create ("store");
  TCase *tc = tcase_create ("conformance");
  TCase *cc = tcase_create ("concurrency");
  FOR_EACH_BACKEND (tc, test_get_put_delete);
  FOR_EACH_BACKEND (tc, test_empty_key);
  FOR_EACH_BACKEND (tc, test_multi_get_order);
  FOR_EACH_BACKEND (tc, test_multi_get_many);
  FOR_EACH_BACKEND (tc, test_scan_order_unsigned);
  FOR_EACH_BACKEND (tc, test_scan_every_bound);
  FOR_EACH_BACKEND (tc, test_scan_empty_store_and_range);
  FOR_EACH_BACKEND (tc, test_increment);
  FOR_EACH_BACKEND (tc, test_increment_width);
  FOR_EACH_BACKEND (tc, test_check_and_put);
  FOR_EACH_BACKEND (tc, test_check_and_delete);
  FOR_EACH_BACKEND (tc, test_sidecars);
  FOR_EACH_BACKEND (tc, test_batch_in_order);
  FOR_EACH_BACKEND (tc, test_batch_owns_bytes);
  FOR_EACH_BACKEND (tc, test_batch_delete_if);
  FOR_EACH_BACKEND (tc, test_batch_add);
  FOR_EACH_BACKEND (tc, test_transact_adds);
  FOR_EACH_BACKEND (tc, test_batch_atomic_on_failure);
  FOR_EACH_BACKEND (tc, test_stats);
  tcase_add_test (tc, test_cell_coords);
  tcase_add_test (tc, test_mutation_names);
  tcase_add_test (tc, test_local_uris);
  FOR_EACH_BACKEND (tc, test_sorted_load_support);
  st_add_transaction_tests (tc, cc);
  tcase_set_timeout (tc, 60);
  tcase_set_timeout (cc, 120);
  suite_add_tcase (suite, tc);
  suite_add_tcase (suite, cc);
  return suite;
}

int
main (void)
{
  return st_run (store_suite ());
}
