/* The verifier's external sorter against an in-memory reference: random
 * keys (shared 8-byte prefixes, keys that prefix others, zero bytes), Count
 * contributions summed per key, first Index value kept, in memory and
 * through spilled runs merged with a small fan-in. */
#include <check.h>
#include <string.h>
#include "verify/sorter.h"
#include "store/store.h"

typedef struct {
  gboolean count;
  gint64 sum;
  GBytes *value;
} Ref;

static void
ref_free (Ref *r)
{
  if (r->value != NULL)
    g_bytes_unref (r->value);
  g_free (r);
}

static gint
key_cmp (gconstpointer a, gconstpointer b, gpointer unused)
{
  gsize al, bl;
  const guint8 *ad = g_bytes_get_data ((GBytes *) a, &al);
  const guint8 *bd = g_bytes_get_data ((GBytes *) b, &bl);
  return ab_store_key_compare (ad, al, bd, bl);
}

/* Keys from a small alphabet over a common 6-byte stem, so that 8-byte
 * prefixes collide often and some keys are prefixes of others. */
static GBytes *
random_key (GRand *rnd)
{
  guint8 k[24] = { 0xAB, 0xCD, 0x00, 0x01, 0x02, 0x03 };
  guint len = (guint) g_rand_int_range (rnd, 1, 24);
  for (guint i = 6; i < len; i++)
    k[i] = (guint8) g_rand_int_range (rnd, 0, 3);
  return g_bytes_new (k, len);
}

static void
add_random (AbSorter *s, GTree *ref, GRand *rnd)
{
  g_autoptr (GBytes) key = random_key (rnd);
  gsize klen;
  const guint8 *k = g_bytes_get_data (key, &klen);
  gboolean count = (k[klen - 1] & 1) == 0; /* a key's kind never changes */
  Ref *r = g_tree_lookup (ref, key);
  if (r == NULL)
    {
      r = g_new0 (Ref, 1);
      r->count = count;
      g_tree_insert (ref, g_bytes_ref (key), r);
    }
  if (count)
    {
      gint64 n = g_rand_int_range (rnd, 1, 4);
      r->sum += n;
      ck_assert (ab_sorter_add_count (s, k, klen, n, NULL));
    }
  else
    {
      g_autofree gchar *v = g_strdup_printf ("value-%u", g_rand_int (rnd));
      if (r->value == NULL)
        r->value = g_bytes_new (v, strlen (v));
      ck_assert (ab_sorter_add_index (s, k, klen, (const guint8 *) v, strlen (v), NULL));
    }
}

typedef struct {
  AbSorter *s;
  guint seen;
} Walk;

static gboolean
check_next (gpointer key, gpointer value, gpointer data)
{
  Walk *w = data;
  Ref *r = value;
  AbDerived d;
  gboolean more = FALSE;
  gsize klen;
  const guint8 *k = g_bytes_get_data (key, &klen);
  ck_assert (ab_sorter_next (w->s, &d, &more, NULL));
  ck_assert (more);
  ck_assert_uint_eq (d.klen, klen);
  ck_assert (memcmp (d.key, k, klen) == 0);
  ck_assert_int_eq (d.kind, r->count ? AB_DERIVED_COUNT : AB_DERIVED_INDEX);
  if (r->count)
    ck_assert_int_eq (d.count, r->sum);
  else
    {
      ck_assert_uint_eq (d.vlen, g_bytes_get_size (r->value));
      ck_assert (memcmp (d.value, g_bytes_get_data (r->value, NULL), d.vlen) == 0);
    }
  w->seen++;
  return FALSE;
}

static const struct {
  gsize run_bytes;
  guint fan_in;
  guint records;
} RUNS[] = {
  { 64 << 20, 64, 20000 }, /* fits in memory */
  { 64 << 10, 64, 20000 }, /* a few runs, one merge */
  { 64 << 10, 3, 60000 },  /* many runs, merged in levels */
  { 64 << 10, 2, 0 },      /* empty */
};

START_TEST (sorted_and_combined)
{
  g_autoptr (GRand) rnd = g_rand_new_with_seed (42 + _i);
  g_autoptr (GTree) ref
      = g_tree_new_full (key_cmp, NULL, (GDestroyNotify) g_bytes_unref, (GDestroyNotify) ref_free);
  g_autoptr (AbSorter) s = ab_sorter_new (NULL, RUNS[_i].run_bytes);
  Walk w = { s, 0 };
  AbDerived d;
  gboolean more = TRUE;
  ab_sorter_set_fan_in (s, RUNS[_i].fan_in);
  for (guint i = 0; i < RUNS[_i].records; i++)
    add_random (s, ref, rnd);
  ck_assert_uint_eq (ab_sorter_records (s) <= RUNS[_i].records, TRUE);
  ck_assert (ab_sorter_finish (s, NULL));
  if (RUNS[_i].run_bytes < (1 << 20) && RUNS[_i].records > 0)
    ck_assert_uint_gt (ab_sorter_spilled_runs (s), 1);
  g_tree_foreach (ref, check_next, &w);
  ck_assert_uint_eq (w.seen, g_tree_nnodes (ref));
  ck_assert (ab_sorter_next (s, &d, &more, NULL));
  ck_assert (!more);
}
END_TEST

/* Adjacent Count contributions to one key merge before they take space. */
START_TEST (adjacent_counts_merge)
{
  g_autoptr (AbSorter) s = ab_sorter_new (NULL, 0);
  static const guint8 a[] = { 1, 2, 3 }, b[] = { 1, 2, 4 };
  AbDerived d;
  gboolean more;
  for (guint i = 0; i < 1000; i++)
    {
      ck_assert (ab_sorter_add_count (s, a, 3, 1, NULL));
      ck_assert (ab_sorter_add_count (s, b, 3, 2, NULL));
    }
  ck_assert_uint_eq (ab_sorter_records (s), 2);
  ck_assert (ab_sorter_finish (s, NULL));
  ck_assert (ab_sorter_next (s, &d, &more, NULL) && more);
  ck_assert_int_eq (d.count, 1000);
  ck_assert (ab_sorter_next (s, &d, &more, NULL) && more);
  ck_assert_int_eq (d.count, 2000);
  ck_assert (ab_sorter_next (s, &d, &more, NULL) && !more);
}
END_TEST

START_TEST (bad_tmpdir_fails_cleanly)
{
  g_autoptr (AbSorter) s = ab_sorter_new ("/nonexistent/ab-verify", 64 << 10);
  g_autoptr (GError) error = NULL;
  gboolean ok = TRUE;
  guint8 key[32] = { 0 };
  for (guint i = 0; ok && i < 100000; i++)
    {
      memcpy (key, &i, sizeof i);
      ok = ab_sorter_add_index (s, key, sizeof key, key, sizeof key, &error);
    }
  ck_assert (!ok);
  ck_assert (error != NULL);
}
END_TEST

int
main (void)
{
  Suite *suite = suite_create ("verify-sorter");
  TCase *tc = tcase_create ("sorter");
  tcase_set_timeout (tc, 60);
  tcase_add_loop_test (tc, sorted_and_combined, 0, G_N_ELEMENTS (RUNS));
  tcase_add_test (tc, adjacent_counts_merge);
  tcase_add_test (tc, bad_tmpdir_fails_cleanly);
  suite_add_tcase (suite, tc);
  SRunner *sr = srunner_create (suite);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
