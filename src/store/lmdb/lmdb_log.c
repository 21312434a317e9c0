/* The lmdb side of the write log (write_log.h): another process's commits
 * are seen through LMDB's transaction ids, which void every plan made
 * before them; the rest is the shared log of this process's commits. */
#include "store/lmdb/lmdb-private.h"

void
ab_lmdb_log_init (LmdbEnv *e)
{
  ab_write_log_init (&e->wlog);
  e->next_txnid = 0;
}

void
ab_lmdb_log_free (LmdbEnv *e)
{
  ab_write_log_free (&e->wlog);
}

/* A write transaction begins. If its id is not the one this process's last
 * commit leads to, another process committed in between, unseen by any
 * plan made so far. */
void
ab_lmdb_log_begin (LmdbEnv *e, MDB_txn *txn)
{
  ab_write_log_begin (&e->wlog, e->next_txnid == 0 || mdb_txn_id (txn) != e->next_txnid);
  e->log_dirty = FALSE;
}

void
ab_lmdb_log_dirtied (LmdbEnv *e)
{
  e->log_dirty = TRUE;
}

void
ab_lmdb_log_key (LmdbEnv *e, const void *key, gsize klen)
{
  ab_write_log_key (&e->wlog, key, klen);
}

/* Transaction txnid committed. lmdb gives the next transaction the id after
 * the last one that wrote pages; a commit that wrote none (only deletes of
 * absent keys, or nothing) leaves the id where it was, and one that may
 * have written pages without a put (deletes) is taken as not having: the
 * next id then looks foreign, which only costs a re-read. */
void
ab_lmdb_log_committed (LmdbEnv *e, gsize txnid)
{
  e->next_txnid = e->log_dirty ? txnid + 1 : txnid;
  ab_write_log_committed (&e->wlog);
}

guint64
ab_lmdb_log_seq (LmdbEnv *e)
{
  return ab_write_log_seq (&e->wlog);
}

gboolean
ab_lmdb_log_written_since (LmdbEnv *e, guint64 seq, const void *key, gsize klen)
{
  return ab_write_log_written_since (&e->wlog, seq, key, klen);
}
