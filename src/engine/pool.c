/* Running one function over many items on the engine's key pool and waiting
 * for all of them (a latch): the lock/unlock waves of a mutation request and
 * the second-hop reads of a multihop query. */
#include "engine/wide.h"

typedef struct {
  GMutex mu;
  GCond cond;
  guint pending;
} Latch;

typedef struct {
  void (*fn) (gpointer item);
  gpointer item;
  Latch *latch;
} PoolJob;

void
ab_engine_key_job_run (gpointer data, gpointer engine)
{
  PoolJob *job = data;
  (void) engine;
  job->fn (job->item);
  g_mutex_lock (&job->latch->mu);
  if (--job->latch->pending == 0)
    g_cond_signal (&job->latch->cond);
  g_mutex_unlock (&job->latch->mu);
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
