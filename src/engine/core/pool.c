/* The engine's key pool: one function over many items with a latch (the
 * second-hop reads of a multihop query), single jobs pushed now or later from
 * a timer thread (the lock waves of a mutation request, which never sleep). */
#include "engine/core/core.h"

typedef struct {
  GMutex mu;
  GCond cond;
  guint pending;
} Latch;

typedef struct {
  void (*fn) (gpointer item);
  gpointer item;
  Latch *latch;     /* NULL: a single job, freed once run */
  AbEngine *engine; /* delayed jobs: the pool to enter when due */
} PoolJob;

static void
key_job_run (gpointer data, gpointer engine)
{
  PoolJob *job = data;
  (void) engine;
  job->fn (job->item);
  if (job->latch == NULL)
    {
      g_free (job);
      return;
    }
  g_mutex_lock (&job->latch->mu);
  if (--job->latch->pending == 0)
    g_cond_signal (&job->latch->cond);
  g_mutex_unlock (&job->latch->mu);
}

/* The timer thread runs timer_ctx's loop, whose only callbacks (due) hand
 * jobs to the pool: nothing there asks for a thread-default context. */
static gpointer
timer_main (gpointer loop)
{
  g_main_loop_run (loop);
  return NULL;
}

void
ab_engine_pools_start (AbEngine *engine)
{
  engine->key_pool = g_thread_pool_new (key_job_run, engine,
                                        (gint) MAX (1, engine->cfg.mutation_threads), FALSE, NULL);
  engine->timer_ctx = g_main_context_new ();
  engine->timer_loop = g_main_loop_new (engine->timer_ctx, FALSE);
  engine->timer_thread = g_thread_new ("ab-engine-timer", timer_main, engine->timer_loop);
}

static gboolean
quit_timer (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

void
ab_engine_pools_stop (AbEngine *engine)
{
  if (engine->timer_thread != NULL)
    {
      /* Requests are drained by now: no lock retry is pending. */
      g_main_context_invoke (engine->timer_ctx, quit_timer, engine->timer_loop);
      g_thread_join (engine->timer_thread);
      engine->timer_thread = NULL;
      g_clear_pointer (&engine->timer_loop, g_main_loop_unref);
      g_clear_pointer (&engine->timer_ctx, g_main_context_unref);
    }
  if (engine->key_pool != NULL)
    g_thread_pool_free (g_steal_pointer (&engine->key_pool), FALSE, TRUE);
}

void
ab_engine_key_pool_push (AbEngine *engine, void (*fn) (gpointer item), gpointer item)
{
  PoolJob *job = g_new0 (PoolJob, 1);
  *job = (PoolJob){ fn, item, NULL, engine };
  g_thread_pool_push (engine->key_pool, job, NULL);
}

static gboolean
due (gpointer data)
{
  PoolJob *job = data;
  g_thread_pool_push (job->engine->key_pool, job, NULL);
  return G_SOURCE_REMOVE;
}

void
ab_engine_key_pool_push_after (AbEngine *engine, guint delay_ms, void (*fn) (gpointer item),
                               gpointer item)
{
  PoolJob *job = g_new0 (PoolJob, 1);
  *job = (PoolJob){ fn, item, NULL, engine };
  GSource *timer = g_timeout_source_new (delay_ms);
  g_source_set_callback (timer, due, job, NULL);
  g_source_attach (timer, engine->timer_ctx);
  g_source_unref (timer);
}

void
ab_engine_parallel (AbEngine *engine, gpointer items, gsize size, guint n,
                    void (*fn) (gpointer item), gboolean (*wanted) (gconstpointer item))
{
  guint8 *base = items;
  guint todo = 0;
  for (guint i = 0; i < n; i++)
    todo += wanted == NULL || wanted (base + i * size);
  if (todo <= 1)
    {
      for (guint i = 0; i < n; i++)
        if (wanted == NULL || wanted (base + i * size))
          fn (base + i * size);
      return;
    }
  Latch latch;
  g_mutex_init (&latch.mu);
  g_cond_init (&latch.cond);
  latch.pending = todo;
  PoolJob *jobs = g_new0 (PoolJob, n);
  for (guint i = 0; i < n; i++)
    if (wanted == NULL || wanted (base + i * size))
      {
        jobs[i] = (PoolJob){ fn, base + i * size, &latch };
        g_thread_pool_push (engine->key_pool, &jobs[i], NULL);
      }
  g_mutex_lock (&latch.mu);
  while (latch.pending > 0)
    g_cond_wait (&latch.cond, &latch.mu);
  g_mutex_unlock (&latch.mu);
  g_mutex_clear (&latch.mu);
  g_cond_clear (&latch.cond);
  g_free (jobs);
}

/* A contiguous run of items handled by one pool job. */
typedef struct {
  guint8 *first;
  gsize size;
  guint n;
  void (*fn) (gpointer item);
} Chunk;

static void
run_chunk (gpointer data)
{
  Chunk *c = data;
  for (guint i = 0; i < c->n; i++)
    c->fn (c->first + i * c->size);
}

void
ab_engine_parallel_chunked (AbEngine *engine, gpointer items, gsize size, guint n,
                            void (*fn) (gpointer item))
{
  guint width = MAX (1, MIN (n, engine->cfg.mutation_threads));
  Chunk *chunks = g_new0 (Chunk, width);
  for (guint c = 0, at = 0; c < width; c++)
    {
      guint len = n / width + (c < n % width ? 1 : 0);
      chunks[c] = (Chunk){ (guint8 *) items + at * size, size, len, fn };
      at += len;
    }
  /* the caller takes the first chunk itself: one thread wake-up fewer */
  if (width > 1)
    ab_engine_parallel (engine, chunks + 1, sizeof *chunks, width - 1, run_chunk, NULL);
  run_chunk (&chunks[0]);
  g_free (chunks);
}
