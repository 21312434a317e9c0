/* Shared calls of the hbase backend (docs/hbase-adapter.md §3.9): a caller
 * that needs a call of a kind while `share` calls of that kind are in flight
 * waits; the next free leader (after a short wait for company when the last
 * run was shared) sends the work of every waiting caller as one call and
 * hands each caller its own outcome. */
#include "store/hbase/hbase-private.h"

/* A caller's place in the queue; its own condition, so that a finished run
 * wakes its members and the next leader, not every waiter. */
typedef struct {
  gpointer op;
  gint64 deadline; /* monotonic us: the end of this caller's call budget */
  GError *error;
  gboolean taken; /* in a run: only its end may finish the slot */
  gboolean done;
  GCond wake;
} Slot;

struct _AbHbShare {
  GMutex mu;
  GPtrArray *waiting; /* Slot*, oldest first */
  guint in_flight;
  guint max_in_flight; /* 0: every caller runs alone, at once */
  guint wait_us;       /* a lone leader's wait for company, under load */
  guint last_n;        /* callers of the last run */
  Slot *lingering;     /* the leader waiting for company, if any */
  AbHbShareRun run;
  atomic_uint_fast64_t calls;   /* leader runs */
  atomic_uint_fast64_t callers; /* slots they served */
};

AbHbShare *
ab_hb_share_new (guint max_in_flight, guint wait_us, AbHbShareRun run)
{
  AbHbShare *s = g_new0 (AbHbShare, 1);
  g_mutex_init (&s->mu);
  s->waiting = g_ptr_array_new ();
  s->max_in_flight = max_in_flight;
  s->wait_us = wait_us;
  s->run = run;
  return s;
}

void
ab_hb_share_free (AbHbShare *s)
{
  if (s == NULL)
    return;
  g_ptr_array_unref (s->waiting);
  g_mutex_clear (&s->mu);
  g_free (s);
}

/* A run that found the gateway unavailable (down, stalled, every
 * connection busy) fails the callers still queued with its reason at once:
 * they would meet the same gateway, and each caller's wait stays within one
 * call budget (the request timeout is two). Called with the mutex held. */
static void
fail_queued (AbHbShare *s, GError **errors, guint n)
{
  const GError *down = NULL;
  for (guint i = 0; i < n && down == NULL; i++)
    if (errors[i] != NULL
        && g_error_matches (errors[i], AB_STORE_ERROR, AB_STORE_ERROR_UNAVAILABLE))
      down = errors[i];
  for (guint i = 0; down != NULL && i < s->waiting->len; i++)
    {
      Slot *w = s->waiting->pdata[i];
      w->error = g_error_copy (down);
      w->done = TRUE;
      g_cond_signal (&w->wake);
    }
  if (down != NULL)
    g_ptr_array_set_size (s->waiting, 0);
}

/* Runs a group of slots (taken off the queue) with the mutex released,
 * its calls ending by the earliest of their budgets: no caller waits for
 * its shared call longer than timeout_ms in all. */
static void
lead (AbHbStore *h, AbHbShare *s, Slot **group, guint n, GError **errors)
{
  gpointer ops[AB_HB_SHARE_MAX];
  gint64 cap = 0;
  for (guint i = 0; i < n; i++)
    {
      ops[i] = group[i]->op;
      if (group[i]->deadline != 0 && (cap == 0 || group[i]->deadline < cap))
        cap = group[i]->deadline;
    }
  gint64 prev = ab_hb_cap_calls (cap);
  s->run (h, ops, n, errors);
  ab_hb_cap_calls (prev);
  atomic_fetch_add_explicit (&s->calls, 1, memory_order_relaxed);
  atomic_fetch_add_explicit (&s->callers, n, memory_order_relaxed);
}

/* A caller still queued when its call budget ran out leaves the queue. */
static void
give_up (AbHbStore *h, AbHbShare *s, Slot *slot)
{
  g_ptr_array_remove (s->waiting, slot);
  slot->done = TRUE;
  g_set_error (&slot->error, AB_STORE_ERROR, AB_STORE_ERROR_UNAVAILABLE,
               "hbase %s: no shared call could start within %u ms (the calls before it are "
               "still running)",
               h->addr, h->cfg.timeout_ms);
}

gboolean
ab_hb_share_submit (AbHbStore *h, AbHbShare *s, gpointer op, GError **error)
{
  Slot slot = { .op = op };
  if (s->max_in_flight == 0)
    {
      Slot *one = &slot;
      lead (h, s, &one, 1, &slot.error);
    }
  else
    {
      gint64 deadline = ab_hb_call_deadline (h);
      slot.deadline = deadline;
      g_cond_init (&slot.wake);
      g_mutex_lock (&s->mu);
      g_ptr_array_add (s->waiting, &slot);
      if (s->lingering != NULL && s->waiting->len >= s->last_n)
        g_cond_signal (&s->lingering->wake); /* its company is here */
      while (!slot.done)
        {
          if (slot.taken)
            {
              /* A leader carries our work: it ends within its own call
               * budget and wakes us. No deadline here: once ours had passed
               * the wait returned at once, and the loop spun on the mutex
               * the leader needed to say it was done (a gateway stall under
               * load locked every write for minutes). */
              g_cond_wait (&slot.wake, &s->mu);
              continue;
            }
          if (s->in_flight >= s->max_in_flight)
            {
              if (!g_cond_wait_until (&slot.wake, &s->mu, deadline) && !slot.taken && !slot.done
                  && s->in_flight >= s->max_in_flight)
                give_up (h, s, &slot);
              continue;
            }
          Slot *group[AB_HB_SHARE_MAX];
          GError *errors[AB_HB_SHARE_MAX] = { NULL };
          if (s->wait_us > 0 && s->waiting->len == 1 && s->last_n > 1 && s->lingering == NULL)
            {
              /* alone, but the last run was shared: others are likely on
               * their way (the keys whose locks are being taken). The slot
               * is held so that they queue instead of leading, until as
               * many callers as last time are here or wait_us is over. */
              gint64 until = g_get_monotonic_time () + s->wait_us;
              s->in_flight++;
              s->lingering = &slot;
              while (s->waiting->len < s->last_n && !slot.taken && !slot.done
                     && g_cond_wait_until (&slot.wake, &s->mu, until))
                ;
              s->lingering = NULL;
              s->in_flight--;
              if (slot.taken || slot.done) /* another leader took it (share > 1) */
                continue;
            }
          guint n = MIN (s->waiting->len, AB_HB_SHARE_MAX);
          s->last_n = n;
          for (guint i = 0; i < n; i++)
            {
              group[i] = s->waiting->pdata[i];
              group[i]->taken = TRUE;
            }
          g_ptr_array_remove_range (s->waiting, 0, n);
          s->in_flight++;
          g_mutex_unlock (&s->mu);
          lead (h, s, group, n, errors);
          g_mutex_lock (&s->mu);
          for (guint i = 0; i < n; i++)
            {
              group[i]->error = errors[i];
              group[i]->done = TRUE;
              g_cond_signal (&group[i]->wake);
            }
          fail_queued (s, errors, n);
          s->in_flight--;
          if (s->waiting->len > 0) /* the oldest waiter leads next */
            g_cond_signal (&((Slot *) s->waiting->pdata[0])->wake);
        }
      g_mutex_unlock (&s->mu);
      g_cond_clear (&slot.wake);
    }
  if (slot.error == NULL)
    return TRUE;
  g_propagate_error (error, slot.error);
  return FALSE;
}

void
ab_hb_share_counts (AbHbShare *s, guint64 *calls, guint64 *callers)
{
  *calls = atomic_load_explicit (&s->calls, memory_order_relaxed);
  *callers = atomic_load_explicit (&s->callers, memory_order_relaxed);
}
