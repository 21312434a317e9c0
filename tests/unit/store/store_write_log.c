/* Plans that ask the write log (ab_store_written_since) whether keys were
 * written since a seq, for the stores that keep one (lmdb, rocksdb): the
 * promises both make, checked in one place. */
#include "store_test_util.h"

#define LOG_ASK 3

/* A plan that asks written_since about keys (NULL-terminated), then puts
 * one; with `hold` it first says it entered and waits until released. */
typedef struct {
  guint64 seq;
  const gchar *ask[LOG_ASK + 1];
  gboolean answer[LOG_ASK];
  const gchar *put;
  gboolean hold, entered, released, done;
  GMutex lock;
  GCond cond;
} LogPlan;

static void
log_plan_init (LogPlan *p, guint64 seq, const gchar *put)
{
  memset (p, 0, sizeof *p);
  p->seq = seq;
  p->put = put;
  g_mutex_init (&p->lock);
  g_cond_init (&p->cond);
}

static void
log_plan_clear (LogPlan *p)
{
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->cond);
}

static gboolean
log_plan (AbStore *view, AbBatch *batch, gpointer user, GError **error)
{
  LogPlan *p = user;
  if (p->hold)
    {
      g_mutex_lock (&p->lock);
      p->entered = TRUE;
      g_cond_broadcast (&p->cond);
      while (!p->released)
        g_cond_wait (&p->cond, &p->lock);
      g_mutex_unlock (&p->lock);
    }
  for (guint i = 0; i < LOG_ASK && p->ask[i] != NULL; i++)
    p->answer[i] = ab_store_written_since (view, p->seq, ST_S (p->ask[i]));
  if (p->put != NULL)
    ab_batch_put (batch, ST_S (p->put), ST_S ("v"));
  return TRUE;
}

static void
log_plan_done (gpointer user, const GError *error)
{
  LogPlan *p = user;
  ck_assert_ptr_null (error);
  g_mutex_lock (&p->lock);
  p->done = TRUE;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
}

static void
log_plan_wait (LogPlan *p, gboolean *flag)
{
  g_mutex_lock (&p->lock);
  while (!*flag)
    g_cond_wait (&p->cond, &p->lock);
  g_mutex_unlock (&p->lock);
}

/* Runs a plan at seq asking a and b (b may be NULL); returns the answers. */
void
st_ask (AbStore *s, guint64 seq, const gchar *a, const gchar *b, gboolean *answer_a,
        gboolean *answer_b)
{
  LogPlan p;
  log_plan_init (&p, seq, NULL);
  p.ask[0] = a;
  p.ask[1] = b;
  GError *error = NULL;
  ck_assert_msg (ab_store_transact (s, log_plan, &p, &error), "%s", error ? error->message : "");
  *answer_a = p.answer[0];
  if (answer_b != NULL)
    *answer_b = p.answer[1];
  log_plan_clear (&p);
}

void
st_check_write_log (AbStore *s)
{
  gboolean a, b;
  guint64 seq = ab_store_write_seq (s);
  ck_assert_uint_gt (seq, 0); /* the store keeps a log */
  st_put (s, ST_S ("a"), ST_S ("1"));
  st_ask (s, seq, "a", "untouched", &a, &b);
  ck_assert (a);  /* committed after seq */
  ck_assert (!b); /* nobody wrote it: the promise */
  st_ask (s, ab_store_write_seq (s), "a", NULL, &a, NULL);
  ck_assert (!a); /* committed before that seq */

  /* A plan earlier in the same transaction wrote k: a plan after it sees it
   * as written, u still not. `held` keeps the committer busy while the
   * two are queued, so that they form the next group together. */
  seq = ab_store_write_seq (s);
  LogPlan held, writes_k, asks;
  log_plan_init (&held, 0, "h");
  held.hold = TRUE;
  log_plan_init (&writes_k, 0, "k");
  log_plan_init (&asks, seq, NULL);
  asks.ask[0] = "k";
  asks.ask[1] = "u";
  ab_store_transact_async (s, log_plan, log_plan_done, &held);
  log_plan_wait (&held, &held.entered);
  ab_store_transact_async (s, log_plan, log_plan_done, &writes_k);
  ab_store_transact_async (s, log_plan, log_plan_done, &asks);
  g_mutex_lock (&held.lock);
  held.released = TRUE;
  g_cond_broadcast (&held.cond);
  g_mutex_unlock (&held.lock);
  log_plan_wait (&held, &held.done);
  log_plan_wait (&writes_k, &writes_k.done);
  log_plan_wait (&asks, &asks.done);
  ck_assert (asks.answer[0]);
  ck_assert (!asks.answer[1]);
  log_plan_clear (&held);
  log_plan_clear (&writes_k);
  log_plan_clear (&asks);

  /* a seq older than the commits the log remembers: anything may have been */
  seq = ab_store_write_seq (s);
  for (guint i = 0; i < 12; i++)
    st_put (s, ST_S ("later"), ST_S ("1"));
  st_ask (s, seq, "untouched", NULL, &a, NULL);
  ck_assert (a);
}
