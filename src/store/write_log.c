/* The write log shared by the local backends (write_log.h): a ring of
 * Bloom filters, one per commit of this process, and the commit counter
 * plans read before they read the store. */
#include "store/write_log.h"

#include <stdatomic.h>
#include <string.h>
#include <xxhash.h>

#define LOG_COMMITS 8                /* commits remembered (the ring) */
#define LOG_BITS ((guint64) 1 << 20) /* per commit: 128 KiB, two bits per key */
#define LOG_WORDS (LOG_BITS / 64)    /* a false positive only costs a re-read */

void
ab_write_log_init (AbWriteLog *l)
{
  l->bits = g_new0 (guint64, LOG_COMMITS * LOG_WORDS);
  atomic_init (&l->commit_seq, 1); /* 0 means "not tracked" to the engine */
  l->reread_below = 0;
}

void
ab_write_log_free (AbWriteLog *l)
{
  g_clear_pointer (&l->bits, g_free);
}

/* The filter of commit seq. */
static guint64 *
filter (AbWriteLog *l, guint64 seq)
{
  return l->bits + (seq % LOG_COMMITS) * LOG_WORDS;
}

void
ab_write_log_begin (AbWriteLog *l, gboolean foreign)
{
  guint64 now = atomic_load_explicit (&l->commit_seq, memory_order_relaxed);
  if (foreign)
    l->reread_below = now + 1;
  memset (filter (l, now + 1), 0, LOG_WORDS * sizeof (guint64));
}

static void
bits_of (const void *key, gsize klen, guint64 *a, guint64 *b)
{
  guint64 h = XXH3_64bits (key, klen);
  *a = h % LOG_BITS;
  *b = (h >> 32) % LOG_BITS;
}

void
ab_write_log_key (AbWriteLog *l, const void *key, gsize klen)
{
  guint64 a, b, *f = filter (l, atomic_load_explicit (&l->commit_seq, memory_order_relaxed) + 1);
  bits_of (key, klen, &a, &b);
  f[a / 64] |= (guint64) 1 << (a % 64);
  f[b / 64] |= (guint64) 1 << (b % 64);
}

void
ab_write_log_committed (AbWriteLog *l)
{
  atomic_fetch_add_explicit (&l->commit_seq, 1, memory_order_release);
}

guint64
ab_write_log_seq (AbWriteLog *l)
{
  return atomic_load_explicit (&l->commit_seq, memory_order_acquire);
}

gboolean
ab_write_log_written_since (AbWriteLog *l, guint64 seq, const void *key, gsize klen)
{
  guint64 now = atomic_load_explicit (&l->commit_seq, memory_order_relaxed);
  guint64 a, b;
  if (seq == 0 || seq < l->reread_below || seq > now || now + 1 - seq > LOG_COMMITS)
    return TRUE;
  bits_of (key, klen, &a, &b);
  for (guint64 s = seq + 1; s <= now + 1; s++)
    {
      const guint64 *f = filter (l, s);
      if ((f[a / 64] >> (a % 64) & 1) && (f[b / 64] >> (b % 64) & 1))
        return TRUE;
    }
  return FALSE;
}
