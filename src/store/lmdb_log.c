/* The lmdb write log: which keys this process's recent commits wrote, one
 * Bloom filter per commit in a ring, so that a plan made ahead of its
 * transaction can skip re-reading rows nobody wrote since (store.h). */
#include "store/lmdb-private.h"

#include <string.h>
#include <xxhash.h>

#define LOG_COMMITS 8                /* commits remembered (the ring) */
#define LOG_BITS ((guint64) 1 << 20) /* per commit: 128 KiB, two bits per key */
#define LOG_WORDS (LOG_BITS / 64)    /* a false positive only costs a re-read */

void
ab_lmdb_log_init (LmdbEnv *e)
{
  e->log = g_new0 (guint64, LOG_COMMITS * LOG_WORDS);
  atomic_init (&e->commit_seq, 1); /* 0 means "not tracked" to the engine */
  e->reread_below = 0;
  e->next_txnid = 0;
}

void
ab_lmdb_log_free (LmdbEnv *e)
{
  g_clear_pointer (&e->log, g_free);
}

/* The filter of commit seq. */
static guint64 *
filter (LmdbEnv *e, guint64 seq)
{
  return e->log + (seq % LOG_COMMITS) * LOG_WORDS;
}

/* A write transaction begins: its filter is the next commit's, emptied (a
 * retried group starts it again). If the transaction's id is not the one
 * this process's last commit leads to, another process committed in
 * between, unseen by any plan made so far. */
void
ab_lmdb_log_begin (LmdbEnv *e, MDB_txn *txn)
{
  guint64 now = atomic_load_explicit (&e->commit_seq, memory_order_relaxed);
  if (e->next_txnid == 0 || mdb_txn_id (txn) != e->next_txnid)
    e->reread_below = now + 1;
  e->log_dirty = FALSE;
  memset (filter (e, now + 1), 0, LOG_WORDS * sizeof (guint64));
}

void
ab_lmdb_log_dirtied (LmdbEnv *e)
{
  e->log_dirty = TRUE;
}

static void
bits_of (const void *key, gsize klen, guint64 *a, guint64 *b)
{
  guint64 h = XXH3_64bits (key, klen);
  *a = h % LOG_BITS;
  *b = (h >> 32) % LOG_BITS;
}

void
ab_lmdb_log_key (LmdbEnv *e, const void *key, gsize klen)
{
  guint64 a, b, *f = filter (e, atomic_load_explicit (&e->commit_seq, memory_order_relaxed) + 1);
  bits_of (key, klen, &a, &b);
  f[a / 64] |= (guint64) 1 << (a % 64);
  f[b / 64] |= (guint64) 1 << (b % 64);
}

/* Transaction txnid committed: plans whose reads start from now see it.
 * lmdb gives the next transaction the id after the last one that wrote
 * pages; a commit that wrote none (only deletes of absent keys, or nothing)
 * leaves the id where it was, and one that may have written pages without a
 * put (deletes) is taken as not having: the next id then looks foreign, which
 * only costs a re-read. */
void
ab_lmdb_log_committed (LmdbEnv *e, gsize txnid)
{
  e->next_txnid = e->log_dirty ? txnid + 1 : txnid;
  atomic_fetch_add_explicit (&e->commit_seq, 1, memory_order_release);
}

guint64
ab_lmdb_log_seq (LmdbEnv *e)
{
  return atomic_load_explicit (&e->commit_seq, memory_order_acquire);
}

/* Inside a write transaction: may key have been written by a commit after
 * seq, or by this transaction so far? */
gboolean
ab_lmdb_log_written_since (LmdbEnv *e, guint64 seq, const void *key, gsize klen)
{
  guint64 now = atomic_load_explicit (&e->commit_seq, memory_order_relaxed);
  guint64 a, b;
  if (seq == 0 || seq < e->reread_below || seq > now || now + 1 - seq > LOG_COMMITS)
    return TRUE;
  bits_of (key, klen, &a, &b);
  for (guint64 s = seq + 1; s <= now + 1; s++)
    {
      const guint64 *f = filter (e, s);
      if ((f[a / 64] >> (a % 64) & 1) && (f[b / 64] >> (b % 64) & 1))
        return TRUE;
    }
  return FALSE;
}
