/* The health probe: one thread that runs the check, a mutex-guarded verdict
 * with its reason, and the rule that a check running past its bound reads as
 * DOWN, so /health answers at once even while the store stalls. */
#include "server/health.h"

struct _AbHealth {
  AbHealthCheck check;
  gpointer data;
  guint interval_ms;
  guint timeout_ms;
  GMutex lock; /* guards everything below */
  GCond cond;  /* a verdict arrived, or stop */
  gboolean up;
  gchar *reason; /* when !up */
  gboolean have_verdict;
  gint64 running_since; /* monotonic us of the running check, 0 when idle */
  gboolean stop;
  GThread *thread;
};

static gpointer
probe_thread (gpointer data)
{
  AbHealth *h = data;
  g_mutex_lock (&h->lock);
  while (!h->stop)
    {
      h->running_since = g_get_monotonic_time ();
      g_mutex_unlock (&h->lock);
      gchar *reason = NULL;
      gboolean up = h->check (h->data, &reason);
      g_mutex_lock (&h->lock);
      h->running_since = 0;
      h->up = up;
      g_free (h->reason);
      h->reason = up ? NULL : (reason != NULL ? reason : g_strdup ("unhealthy"));
      if (up)
        g_free (reason);
      h->have_verdict = TRUE;
      g_cond_broadcast (&h->cond);
      gint64 next = g_get_monotonic_time () + (gint64) h->interval_ms * 1000;
      while (!h->stop && g_cond_wait_until (&h->cond, &h->lock, next))
        ;
    }
  g_mutex_unlock (&h->lock);
  return NULL;
}

AbHealth *
ab_health_new (AbHealthCheck check, gpointer data, guint interval_ms, guint timeout_ms)
{
  AbHealth *h = g_new0 (AbHealth, 1);
  h->check = check;
  h->data = data;
  h->interval_ms = MAX (1, interval_ms);
  h->timeout_ms = MAX (1, timeout_ms);
  g_mutex_init (&h->lock);
  g_cond_init (&h->cond);
  h->thread = g_thread_new ("ab-health", probe_thread, h);
  gint64 deadline = g_get_monotonic_time () + (gint64) h->timeout_ms * 1000;
  g_mutex_lock (&h->lock);
  while (!h->have_verdict && g_cond_wait_until (&h->cond, &h->lock, deadline))
    ;
  g_mutex_unlock (&h->lock);
  return h;
}

gboolean
ab_health_get (AbHealth *h, gchar **reason)
{
  g_mutex_lock (&h->lock);
  gint64 now = g_get_monotonic_time ();
  gboolean stalled
      = h->running_since != 0 && now - h->running_since > (gint64) h->timeout_ms * 1000;
  gboolean up = h->have_verdict && h->up && !stalled;
  if (!up && reason != NULL)
    {
      if (stalled)
        *reason = g_strdup_printf ("store or sinks did not answer within %u ms", h->timeout_ms);
      else
        *reason = g_strdup (h->have_verdict ? h->reason : "starting");
    }
  g_mutex_unlock (&h->lock);
  return up;
}

void
ab_health_free (AbHealth *h)
{
  if (h == NULL)
    return;
  g_mutex_lock (&h->lock);
  h->stop = TRUE;
  g_cond_broadcast (&h->cond);
  g_mutex_unlock (&h->lock);
  g_thread_join (h->thread);
  g_mutex_clear (&h->lock);
  g_cond_clear (&h->cond);
  g_free (h->reason);
  g_free (h);
}
