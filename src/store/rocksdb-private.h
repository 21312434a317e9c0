/* Private to the rocksdb backend's files (rocksdb.c: the database of a
 * directory and its reads; rocksdb_write.c: the committer that serialises
 * and groups every write): the shared environment and the helpers both use. */
#pragma once
#include <rocksdb/c.h>
#include "store/backend.h"

/* The first bytes of a key that the prefix extractor hands to the prefix
 * Bloom filters: an edge row's salt, the hash of its (directed source,
 * table, record type), so a node's index scan probes one prefix. */
#define AB_ROCKS_PREFIX 4

/* How a database is opened (the URI's parameters, rocksdb_uri.c). */
typedef struct {
  gsize memory;  /* block cache plus memtables, in bytes (rocksdb-memory) */
  gboolean sync; /* an fsync of the write-ahead log per group commit */
} AbRocksOptions;

typedef struct {
  gint refs;   /* under the registry's lock */
  gchar *path; /* canonical directory, the registry key */
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
  GQueue pending; /* RocksReq* */
  gboolean stopping;
  GThread *committer;             /* started with the environment */
  GThreadPool *completions;       /* runs the done callbacks of settled groups, in order */
  rocksdb_writebatch_wi_t *group; /* the committer's batch, cleared per group */
} RocksEnv;

typedef struct {
  AbStore base;
  RocksEnv *env;
} RocksStore;

RocksEnv *ab_rocks_env_of (AbStore *s);
AbStore *ab_store_rocksdb_new (const gchar *dir, const AbRocksOptions *o, GError **error);
/* Sets error from a RocksDB error string (freed) naming `what`; FALSE. */
gboolean ab_rocks_fail (GError **error, char *err, const gchar *what);

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

/* Writes (rocksdb_write.c). */
void ab_rocks_committer_start (RocksEnv *e);
void ab_rocks_committer_stop (RocksEnv *e);
gboolean ab_rocks_batch (AbStore *s, const AbBatch *b, GError **error);
void ab_rocks_transact (AbStore *s, AbTxnPlan plan, AbTxnDone done, gpointer user);
gboolean ab_rocks_increment (AbStore *s, const guint8 *key, gsize klen, gint64 delta,
                             gint64 *new_value, GError **error);
gboolean ab_rocks_check_and_put (AbStore *s, const guint8 *key, gsize klen, const guint8 *expected,
                                 gsize elen, const guint8 *value, gsize vlen, gboolean *applied,
                                 GError **error);
gboolean ab_rocks_check_and_delete (AbStore *s, const guint8 *key, gsize klen,
                                    const guint8 *expected, gsize elen, gboolean *applied,
                                    GError **error);
