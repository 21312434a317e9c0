/* The store verbs the verifier adds: snapshots on memory and lmdb (a view
 * fixed at open while writes go on, ranges and limits, early stop), on HBase
 * (a maximum timestamp: later rows unseen) and the fault wrapper (drop and
 * fail of one batch item, pass-through otherwise) over every store. */
#include <check.h>
#include <string.h>
#include "../store/fault.h"
#include "verify_fixture.h"
#include "../engine/engine_fixture.h"
#include "../../hbase/hbase_test_uri.h"

static AbStore *
open_store (int i, gchar **dir)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *uri = NULL;
  uri = vf_store_uri ((guint) i, "snapshot", dir);
  AbStore *s = ab_store_open (uri, &error);
  ck_assert_msg (s != NULL, "%s", error ? error->message : "");
  return s;
}

static void
put (AbStore *s, const gchar *k, const gchar *v)
{
  ck_assert (
      ab_store_put (s, (const guint8 *) k, strlen (k), (const guint8 *) v, strlen (v), NULL));
}

static gboolean
collect (const guint8 *key, gsize klen, const guint8 *val, gsize vlen, gpointer user)
{
  GString *out = user;
  g_string_append_printf (out, "%.*s=%.*s;", (int) klen, key, (int) vlen, val);
  return strlen (out->str) < 1000;
}

static gboolean
stop_after_one (const guint8 *key, gsize klen, const guint8 *val, gsize vlen, gpointer user)
{
  (*(guint *) user)++;
  return FALSE;
}

/* ab_snapshot_get's answer as text: the value, or "-" for absent. */
static gchar *
get_text (AbSnapshot *snap, const gchar *key)
{
  g_autoptr (GBytes) value = NULL;
  g_autoptr (GError) error = NULL;
  ck_assert_msg (ab_snapshot_get (snap, (const guint8 *) key, strlen (key), &value, &error), "%s",
                 error != NULL ? error->message : "");
  if (value == NULL)
    return g_strdup ("-");
  gsize len;
  const gchar *data = g_bytes_get_data (value, &len);
  return g_strndup (data, len);
}

static gchar *
scan_text (AbSnapshot *snap, const gchar *start, gboolean incl, const gchar *stop, guint limit)
{
  GString *out = g_string_new ("");
  AbScanRange r = { .start = (const guint8 *) start,
                    .start_len = start ? strlen (start) : 0,
                    .start_inclusive = incl,
                    .stop = (const guint8 *) stop,
                    .stop_len = stop ? strlen (stop) : 0,
                    .limit = limit };
  ck_assert (ab_snapshot_scan (snap, &r, collect, out, NULL));
  return g_string_free (out, FALSE);
}

START_TEST (snapshot_view_is_fixed)
{
  gchar *dir;
  AbStore *s = open_store (_i, &dir);
  put (s, "a", "1");
  put (s, "b", "2");
  put (s, "c", "3");
  g_autoptr (AbSnapshot) snap = ab_store_snapshot_open (s, NULL);
  ck_assert (snap != NULL);
  if (_i == VF_HBASE)
    g_usleep (2000); /* the snapshot includes writes of its own millisecond */
  put (s, "b", "changed");
  put (s, "bb", "new");
  ck_assert (ab_store_delete (s, (const guint8 *) "c", 1, NULL));
  g_autofree gchar *all = scan_text (snap, NULL, FALSE, NULL, 0);
  if (_i == VF_HBASE)
    {
      /* One version per cell: a row rewritten or deleted after the
       * snapshot's timestamp is not seen at all, a new one neither. */
      ck_assert_str_eq (all, "a=1;");
      g_autofree gchar *a_then = get_text (snap, "a");
      g_autofree gchar *bb_then = get_text (snap, "bb");
      ck_assert_str_eq (a_then, "1");
      ck_assert_str_eq (bb_then, "-");
      ab_snapshot_close (g_steal_pointer (&snap));
      g_autoptr (AbSnapshot) later = ab_store_snapshot_open (s, NULL);
      g_autofree gchar *now = scan_text (later, "a", FALSE, NULL, 0);
      ck_assert_str_eq (now, "b=changed;bb=new;");
      g_clear_pointer (&later, ab_snapshot_close);
      ab_store_close (s);
      return;
    }
  ck_assert_str_eq (all, "a=1;b=2;c=3;");
  /* a point read sees the snapshot's view: the old value, the deleted row,
   * not the new one; a key between rows and the empty key are absent */
  g_autofree gchar *b_then = get_text (snap, "b");
  g_autofree gchar *c_then = get_text (snap, "c");
  g_autofree gchar *bb_then = get_text (snap, "bb");
  g_autofree gchar *between = get_text (snap, "ab");
  g_autofree gchar *prefix = get_text (snap, "");
  ck_assert_str_eq (b_then, "2");
  ck_assert_str_eq (c_then, "3");
  ck_assert_str_eq (bb_then, "-");
  ck_assert_str_eq (between, "-");
  ck_assert_str_eq (prefix, "-");
  g_autofree gchar *excl = scan_text (snap, "a", FALSE, "c", 0);
  ck_assert_str_eq (excl, "b=2;");
  g_autofree gchar *incl = scan_text (snap, "a", TRUE, "b", 1);
  ck_assert_str_eq (incl, "a=1;");
  guint seen = 0;
  AbScanRange everything = { 0 };
  ck_assert (ab_snapshot_scan (snap, &everything, stop_after_one, &seen, NULL));
  ck_assert_uint_eq (seen, 1);
  g_clear_pointer (&snap, ab_snapshot_close);
  g_autoptr (AbSnapshot) later = ab_store_snapshot_open (s, NULL);
  g_autofree gchar *now = scan_text (later, NULL, FALSE, NULL, 0);
  ck_assert_str_eq (now, "a=1;b=changed;bb=new;");
  g_clear_pointer (&later, ab_snapshot_close);
  ab_store_close (s);
  ab_test_rmdir (dir);
  g_free (dir);
}
END_TEST

static gchar *
all_rows (AbStore *s)
{
  g_autoptr (AbSnapshot) snap = ab_store_snapshot_open (s, NULL);
  ck_assert (snap != NULL);
  return scan_text (snap, NULL, FALSE, NULL, 0);
}

static AbBatch *
three (void)
{
  AbBatch *b = ab_batch_new ();
  ab_batch_put (b, (const guint8 *) "k1", 2, (const guint8 *) "v", 1);
  ab_batch_put (b, (const guint8 *) "k2", 2, (const guint8 *) "v", 1);
  ab_batch_increment (b, (const guint8 *) "k3", 2, 5);
  return b;
}

START_TEST (fault_drop_and_fail)
{
  gchar *dir;
  AbStore *f = ab_store_fault_new (open_store (_i, &dir));
  g_autoptr (AbBatch) b = three ();
  g_autoptr (GError) error = NULL;
  ck_assert (!ab_store_batch_is_atomic (f));
  ab_store_fault_arm (f, AB_FAULT_DROP, 2, 1);
  ck_assert (ab_store_batch (f, b, NULL)); /* batch 1: untouched */
  ck_assert (!ab_store_fault_fired (f));
  ck_assert (ab_store_delete (f, (const guint8 *) "k1", 2, NULL)); /* batch 2: 1 item, passes */
  ck_assert (!ab_store_fault_fired (f));
  ck_assert (ab_store_delete (f, (const guint8 *) "k2", 2, NULL));
  ab_store_fault_arm (f, AB_FAULT_DROP, 1, 1);
  ck_assert (ab_store_batch (f, b, NULL));
  ck_assert (ab_store_fault_fired (f));
  g_autofree gchar *dropped = all_rows (f);
  ck_assert (g_str_has_prefix (dropped, "k1=v;k3="));
  ck_assert_uint_eq (ab_store_fault_batches (f), 4);
  ab_store_fault_arm (f, AB_FAULT_FAIL, 1, 2);
  ck_assert (!ab_store_batch (f, b, &error));
  ck_assert (error != NULL && error->code == AB_STORE_ERROR_INJECTED);
  gint64 n = 0;
  ck_assert (ab_store_increment (f, (const guint8 *) "k3", 2, 0, &n, NULL));
  ck_assert_int_eq (n, 10); /* 5 from the second batch, the third failed there */
  ab_store_close (f);
  ab_test_rmdir (dir);
  g_free (dir);
}
END_TEST

int
main (void)
{
  Suite *suite = suite_create ("verify-store");
  TCase *tc = tcase_create ("store");
  tcase_add_loop_test (tc, snapshot_view_is_fixed, 0, (gint) vf_n_stores ());
  tcase_add_loop_test (tc, fault_drop_and_fail, 0, (gint) vf_n_stores ());
  suite_add_tcase (suite, tc);
  SRunner *sr = srunner_create (suite);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
