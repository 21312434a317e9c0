/* Private to the rocksdb backend's files (rocksdb.c: the database of a
 * directory and its reads; rocksdb_write.c: the committer that serialises
 * and groups every write; rocksdb_health.c: its /metrics figures): the
 * shared environment and the helpers they use. */
#pragma once
#include <rocksdb/c.h>
#include "store/backend.h"
#include "store/write_log.h"

/* The first bytes of a key that the prefix extractor hands to the prefix
 * Bloom filters: an edge row's salt, the hash of its (directed source,
 * table, record type), so a node's index scan probes one prefix. */
#define AB_ROCKS_PREFIX 4

/* How a database is opened (the URI's parameters, rocksdb_uri.c). */
typedef struct {
  gsize memory;      /* block cache plus memtables, in bytes (rocksdb-memory) */
  gboolean sync;     /* an fsync of the write-ahead log per group commit */
  gboolean readonly; /* beside another process's writer: reads as of the open */
} AbRocksOptions;

typedef struct _AbRocksGroup AbRocksGroup;

typedef struct {
  AbSharedDir dir; /* first: its path and references (shared_dir.c) */
  rocksdb_t *db;
  rocksdb_options_t *options;
  rocksdb_cache_t *cache;
  rocksdb_readoptions_t *point; /* gets: shared, never changed after open */
  rocksdb_writeoptions_t *write;
  AbRocksOptions o;
  /* The committer (rocksdb_write.c): every write of this process goes
   * through one thread, which groups what is queued into one atomic,
   * durable write. */
  GMutex queue_lock;
  GCond work_cond;
  GQueue pending; /* AbQueuedWrite* (backend.h) */
  gboolean stopping;
  GThread *committer;          /* started with the environment */
  GThreadPool *completions;    /* runs the done callbacks of settled groups, in order */
  AbRocksGroup *group;         /* the committer's rows, cleared per group */
  AbWriteLog wlog;             /* the keys of the last groups, for plans made ahead */
  rocksdb_writebatch_t *batch; /* the committer's write, made from them */
  guint8 *operands;            /* merge operands written per counter since its last put,
                     * a sketch by hash (rocksdb_write.c, fold_counter) */
} RocksEnv;

typedef struct {
  AbStore base;
  RocksEnv *env;
} RocksStore;

RocksEnv *ab_rocks_env_of (AbStore *s);
/* The size of one memtable under o's budget (rocksdb.c). */
gsize ab_rocks_memtable_bytes (const AbRocksOptions *o);
/* The free space a write must leave: two memtable flushes and a margin. */
gsize ab_rocks_disk_reserve (const AbRocksOptions *o);
AbStore *ab_store_rocksdb_new (const gchar *dir, const AbRocksOptions *o, GError **error);
/* Sets error from a RocksDB error string (freed) naming `what`; FALSE. */
gboolean ab_rocks_fail (GError **error, char *err, const gchar *what);

/* A walk of r over the database (as of snapshot, when not NULL) with the
 * group's rows on top (when not NULL). */
gboolean ab_rocks_scan_db (RocksEnv *e, const AbScanRange *r, const rocksdb_snapshot_t *snapshot,
                           AbRocksGroup *group, AbScanVisitor visit, gpointer user, GError **error);
/* Puts it on the first key inside r's start. */
void ab_rocks_seek (rocksdb_iterator_t *it, const AbScanRange *r);
gboolean ab_rocks_before_stop (const guint8 *key, gsize klen, const AbScanRange *r);
/* Walks r through an iterator positioned by this function: every row in key
 * order to visit until it returns FALSE, the range ends or its limit is
 * reached. FALSE with error when the iterator reports one. */
gboolean ab_rocks_walk (rocksdb_iterator_t *it, const AbScanRange *r, AbScanVisitor visit,
                        gpointer user, GError **error);
/* Read options for a scan of r (bounds, prefix mode, snapshot or NULL);
 * upper receives the exclusive upper bound the options point to, and must
 * outlive them. */
rocksdb_readoptions_t *ab_rocks_scan_options (const AbScanRange *r,
                                              const rocksdb_snapshot_t *snapshot, GBytes **upper);

/* The health figures of /metrics (rocksdb_health.c), see ab_store_gauges. */
guint ab_rocks_gauges (AbStore *s, AbStoreGauge *out, guint max);

/* Writes (rocksdb_write.c). */
void ab_rocks_committer_start (RocksEnv *e);
void ab_rocks_committer_stop (RocksEnv *e);
guint64 ab_rocks_write_seq (AbStore *s);
/* A write request to the committer (AbStoreVTable.submit). */
gboolean ab_rocks_submit (AbStore *s, AbQueuedWrite *req, GError **error);
/* Ingests the table file at path through the committer, between groups
 * (rocksdb_load.c's commits). */
gboolean ab_rocks_ingest (AbStore *s, const gchar *path, GError **error);
/* A sorted load of s (store.h), NULL on a read-only store. */
AbStoreLoad *ab_rocks_load_new (AbStore *s);
AbStoreTransactFn ab_rocks_transact;

/* The rows of one group commit (rocksdb_group.c): written in order, the
 * latest of a key found by hash, undone to a mark, read merged with the
 * database by a walk, and filled into a write batch in key order. */
AbRocksGroup *ab_rocks_group_new (void);
void ab_rocks_group_free (AbRocksGroup *g);
void ab_rocks_group_clear (AbRocksGroup *g);
guint ab_rocks_group_mark (AbRocksGroup *g);
void ab_rocks_group_rollback (AbRocksGroup *g, guint mark);
/* value NULL: a delete. Bytes are borrowed until the group is cleared,
 * except a value with copy set. */
void ab_rocks_group_write (AbRocksGroup *g, const guint8 *key, gsize klen, const guint8 *value,
                           gsize vlen, gboolean copy);
/* A counter add to key (AB_MUT_ADD): no read; written as a merge operand
 * unless the group put or deleted key before. */
void ab_rocks_group_add (AbRocksGroup *g, const guint8 *key, gsize klen, gint64 delta);
typedef enum {
  AB_ROCKS_FOUND_NONE,  /* the group did not write key */
  AB_ROCKS_FOUND_VALUE, /* *value is its value now (NULL: deleted) */
  AB_ROCKS_FOUND_ADDS,  /* only adds: *sum goes on top of the stored value */
} AbRocksFound;
/* What the group made of key; a folded counter is written into buf. */
AbRocksFound ab_rocks_group_find (AbRocksGroup *g, const guint8 *key, gsize klen,
                                  const guint8 **value, gsize *vlen, gint64 *sum, guint8 buf[8]);
/* base (8 big-endian bytes, or NULL: 0) plus delta, wrapping like a Java
 * long, into out; returns the sum. */
guint64 ab_rocks_counter_add (const guint8 *base, gint64 delta, guint8 out[8]);
/* ab_rocks_walk over the database (it) with the group's rows on top. */
gboolean ab_rocks_group_walk (AbRocksGroup *g, rocksdb_iterator_t *it, const AbScanRange *r,
                              AbScanVisitor visit, gpointer user, GError **error);
/* Asked for each counter the group adds sum to: TRUE and its new value in
 * out to write it as a put, FALSE to write sum as a merge operand. */
typedef gboolean (*AbRocksFold) (gpointer user, const guint8 *key, gsize klen, gint64 sum,
                                 guint8 out[8]);
/* The latest row of every key into wb in key order; returns how many. */
guint ab_rocks_group_fill (AbRocksGroup *g, rocksdb_writebatch_t *wb, AbRocksFold fold,
                           gpointer user);
