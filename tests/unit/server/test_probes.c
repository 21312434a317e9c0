/* Unit tests for the readiness verdict (src/server/probes.c) over a health
 * probe whose check the test switches: warming up until the store answered
 * once, then the health verdict, and drained whatever the store says. */
#include <check.h>
#include <stdatomic.h>
#include <string.h>
#include "server/probes.h"

static atomic_bool store_up;

static gboolean
check (gpointer data, gchar **reason)
{
  if (atomic_load (&store_up))
    return TRUE;
  *reason = g_strdup ("store down");
  return FALSE;
}

/* Waits (bounded) until the probe's verdict is `up`. */
static void
await_health (AbHealth *h, gboolean up)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (ab_health_get (h, NULL) != up && g_get_monotonic_time () < deadline)
    g_usleep (1000);
  ck_assert_int_eq (ab_health_get (h, NULL), up);
}

START_TEST (warm_then_health_then_drained)
{
  atomic_store (&store_up, FALSE);
  g_autoptr (AbHealth) h = ab_health_new (check, NULL, 5, 1000);
  AbProbes *p = ab_probes_new (h, FALSE);
  g_autofree gchar *r1 = NULL;
  ck_assert (!ab_probes_ready (p, &r1));
  ck_assert_str_eq (r1, "warming up: store down");
  atomic_store (&store_up, TRUE);
  await_health (h, TRUE);
  g_autofree gchar *r2 = NULL;
  ck_assert (ab_probes_ready (p, &r2));
  ck_assert_ptr_null (r2);
  /* warm now: a later outage says what the store says */
  atomic_store (&store_up, FALSE);
  await_health (h, FALSE);
  g_autofree gchar *r3 = NULL;
  ck_assert (!ab_probes_ready (p, &r3));
  ck_assert_str_eq (r3, "store down");
  atomic_store (&store_up, TRUE);
  await_health (h, TRUE);
  ab_probes_drain (p, TRUE);
  g_autofree gchar *r4 = NULL;
  ck_assert (!ab_probes_ready (p, &r4));
  ck_assert_ptr_nonnull (strstr (r4, "drained"));
  ab_probes_drain (p, FALSE);
  ck_assert (ab_probes_ready (p, NULL));
  ab_probes_free (p);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("probes");
  TCase *tc = tcase_create ("probes");
  tcase_add_test (tc, warm_then_health_then_drained);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
