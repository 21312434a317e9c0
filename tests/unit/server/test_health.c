/* The /health probe: verdicts follow the check, a reader never waits for a
 * check, and a check that hangs past its bound reads as DOWN until it
 * returns; then the verdict recovers without a restart. */
#include <check.h>
#include <string.h>
#include "server/health.h"
#include "ab_check.h"

typedef struct {
  GMutex lock;
  GCond cond;
  gboolean up;
  gboolean hang; /* checks wait while set */
  guint waiting; /* checks currently hanging */
  guint calls;
} Fake;

static gboolean
fake_check (gpointer data, gchar **reason)
{
  Fake *f = data;
  g_mutex_lock (&f->lock);
  f->calls++;
  f->waiting++;
  g_cond_broadcast (&f->cond);
  while (f->hang)
    g_cond_wait (&f->cond, &f->lock);
  f->waiting--;
  gboolean up = f->up;
  g_mutex_unlock (&f->lock);
  if (!up)
    *reason = g_strdup ("store: gateway unreachable");
  return up;
}

static void
fake_init (Fake *f, gboolean hang)
{
  *f = (Fake){ .up = TRUE, .hang = hang };
  g_mutex_init (&f->lock);
  g_cond_init (&f->cond);
}

static void
fake_set (Fake *f, gboolean up, gboolean hang)
{
  g_mutex_lock (&f->lock);
  f->up = up;
  f->hang = hang;
  g_cond_broadcast (&f->cond);
  g_mutex_unlock (&f->lock);
}

/* Polls until the verdict is `want` (deadline 10 s); returns the reason. */
static gchar *
wait_verdict (AbHealth *h, gboolean want)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  for (;;)
    {
      gchar *reason = NULL;
      if (ab_health_get (h, &reason) == want)
        return reason;
      g_free (reason);
      ck_assert_msg (g_get_monotonic_time () < deadline, "verdict never became %d", want);
      g_usleep (5000);
    }
}

START_TEST (test_verdict_follows_check)
{
  Fake f;
  fake_init (&f, FALSE);
  AbHealth *h = ab_health_new (fake_check, &f, 10, 1000);
  /* The first verdict is in before new returns. */
  ck_assert (ab_health_get (h, NULL));
  fake_set (&f, FALSE, FALSE);
  g_autofree gchar *why = wait_verdict (h, FALSE);
  ck_assert_str_eq (why, "store: gateway unreachable");
  fake_set (&f, TRUE, FALSE);
  g_free (wait_verdict (h, TRUE));
  ab_health_free (h);
  ck_assert_uint_ge (f.calls, 3);
}
END_TEST

START_TEST (test_hanging_check_reads_down)
{
  Fake f;
  fake_init (&f, FALSE);
  AbHealth *h = ab_health_new (fake_check, &f, 10, 200);
  ck_assert (ab_health_get (h, NULL));
  fake_set (&f, TRUE, TRUE);
  g_mutex_lock (&f.lock);
  while (f.waiting == 0)
    g_cond_wait (&f.cond, &f.lock);
  g_mutex_unlock (&f.lock);
  /* Readers get an answer while the check hangs (this thread would wait
   * forever otherwise), and past the bound it is DOWN with the reason. */
  g_autofree gchar *why = wait_verdict (h, FALSE);
  ck_assert_str_eq (why, "store or sinks did not answer within 200 ms");
  g_mutex_lock (&f.lock);
  ck_assert_uint_eq (f.waiting, 1);
  g_mutex_unlock (&f.lock);
  fake_set (&f, TRUE, FALSE);
  g_free (wait_verdict (h, TRUE));
  ab_health_free (h);
}
END_TEST

START_TEST (test_starting_then_free_while_hanging)
{
  Fake f;
  fake_init (&f, TRUE);
  /* The first check hangs: new gives up after its bound, verdict DOWN. */
  AbHealth *h = ab_health_new (fake_check, &f, 10, 50);
  gchar *why = NULL;
  ck_assert (!ab_health_get (h, &why));
  ck_assert (strcmp (why, "starting") == 0
             || strcmp (why, "store or sinks did not answer within 50 ms") == 0);
  g_free (why);
  fake_set (&f, TRUE, FALSE);
  g_free (wait_verdict (h, TRUE));
  ab_health_free (h);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("health");
  TCase *tc = tcase_create ("probe");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_verdict_follows_check);
  tcase_add_test (tc, test_hanging_check_reads_down);
  tcase_add_test (tc, test_starting_then_free_while_hanging);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
