/* Private to the lmdb backend's files (lmdb.c, lmdb-snapshot.c): the shared
 * environment of a directory, the store handle, and the helpers both use to
 * begin transactions and walk a scan range. */
#pragma once
#include <lmdb.h>
#include "store/backend.h"
#include "store/write_log.h"

typedef struct {
  AbSharedDir dir; /* first: its path and references (shared_dir.c) */
  MDB_env *env;
  MDB_dbi dbi;
  gsize max_key;
  guint psize; /* LMDB's page size: the map is made of pages this big */
  /* Every transaction holds map_lock shared; resizing the map takes it
   * exclusive, because mdb_env_set_mapsize needs no live transaction. */
  GRWLock map_lock;
  gsize mapsize; /* changed only under map_lock exclusive */
  GMutex pool_lock;
  GPtrArray *read_pool; /* reset read-only MDB_txn*, renewed on reuse */
  GPtrArray *slots;     /* the reader threads' own transactions (lmdb.c), under its lock */
  GMutex queue_lock;
  GCond queue_cond;
  GQueue pending;    /* AbQueuedWrite* (backend.h) waiting for a leader */
  gboolean leader;   /* a thread is running a group */
  GCond gather_cond; /* wakes a gathering leader when a request arrives */
  gboolean gathering;
  guint writers;            /* estimate: group size + requests queued behind it */
  gint64 commit_us;         /* how long the last group took */
  GCond work_cond;          /* wakes the committer: work queued */
  GThread *committer;       /* leads groups of asynchronous requests (lazily started) */
  GThreadPool *completions; /* one thread running the done callbacks of settled groups */
  gboolean stopping;        /* the committer drains the queue and ends */
  gboolean writemap;        /* opened with MDB_WRITEMAP (no nested transactions) */
  /* The write log (lmdb_log.c, write_log.c): which keys the last commits of
   * this process wrote. Only the leading thread touches it, except its
   * commit seq, which any reader may load. */
  AbWriteLog wlog;
  gsize next_txnid;   /* the id this process's last commit leads to; 0 = none */
  gboolean log_dirty; /* this transaction put a row (lmdb advances the id) */
} LmdbEnv;

typedef struct {
  AbStore base;
  LmdbEnv *env;
} LmdbStore;

/* How an environment is opened (the URI's parameters, lmdb_uri.c). */
typedef struct {
  gsize mapsize;     /* the initial map, grown on demand */
  gboolean sync;     /* an fsync per commit */
  gboolean writemap; /* MDB_WRITEMAP: no nested transactions, the process alone on the store */
} AbLmdbOptions;

/* A plan's view of the write transaction it runs in (AB_QUEUED_TXN). */
typedef struct {
  AbStore base;
  LmdbEnv *env;
  MDB_txn *txn;
} LmdbView;
/* Its verbs (lmdb_commit.c): reads through the transaction, no writes. */
extern const AbStoreVTable ab_lmdb_view_vtable;

/* A handle on the environment of dir (lmdb.c; shared by the handles of one
 * directory, whose first opener's options apply). */
AbStore *ab_store_lmdb_new (const gchar *dir, const AbLmdbOptions *o, GError **error);
void ab_lmdb_set_error (GError **error, int rc, const gchar *what);
LmdbEnv *ab_lmdb_env_of (AbStore *s);
/* Begin a transaction with map_lock held shared; on failure the lock is
 * released. *seen receives the map size the transaction runs under. */
int ab_lmdb_begin_locked (LmdbEnv *e, MDB_txn *parent, unsigned flags, MDB_txn **txn, gsize *seen);
/* Doubles the map unless someone changed it since `seen`. */
gboolean ab_lmdb_grow (LmdbEnv *e, gsize seen, GError **error);
GBytes *ab_lmdb_val_bytes (const MDB_val *v);

/* The read verbs (lmdb.c), shared by the store and by a plan's view of its
 * write transaction (lmdb_commit.c). */
AbStoreScanWithFn ab_lmdb_scan_with;
AbStoreGetWithFn ab_lmdb_get_with;
/* The write verbs (lmdb_commit.c): each a request of the group commit. */
gboolean ab_lmdb_submit (AbStore *s, AbQueuedWrite *req, GError **error);
AbStoreTransactFn ab_lmdb_transact;
/* The rows of r in key order to visit (borrowed for the call) until it
 * returns FALSE, the range ends or its limit is reached; 0 or an lmdb error. */
int ab_lmdb_walk (LmdbEnv *e, MDB_txn *txn, const AbScanRange *r, AbScanVisitor visit,
                  gpointer user);
/* Put the cursor on the first key inside the range start. */
int ab_lmdb_scan_position (LmdbEnv *e, MDB_cursor *c, const AbScanRange *r, MDB_val *k, MDB_val *v);
gboolean ab_lmdb_before_stop (const AbScanRange *r, const MDB_val *k);

/* The write log (lmdb_log.c). The leader calls begin when a write
 * transaction starts, key for every key its requests write, dirtied when
 * one of them put a row, committed after the commit; written_since answers the transaction's view. */
void ab_lmdb_log_init (LmdbEnv *e);
void ab_lmdb_log_free (LmdbEnv *e);
void ab_lmdb_log_begin (LmdbEnv *e, MDB_txn *txn);
void ab_lmdb_log_key (LmdbEnv *e, const void *key, gsize klen);
void ab_lmdb_log_dirtied (LmdbEnv *e); /* a request of the transaction put a row */
void ab_lmdb_log_committed (LmdbEnv *e, gsize txnid);
guint64 ab_lmdb_log_seq (LmdbEnv *e);
gboolean ab_lmdb_log_written_since (LmdbEnv *e, guint64 seq, const void *key, gsize klen);

/* Snapshots (lmdb-snapshot.c). */
AbSnapshot *ab_lmdb_snapshot_open (AbStore *s, GError **error);
gboolean ab_lmdb_snapshot_scan (AbSnapshot *base, const AbScanRange *r, AbScanVisitor visit,
                                gpointer user, GError **error);
void ab_lmdb_snapshot_close (AbSnapshot *base);
/* A compacting copy of the environment into dir (lmdb-snapshot.c). */
gboolean ab_lmdb_native_backup (AbStore *s, const gchar *dir, GError **error);
